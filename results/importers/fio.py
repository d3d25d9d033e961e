"""fio's JSON output (fio 3.x, `--output-format=json` or `json+`) as a result document.

Public surface
--------------
`fio_document(*, fio_json, drive, bench=None, drive_state="unknown") -> FioConversion`
    Pure (no database). `fio_json` is fio's output, bytes (UTF-8, or UTF-16 with its byte
    order mark, as PowerShell's `>` writes it) or text; lines fio printed before or after
    its JSON (`fio: pid=..., err=...`, notes) are skipped. Plain `json`, `json+` (its
    histogram bins are not used) and client/server mode (`client_stats`) are read.
    `drive`, `bench` and `drive_state` are what fio cannot know, in the result document's
    own shape (the schema checks them in run_ingest). Returns the document
    (schema version 1, `source.kind` "measured"), the jobs that became results (`mapped`)
    and the jobs that did not, each with its reason (`unmapped`). Raises DocumentRejected,
    every problem with a JSON pointer into fio's document, when the output is not fio 3.x
    JSON, holds a value fio cannot have written (nan, a number beyond 64 bits, a missing or
    mistyped field, I/O in zero time, figures that contradict each other, text that is not
    UTF-8), a job failed (`error` != 0), or no job maps onto a standard test.
`fio_ingest(*, fio_json, drive, bench=None, drive_state="unknown", submitter) -> FioImport`
    fio_document, then `results.services.run_ingest`: the same validation, idempotency and
    all-or-nothing write as every other upload.
`is_fio_output(raw) -> bool`
    Whether an upload looks like fio's output rather than a result document.

Which jobs map
--------------
A job (an entry of fio's "jobs") becomes a result of the catalog test (results/schema/
catalog.json, throughput tests; not a queue-depth sweep's points, which are measured one
after another from QD1 up after one preconditioning, as no single job is) with its
operation and access (rw=read, write, randread,
randwrite; no `:N` suffix), block size (`bs` for that direction) and queue depth, when it
used direct I/O (`direct=1` or `buffered=0`) through a block I/O engine (psync, sync,
vsync, pvsync, pvsync2, libaio, io_uring, io_uring_cmd, posixaio, windowsaio,
solarisaio), nothing shaped its load (rate, rate_iops, thinktime, latency_target, flow,
verify, fsync/fdatasync/sync/write_barrier, non-uniform random_distribution,
percentage_random, zones, bsrange/bssplit), it ran on one file or device, and it ran
alone on the drive. Its figures are checked against each other before they are used:
bytes = I/Os x block size, only the job's own direction did I/O, and by Little's law
IOPS x mean latency cannot exceed the queue depth (an entry that sums more load than one
job, or an engine that ran deeper than asked, shows up here). Each job is
reported by name: mapped with its test and pattern, or not mapped with the first reason.

- Queue depth: `iodepth` (default 1) for asynchronous engines, 1 for synchronous ones,
  and for io_uring in fio before 3.39 the next power of two (fio rounded the ring up:
  iodepth=3 ran at 4). `numjobs` clones summed by group_reporting (one entry) add up:
  numjobs=4 x iodepth=8 is queue depth 32. Clones reported one by one (numjobs entries)
  each hold a share of the load and are not mapped; nor are jobs fio reports in one
  reporting group (no stonewall between them: they ran at the same time).
- Time: the result's duration is fio's measured runtime of that direction (ramp_time
  excluded, as fio excludes it); a job that ran shorter than the test still maps, and
  the site shows the difference. Started/finished come from fio's clocks: the first
  `job_start` (fio 3.36+), else the output's timestamp less `elapsed`, else (client
  mode) less the longest job of each reporting group; finished is the timestamp.
- Figures: io_count is the I/Os completed in the measured time (io_bytes / bs), and IOPS
  and bytes/s are it and io_bytes over the runtime, so that the result agrees with
  itself. Without ramp_time that is exactly fio's iops and (unrounded) bw_bytes; with it,
  fio's iops counts the I/Os issued instead, which differs by at most the queue depth.
- Span: `filesize` (else `size`), times numjobs when each clone has its own file.
  Tests with a fixed LBA span (8 GiB) need a stated span no larger than theirs; the
  whole-drive tests take any span and record it when known.
- The same test and pattern from two jobs: neither is mapped (which one to keep is not
  the importer's choice). Jobs of one document must share a target (a device, or files
  in one directory), since a run is one drive.

Data patterns (writes), in fio's own order of precedence
---------------------------------------------------------
dedupe_percentage > 0: "unspecified" (repeated blocks: a data-reduction case the schema
has no name for). buffer_compress_percentage > 0: "compressible". buffer_pattern (a
literal): "compressible"; naming a file: "unspecified". zero_buffers: "compressible".
refill_buffers: "incompressible" (fresh random bytes per write). scramble_buffers=0
without refill: "unspecified" (the same buffers again and again). Otherwise fio's
default buffers: random bytes filled once and scrambled on every write, which do not
compress: "incompressible". But fio before 3.39 leaves options given without a value
(zero_buffers, refill_buffers, group_reporting, stonewall, time_based...) out of its
JSON, so there a default-looking write may have been zeros: "unspecified", unless the
job says zero_buffers=0 (or sets one of the options above). Reads are "unspecified": the
data read is whatever was on the drive, which fio's output does not show.

Latency
-------
Schema version 1's latency_ns is completion latency: fio's `clat_ns` (mean, stddev, min,
max, percentiles "99.900000" -> "99.9"; percentiles finer than 4 decimals are left out).
fio's percentiles are histogram bucket midpoints; they are clamped into [min, max], where
the true value lies. All of this is `_result_latency`, the one place to change for a
schema whose latency_ns is issue-to-completion (fio's `lat_ns`).

Steady state
------------
A job run with fio's `steadystate=` option (with `ss_dur=`, `ss_ramp=`) carries fio's own
verdict in its `steadystate` object; the result keeps it as `fio_steadystate`: the
criterion (fio's metric:limit, trailing zeros dropped: "iops:20%"), its window in seconds,
whether fio found it attained, and fio's value of the criterion. It is fio's rule, and is
shown as fio's ("fio steady state"), never as SNIA PTS's steady state.

What fio's JSON cannot show, and so the importer cannot check: jobs with stats=0; a bare
new_group before fio 3.39 (it looks like a stonewall); the platform's default ioengine
(taken as psync, fio's default everywhere but Windows).
"""

from __future__ import annotations

import json
import math
import os
import posixpath
import re
import shlex
from collections import defaultdict
from dataclasses import dataclass
from datetime import UTC, datetime
from decimal import Decimal, InvalidOperation
from functools import cache
from pathlib import Path
from typing import Any

from django.conf import settings

from results.documents import (
    DUPLICATE_KEY,
    NOT_UTF8,
    TOO_DEEP,
    TOO_LARGE,
    DocumentProblem,
    DocumentRejected,
    pointer,
)
from results.services import run_ingest

