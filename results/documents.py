"""Reading a result document: strict JSON, the JSON Schema, then what the schema cannot say.

Every problem comes back as a DocumentProblem with the JSON pointer of the value at
fault and a plain message. The meaning checks run on every part of the document the schema
passed, so that one reading reports both kinds of problem; a value the schema refused is
checked for meaning once it passes, and the rejection says so (DocumentRejected.note).
Nothing here touches the database except through the `known_tests` mapping the caller
passes in.

What a document may hold is what the database can store and read back: strings without
NUL or lone surrogates, integers within their columns (the schema's maximums), dates
that PostgreSQL and psycopg both read (years 1 to 9999 in UTC), entries whose
duplicate rule is the unique constraint's (entry_key).
"""

from __future__ import annotations

import copy
import hashlib
import json
import math
import re
from collections.abc import Collection, Iterator, Mapping
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta, timezone
from decimal import Decimal
from fractions import Fraction
from functools import cache
from pathlib import Path
from typing import Any

import fastjsonschema
import jsonschema
from jsonschema import Draft7Validator

from core.links import is_http_url
from drives.models import is_placeholder

SCHEMA_PATH = Path(__file__).resolve().parent / "schema" / "result-document.schema.json"
TEST_CATALOG = SCHEMA_PATH.with_name("catalog.json")  # the tests and suites (suite_catalog_sync)
# loadgen's measured run-to-run variation of each test (manage.py run_to_run --write).
TEST_VARIATION = SCHEMA_PATH.with_name("run-to-run.json")
SUPPORTED_SCHEMA_VERSIONS = (1, 2, 3, 4, 5)
UNITS_TOLERANCE = Fraction(1, 100)  # bytes/s against IOPS x block size: 1%
QUOTE_LIMIT = 60  # characters of a submitted value that a message repeats
MAX_PROBLEMS = 100  # problems listed for one document; the rest are summed up
FUTURE_SLACK = timedelta(days=1)  # clocks and time zones: a run may seem up to a day ahead

# Messages are constants so that tests (and API clients) can rely on them.
TOO_LARGE = "the document is {size} bytes; the limit is {limit} bytes"
NOT_UTF8 = "the document is not UTF-8 text"
NOT_JSON = "the document is not valid JSON: {detail}"
NON_JSON_CONSTANT = "{constant} is not a JSON number"
DUPLICATE_KEY = "the key {key} appears twice in one object"
TOO_DEEP = "values are nested too deeply"
NOT_AN_OBJECT = "a result document is a JSON object"
NUL_CHARACTER = "contains a NUL character (\\u0000), which cannot be stored"
LONE_SURROGATE = "contains a lone UTF-16 surrogate escape (\\ud800-\\udfff), which is not text"
BEYOND_64_BITS = "is beyond the 64-bit integers a document may hold"
KEY_NUL_CHARACTER = "a key of this object contains a NUL character (\\u0000)"
KEY_LONE_SURROGATE = "a key of this object contains a lone UTF-16 surrogate escape"
UNSUPPORTED_VERSION = (
    "schema_version {version} is not supported; this site reads versions {supported}"
)
NOT_IN_VERSION = "'{field}' is not part of a schema_version {version} document"
SERIAL_NOT_IN_VERSION_3 = (
    "a schema_version {version} document holds the serial number only as its salted hash, "
    "serial_hash"
)
PARTIAL_IN_COMPLETE = "a complete run has no partial result; an interrupted one is incomplete"
ONE_PARTIAL = (
    "an interrupted run holds one partial entry, the test it was in when interrupted; "
    "{first} is partial already"
)
MISSING_FIELD = "the required field '{field}' is missing"
NEEDS_ONE_OF = "needs at least one of: {fields}"
UNKNOWN_FIELD = "unknown field {field}"
WRONG_TYPE = "must be {expected}, not {actual}"
NOT_ONE_OF = "must be one of {choices}"
NOT_FINITE = "must be a finite number"
NOT_POSITIVE = "must be greater than {limit}"
TOO_SMALL = "must be at least {limit}"
TOO_BIG = "must be at most {limit}"
TOO_LONG = "must be at most {limit} characters long"
EMPTY = "must not be empty"
TOO_MANY_ITEMS = "must hold at most {limit} items"
TOO_FEW_ITEMS = "must hold at least {limit} item(s)"
NO_PROPERTIES = "must hold at least one value"
NO_MATCH = "must match the pattern {pattern}"
BAD_FORMAT = "must be {format}"
NOT_COMPLETE = "only complete runs can be published; this run is {status}"
NOT_COMPLETE_V1 = (
    "a schema_version 1 document must be complete; an interrupted run is published from "
    "schema_version 2, which marks its last test partial"
)
NO_RESULTS = "the document holds no results, consistency series or TRIM validations"
UNKNOWN_TEST = "unknown test id {test}"
WRONG_SECTION = "'{test}' is a {kind} test; it belongs in '{section}'"
DUPLICATE_ENTRY = "{what} appears more than once"
BLOCK_SIZE_MISMATCH = "block_size {value} differs from the {expected} bytes of test '{test}'"
QUEUE_DEPTH_MISMATCH = "queue_depth {value} differs from the {expected} of test '{test}'"
UNITS_MISMATCH = (
    "bytes_per_second {bps:.6g} is not iops x block size ({iops:.6g} x {block_size} = "
    "{expected}) within 1%"
)
BYTES_MISMATCH = "bytes {value} is not io_count x block size ({expected})"
DERIVED_OUT_OF_RANGE = (
    "the {derived} it gives at block size {block_size} is beyond what a double holds"
)
# Below one I/O in about 12 days no drive is being measured, and prices per 1,000 IOPS of
# such a figure overflow the database's arithmetic.
MIN_IOPS = 1e-6
TOO_SLOW = "gives {iops:.3g} IOPS at block size {block_size}: below {minimum:g}, no measured rate"
TIMES_ORDER = "finished_at is before started_at"
BAD_TIMESTAMP = "{value} is not an RFC 3339 date-time with a time zone (2026-11-21T10:00:00Z)"
BAD_DATE = "{value} is not a date (YYYY-MM-DD)"
OUT_OF_RANGE_TIME = "lies outside the years 1 to 9999 (in UTC), which the database can hold"
FUTURE_TIME = "lies in the future (more than a day after the upload)"
MORE_PROBLEMS = "more problems were found; the first {count} are listed"
# What a rejection says of the meaning checks when the schema refused something.
MEANING_CHECKS = "known test ids, rates against block sizes and I/O counts, dates"
MEANING_OF_REFUSED = (
    f"The values the schema refused are checked for meaning ({MEANING_CHECKS}) once they "
    "pass it; the rest of the document was."
)
MEANING_NOT_CHECKED = (
    f"The document is checked for meaning ({MEANING_CHECKS}) once it passes the schema."
)

