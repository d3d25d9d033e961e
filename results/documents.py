"""Reading a result document: strict JSON, the JSON Schema, then what the schema cannot say.

Every problem comes back as a DocumentProblem with the JSON pointer of the value at
fault and a plain message. Nothing here touches the database except through the
`known_tests` mapping the caller passes in.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from datetime import datetime
from functools import cache
from pathlib import Path
from typing import Any

import fastjsonschema
import jsonschema
from jsonschema import Draft7Validator

SCHEMA_PATH = Path(__file__).resolve().parent / "schema" / "result-document.schema.json"
SUPPORTED_SCHEMA_VERSIONS = (1, 2)
UNITS_TOLERANCE = 0.01  # bytes/s against IOPS x block size: 1%

# Messages are constants so that tests (and API clients) can rely on them.
TOO_LARGE = "the document is {size} bytes; the limit is {limit} bytes"
NOT_UTF8 = "the document is not UTF-8 text"
NOT_JSON = "the document is not valid JSON: {detail}"
NON_JSON_CONSTANT = "{constant} is not a JSON number"
DUPLICATE_KEY = "the key '{key}' appears twice in one object"
TOO_DEEP = "values are nested too deeply"
NOT_AN_OBJECT = "a result document is a JSON object"
UNSUPPORTED_VERSION = (
    "schema_version {version} is not supported; this site reads versions {supported}"
)
NOT_IN_VERSION = "'{field}' is not part of a schema_version {version} document"
PARTIAL_IN_COMPLETE = "a complete run has no partial result; an interrupted one is incomplete"
MISSING_FIELD = "the required field '{field}' is missing"
UNKNOWN_FIELD = "unknown field '{field}'"
WRONG_TYPE = "must be {expected}, not {actual}"
NOT_ONE_OF = "must be one of {choices}"
NOT_FINITE = "must be a finite number"
NOT_POSITIVE = "must be greater than {limit}"
TOO_SMALL = "must be at least {limit}"
NOT_COMPLETE = "only complete runs can be published; this run is {status}"
NOT_COMPLETE_V1 = (
    "a schema_version 1 document must be complete; an interrupted run is published from "
    "schema_version 2, which marks its last test partial"
)
NO_RESULTS = "the document holds no results, consistency series or TRIM validations"
UNKNOWN_TEST = "unknown test id '{test}'"
WRONG_SECTION = "'{test}' is a {kind} test; it belongs in '{section}'"
DUPLICATE_ENTRY = "{what} appears more than once"
BLOCK_SIZE_MISMATCH = "block_size {value} differs from the {expected} bytes of test '{test}'"
QUEUE_DEPTH_MISMATCH = "queue_depth {value} differs from the {expected} of test '{test}'"
UNITS_MISMATCH = (
    "bytes_per_second {bps:.6g} is not iops x block size ({iops:.6g} x {block_size} = "
    "{expected:.6g}) within 1%"
)
BYTES_MISMATCH = "bytes {value} is not io_count x block size ({expected})"
LATENCY_ORDER = "latency must satisfy min <= mean <= max"
PERCENTILE_ORDER = "latency percentiles must not decrease and must lie within min and max"
TIMES_ORDER = "finished_at is before started_at"
BAD_TIMESTAMP = "'{value}' is not an RFC 3339 date-time with a time zone"


@dataclass(frozen=True)
class DocumentProblem:
    pointer: str
    message: str

    def as_dict(self) -> dict[str, str]:
        return {"pointer": self.pointer, "message": self.message}


class DocumentRejected(Exception):
    """The document cannot be ingested; `problems` lists every reason found."""

    def __init__(self, problems: list[DocumentProblem]):
        self.problems = problems
        super().__init__("; ".join(f"{p.pointer or '/'}: {p.message}" for p in problems))


@dataclass(frozen=True)
class TestSpec:
    """What the checks need to know of a catalog test."""

    identifier: str
    kind: str
    block_size: int
    queue_depth: int


SECTION_OF_KIND = {
    "throughput": "results",
    "consistency": "consistency",
    "trim": "trim",
    "saturation": "saturation",
}


def latency_kind(document: Mapping[str, Any]) -> str:
    """Which latency a document's latency_ns is: "clat" (completion only) for a version 1
    document measured by a tool (loadgen 0.1 measured fio's clat), "lat" (issue to
    completion) otherwise: version 2, and figures published as their article reports them
    (Iometer's response time)."""
    measured = document["source"]["kind"] == "measured"
    return "clat" if document["schema_version"] == 1 and measured else "lat"


def pointer(*parts: Any) -> str:
    return "".join("/" + str(p).replace("~", "~0").replace("/", "~1") for p in parts)


def content_hash(document: Mapping[str, Any]) -> str:
    """SHA-256 of the canonical JSON form: the same content hashes the same, however spaced."""
    canonical = json.dumps(document, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(canonical.encode()).hexdigest()


# -- parsing -----------------------------------------------------------------------------
def _reject_constant(constant: str) -> None:
    raise ValueError(NON_JSON_CONSTANT.format(constant=constant))


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result: dict[str, Any] = {}
    for key, value in pairs:
        if key in result:
            raise ValueError(DUPLICATE_KEY.format(key=key))
        result[key] = value
    return result


def parse(raw: bytes | str, *, max_bytes: int) -> dict[str, Any]:
    """Strict JSON: UTF-8, no NaN/Infinity, no duplicate keys, an object at the top."""
    size = len(raw.encode() if isinstance(raw, str) else raw)
    if size > max_bytes:
        raise DocumentRejected([DocumentProblem("", TOO_LARGE.format(size=size, limit=max_bytes))])
    if isinstance(raw, bytes):
        try:
            raw = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise DocumentRejected([DocumentProblem("", NOT_UTF8)]) from exc
    try:
        document = json.loads(raw, parse_constant=_reject_constant, object_pairs_hook=_unique_keys)
    except json.JSONDecodeError as exc:
        detail = f"{exc.msg} at line {exc.lineno}, column {exc.colno}"
        raise DocumentRejected([DocumentProblem("", NOT_JSON.format(detail=detail))]) from exc
    except ValueError as exc:
        raise DocumentRejected([DocumentProblem("", NOT_JSON.format(detail=exc))]) from exc
    except RecursionError as exc:
        raise DocumentRejected([DocumentProblem("", NOT_JSON.format(detail=TOO_DEEP))]) from exc
    if not isinstance(document, dict):
        raise DocumentRejected([DocumentProblem("", NOT_AN_OBJECT)])
    return document


# -- schema ------------------------------------------------------------------------------
@cache
def schema() -> dict[str, Any]:
    return json.loads(SCHEMA_PATH.read_text())


@cache
def _explaining_validator() -> Draft7Validator:
    """Finds every error and where it is: used to explain a document the fast check refused."""
    return Draft7Validator(schema(), format_checker=Draft7Validator.FORMAT_CHECKER)


@cache
def _fast_check():
    """The same schema compiled to Python: several times faster, but stops at the first error."""
    return fastjsonschema.compile(schema())


JSON_TYPE_NAMES = {
    dict: "an object",
    list: "an array",
    str: "a string",
    bool: "a boolean",
    int: "an integer",
    float: "a number",
    type(None): "null",
}
SCHEMA_TYPE_NAMES = {
    "object": "an object",
    "array": "an array",
    "string": "a string",
    "boolean": "a boolean",
    "integer": "an integer",
    "number": "a number",
    "null": "null",
}


def _forbidden_member(document: dict, error: jsonschema.ValidationError) -> tuple[str, str]:
    """A member the schema's false subschemas forbid: one a version 1 document may not have,
    or a partial result in a complete run. The error names the object, not the member."""
    parent: Any = document
    for part in error.absolute_path:
        parent = parent[part]
    field = next(k for k, v in parent.items() if v is error.instance)
    where = pointer(*error.absolute_path, field)
    if field == "partial" and document.get("status") == "complete":
        return where, PARTIAL_IN_COMPLETE
    return where, NOT_IN_VERSION.format(field=field, version=1)


def _plain_message(error: jsonschema.ValidationError) -> tuple[str, str]:
    """(pointer, message) in words a reviewer understands."""
    where = pointer(*error.absolute_path)
    v, value = error.validator, error.validator_value
    if v == "required":
        missing = next(f for f in value if f not in error.instance)
        return where, MISSING_FIELD.format(field=missing)
    if v == "additionalProperties":
        extra = sorted(set(error.instance) - set(error.schema.get("properties", {})))
        return pointer(*error.absolute_path, extra[0]), UNKNOWN_FIELD.format(field=extra[0])
    if v == "type":
        expected = " or ".join(
            SCHEMA_TYPE_NAMES[t] for t in ([value] if isinstance(value, str) else value)
        )
        return where, WRONG_TYPE.format(
            expected=expected, actual=JSON_TYPE_NAMES[type(error.instance)]
        )
    if v == "enum":
        return where, NOT_ONE_OF.format(choices=", ".join(json.dumps(c) for c in value))
    if v == "const":
        return where, NOT_ONE_OF.format(choices=json.dumps(value))
    if v == "exclusiveMinimum":
        return where, NOT_POSITIVE.format(limit=value)
    if v == "minimum":
        return where, TOO_SMALL.format(limit=value)
    if v in ("oneOf", "anyOf") and error.context:
        # Explain the branch the document meant: the one whose `const` discriminator
        # (such as source.kind) matched.
        branches: dict[int, list] = {}
        for sub in error.context:
            branches.setdefault(sub.relative_schema_path[0], []).append(sub)
        meant = [errs for errs in branches.values() if all(e.validator != "const" for e in errs)]
        chosen = meant[0] if len(meant) == 1 else error.context
        return _plain_message(jsonschema.exceptions.best_match(chosen))
    return where, error.message


def schema_problems(document: dict[str, Any]) -> list[DocumentProblem]:
    version = document.get("schema_version")
    if isinstance(version, int) and version not in SUPPORTED_SCHEMA_VERSIONS:
        supported = " and ".join(str(v) for v in SUPPORTED_SCHEMA_VERSIONS)
        return [
            DocumentProblem(
                "/schema_version", UNSUPPORTED_VERSION.format(version=version, supported=supported)
            )
        ]
    try:
        _fast_check()(document)
        return []
    except fastjsonschema.JsonSchemaValueException as exc:
        refusal = exc
    found = {}
    for error in _explaining_validator().iter_errors(document):
        if error.validator is None and error.schema is False:
            where, message = _forbidden_member(document, error)
        else:
            where, message = _plain_message(error)
        found.setdefault((where, message), DocumentProblem(where, message))
    if not found:
        # The two validators differ on a detail (a format, say): the stricter one decides.
        where = pointer(*refusal.path[1:])
        return [DocumentProblem(where, refusal.message.removeprefix(refusal.name + " "))]
    return sorted(found.values(), key=lambda p: p.pointer)


# -- meaning -----------------------------------------------------------------------------
def _walk_numbers(value: Any, path: tuple) -> Iterator[tuple[tuple, float]]:
    if isinstance(value, float):
        yield path, value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from _walk_numbers(item, (*path, key))
    elif isinstance(value, list) and value and not isinstance(value[0], int):
        for index, item in enumerate(value):
            yield from _walk_numbers(item, (*path, index))


def parse_time(value: str | None) -> datetime | None:
    """An RFC 3339 date-time with its time zone, or None when absent or not one."""
    if value is None:
        return None
    try:
        parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    return parsed if parsed.tzinfo else None


def meaning_problems(
    document: dict[str, Any], known_tests: Mapping[str, TestSpec]
) -> list[DocumentProblem]:
    """Checks that need the catalog or relate several fields. Assumes the schema passed."""
    problems: list[DocumentProblem] = []

    def problem(where: str, message: str) -> None:
        problems.append(DocumentProblem(where, message))

    # 1e999 parses to infinity: JSON allows it, a measurement does not.
    for path, number in _walk_numbers(document, ()):
        if not math.isfinite(number):
            problem(pointer(*path), NOT_FINITE)

    _check_status(document, problem)

    started, finished = document.get("started_at"), document.get("finished_at")
    times = {}
    for field, value in (("started_at", started), ("finished_at", finished)):
        if value is not None:
            times[field] = parse_time(value)
            if times[field] is None:
                problem(f"/{field}", BAD_TIMESTAMP.format(value=value))
    if (
        times.get("started_at")
        and times.get("finished_at")
        and times["finished_at"] < times["started_at"]
    ):
        problem("/finished_at", TIMES_ORDER)

    sections = {name: document.get(name, []) for name in SECTION_OF_KIND.values()}
    if not any(sections.values()):
        problem("", NO_RESULTS)

    for section, entries in sections.items():
        seen: set[tuple] = set()
        for index, entry in enumerate(entries):
            where = pointer(section, index)
            spec = known_tests.get(entry["test"])
            if spec is None:
                problem(f"{where}/test", UNKNOWN_TEST.format(test=entry["test"]))
                continue
            if SECTION_OF_KIND[spec.kind] != section:
                problem(
                    f"{where}/test",
                    WRONG_SECTION.format(
                        test=spec.identifier, kind=spec.kind, section=SECTION_OF_KIND[spec.kind]
                    ),
                )
                continue
            key = (entry["test"], entry.get("pattern"), entry.get("spare_area_percent"))
            if key in seen:
                label = " / ".join(str(k) for k in key if k is not None)
                problem(where, DUPLICATE_ENTRY.format(what=label))
            seen.add(key)
            if section == "results":
                _check_result(entry, spec, where, problem)
            elif section in ("consistency", "saturation"):
                _check_shape(entry, spec, where, problem)
    return problems


def _check_status(document: dict, problem) -> None:
    """Complete runs; from version 2, interrupted ones too, their last test marked partial."""
    status = document["status"]
    if status == "incomplete" and document["schema_version"] == 1:
        problem("/status", NOT_COMPLETE_V1)
    elif status not in ("complete", "incomplete"):
        problem("/status", NOT_COMPLETE.format(status=status))


def _check_shape(entry: dict, spec: TestSpec, where: str, problem) -> None:
    if "block_size" in entry and entry["block_size"] != spec.block_size:
        problem(
            f"{where}/block_size",
            BLOCK_SIZE_MISMATCH.format(
                value=entry["block_size"], expected=spec.block_size, test=spec.identifier
            ),
        )
    if "queue_depth" in entry and entry["queue_depth"] != spec.queue_depth:
        problem(
            f"{where}/queue_depth",
            QUEUE_DEPTH_MISMATCH.format(
                value=entry["queue_depth"], expected=spec.queue_depth, test=spec.identifier
            ),
        )


def _check_result(entry: dict, spec: TestSpec, where: str, problem) -> None:
    _check_shape(entry, spec, where, problem)
    block_size = spec.block_size
    bps, iops = entry.get("bytes_per_second"), entry.get("iops")
    if bps is not None and iops is not None and math.isfinite(bps) and math.isfinite(iops):
        expected = iops * block_size
        if abs(bps - expected) > UNITS_TOLERANCE * expected:
            problem(
                f"{where}/bytes_per_second",
                UNITS_MISMATCH.format(bps=bps, iops=iops, block_size=block_size, expected=expected),
            )
    if (
        "bytes" in entry
        and "io_count" in entry
        and entry["bytes"] != entry["io_count"] * block_size
    ):
        problem(
            f"{where}/bytes",
            BYTES_MISMATCH.format(value=entry["bytes"], expected=entry["io_count"] * block_size),
        )
    latency = entry.get("latency_ns")
    if latency:
        low, mean, high = latency.get("min"), latency.get("mean"), latency.get("max")
        ordered = [v for v in (low, mean, high) if v is not None]
        if ordered != sorted(ordered):
            problem(f"{where}/latency_ns", LATENCY_ORDER)
        percentiles = latency.get("percentiles") or {}
        values = [percentiles[k] for k in sorted(percentiles, key=float)]
        bounded = ([low] if low is not None else []) + values + ([high] if high is not None else [])
        if bounded != sorted(bounded):
            problem(f"{where}/latency_ns/percentiles", PERCENTILE_ORDER)


def validate(document: dict[str, Any], known_tests: Mapping[str, TestSpec]) -> None:
    """Raise DocumentRejected with every problem found: schema first, then meaning."""
    problems = schema_problems(document)
    if not problems:
        problems = meaning_problems(document, known_tests)
    if problems:
        raise DocumentRejected(problems)