CATALOG_PATH = Path(__file__).resolve().parent.parent / "schema" / "catalog.json"
TOOL_NAME = "fio"
DEFAULT_ENGINE = "psync"  # fio's default on every platform but Windows
SYNC_ENGINES = frozenset({"sync", "psync", "vsync", "pvsync", "pvsync2"})
ASYNC_ENGINES = frozenset(
    {"libaio", "io_uring", "io_uring_cmd", "posixaio", "windowsaio", "solarisaio"}
)
UNCACHED_ENGINES = frozenset({"io_uring_cmd"})  # NVMe passthrough: no page cache to bypass
POW2_DEPTH_ENGINES = frozenset({"io_uring", "io_uring_cmd"})
POW2_DEPTH_FIXED = (3, 39)  # fio 3.39 stopped rounding io_uring's depth up
FLAGS_VISIBLE = (3, 39)  # from fio 3.39, options given without a value appear as ""
MAX_COMMAND_LINE = 4000  # tool.command_line's maxLength in the schema
MAX_ENGINE = 50  # tool.engine's
MAX_DEPTH = 16  # fio nests five levels deep
LITTLE_TOLERANCE = 1.1  # I/Os straddling the measured window's edges aside (a few tenths of 1%)
ONE_TIME_RANGE = (946_684_800, 4_102_444_800)  # 2000-01-01 .. 2100-01-01, seconds
LONGEST_RUN_S = 10 * 365 * 86_400
RW_KINDS = {
    "read": ("read", "sequential"),
    "write": ("write", "sequential"),
    "randread": ("read", "random"),
    "randwrite": ("write", "random"),
}
SIDES = ("read", "write", "trim")

# -- messages: constants, so that tests and API clients can rely on them ----------------
NOT_FIO = "this is not fio's JSON output: {detail}"
NOT_JSON = "fio's output is not valid JSON: {detail}"
NOT_A_NUMBER = "not a number (fio prints nan or inf when it divides by zero)"
NOT_FINITE = "must be a finite number"
BEYOND_64_BITS = "is beyond the 64-bit integers fio writes"
NOT_TEXT = "text with a NUL character or a lone surrogate, which fio does not write"
TWO_OUTPUTS = (
    "the file holds more than one JSON output (several runs, or --status-interval "
    "snapshots): convert one run's final output"
)
UNSUPPORTED_VERSION = (
    "fio {version} is not supported: its JSON differs (latencies in microseconds, no "
    "clat_ns); use fio 3.0 or newer"
)
UNREADABLE_VERSION = "'{version}' is not a fio version string such as 'fio-3.33'"
MISSING = "the field '{field}' that fio writes here is missing"
WRONG_TYPE = "must be {expected}"
NOT_A_TIME = "{value} is not a time fio can have written (seconds since 1970)"
NO_JOBS = "fio's output lists no jobs"
JOB_FAILED = "job '{job}' stopped with error {error}{detail}: its figures are not results"
ZERO_RUNTIME = "{ios} I/Os in a runtime of 0 ms: fio's figures cannot be rates"
BYTES_WITHOUT_IOS = "io_bytes {io_bytes} with total_ios 0"
FIGURE_MISMATCH = "{field} {value} contradicts io_bytes, total_ios and runtime ({expected})"
LATENCY_BOUNDS = "min {low} is above max {high}"
MEAN_BOUNDS = "mean {mean} is outside min {low} and max {high}"
NOT_A_PERCENTILE = "'{key}' is not a percentile between 0 and 100"
PERCENTILE_ORDER = "a higher percentile has a lower latency"
NOT_A_DURATION = "{value} is longer than any run fio can have made"
MANY_HOSTS = "the jobs ran on {count} hosts ({hosts}): a run is one drive on one host"
MANY_TARGETS = (
    "the mappable jobs ran on {count} targets ({targets}): a run is one drive; run fio on "
    "one device, or files in one directory"
)
NOTHING_MAPPED = "job '{job}' does not map onto a standard test: {reason}"
COMMAND_TOO_LONG = (
    "the options of the mapped jobs make a {length}-character command line; a result "
    "document holds {limit}: convert fewer jobs at a time"
)

# Reasons a job is not mapped (FioConversion.unmapped).
RW_SUFFIX = "rw={rw}: the ':N' suffix makes the offsets neither purely random nor sequential"
NOT_STANDARD_RW = "rw={rw} is not a standard test (they read or write, randomly or in sequence)"
MIXED_REPORT = "unified_rw_reporting: fio reported its reads and writes as one"
ENGINE_NOT_MAPPED = "ioengine={engine} is not a block I/O engine the importer maps"
NOT_DIRECT = "{how}: the standard tests bypass the page cache (direct=1)"
SHAPED = "{option}={value}: {effect}"
NO_TEST_AT_BS = "bs={bs}: no standard {label} test at {size} (they use {available})"
NO_TEST_AT_QD = "queue depth {depth} ({how}): no standard {label} test at it (they use {available})"
MANY_FILES = "{how}: a standard test runs on one file or device"
SPAN_UNKNOWN = (
    "{test} writes within an LBA span of {limit}; this job states none (size), so it "
    "covered the whole file or device"
)
SPAN_TOO_BIG = "span {span} ({how}) is larger than the {limit} span of {test}"
UNREADABLE_OPTION = "{option}={value} could not be read"
OTHER_DIRECTION = (
    "{rw} job with {ios} {side} I/Os: the entry sums more than this job (a reporting "
    "group of several jobs)"
)
NO_IO = "no {side} I/O"
BLOCK_MISMATCH = "its I/Os averaged {average:g} bytes, not the {block_size} of bs"
LITTLE = (
    "IOPS x mean latency puts {inflight:.1f} I/Os in flight, more than its queue depth "
    "{depth}: the entry sums more load than this job"
)
CLONES_APART = (
    "numjobs={numjobs} without group_reporting: each clone's entry holds a share of the load"
)
CONCURRENT = "ran at the same time as {others} (one reporting group: no stonewall between them)"
ALL_CLIENTS = "a sum over several fio clients, not one drive"
DUPLICATE_TEST = "jobs {jobs} all measured {test} ({pattern}); a run holds one of each"

# Why a pattern was chosen (MappedJob.pattern_reason).
READ_PATTERN = "a read: the data is whatever was on the drive, which fio's output does not show"
DEFAULT_BUFFERS = (
    "fio's default buffers: random bytes, filled once and scrambled on every write; they "
    "do not compress"
)
HIDDEN_ZERO_BUFFERS = (
    "fio {version} leaves options given without a value out of its JSON, so a bare "
    "zero_buffers (all zeros) cannot be ruled out; --zero_buffers=0 or fio 3.39+ tells"
)