# Messages for the schema's patterns, in the words of what they ask for.
PATTERN_MESSAGES = {
    "\\S": "must not be blank",
    "^[a-z0-9][a-z0-9-]{0,63}$": "must be a test id: lower-case letters, digits and '-'",
    "^[a-z0-9][a-z0-9-]*$": "must be a suite name: lower-case letters, digits and '-'",
    "^(100|[1-9]?[0-9](\\.[0-9]{1,4})?)$": 'must be a percentile from 0 to 100, e.g. "99.9"',
    "^[-a-zA-Z0-9_]+$": "must be a drive's slug: letters, digits, '-' and '_'",
    "^[0-9a-f]+$": "must be lower-case hexadecimal digits",
    "^(0|[1-9][0-9]{0,3})$": "must be a histogram bucket's index: a decimal number below 10000",
}
FORMAT_NAMES = {
    "date-time": "an RFC 3339 date-time with a time zone (2026-11-21T10:00:00Z)",
    "date": "a date (YYYY-MM-DD)",
}
NOT_HTTP_URL = "must be an http:// or https:// URL without spaces"
PATTERN_MESSAGES["^[Hh][Tt][Tt][Pp][Ss]?://\\S+$"] = NOT_HTTP_URL


@dataclass(frozen=True)
class DocumentProblem:
    pointer: str
    message: str

    def as_dict(self) -> dict[str, str]:
        return {"pointer": self.pointer, "message": self.message}


class DocumentRejected(Exception):
    """The document cannot be ingested; `problems` lists every reason found. `note`: what
    was not checked and when it will be (MEANING_OF_REFUSED, MEANING_NOT_CHECKED), or ""."""

    def __init__(self, problems: list[DocumentProblem], note: str = ""):
        self.problems = problems
        self.note = note
        super().__init__(
            "; ".join(f"{p.pointer or '/'}: {p.message}" for p in problems)
            + (f" ({note})" if note else "")
        )


@dataclass(frozen=True)
class TestSpec:
    """What the checks need to know of a catalog test."""

    identifier: str
    kind: str
    block_size: int
    queue_depth: int
    duration_s: int = 0


SECTION_OF_KIND = {
    "throughput": "results",
    "consistency": "consistency",
    "trim": "trim",
    "saturation": "saturation",
}


LATENCY_KINDS = ("latency_ns", "clat_ns")  # the latency summaries a result may hold
MIXED_SIDES = ("read", "write")  # the directions of a mixed result (rwmixread)


def latency_kind(document: Mapping[str, Any]) -> str:
    """Which latency a document's latency_ns is: "clat" (completion only) for a version 1
    document measured by a tool (loadgen 0.1 measured fio's clat), "lat" (issue to
    completion) otherwise: version 2, and figures published as their article reports them
    (Iometer's response time)."""
    measured = document["source"]["kind"] == "measured"
    return "clat" if document["schema_version"] == 1 and measured else "lat"


# What makes an entry one of a kind within its run. results/models.py builds the unique
# constraints result_unique, consistency_unique and trim_unique from these same fields, so
# the document's duplicate check (entry_key) and the database can never disagree.
ENTRY_IDENTITY = {
    "results": ("test", "pattern", "repeat"),
    "consistency": ("test", "spare_area_percent"),
    "trim": ("test", "pattern"),
    "saturation": ("test", "pattern"),
}
# Values an entry stands for when it leaves a field out: the check and the writer both
# read entries through with_defaults().
ENTRY_DEFAULTS: dict[str, dict[str, Any]] = {
    "results": {"repeat": 1},
    "consistency": {"pattern": "incompressible", "interval_ns": 1_000_000_000},
    "trim": {"pattern": "unspecified"},
    "saturation": {"pattern": "incompressible", "interval_ns": 1_000_000_000},
}


def with_defaults(section: str, entry: Mapping[str, Any]) -> dict[str, Any]:
    """The entry as it is stored: the fields it gives, and the defaults of those it omits."""
    return {**ENTRY_DEFAULTS[section], **entry}


def entry_key(section: str, entry: Mapping[str, Any]) -> tuple:
    """The values of the entry's unique-constraint fields, as stored."""
    stored = with_defaults(section, entry)
    return tuple(stored.get(field) for field in ENTRY_IDENTITY[section])


def _entry_name(section: str, key: tuple) -> str:
    """An entry's identity as a message names it: "randread-4k-qd3 / compressible", a
    repeated test's pass added ("/ repeat 2") when it is not the first."""
    fields = ENTRY_IDENTITY[section]
    return " / ".join(
        f"{field} {value}" if field == "repeat" else str(value)
        for field, value in zip(fields, key, strict=True)
        if not (field == "repeat" and value == 1)
    )