SHAPING_OPTIONS = {
    # option: (what turns it off, what it does)
    "rate": ({"0"}, "caps the bandwidth"),
    "rate_iops": ({"0"}, "caps the IOPS"),
    "thinktime": ({"0"}, "pauses between I/Os"),
    "latency_target": ({"0"}, "lowers the queue depth to meet a latency target"),
    "flow": ({"0"}, "throttles against other jobs"),
    "verify": ({"0", "none"}, "writes carry checksums and are read back"),
    "fsync": ({"0"}, "flushes between writes"),
    "fdatasync": ({"0"}, "flushes between writes"),
    "sync": ({"0", "none"}, "synchronous (O_SYNC) writes"),
    "write_barrier": ({"0"}, "flushes between writes"),
    "bsrange": (set(), "mixes block sizes"),
    "bssplit": (set(), "mixes block sizes"),
    "zonemode": ({"none"}, "confines I/O to zones"),
    "zonesize": ({"0"}, "confines I/O to zones"),
    "zonerange": ({"0"}, "confines I/O to zones"),
    "zoneskip": ({"0"}, "skips between zones"),
}
RANDOM_SHAPING = {
    "random_distribution": ({"random"}, "the offsets are not uniformly random"),
}


# -- what the conversion returns --------------------------------------------------------
@dataclass(frozen=True)
class MappedJob:
    job: str  # fio's jobname
    index: int  # its position in fio's "jobs" (names can repeat)
    test: str
    pattern: str
    pattern_reason: str


@dataclass(frozen=True)
class UnmappedJob:
    job: str
    index: int
    reason: str


@dataclass(frozen=True)
class FioConversion:
    document: dict[str, Any]
    mapped: list[MappedJob]
    unmapped: list[UnmappedJob]


@dataclass(frozen=True)
class FioImport:
    outcome: Any  # results.services.IngestOutcome
    conversion: FioConversion


def is_fio_output(raw: bytes | str) -> bool:
    """Whether an upload is fio's output: an object whose first key is "fio version", as fio
    writes it (after any lines of messages), within the first 64 KiB. The text anywhere else,
    a value or a key of a result document, does not count."""
    head = raw[:65536]
    if isinstance(head, bytes):
        head = _decoded(head, errors="replace")
    return _FIO_START.search(head.removeprefix("\ufeff")) is not None


def fio_document(
    *,
    fio_json: bytes | str,
    drive: dict[str, Any],
    bench: dict[str, Any] | None = None,
    drive_state: str = "unknown",
) -> FioConversion:
    """fio's JSON output as a result document; see the module docstring."""
    tree = _parse(fio_json)
    run = _read_run(tree)
    return _convert(run, drive=drive, bench=bench, drive_state=drive_state)


def fio_ingest(
    *,
    fio_json: bytes | str,
    drive: dict[str, Any],
    bench: dict[str, Any] | None = None,
    drive_state: str = "unknown",
    submitter,
) -> FioImport:
    """Convert fio's output and ingest the document with run_ingest (idempotent, atomic)."""
    conversion = fio_document(fio_json=fio_json, drive=drive, bench=bench, drive_state=drive_state)
    outcome = run_ingest(document=json.dumps(conversion.document), submitter=submitter)
    return FioImport(outcome=outcome, conversion=conversion)


# -- parsing: JSON fio can have written --------------------------------------------------
class _Constant:
    """NaN or Infinity where a number should be: kept so that its place can be named."""


class _Object(dict):
    """A JSON object that keeps its pairs when a key repeats: fio writes an option twice
    when a job sets it twice, and the last one is the one fio used."""

    pairs: list[tuple[str, Any]] | None = None


def _object(pairs: list[tuple[str, Any]]) -> _Object:
    obj = _Object(pairs)
    if len(obj) != len(pairs):
        obj.pairs = pairs
    return obj


def _pairs(obj: dict) -> list[tuple[str, Any]]:
    return getattr(obj, "pairs", None) or list(obj.items())


_JSON_START = re.compile(r"^\{", re.MULTILINE)
_FIO_START = re.compile(r'^\{\s*"fio version"\s*:', re.MULTILINE)
_FIO_NONNUMBER = re.compile(r"(?<=[:,\[])(\s*)-?(nan|inf)\b", re.IGNORECASE)