def pointer(*parts: Any) -> str:
    return "".join("/" + str(p).replace("~", "~0").replace("/", "~1") for p in parts)


def quote(value: Any) -> str:
    """A submitted value as a message repeats it: JSON, at most QUOTE_LIMIT characters."""
    text = json.dumps(value, ensure_ascii=False) if isinstance(value, str) else str(value)
    text = text.encode("utf-8", "backslashreplace").decode("utf-8")
    if len(text) > QUOTE_LIMIT:
        text = text[: QUOTE_LIMIT - 1] + "…"
    return text


# -- canonical form ------------------------------------------------------------------------
def _canonical(value: Any) -> Any:
    """Numbers by value: an integral float is the integer it equals (2.56e11 is
    256000000000), -0.0 is 0; everything else as parsed."""
    if isinstance(value, float):
        return int(value) if value.is_integer() else value
    if isinstance(value, dict):
        return {key: _canonical(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_canonical(item) for item in value]
    return value


def content_hash(document: Mapping[str, Any]) -> str:
    """SHA-256 of the canonical JSON form: keys sorted, numbers by value, no spacing. The
    same content hashes the same however it is spaced, ordered or its numbers spelled.
    For a document the schema passed (its nesting is the schema's, a few levels)."""
    canonical = json.dumps(
        _canonical(document), sort_keys=True, separators=(",", ":"), ensure_ascii=False
    )
    return hashlib.sha256(canonical.encode()).hexdigest()


# -- the drive's serial number -------------------------------------------------------------
# loadgen's rule (loadgen/src/ident.c, lg_ident_serial_hash): SHA-256 of the salt and the
# serial's first 255 bytes trimmed of the spaces loadgen trims (loadgen/src/text.c,
# lg_space_length), its first 32 hex digits; no hash for a blank serial.
SERIAL_SALT = "bench.loadgen.serial.v1:"
SERIAL_HASH_DIGITS = 32
_SERIAL_BYTES = 255
_LOADGEN_SPACES = "".join(
    [
        " \t\n\v\f\r\u00a0\u1680",
        *map(chr, range(0x2000, 0x200B)),
        "\u2028\u2029\u202f\u205f\u3000\ufeff",
    ]
)


def serial_hash(serial: str) -> str:
    """The serial number's salted hash exactly as loadgen writes it (target.serial_hash),
    "" for a blank serial."""
    # Bytes that are not whole UTF-8 characters (the cut) stay as they are, as in loadgen.
    kept = serial.encode()[:_SERIAL_BYTES].decode("utf-8", "surrogateescape")
    trimmed = kept.strip(_LOADGEN_SPACES).encode("utf-8", "surrogateescape")
    if not trimmed:
        return ""
    digest = hashlib.sha256(SERIAL_SALT.encode() + trimmed).hexdigest()
    return digest[:SERIAL_HASH_DIGITS]


def hash_serial(document: dict[str, Any]) -> bool:
    """Replace a version 1 or 2 document's `target.serial` by its salted hash,
    `target.serial_hash`, as loadgen writes it from version 3 on (none for a blank
    serial): the serial itself is never stored. Returns whether the document held one."""
    target = document.get("target")
    if not isinstance(target, dict) or "serial" not in target:
        return False
    hashed = serial_hash(target.pop("serial"))
    if hashed:
        target["serial_hash"] = hashed
    return True


# -- parsing -----------------------------------------------------------------------------
def _reject_constant(constant: str) -> None:
    raise ValueError(NON_JSON_CONSTANT.format(constant=constant))


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result: dict[str, Any] = {}
    for key, value in pairs:
        if key in result:
            raise ValueError(DUPLICATE_KEY.format(key=quote(key)))
        result[key] = value
    return result


# JSON can only spell these as escapes: \u0000, and a \ud800-\udfff not part of a pair.
_UNSTORABLE_ESCAPE = re.compile(r"\\u(?:0000|[dD][89a-fA-F][0-9a-fA-F]{2})")
_UNSTORABLE_CHARACTER = re.compile("[\x00\ud800-\udfff]")


def _unstorable_text(document: dict) -> Iterator[DocumentProblem]:
    """NUL characters (PostgreSQL text cannot hold them) and lone surrogates (not text:
    they cannot be encoded, hashed or stored), in any string or key. Iterative: the
    document may be nested as deep as the JSON parser allows."""
    stack: list[tuple[tuple, Any]] = [((), document)]
    while stack:
        path, value = stack.pop()
        if isinstance(value, str):
            found = _UNSTORABLE_CHARACTER.search(value)
            if found:
                nul = found.group() == "\x00"
                yield DocumentProblem(pointer(*path), NUL_CHARACTER if nul else LONE_SURROGATE)
        elif isinstance(value, dict):
            for key, item in value.items():
                found = _UNSTORABLE_CHARACTER.search(key)
                if found:
                    nul = found.group() == "\x00"
                    yield DocumentProblem(
                        pointer(*path), KEY_NUL_CHARACTER if nul else KEY_LONE_SURROGATE
                    )
                else:
                    stack.append(((*path, key), item))
        elif isinstance(value, list):
            stack.extend(((*path, index), item) for index, item in enumerate(value))


# An integer beyond 64 bits (below -2^63 or from 2^64) has at least 19 digits.
_LONG_DIGITS = re.compile(r"[0-9]{19}")
INT64_RANGE = (-(2**63), 2**64)


class ParsedDocument(dict):
    """What parse() returns: the document, and whether its text holds a run of 19 digits
    (only then can an integer in it be beyond 64 bits; validate looks no further)."""

    long_digits = True


def _beyond_64_bits(document: dict) -> Iterator[DocumentProblem]:
    """Integers no 64-bit column, signed or not, can hold, wherever they are (a number the
    schema leaves unbounded would otherwise be stored as a rounded float, or not at all)."""
    stack: list[tuple[tuple, Any]] = [((), document)]
    low, high = INT64_RANGE
    while stack:
        path, value = stack.pop()
        if type(value) is int and not low <= value < high:
            yield DocumentProblem(pointer(*path), BEYOND_64_BITS)
        elif isinstance(value, dict):
            stack.extend(((*path, key), item) for key, item in value.items())
        elif isinstance(value, list):
            stack.extend(((*path, index), item) for index, item in enumerate(value))


def parse(raw: bytes | str, *, max_bytes: int) -> dict[str, Any]:
    """Strict JSON: UTF-8, no NaN/Infinity, no duplicate keys, an object at the top, no
    string that PostgreSQL cannot store. (Integers beyond 64 bits: validate.)"""
    if isinstance(raw, str):
        try:
            raw = raw.encode("utf-8")
        except UnicodeEncodeError as exc:  # a str holding lone surrogates
            raise DocumentRejected([DocumentProblem("", NOT_UTF8)]) from exc
    if len(raw) > max_bytes:
        raise DocumentRejected(
            [DocumentProblem("", TOO_LARGE.format(size=len(raw), limit=max_bytes))]
        )
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise DocumentRejected([DocumentProblem("", NOT_UTF8)]) from exc
    try:
        document = json.loads(text, parse_constant=_reject_constant, object_pairs_hook=_unique_keys)
    except json.JSONDecodeError as exc:
        detail = f"{exc.msg} at line {exc.lineno}, column {exc.colno}"
        raise DocumentRejected([DocumentProblem("", NOT_JSON.format(detail=detail))]) from exc
    except ValueError as exc:  # a constant, a duplicate key, an integer of > 4300 digits
        raise DocumentRejected([DocumentProblem("", NOT_JSON.format(detail=exc))]) from exc
    except RecursionError as exc:
        raise DocumentRejected([DocumentProblem("", NOT_JSON.format(detail=TOO_DEEP))]) from exc
    if not isinstance(document, dict):
        raise DocumentRejected([DocumentProblem("", NOT_AN_OBJECT)])
    if _UNSTORABLE_ESCAPE.search(text):  # rare: only then walk every string
        problems = sorted(_unstorable_text(document), key=lambda p: p.pointer)
        if problems:
            raise DocumentRejected(capped(problems))
    document = ParsedDocument(document)
    document.long_digits = _LONG_DIGITS.search(text) is not None
    return document


def capped(problems: list[DocumentProblem]) -> list[DocumentProblem]:
    """At most MAX_PROBLEMS problems, and a last one saying more were found."""
    if len(problems) <= MAX_PROBLEMS:
        return problems
    return problems[:MAX_PROBLEMS] + [DocumentProblem("", MORE_PROBLEMS.format(count=MAX_PROBLEMS))]


# -- schema ------------------------------------------------------------------------------
@cache
def schema() -> dict[str, Any]:
    return json.loads(SCHEMA_PATH.read_text())


# The two validators below must agree on every document, or a document refused by the
# fast check would go unexplained. So they share the format checks (syntax only: the
# calendar, the range and the future are the meaning checks' business), and the
# explaining validator reads `$` in a pattern as JSON Schema (ECMA 262) does, as the end
# of the string, where Python's re would also let it match before a final newline.
_RFC3339 = re.compile(
    r"(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?(?:([Zz])|([+-])(\d{2}):(\d{2}))"
)
_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")
FORMATS = {
    "date-time": lambda value: _RFC3339.fullmatch(value) is not None,
    "date": lambda value: _DATE.fullmatch(value) is not None,
}
_DOLLAR = re.compile(r"(?<!\\)\$")


@cache
def _ecma_regex(pattern: str) -> re.Pattern:
    return re.compile(_DOLLAR.sub(r"\\Z", pattern))


def _ecma_pattern(validator, pattern, instance, schema):
    if validator.is_type(instance, "string") and not _ecma_regex(pattern).search(instance):
        yield jsonschema.ValidationError(f"does not match {pattern}")


@cache
def _explaining_validator() -> Draft7Validator:
    """Finds every error and where it is: used to explain a document the fast check refused."""
    checker = jsonschema.FormatChecker(formats=())
    for name, check in FORMATS.items():
        checker.checks(name)(lambda value, check=check: not isinstance(value, str) or check(value))
    validator = jsonschema.validators.extend(Draft7Validator, {"pattern": _ecma_pattern})
    return validator(schema(), format_checker=checker)


def warm() -> None:
    """Compile the schema's fast check now (a quarter of a second): a server's warm-up does
    it once for every worker (benchsite.warmup), which would otherwise each compile it on
    their first upload while the requests behind it queue."""
    _fast_check()


@cache
def _fast_check():
    """The same schema compiled to Python: several times faster, but stops at the first error.
    Compiled from a copy: fastjsonschema rewrites the references of the schema it is given
    in place (to absolute addresses), and schema() is everyone's."""
    return fastjsonschema.compile(copy.deepcopy(schema()), formats=FORMATS)


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


LIMIT_MESSAGES = {
    "exclusiveMinimum": NOT_POSITIVE,
    "minimum": TOO_SMALL,
    "maximum": TOO_BIG,
    "maxLength": TOO_LONG,
    "maxItems": TOO_MANY_ITEMS,
    "minItems": TOO_FEW_ITEMS,
}


def _forbidden_member(document: dict, error: jsonschema.ValidationError) -> tuple[tuple, str]:
    """A member the schema's false subschemas forbid (its path, and the message): one a
    later version added, the raw serial in a version 3 document, or a partial result in a
    complete run. The error names the object, not the member."""
    parent: Any = document
    for part in error.absolute_path:
        parent = parent[part]
    field = next(k for k, v in parent.items() if v is error.instance)
    where = (*error.absolute_path, field)
    if field == "partial" and document.get("status") == "complete":
        return where, PARTIAL_IN_COMPLETE
    version = document.get("schema_version")
    if where == ("target", "serial") and version in (3, 4, 5):
        return where, SERIAL_NOT_IN_VERSION_3.format(version=version)
    return where, NOT_IN_VERSION.format(field=field, version=version)


def _refused(error: jsonschema.ValidationError) -> list[tuple]:
    """The paths of the values an error of the schema refuses, which the meaning checks
    leave out: the value it is about, or the unknown members it names; none where what is
    wrong is a member absent (required, one of several, a dependency), the rest of the
    object being as the schema says."""
    path = tuple(error.absolute_path)
    if error.validator in ("required", "dependencies"):
        return []
    if (
        error.validator == "anyOf"
        and error.context
        and all(e.validator == "required" for e in error.context)
    ):
        return []
    if error.validator == "additionalProperties":
        return [
            (*path, key) for key in set(error.instance) - set(error.schema.get("properties", {}))
        ]
    return [path]


def _plain_message(error: jsonschema.ValidationError) -> tuple[str, str]:
    """(pointer, message) in words a reviewer understands. A message never repeats more
    than QUOTE_LIMIT characters of the document."""
    where = pointer(*error.absolute_path)
    v, value = error.validator, error.validator_value
    if v == "required":
        missing = next(f for f in value if f not in error.instance)
        return where, MISSING_FIELD.format(field=missing)
    if v == "additionalProperties":
        extra = sorted(set(error.instance) - set(error.schema.get("properties", {})))
        if len(extra[0]) > QUOTE_LIMIT:  # a pointer must not carry a megabyte key
            return where, UNKNOWN_FIELD.format(field=quote(extra[0]))
        return pointer(*error.absolute_path, extra[0]), UNKNOWN_FIELD.format(field=quote(extra[0]))
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
    if v in LIMIT_MESSAGES:
        return where, LIMIT_MESSAGES[v].format(limit=value)
    if v == "minLength":
        return where, EMPTY
    if v == "minProperties":
        return where, NO_PROPERTIES
    if v == "pattern":
        message = PATTERN_MESSAGES.get(value, NO_MATCH.format(pattern=value))
        if "propertyNames" in error.schema_path:
            return where, f"the key {quote(error.instance)}: {message}"
        return where, message
    if v == "format":
        return where, BAD_FORMAT.format(format=FORMAT_NAMES.get(value, value))
    if v == "anyOf" and error.context and all(e.validator == "required" for e in error.context):
        # Alternatives that each ask for one field: name them all.
        fields = {"/".join(map(str, (*e.relative_path, *e.validator_value))) for e in error.context}
        return where, NEEDS_ONE_OF.format(fields=", ".join(sorted(fields)))
    return where, quote(error.message)


def _plain_messages(error: jsonschema.ValidationError) -> list[tuple[str, str]]:
    """_plain_message, except that a oneOf or anyOf the document meant one branch of
    (the one whose `const` discriminator, such as source.kind, matched) is explained by
    every error of that branch."""
    if error.validator in ("oneOf", "anyOf") and error.context:
        branches: dict[int, list] = {}
        for sub in error.context:
            branches.setdefault(sub.relative_schema_path[0], []).append(sub)
        meant = [errs for errs in branches.values() if all(e.validator != "const" for e in errs)]
        if len(meant) == 1:
            return [found for sub in meant[0] for found in _plain_messages(sub)]
        discriminators = [e for e in error.context if e.validator == "const"]
        if not meant and len({tuple(e.absolute_path) for e in discriminators}) == 1:
            # The discriminator matches no branch: say which values it may take.
            choices = ", ".join(json.dumps(e.validator_value) for e in discriminators)
            return [(pointer(*discriminators[0].absolute_path), NOT_ONE_OF.format(choices=choices))]
        if not all(e.validator == "required" for e in error.context):
            return _plain_messages(jsonschema.exceptions.best_match(error.context))
    return [_plain_message(error)]


def schema_problems(document: dict[str, Any]) -> list[DocumentProblem]:
    return _schema_check(document)[0]


def _schema_check(document: dict[str, Any]) -> tuple[list[DocumentProblem], list[tuple] | None]:
    """The schema's problems with the document, and the paths of the values it refused
    (_refused); None where they cannot be told: a version this site does not read, more
    problems than are listed, or a refusal the explaining validator does not find."""
    version = document.get("schema_version")
    if isinstance(version, int) and version not in SUPPORTED_SCHEMA_VERSIONS:
        *earlier, last = (str(v) for v in SUPPORTED_SCHEMA_VERSIONS)
        supported = f"{', '.join(earlier)} and {last}" if earlier else last
        message = UNSUPPORTED_VERSION.format(version=quote(version), supported=supported)
        return [DocumentProblem("/schema_version", message)], None
    try:
        _fast_check()(document)
        return [], []
    except fastjsonschema.JsonSchemaValueException as exc:
        refusal = exc
    found: dict[tuple[str, str], DocumentProblem] = {}
    refused: list[tuple] | None = []
    for error in _explaining_validator().iter_errors(document):
        if error.validator is None and error.schema is False:
            path, message = _forbidden_member(document, error)
            messages = [(pointer(*path), message)]
            refused.append(path)
        else:
            messages = _plain_messages(error)
            refused.extend(_refused(error))
        for where, message in messages:
            found.setdefault((where, message), DocumentProblem(where, message))
        if len(found) > MAX_PROBLEMS:
            refused = None
            break
    if not found:
        # The two validators differ on a detail (a format, say): the stricter one decides.
        where = pointer(*refusal.path[1:])
        message = quote(refusal.message.removeprefix(refusal.name + " "))
        return [DocumentProblem(where, message)], None
    return capped(sorted(found.values(), key=lambda p: p.pointer)), refused


def _without(value: Any, paths: list[tuple]) -> Any:
    """`value` without the values at `paths` (within it): a member left out of its object,
    an item of an array made null (the others keep their places, so pointers still hold).
    Only the objects and arrays on the way to them are copied."""
    within: dict[Any, list[tuple]] = {}
    for head, *rest in paths:
        within.setdefault(head, []).append(tuple(rest))
    kept: dict | list
    if isinstance(value, dict):
        kept = {key: item for key, item in value.items() if () not in within.get(key, ())}
    else:
        kept = [None if () in within.get(i, ()) else item for i, item in enumerate(value)]
    for key, rest in within.items():  # keys of the document's own values
        if () not in rest and isinstance(kept[key], (dict, list)):
            kept[key] = _without(kept[key], rest)
    return kept


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


def _read_time(value: str) -> datetime | str:
    """An RFC 3339 date-time in UTC, or the message saying why it is not one."""
    match = _RFC3339.fullmatch(value)
    if match is None:
        return BAD_TIMESTAMP.format(value=quote(value))
    year, month, day, hour, minute, second, fraction, zulu, sign, off_h, off_m = match.groups()
    if int(year) == 0:
        return OUT_OF_RANGE_TIME
    if not zulu and (int(off_h) > 23 or int(off_m) > 59):
        return BAD_TIMESTAMP.format(value=quote(value))
    offset = timedelta(0) if zulu else timedelta(hours=int(off_h), minutes=int(off_m))
    try:
        local = datetime(
            int(year),
            int(month),
            int(day),
            int(hour),
            int(minute),
            int(second),
            int((fraction or "")[:6].ljust(6, "0")),  # the database keeps microseconds
            tzinfo=timezone(-offset if sign == "-" else offset),
        )
    except ValueError:  # a day, hour or second that does not exist (leap seconds included)
        return BAD_TIMESTAMP.format(value=quote(value))
    try:
        return local.astimezone(UTC)
    except OverflowError:  # 0001-01-01T00:30+01:00 is in year 0 in UTC
        return OUT_OF_RANGE_TIME


def parse_time(value: str | None) -> datetime | None:
    """An RFC 3339 date-time in UTC, or None when absent or not one that the database can
    store and read back (years 1 to 9999 in UTC)."""
    if value is None:
        return None
    read = _read_time(value)
    return read if isinstance(read, datetime) else None


def _read_date(value: str) -> date | str:
    """A calendar date YYYY-MM-DD, or the message saying why it is not one."""
    if not _DATE.fullmatch(value):
        return BAD_DATE.format(value=quote(value))
    if value.startswith("0000"):
        return OUT_OF_RANGE_TIME
    try:
        return date.fromisoformat(value)
    except ValueError:
        return BAD_DATE.format(value=quote(value))


def parse_date(value: str) -> date | None:
    """A calendar date YYYY-MM-DD, or None when it is not one."""
    read = _read_date(value)
    return read if isinstance(read, date) else None


def _when_problem(read: datetime | date | str, now: datetime) -> str | None:
    """Why a date or date-time read from the document cannot be stored, or None."""
    if isinstance(read, str):
        return read
    if isinstance(read, datetime):
        return FUTURE_TIME if read > now + FUTURE_SLACK else None
    return FUTURE_TIME if read > (now + FUTURE_SLACK).date() else None


def meaning_problems(
    document: dict[str, Any],
    known_tests: Mapping[str, TestSpec],
    *,
    refused: Collection[tuple] = (),
) -> list[DocumentProblem]:
    """Checks that need the catalog or relate several fields, of what the schema passed:
    the whole document, or the document without the values it refused (`refused`, their
    paths: validate leaves them out with _without). A check skips what it reads that is
    not there: a member absent, an array's item refused (null)."""
    problems: list[DocumentProblem] = []
    now = datetime.now(UTC)

    def problem(where: str, message: str) -> None:
        problems.append(DocumentProblem(where, message))

    # 1e999 parses to infinity: JSON allows it, a measurement does not.
    for path, number in _walk_numbers(document, ()):
        if not math.isfinite(number):
            problem(pointer(*path), NOT_FINITE)

    _check_status(document, problem)

    when = {}
    for field in ("started_at", "finished_at"):
        if field in document:
            when[field] = _read_time(document[field])
            message = _when_problem(when[field], now)
            if message:
                problem(f"/{field}", message)
    started, finished = when.get("started_at"), when.get("finished_at")
    if isinstance(started, datetime) and isinstance(finished, datetime) and finished < started:
        problem("/finished_at", TIMES_ORDER)

    citation = document.get("source", {}).get("citation")
    if citation:
        if "published_on" in citation:
            message = _when_problem(_read_date(citation["published_on"]), now)
            if message:
                problem("/source/citation/published_on", message)
        if "url" in citation and not is_http_url(citation["url"]):
            problem("/source/citation/url", NOT_HTTP_URL)

    sections = {name: document.get(name, []) for name in SECTION_OF_KIND.values()}
    # A section the schema refused whole may have held entries.
    if not any(sections.values()) and not any(path[:1] in sections for path in refused):
        problem("", NO_RESULTS)

    partial = None  # the first partial entry: an interrupted run has one
    for section, entries in sections.items():
        seen: set[tuple] = set()
        for index, entry in enumerate(entries):
            if entry is None or "test" not in entry:  # refused, or without its test
                continue
            where = pointer(section, index)
            if entry.get("partial"):
                if partial is not None:
                    problem(f"{where}/partial", ONE_PARTIAL.format(first=partial))
                partial = partial or where
            spec = known_tests.get(entry["test"])
            if spec is None:
                problem(f"{where}/test", UNKNOWN_TEST.format(test=quote(entry["test"])))
                continue
            if SECTION_OF_KIND[spec.kind] != section:
                problem(
                    f"{where}/test",
                    WRONG_SECTION.format(
                        test=spec.identifier, kind=spec.kind, section=SECTION_OF_KIND[spec.kind]
                    ),
                )
                continue
            key = entry_key(section, entry)
            if key in seen:
                problem(where, DUPLICATE_ENTRY.format(what=_entry_name(section, key)))
            seen.add(key)
            if section == "results":
                _check_result(entry, spec, where, problem)
            elif section in ("consistency", "saturation"):
                _check_shape(entry, spec, where, problem)
    return capped(problems)


def _check_status(document: dict, problem) -> None:
    """Complete runs; from version 2, interrupted ones too, their last test marked partial."""
    status = document.get("status")
    if status is None:
        return
    if status == "incomplete" and document.get("schema_version") == 1:
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
    _check_units(entry, block_size, where, problem)
    # The leaderboard derives the figure not given (in float8, as here): it must be one.
    bps, iops = entry.get("bytes_per_second"), entry.get("iops")
    if bps is None and iops is not None and math.isinf(iops * block_size):
        problem(
            f"{where}/iops",
            DERIVED_OUT_OF_RANGE.format(derived="bytes_per_second", block_size=block_size),
        )
    underflow = iops is None and bps is not None and bps / block_size == 0
    if underflow:
        problem(
            f"{where}/bytes_per_second",
            DERIVED_OUT_OF_RANGE.format(derived="iops", block_size=block_size),
        )
    rate = iops if iops is not None else (bps / block_size if bps is not None else None)
    rate_field = f"{where}/{'iops' if iops is not None else 'bytes_per_second'}"
    if rate is not None and math.isfinite(rate) and 0 < rate < MIN_IOPS:
        problem(rate_field, TOO_SLOW.format(iops=rate, block_size=block_size, minimum=MIN_IOPS))
    if (
        "bytes" in entry
        and "io_count" in entry
        and entry["bytes"] != entry["io_count"] * block_size
    ):
        problem(
            f"{where}/bytes",
            BYTES_MISMATCH.format(value=entry["bytes"], expected=entry["io_count"] * block_size),
        )
    # A mixed test: its reads and its writes, each with a result's figures (what they
    # must add up to is the plausibility model's, results.plausibility).
    for side in MIXED_SIDES:
        if side in entry:
            _check_units(entry[side], block_size, f"{where}/{side}", problem)


def _check_units(figures: dict, block_size: int, where: str, problem) -> None:
    bps, iops = figures.get("bytes_per_second"), figures.get("iops")
    if bps is not None and iops is not None and math.isfinite(bps) and math.isfinite(iops):
        # In exact rationals: iops x block size in floats overflows to infinity for a
        # large enough iops, and infinity would pass any comparison with it.
        expected = Fraction(iops) * block_size
        if abs(Fraction(bps) - expected) > UNITS_TOLERANCE * expected:
            problem(
                f"{where}/bytes_per_second",
                UNITS_MISMATCH.format(
                    bps=bps,
                    iops=iops,
                    block_size=block_size,
                    expected=_approx(Decimal(iops) * block_size),
                ),
            )


def _approx(value: Decimal) -> str:
    """A number for a message to six significant digits, however large (a float would
    overflow), without trailing zeros: 4.096e+309."""
    mantissa, e, exponent = f"{value:.6g}".partition("e")
    if "." in mantissa:
        mantissa = mantissa.rstrip("0").rstrip(".")
    return mantissa + e + exponent


def validate(document: dict[str, Any], known_tests: Mapping[str, TestSpec]) -> None:
    """Raise DocumentRejected with every problem found: the schema's, then the meaning
    checks' of every part the schema passed (a value it refused is left out of them, and the
    rejection's note says it is checked once it passes; where the values refused cannot be
    told, the meaning checks wait for the schema to pass, and the note says that), then,
    when nothing else was found, integers beyond 64 bits where the schema sets no bound (a
    bounded one is the schema's "must be at most")."""
    problems, refused = _schema_check(document)
    note = ""
    if not problems:
        problems = meaning_problems(document, known_tests)
    elif refused is None or () in refused:
        note = MEANING_NOT_CHECKED
    else:
        passed = _without(document, refused) if refused else document
        meaning = meaning_problems(passed, known_tests, refused=refused)
        problems = capped([*problems, *meaning])
        note = MEANING_OF_REFUSED if refused else ""
    long_digits = getattr(document, "long_digits", None)
    if long_digits is None:  # not from parse(): look at its JSON
        long_digits = _LONG_DIGITS.search(json.dumps(document)) is not None
    if not problems and long_digits:  # rare: only then walk every number
        problems = capped(sorted(_beyond_64_bits(document), key=lambda p: p.pointer))
    if problems:
        raise DocumentRejected(problems, note)


# -- a document read for ingest --------------------------------------------------------------
# Ingest reads a document once, here, into a Reading: every fact its run and drive are
# written from. The stages after it (results.services.run_ingest) take the Reading and never
# come back: the drive resolved (drives.services), the figures judged (results.plausibility),
# the run and each kind's rows written (results.kinds), the read models refreshed.

# The test bench's fields (results.models.TestBench.FIELDS): described by the reviewer (the
# document's `bench`), the rest as the tool read them (`host`, `target`).
BENCH_FIELDS = (
    "name",
    "cpu",
    "motherboard",
    "chipset",
    "memory",
    "os",
    "kernel",
    "storage_driver",
    "interface",
    "link",
)
BENCH_FIELD_LENGTH = 200

UNNAMED_DRIVE = (
    "the drive is not named ({field} {value}) and the tool read no {field} from it: name it "
    "in the drive block, with loadgen's --drive manufacturer=...,model=... or --drive "
    "slug=<the catalog drive's slug>"
)
# The identity a tool read from the drive (schema version 3: target.vendor, target.model),
# for each name of the drive block.
IDENTITY = {"manufacturer": "vendor", "model": "model"}


def drive_spec(document: Mapping[str, Any]) -> dict[str, Any]:
    """The drive block a document names its drive by: a name that names nothing
    (drives.models.is_placeholder, loadgen's "unknown") left out beside a slug, which
    names the drive alone, else replaced by the identity the tool read from the drive
    (target).
    Raises DocumentRejected at each name neither gives: a document never lands on a shared
    placeholder drive."""
    spec = dict(document["drive"])
    target = document.get("target") or {}
    problems = []
    for name, read in IDENTITY.items():
        if not is_placeholder(spec.get(name, "")):
            continue
        if "slug" in spec:
            spec.pop(name, None)
        elif not is_placeholder(target.get(read) or ""):
            spec[name] = target[read].strip()
        else:
            problems.append(
                DocumentProblem(
                    pointer("drive", name),
                    UNNAMED_DRIVE.format(field=name, value=quote(spec[name])),
                )
            )
    if problems:
        raise DocumentRejected(problems)
    return spec


def bench_fields(document: Mapping[str, Any]) -> dict[str, str] | None:
    """A document's test bench (BENCH_FIELDS): each field as its `bench` gives it (empty
    too), else as the tool read it (`host`: CPU and how many, memory, OS and kernel;
    `target`: the drive's interface and negotiated link); None when it says nothing of
    either."""
    given = document.get("bench") or {}
    host, target = document.get("host") or {}, document.get("target") or {}
    cpu, count, memory = host.get("cpu", ""), host.get("cpu_count"), host.get("memory_bytes")
    read = {
        "cpu": f"{cpu} ({count} CPUs)" if cpu and count else cpu,
        "memory": f"{memory / 2**30:.1f} GiB" if memory else "",
        "os": host.get("os", ""),
        "kernel": host.get("kernel", ""),
        "link": ", ".join(filter(None, (target.get("interface"), target.get("link")))),
    }
    fields = {
        f: (given[f] if f in given else read.get(f, ""))[:BENCH_FIELD_LENGTH] for f in BENCH_FIELDS
    }
    return fields if any(fields.values()) else None


def test_specs(tests: Mapping[str, Any]) -> dict[str, TestSpec]:
    """The TestSpec of each catalog test (results.models.Test), by its id."""
    return {
        t.identifier: TestSpec(t.identifier, t.kind, t.block_size, t.queue_depth, t.duration_s)
        for t in tests.values()
    }


@dataclass(frozen=True)
class Reading:
    """A result document read and checked (read()): what its run is written from."""

    document: dict[str, Any]  # as parsed, a version 1 or 2 serial replaced by its hash
    text: str  # what the run stores: the document as submitted, or without its serial
    digest: str  # content_hash of the document as submitted
    drive: dict[str, Any]  # the drive block it names its drive by (drive_spec)
    suite: dict[str, Any] | None  # parameters.suite: name and version
    firmware: str
    bench: dict[str, str] | None  # the test bench's fields (bench_fields)
    citation: dict[str, Any] | None  # a published source's citation, published_on a date
    citation_locator: str
    run: dict[str, Any]  # the rest of the run, by the names of results.models.Run's fields


def read(raw: bytes | str, known_tests: Mapping[str, TestSpec], *, max_bytes: int) -> Reading:
    """A submitted document parsed, validated (the schema, then the meaning checks) and read
    once into what ingest writes. Raises DocumentRejected with every problem found."""
    document = parse(raw, max_bytes=max_bytes)
    validate(document, known_tests)
    digest = content_hash(document)
    drive = drive_spec(document)
    if hash_serial(document):
        text = json.dumps(document, ensure_ascii=False)
    else:
        text = raw.decode("utf-8") if isinstance(raw, bytes) else raw
    source, tool = document["source"], document["tool"]
    citation, locator = None, ""
    if source["kind"] == "published":
        given = source["citation"]
        citation = {
            "publisher": given["publisher"],
            "title": given["title"],
            "published_on": parse_date(given["published_on"]),
            "author": given.get("author", ""),
            "url": given.get("url", ""),
            "rate_unit": given.get("rate_unit", ""),
            "rate_unit_bytes": given.get("rate_unit_bytes"),
        }
        locator = given.get("locator", "")
    return Reading(
        document=document,
        text=text,
        digest=digest,
        drive=drive,
        suite=document.get("parameters", {}).get("suite") or None,
        firmware=document["drive"].get("firmware") or "",
        bench=bench_fields(document),
        citation=citation,
        citation_locator=locator,
        run={
            "tool_name": tool["name"],
            "tool_version": tool.get("version", ""),
            "engine": tool.get("engine", ""),
            "started_at": parse_time(document.get("started_at")),
            "finished_at": parse_time(document.get("finished_at")),
            "source": source["kind"],
            "schema_version": document["schema_version"],
            "unit_hash": document.get("target", {}).get("serial_hash", ""),
            "complete": document["status"] == "complete",
            **({"drive_state": document["drive_state"]} if "drive_state" in document else {}),
        },
    )