def _decoded(raw: bytes, errors: str = "strict") -> str:
    """UTF-8, or UTF-16 with its byte order mark (what PowerShell's > makes of fio's output)."""
    if raw[:2] in (b"\xff\xfe", b"\xfe\xff"):
        return raw[: len(raw) // 2 * 2].decode("utf-16", errors)
    return raw.decode("utf-8", errors)


def _json_decoder() -> json.JSONDecoder:
    # strict=False: fio writes control characters in names and options unescaped.
    return json.JSONDecoder(
        object_pairs_hook=_object, parse_constant=lambda _: _Constant(), strict=False
    )


def _rejected(where: str, message: str) -> DocumentRejected:
    return DocumentRejected([DocumentProblem(where, message)])


def _parse(raw: bytes | str) -> dict[str, Any]:
    limit = settings.BENCH_MAX_DOCUMENT_BYTES
    size = len(raw.encode("utf-8", "surrogatepass") if isinstance(raw, str) else raw)
    if size > limit:
        raise _rejected("", TOO_LARGE.format(size=size, limit=limit))
    if isinstance(raw, bytes):
        try:
            raw = _decoded(raw)
        except UnicodeDecodeError as exc:
            raise _rejected("", NOT_UTF8) from exc
    text = raw.removeprefix("\ufeff")
    start = _JSON_START.search(text)
    if start is None:
        raise _rejected("", NOT_FIO.format(detail="no JSON object in it"))
    try:
        tree, end = _json_decoder().raw_decode(text, start.start())
    except json.JSONDecodeError as exc:
        raise _explain_bad_json(text, start.start(), exc) from exc
    except ValueError as exc:  # an integer of more digits than Python converts (4,300)
        raise _rejected("", NOT_JSON.format(detail=exc)) from exc
    except RecursionError as exc:
        raise _rejected("", NOT_JSON.format(detail=TOO_DEEP)) from exc
    if _JSON_START.search(text, end):
        raise _rejected("", TWO_OUTPUTS)
    problems = _value_problems(tree)
    if problems:
        raise DocumentRejected(problems)
    return tree


def _explain_bad_json(text: str, start: int, error: json.JSONDecodeError) -> DocumentRejected:
    """fio prints nan and inf with printf's %f, which is not JSON: name where they are."""
    patched = _FIO_NONNUMBER.sub(lambda m: m.group(1) + "NaN", text)
    if patched != text:
        try:
            tree, _ = _json_decoder().raw_decode(patched, start)
        except (json.JSONDecodeError, RecursionError):
            pass
        else:
            problems = [p for p in _value_problems(tree) if p.message == NOT_A_NUMBER]
            if problems:
                return DocumentRejected(problems)
    detail = f"{error.msg} at line {error.lineno}, column {error.colno}"
    return _rejected("", NOT_JSON.format(detail=detail))


_BAD_TEXT = re.compile("[\x00\ud800-\udfff]")


def _scalar_problem(value: Any) -> str | None:
    if isinstance(value, _Constant):
        return NOT_A_NUMBER
    if isinstance(value, float) and not math.isfinite(value):
        return NOT_FINITE
    if isinstance(value, int) and not isinstance(value, bool) and not -(2**63) <= value < 2**64:
        return BEYOND_64_BITS
    if isinstance(value, str) and _BAD_TEXT.search(value):
        return NOT_TEXT
    return None


def _value_problems(tree: dict) -> list[DocumentProblem]:
    """Values no fio writes, anywhere in its output; each named by its pointer."""
    problems: list[DocumentProblem] = []
    stack: list[tuple[Any, tuple]] = [(tree, ())]
    while stack and len(problems) < 50:
        container, path = stack.pop()
        if len(path) >= MAX_DEPTH:
            problems.append(DocumentProblem(pointer(*path), NOT_JSON.format(detail=TOO_DEEP)))
            continue
        if isinstance(container, list):
            items = enumerate(container)
        else:
            items = _pairs(container)
            repeated = getattr(container, "pairs", None)
            if repeated and path[-1:] not in (("global options",), ("job options",)):
                for key, value in repeated:
                    if container[key] != value:  # fio writes a key twice only in options
                        problems.append(
                            DocumentProblem(pointer(*path, key), DUPLICATE_KEY.format(key=key))
                        )
        for key, value in items:
            if isinstance(key, str) and _BAD_TEXT.search(key):
                problems.append(DocumentProblem(pointer(*path, key), NOT_TEXT))
            elif isinstance(value, dict | list):
                stack.append((value, (*path, key)))
            elif message := _scalar_problem(value):
                problems.append(DocumentProblem(pointer(*path, key), message))
    return sorted(set(problems), key=lambda p: p.pointer)


# -- reading: fio's document, every field typed and bounded -----------------------------
class _Bad(Exception):
    def __init__(self, where: str, message: str):
        super().__init__(message)
        self.problem = DocumentProblem(where, message)


def _at(where: str, *parts: Any) -> str:
    """The pointer of a value below `where` (itself a pointer)."""
    return where + pointer(*parts)


def _get(obj: dict, key: str, where: str) -> Any:
    if key not in obj:
        raise _Bad(where, MISSING.format(field=key))
    return obj[key]


def _count(obj: dict, key: str, where: str) -> int:
    value = _get(obj, key, where)
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < 2**63:
        raise _Bad(_at(where, key), WRONG_TYPE.format(expected="a whole number, 0 or more"))
    return value


def _real(obj: dict, key: str, where: str) -> float:
    value = _get(obj, key, where)
    if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
        raise _Bad(_at(where, key), WRONG_TYPE.format(expected="a number, 0 or more"))
    return float(value)


def _text(obj: dict, key: str, where: str) -> str:
    value = _get(obj, key, where)
    if not isinstance(value, str):
        raise _Bad(_at(where, key), WRONG_TYPE.format(expected="text"))
    return value


def _mapping(obj: dict, key: str, where: str) -> dict:
    value = _get(obj, key, where)
    if not isinstance(value, dict):
        raise _Bad(_at(where, key), WRONG_TYPE.format(expected="an object"))
    return value


def _options(obj: dict, key: str, where: str) -> list[tuple[str, str]]:
    """fio's option lists: name to value, both text, in the order fio applied them."""
    if key not in obj:
        return []
    pairs = _pairs(_mapping(obj, key, where))
    for name, value in pairs:
        if not isinstance(value, str):
            raise _Bad(_at(where, key, name), WRONG_TYPE.format(expected="text"))
    return pairs


def _seconds(value: int, where: str) -> int:
    if not ONE_TIME_RANGE[0] <= value <= ONE_TIME_RANGE[1]:
        raise _Bad(where, NOT_A_TIME.format(value=value))
    return value


@dataclass(frozen=True)
class _Side:
    """One direction (read, write, trim) of one job entry."""

    io_bytes: int
    ios: int
    runtime_ms: int
    clat: dict[str, Any] | None  # the schema's latency shape, or None without samples
    lat: dict[str, Any] | None
    iops_spread: dict[str, float]  # iops_stddev and iops_min of fio's samples, from two


@dataclass(frozen=True)
class _Job:
    index: int
    name: str
    groupid: int
    where: str
    options: list[tuple[str, str]]  # the entry's own, as fio listed them
    sides: dict[str, _Side]  # empty when unified_rw_reporting merged them
    hostname: str | None
    job_start_ms: int | None
    elapsed_s: int | None
    job_runtime_ms: int | None
    steadystate: dict[str, Any] | None = None  # the result's fio_steadystate


@dataclass(frozen=True)
class _Run:
    version: str  # "3.33"
    version_tuple: tuple[int, int]
    finished_ms: int
    global_options: list[tuple[str, str]]
    jobs: list[_Job]


def _read_run(tree: dict) -> _Run:
    if "fio version" not in tree:
        raise _rejected("", NOT_FIO.format(detail="no 'fio version'"))
    try:
        version_text = _text(tree, "fio version", "")
        match = re.fullmatch(r"fio-(\d{1,4})\.(\d{1,4})(\S{0,60})", version_text)
        if match is None:
            raise _Bad("/fio version", UNREADABLE_VERSION.format(version=version_text[:100]))
        version_tuple = (int(match[1]), int(match[2]))
        if version_tuple[0] < 3:
            raise _Bad("/fio version", UNSUPPORTED_VERSION.format(version=version_text))
        if "timestamp_ms" in tree:
            finished_ms = _count(tree, "timestamp_ms", "")
            _seconds(finished_ms // 1000, "/timestamp_ms")
        else:
            finished_ms = _seconds(_count(tree, "timestamp", ""), "/timestamp") * 1000
        global_options = _options(tree, "global options", "")
        key = "jobs" if "jobs" in tree or "client_stats" not in tree else "client_stats"
        entries = _get(tree, key, "")
        if not isinstance(entries, list):
            raise _Bad(f"/{key}", WRONG_TYPE.format(expected="an array"))
        if not entries:
            raise _Bad(f"/{key}", NO_JOBS)
    except _Bad as bad:
        raise DocumentRejected([bad.problem]) from None
    jobs, problems = [], []
    for index, entry in enumerate(entries):
        where = f"/{key}/{index}"
        try:
            jobs.append(_read_job(entry, index, where))
        except _Bad as bad:
            problems.append(bad.problem)
    if problems:
        raise DocumentRejected(problems)
    return _Run(
        version=version_text.removeprefix("fio-"),
        version_tuple=version_tuple,
        finished_ms=finished_ms,
        global_options=global_options,
        jobs=jobs,
    )


def _errno_text(error: int) -> str:
    if 0 < error < 4096:
        text = os.strerror(error)
        if not text.startswith("Unknown error"):
            return f" ({text})"
    return ""


def _read_job(entry: Any, index: int, where: str) -> _Job:
    if not isinstance(entry, dict):
        raise _Bad(where, WRONG_TYPE.format(expected="an object"))
    name = _text(entry, "jobname", where)
    groupid = _count(entry, "groupid", where)
    error = _get(entry, "error", where)
    if isinstance(error, bool) or not isinstance(error, int):
        raise _Bad(f"{where}/error", WRONG_TYPE.format(expected="a whole number"))
    if error:
        detail = _errno_text(error)
        raise _Bad(f"{where}/error", JOB_FAILED.format(job=name, error=error, detail=detail))
    options = _options(entry, "job options", where)
    sides = {}
    if "mixed" not in entry or "read" in entry:
        for side in SIDES:
            if side in entry or side != "trim":
                sides[side] = _read_side(_mapping(entry, side, where), f"{where}/{side}")
    optional = {}
    for field in ("job_start", "elapsed", "job_runtime"):
        optional[field] = _count(entry, field, where) if field in entry else None
    if optional["job_start"]:
        _seconds(optional["job_start"] // 1000, f"{where}/job_start")
    for field, seconds in (("elapsed", 1), ("job_runtime", 1000)):
        if (optional[field] or 0) > LONGEST_RUN_S * seconds:
            raise _Bad(_at(where, field), NOT_A_DURATION.format(value=optional[field]))
    steadystate = None
    if "steadystate" in entry:
        ss = _mapping(entry, "steadystate", where)
        steadystate = _read_steadystate(ss, f"{where}/steadystate")
    return _Job(
        index=index,
        name=name,
        groupid=groupid,
        where=where,
        options=options,
        sides=sides,
        hostname=_text(entry, "hostname", where) if "hostname" in entry else None,
        job_start_ms=optional["job_start"] or None,
        elapsed_s=optional["elapsed"],
        job_runtime_ms=optional["job_runtime"],
        steadystate=steadystate,
    )


_FIO_NUMBER = re.compile(r"(\d+)\.(\d*?)0*(?=\D|$)")


def _fio_number_text(text: str) -> str:
    """fio's printed numbers without their trailing zeros: "iops:20.000000%" -> "iops:20%"."""
    return _FIO_NUMBER.sub(lambda m: m[1] + (f".{m[2]}" if m[2] else ""), text)


def _read_steadystate(ss: dict, where: str) -> dict[str, Any]:
    """fio's own steady-state detection of a job (its steadystate= option), as fio
    reported it: the criterion, its window (ss_dur), whether fio found it met, and fio's
    value of the criterion when the job ended. fio's rule, never SNIA PTS's."""
    criterion = _fio_number_text(_text(ss, "ss", where).strip())
    window = _count(ss, "duration", where)
    attained = _count(ss, "attained", where)
    if not criterion or len(criterion) > 60:
        raise _Bad(_at(where, "ss"), WRONG_TYPE.format(expected="fio's criterion, metric:limit"))
    if not 1 <= window <= LONGEST_RUN_S:
        raise _Bad(_at(where, "duration"), NOT_A_DURATION.format(value=window))
    if attained > 1:
        raise _Bad(_at(where, "attained"), WRONG_TYPE.format(expected="0 or 1"))
    result = {"criterion": criterion, "window_s": window, "attained": bool(attained)}
    if "criterion" in ss:
        value = _fio_number_text(_text(ss, "criterion", where).strip())
        if value and len(value) <= 60:
            result["value"] = value
    return result


def _read_side(side: dict, where: str) -> _Side:
    io_bytes = _count(side, "io_bytes", where)
    ios = _count(side, "total_ios", where)
    runtime = _count(side, "runtime", where)
    if runtime > LONGEST_RUN_S * 1000:
        raise _Bad(f"{where}/runtime", NOT_A_DURATION.format(value=runtime))
    if ios and not runtime:
        raise _Bad(f"{where}/runtime", ZERO_RUNTIME.format(ios=ios))
    if io_bytes and not ios:
        raise _Bad(f"{where}/total_ios", BYTES_WITHOUT_IOS.format(io_bytes=io_bytes))
    iops = _real(side, "iops", where)
    if runtime:
        # fio's rates, in its own integer arithmetic: bw_bytes (fio 3.2+) and bw (KiB/s).
        rate = io_bytes * 1000 // runtime
        for field, expected in (("bw_bytes", rate), ("bw", rate // 1024)):
            if field in side and _count(side, field, where) != expected:
                raise _Bad(
                    _at(where, field),
                    FIGURE_MISMATCH.format(field=field, value=side[field], expected=expected),
                )
        expected_iops = ios * 1000 / runtime
        if not math.isclose(iops, expected_iops, rel_tol=1e-6, abs_tol=1e-5):
            raise _Bad(
                f"{where}/iops",
                FIGURE_MISMATCH.format(field="iops", value=iops, expected=f"{expected_iops:f}"),
            )
    return _Side(
        io_bytes=io_bytes,
        ios=ios,
        runtime_ms=runtime,
        clat=_read_latency(_mapping(side, "clat_ns", where), f"{where}/clat_ns"),
        lat=_read_latency(_mapping(side, "lat_ns", where), f"{where}/lat_ns"),
        iops_spread=_read_iops_spread(side, where),
    )


def _read_iops_spread(side: dict, where: str) -> dict[str, float]:
    """The spread of the IOPS within the run as fio sampled it (every iops_avg_time, 500 ms
    by default): its standard deviation and slowest sample, from two samples up (fio writes
    0 for both with fewer); none from a fio that does not write them."""
    if "iops_samples" not in side or _count(side, "iops_samples", where) < 2:
        return {}
    return {
        "iops_stddev": _real(side, "iops_stddev", where),
        "iops_min": _real(side, "iops_min", where),
    }


def _read_latency(stat: dict, where: str) -> dict[str, Any] | None:
    """fio's latency statistics in the schema's shape (clamped into [min, max]), or None
    when fio took no samples."""
    low, high = _count(stat, "min", where), _count(stat, "max", where)
    mean, stddev = _real(stat, "mean", where), _real(stat, "stddev", where)
    # N (fio 3.18+): without it, a maximum above 0 says that fio took samples.
    samples = _count(stat, "N", where) if "N" in stat else high
    percentiles = {}
    if "percentile" in stat:
        table = _mapping(stat, "percentile", where)
        for key in table:
            key_where = _at(where, "percentile", key)
            try:
                rank = Decimal(key)
            except InvalidOperation:
                rank = Decimal(-1)
            if not rank.is_finite() or not 0 <= rank <= 100:
                raise _Bad(key_where, NOT_A_PERCENTILE.format(key=key[:40]))
            value = _count(table, key, f"{where}/percentile")
            if rank == rank.quantize(Decimal("0.0001")):
                name = format(rank.normalize() + 0, "f")  # + 0: no "-0"
                percentiles[name] = min(max(value, low), high)
        ranked = [percentiles[name] for name in sorted(percentiles, key=Decimal)]
        if ranked != sorted(ranked):
            raise _Bad(_at(where, "percentile"), PERCENTILE_ORDER)
    if not samples:
        return None
    if low > high:
        raise _Bad(where, LATENCY_BOUNDS.format(low=low, high=high))
    if not low - 1 <= mean <= high + 1:  # %f rounding aside, a mean lies within them
        raise _Bad(f"{where}/mean", MEAN_BOUNDS.format(mean=mean, low=low, high=high))
    summary = {"mean": min(max(mean, low), high), "stddev": stddev, "min": low, "max": high}
    if percentiles:
        summary["percentiles"] = percentiles
    return summary


# -- options --------------------------------------------------------------------------
class _NotMapped(Exception):
    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


def _effective(run: _Run, job: _Job) -> dict[str, str]:
    """The options in force for a job: global, then its own; the last setting wins, and
    the dict's order is the order they were last set (direct against buffered)."""
    options: dict[str, str] = {}
    for name, value in (*run.global_options, *job.options):
        options.pop(name, None)
        options[name] = value
    return options


def _number(option: str, value: str) -> int:
    text = value.strip().lower()
    if re.fullmatch(r"0x[0-9a-f]{1,16}", text):
        return int(text, 16)
    if re.fullmatch(r"\d{1,19}", text):
        return int(text)
    raise _NotMapped(UNREADABLE_OPTION.format(option=option, value=value))


def _flag(options: dict[str, str], name: str) -> bool | None:
    """A yes/no option: None when absent, True when given without a value (fio 3.39+)."""
    if name not in options:
        return None
    return options[name] == "" or _number(name, options[name]) != 0


_SIZE = re.compile(r"(\d{1,19})\s*([a-z]*)")
_POWERS = {"k": 1, "m": 2, "g": 3, "t": 4, "p": 5}


def _bytes(option: str, value: str, kb_base: int) -> int | None:
    """A size as fio reads it (kb_base=1024: 4k = 4KiB = 4096, and "kib" means 1000, as
    fio's compatibility rule has it); None for a percentage."""
    text = value.strip().lower()
    if text.endswith("%"):
        return None
    if re.fullmatch(r"0x[0-9a-f]{1,16}", text):
        return int(text, 16)
    match = _SIZE.fullmatch(text)
    if match is None:
        raise _NotMapped(UNREADABLE_OPTION.format(option=option, value=value))
    number, unit = int(match[1]), match[2]
    if unit in ("", "b"):
        return number
    if unit[0] not in _POWERS or unit[1:] not in ("", "b", "i", "ib"):
        raise _NotMapped(UNREADABLE_OPTION.format(option=option, value=value))
    base = kb_base
    if unit.endswith("ib"):
        base = 1000 if kb_base == 1024 else 1024
    return number * base ** _POWERS[unit[0]]


def _block_size(options: dict[str, str], direction: int, kb_base: int) -> tuple[int, str]:
    """bs for reads (0) or writes (1): "4k" for all, "4k,128k" reads then writes and trims,
    ",8k" the default for reads; a value not ending in a comma carries on."""
    raw = options.get("bs")
    if raw is None:
        return 4096, "4k (fio's default)"
    parts = raw.split(",")
    if len(parts) > 3:
        raise _NotMapped(UNREADABLE_OPTION.format(option="bs", value=raw))
    value = parts[direction] if direction < len(parts) else parts[-1]
    if not value.strip():
        return 4096, raw
    size = _bytes("bs", value, kb_base)
    if not size:
        raise _NotMapped(UNREADABLE_OPTION.format(option="bs", value=raw))
    return size, raw


def _size_label(size: int) -> str:
    for unit, scale in (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if size >= scale and size % scale == 0:
            return f"{size // scale}{unit}"
    return f"{size} bytes"


def _target(options: dict[str, str]) -> str:
    """The drive a job ran on, as far as its options tell: a device by its path; files by
    their directory (files in one directory share a file system, hence a drive)."""
    directory = options.get("directory", "")
    name = options.get("filename")
    if name is None:
        return directory or "."
    if name.startswith(("/dev/", "\\\\.\\")):
        return name
    if directory and not posixpath.isabs(name):
        name = posixpath.join(directory, name)
    return posixpath.dirname(name) or "."


# -- mapping ------------------------------------------------------------------------------
@dataclass(frozen=True)
class _Candidate:
    job: _Job
    test: dict[str, Any]
    pattern: str
    pattern_reason: str
    block_size: int
    queue_depth: int
    span: int | None
    side: _Side
    engine: str
    target: str


@cache
def _throughput_tests() -> tuple[dict[str, Any], ...]:
    catalog = json.loads(CATALOG_PATH.read_text())
    # Neither a sweep's point nor a response-time curve's (its points paced at a fraction of
    # the maximum loadgen measured just before, which no fio job states).
    return tuple(
        t
        for t in catalog["tests"]
        if t["kind"] == "throughput" and not t.get("family") and not t.get("curve")
    )


def _listing(values) -> str:
    values = [str(v) for v in values]
    return " or ".join(values) if len(values) < 3 else ", ".join(values[:-1]) + " or " + values[-1]


def _map_job(run: _Run, job: _Job, options: dict[str, str], clones: int) -> _Candidate:
    """The standard test a job measured, or _NotMapped with the first reason it did not."""
    rw_text = options.get("rw", "read")
    rw, _, suffix = rw_text.partition(":")
    if suffix:
        raise _NotMapped(RW_SUFFIX.format(rw=rw_text))
    if rw not in RW_KINDS:
        raise _NotMapped(NOT_STANDARD_RW.format(rw=rw_text))
    operation, access = RW_KINDS[rw]
    if not job.sides:
        raise _NotMapped(MIXED_REPORT)
    engine = options.get("ioengine", DEFAULT_ENGINE)
    if engine not in SYNC_ENGINES | ASYNC_ENGINES:
        raise _NotMapped(ENGINE_NOT_MAPPED.format(engine=engine))
    order = [name for name in options if name in ("direct", "buffered")]
    if engine not in UNCACHED_ENGINES:
        if not order:
            raise _NotMapped(NOT_DIRECT.format(how="direct is not set (fio's default: buffered)"))
        last = order[-1]
        if _flag(options, last) != (last == "direct"):
            raise _NotMapped(NOT_DIRECT.format(how=f"{last}={options[last]}"))
    shaping = dict(SHAPING_OPTIONS)
    if access == "random":
        shaping.update(RANDOM_SHAPING)
    for option, (off, effect) in shaping.items():
        value = options.get(option)
        if value is not None and value.strip().lower() not in off:
            raise _NotMapped(SHAPED.format(option=option, value=value, effect=effect))
    if access == "random" and "percentage_random" in options:
        shares = options["percentage_random"].split(",")
        if any(_number("percentage_random", share) != 100 for share in shares):
            raise _NotMapped(
                SHAPED.format(
                    option="percentage_random",
                    value=options["percentage_random"],
                    effect="part of the I/O is sequential",
                )
            )

    kb_text = options.get("kb_base", "1024")
    kb_base = _number("kb_base", kb_text)
    if kb_base not in (1000, 1024):
        raise _NotMapped(UNREADABLE_OPTION.format(option="kb_base", value=kb_text))
    label = f"{'random' if access == 'random' else 'sequential'} {operation}"
    kind = [t for t in _throughput_tests() if (t["operation"], t["access"]) == (operation, access)]
    block_size, bs_text = _block_size(options, 0 if operation == "read" else 1, kb_base)
    by_size = [t for t in kind if t["block_size"] == block_size]
    if not by_size:
        available = _listing(sorted({_size_label(t["block_size"]) for t in kind}))
        raise _NotMapped(
            NO_TEST_AT_BS.format(
                bs=bs_text, label=label, size=_size_label(block_size), available=available
            )
        )

    iodepth = _number("iodepth", options.get("iodepth", "1")) or 1
    per_job, how = iodepth, f"iodepth={iodepth}"
    if engine in SYNC_ENGINES:
        per_job = 1
        if iodepth > 1:
            how = f"iodepth={iodepth} with the synchronous ioengine={engine}"
    elif engine in POW2_DEPTH_ENGINES and run.version_tuple < POW2_DEPTH_FIXED:
        per_job = 1 << (iodepth - 1).bit_length()
        if per_job != iodepth:
            how = f"iodepth={iodepth}, which fio {run.version} rounds up to {per_job} for {engine}"
    depth = per_job * clones
    if clones > 1:
        how = f"numjobs={clones} x {how}"
    label = f"{_size_label(block_size)} {label}"
    matches = [t for t in by_size if t["queue_depth"] == depth]
    if not matches:
        available = _listing(sorted({t["queue_depth"] for t in by_size}))
        raise _NotMapped(
            NO_TEST_AT_QD.format(depth=depth, how=how, label=label, available=available)
        )
    test = matches[0]

    nrfiles = _number("nrfiles", options.get("nrfiles", "1"))
    filenames = re.split(r"(?<!\\):", options.get("filename", ""))
    if nrfiles > 1:
        raise _NotMapped(MANY_FILES.format(how=f"nrfiles={nrfiles}"))
    if len(filenames) > 1:
        raise _NotMapped(MANY_FILES.format(how=f"filename names {len(filenames)} files"))
    span, span_how = _span(options, clones, kb_base)
    if test["span"] == "fixed":
        limit = _size_label(test["span_bytes"])
        if span is None:
            raise _NotMapped(SPAN_UNKNOWN.format(test=test["id"], limit=limit))
        if span > test["span_bytes"]:
            span_label = _size_label(span)
            raise _NotMapped(
                SPAN_TOO_BIG.format(span=span_label, how=span_how, limit=limit, test=test["id"])
            )

    side = job.sides[operation]
    for other, figures in job.sides.items():
        if other != operation and figures.ios:
            raise _NotMapped(OTHER_DIRECTION.format(rw=rw, ios=figures.ios, side=other))
    if not side.ios:
        raise _NotMapped(NO_IO.format(side=operation))
    # total_ios counts I/Os issued in the measured time, io_bytes those completed: with
    # ramp_time they differ by the I/Os in flight when the ramp ended.
    completed, partial = divmod(side.io_bytes, block_size)
    if partial or abs(completed - side.ios) > depth:
        average = side.io_bytes / side.ios
        raise _NotMapped(BLOCK_MISMATCH.format(average=average, block_size=block_size))
    latency = side.lat or side.clat
    if latency:
        inflight = side.ios / (side.runtime_ms / 1000) * latency["mean"] / 1e9
        if inflight > depth * LITTLE_TOLERANCE:
            raise _NotMapped(LITTLE.format(inflight=inflight, depth=depth))

    if operation == "read":
        pattern, pattern_reason = "unspecified", READ_PATTERN
    else:
        pattern, pattern_reason = _write_pattern(run, options)
    return _Candidate(
        job=job,
        test=test,
        pattern=pattern,
        pattern_reason=pattern_reason,
        block_size=block_size,
        queue_depth=depth,
        span=span,
        side=side,
        engine=engine,
        target=_target(options),
    )


def _span(options: dict[str, str], clones: int, kb_base: int) -> tuple[int | None, str]:
    """The bytes a job's offsets covered, when its options say: filesize (the size of its
    file when given; size is then only the amount of I/O), else size."""
    for option in ("filesize", "size"):
        if option in options:
            value = options[option]
            if re.search(r"[-:]", value.strip().lstrip("-")):
                return None, f"{option}={value}"  # a range of file sizes
            span = _bytes(option, value, kb_base)
            if not span or span >= 2**63:
                return None, f"{option}={value}"
            how = f"{option}={value}"
            if clones > 1:
                if "filename" not in options:  # every clone made a file of its own
                    return span * clones, f"numjobs={clones} files of {how}"
                if "offset_increment" in options:
                    return None, how
            return span, how
    return None, "size not set"


def _write_pattern(run: _Run, options: dict[str, str]) -> tuple[str, str]:
    """The data a write job wrote, in fio's order of precedence (fill_io_buffer)."""
    dedupe = _number("dedupe_percentage", options.get("dedupe_percentage", "0"))
    if dedupe:
        return "unspecified", (
            f"dedupe_percentage={dedupe}: that share of writes repeats earlier blocks"
        )
    compress = _number("buffer_compress_percentage", options.get("buffer_compress_percentage", "0"))
    if compress:
        return "compressible", f"buffer_compress_percentage={compress}"
    if "buffer_pattern" in options:
        value = options["buffer_pattern"]
        if "'" in value:
            return "unspecified", f"buffer_pattern={value} names a file, whose bytes are unknown"
        return "compressible", f"buffer_pattern={value}: every write repeats the pattern"
    zero = _flag(options, "zero_buffers")
    if zero:
        return "compressible", "zero_buffers: every write is zeros"
    if zero is None and run.version_tuple < FLAGS_VISIBLE:
        return "unspecified", HIDDEN_ZERO_BUFFERS.format(version=run.version)
    if _flag(options, "refill_buffers"):
        return "incompressible", "refill_buffers: fresh random bytes for every write"
    if _flag(options, "scramble_buffers") is False:
        return "unspecified", (
            "scramble_buffers=0: the same random buffers are written again and again, "
            "which a deduplicating drive stores once"
        )
    return "incompressible", DEFAULT_BUFFERS


# -- the run: which jobs ran alone, the document ---------------------------------------
def _concurrency(run: _Run, options: list[dict[str, str]]) -> tuple[dict[int, str], dict[int, int]]:
    """Jobs that shared the drive with others (index -> reason), and how many numjobs
    clones each remaining entry sums (index -> count)."""
    reasons: dict[int, str] = {}
    clones: dict[int, int] = {}
    groups: dict[tuple, list[_Job]] = defaultdict(list)
    for job in run.jobs:
        if _sums_clients(job):
            reasons[job.index] = ALL_CLIENTS
        else:
            groups[(job.hostname or "", job.groupid)].append(job)
    for members in groups.values():
        for job in members:
            try:
                numjobs = _number("numjobs", options[job.index].get("numjobs", "1")) or 1
            except _NotMapped as unreadable:
                reasons[job.index] = unreadable.reason
                continue
            if len(members) == 1:
                clones[job.index] = numjobs
            elif numjobs == len(members) and len({m.name for m in members}) == 1:
                reasons[job.index] = CLONES_APART.format(numjobs=numjobs)
            else:
                others = ", ".join(sorted({f"'{m.name}'" for m in members if m.name != job.name}))
                reasons[job.index] = CONCURRENT.format(others=others or "its clones")
    # A new_group without a stonewall (visible from fio 3.39) started beside the group before.
    ordered = sorted(groups)
    for position, key in enumerate(ordered[1:], start=1):
        opts = options[groups[key][0].index]
        try:
            beside = _flag(opts, "new_group") and not _flag(opts, "stonewall")
        except _NotMapped:
            beside = True  # unreadable: the safe reading
        if beside:
            previous = groups[ordered[position - 1]]
            for job in (*groups[key], *previous):
                partners = previous if job in groups[key] else groups[key]
                names = ", ".join(sorted({f"'{m.name}'" for m in partners}))
                reasons.setdefault(job.index, CONCURRENT.format(others=names))
    return reasons, clones


def _sums_clients(job: _Job) -> bool:
    """fio's client mode adds an entry that sums every client's jobs."""
    return job.hostname is not None and job.name == "All clients"


def _iso(milliseconds: int) -> str:
    moment = datetime.fromtimestamp(milliseconds / 1000, tz=UTC)
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _started_ms(run: _Run, options: list[dict[str, str]]) -> int:
    starts = [
        job.job_start_ms
        for job in run.jobs
        if job.job_start_ms and options[job.index].get("job_start_clock_id", "0") == "0"
    ]
    if starts:
        started = min(starts)
    elif any(job.elapsed_s is not None for job in run.jobs):
        started = run.finished_ms - 1000 * max(job.elapsed_s or 0 for job in run.jobs)
    else:  # groups ran one after another; a group lasts as long as its longest job
        longest: dict[int, int] = defaultdict(int)
        for job in run.jobs:
            if not _sums_clients(job):
                longest[job.groupid] = max(longest[job.groupid], job.job_runtime_ms or 0)
        started = run.finished_ms - sum(longest.values())
    return max(0, min(started, run.finished_ms))


def _command_line(run: _Run, jobs: list[_Job]) -> str:
    """An fio command line with the options fio recorded: global, then each mapped job."""

    def argument(name: str, value: str) -> str:
        return shlex.quote(f"--{name}={value}" if value else f"--{name}")

    words = ["fio", *(argument(n, v) for n, v in run.global_options)]
    for job in jobs:
        words.append(argument("name", job.name))
        words.extend(argument(n, v) for n, v in job.options if n != "name")
    return " ".join(words)


def _result_latency(side: _Side) -> dict[str, Any]:
    """The latency fields of a result. Schema version 1: latency_ns is completion latency,
    fio's clat. (For issue-to-completion latency_ns: side.lat here, side.clat beside it.)"""
    return {"latency_ns": side.clat} if side.clat else {}


def _result(candidate: _Candidate) -> dict[str, Any]:
    side = candidate.side
    io_count = side.io_bytes // candidate.block_size  # completed, as the bytes and latencies
    result = {
        "test": candidate.test["id"],
        "pattern": candidate.pattern,
        "block_size": candidate.block_size,
        "queue_depth": candidate.queue_depth,
        "duration_ns": side.runtime_ms * 1_000_000,
        "io_count": io_count,
        "bytes": side.io_bytes,
        "bytes_per_second": side.io_bytes * 1000 / side.runtime_ms,
        "iops": io_count * 1000 / side.runtime_ms,
        **side.iops_spread,
        **_result_latency(side),
    }
    if candidate.span:
        result["span_bytes"] = candidate.span
    if candidate.job.steadystate:
        result["fio_steadystate"] = candidate.job.steadystate
    return result


def _convert(run: _Run, *, drive: dict, bench: dict | None, drive_state: str) -> FioConversion:
    options = [_effective(run, job) for job in run.jobs]
    hosts = sorted({job.hostname for job in run.jobs if job.hostname and not _sums_clients(job)})
    if len(hosts) > 1:
        raise _rejected("", MANY_HOSTS.format(count=len(hosts), hosts=", ".join(hosts)))
    reasons, clones = _concurrency(run, options)
    candidates: list[_Candidate] = []
    for job in run.jobs:
        if job.index in reasons:
            continue
        try:
            candidates.append(_map_job(run, job, options[job.index], clones[job.index]))
        except _NotMapped as not_mapped:
            reasons[job.index] = not_mapped.reason

    targets = defaultdict(list)
    for candidate in candidates:
        targets[candidate.target].append(candidate.job.name)
    if len(targets) > 1:
        listed = "; ".join(f"{t}: {', '.join(names)}" for t, names in sorted(targets.items()))
        raise _rejected("", MANY_TARGETS.format(count=len(targets), targets=listed))

    by_test = defaultdict(list)
    for candidate in candidates:
        by_test[(candidate.test["id"], candidate.pattern)].append(candidate)
    for (test, pattern), same in by_test.items():
        if len(same) > 1:
            names = ", ".join(f"'{c.job.name}'" for c in same)
            for c in same:
                reasons[c.job.index] = DUPLICATE_TEST.format(jobs=names, test=test, pattern=pattern)
    candidates = [c for c in candidates if c.job.index not in reasons]

    if not candidates:
        raise DocumentRejected(
            [
                DocumentProblem(
                    job.where, NOTHING_MAPPED.format(job=job.name, reason=reasons[job.index])
                )
                for job in run.jobs
            ]
        )
    command_line = _command_line(run, [c.job for c in candidates])
    if len(command_line) > MAX_COMMAND_LINE:
        raise _rejected(
            "", COMMAND_TOO_LONG.format(length=len(command_line), limit=MAX_COMMAND_LINE)
        )
    engine = ", ".join(dict.fromkeys(c.engine for c in candidates))
    if len(engine) > MAX_ENGINE:
        engine = "several"
    document: dict[str, Any] = {
        "schema_version": 1,
        "status": "complete",
        "source": {"kind": "measured"},
        "tool": {
            "name": TOOL_NAME,
            "version": run.version,
            "engine": engine,
            "command_line": command_line,
        },
        "started_at": _iso(_started_ms(run, options)),
        "finished_at": _iso(run.finished_ms),
        "drive": dict(drive),
        "drive_state": drive_state,
    }
    if bench:
        document["bench"] = dict(bench)
    if hosts:
        document["host"] = {"hostname": hosts[0]}
    patterns = sorted({c.pattern for c in candidates} - {"unspecified"})
    document["parameters"] = {
        "tests": list(dict.fromkeys(c.test["id"] for c in candidates)),
        "engine": engine,
        "direct": True,
        **({"patterns": patterns} if patterns else {}),
    }
    document["results"] = [_result(c) for c in candidates]
    return FioConversion(
        document=document,
        mapped=[
            MappedJob(c.job.name, c.job.index, c.test["id"], c.pattern, c.pattern_reason)
            for c in candidates
        ],
        unmapped=[
            UnmappedJob(job.name, job.index, reasons[job.index])
            for job in run.jobs
            if job.index in reasons
        ],
    )
