"""Every field of a result document, generated from the schema: what the database cannot
store or read back is a DocumentRejected at the field's JSON pointer with no row added to
any table; what it can is stored exactly. One test per class of bad input, each over every
field of its kind (tests/results/schema_slots.py lists them)."""

from __future__ import annotations

import json
import math
import random
import re
import unicodedata
from datetime import UTC, date, datetime, timedelta
from decimal import Decimal, localcontext

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from hypothesis_jsonschema import from_schema

from drives.models import Drive, Price, catalog_key, is_placeholder
from results import documents, plausibility
from results.documents import DocumentRejected, drive_spec
from results.models import ConsistencySeries, Result, Run, Test, TrimValidation
from results.services import run_ingest
from tests.results.schema_slots import (
    BASES,
    COLUMNS,
    DOCUMENT_ONLY,
    HASHED,
    ROWS,
    SELECTORS,
    STAR,
    TRIMMED,
    Slot,
    get,
    is_http_url,
    leaves,
    maximal_measured,
    maximal_published,
    mirrored,
    objects,
    rolled_back,
    row_counts,
    schema_leaves,
    slots,
)

pytestmark = pytest.mark.django_db

# Bounded and repeatable: a few examples per field keeps the whole module to seconds.
PROPERTY = settings(
    max_examples=3,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[
        HealthCheck.function_scoped_fixture,
        HealthCheck.too_slow,
        HealthCheck.data_too_large,
        HealthCheck.filter_too_much,
        HealthCheck.large_base_example,
    ],
)
MORE = settings(PROPERTY, max_examples=25)

SLOTS = slots()
STRING_SLOTS = [s for s in SLOTS if isinstance(get(s.document(set_value=False), s.path), str)]
BOUNDED_STRING_SLOTS = [s for s in STRING_SLOTS if "maxLength" in s.node]
# Strings stored as given (not test ids or the suite name, which must name catalog rows).
FREE_STRING_SLOTS = [
    s
    for s in BOUNDED_STRING_SLOTS
    if "format" not in s.node and COLUMNS.get(s.template, ("", ""))[0] not in ("test", "suite")
]
INTEGER_SLOTS = [s for s in SLOTS if s.node.get("type") == "integer"]
# Integers that must equal a catalog value (a test's block size, a suite's version).
CONSTRAINED = {
    ("results", STAR, "block_size"),
    ("results", STAR, "queue_depth"),
    ("consistency", STAR, "block_size"),
    ("consistency", STAR, "queue_depth"),
    ("saturation", STAR, "block_size"),
    ("saturation", STAR, "queue_depth"),
    ("parameters", "suite", "version"),
}
FREE_INTEGER_SLOTS = [s for s in INTEGER_SLOTS if s.template not in CONSTRAINED]
MESSAGE_LIMIT = 300  # no problem message may be longer, whatever the document holds


def ingest_rejected(document: dict | str | bytes) -> list[documents.DocumentProblem]:
    raw = document if isinstance(document, str | bytes) else json.dumps(document)
    before = row_counts()
    with pytest.raises(DocumentRejected) as caught:
        run_ingest(document=raw, submitter=None)
    assert row_counts() == before, "a rejected document added rows"
    problems = caught.value.problems
    assert problems and all(len(p.message) <= MESSAGE_LIMIT for p in problems), problems
    return problems


def implausible(document: dict) -> set[tuple[str, str]]:
    """What the plausibility model (results.plausibility) refuses in a document the
    schema and the meaning checks pass, judged as ingest judges it (a drive the document
    creates). Beyond what the database can hold, it is tests/api/test_plausibility.py's
    subject; here a value it refuses is refused with its problems, and no more."""
    specs = {
        t.identifier: documents.TestSpec(
            t.identifier, t.kind, t.block_size, t.queue_depth, t.duration_s
        )
        for t in Test.objects.all()
    }
    try:
        documents.validate(document, specs)
        spec = drive_spec(document)
    except DocumentRejected:
        return set()
    named = {k: spec[k] for k in ("kind", "interface", "capacity_bytes") if k in spec}
    envelope = plausibility.Envelope.of(Drive(**named), spec)
    return {(p.pointer, p.message) for p in plausibility.figure_problems(document, specs, envelope)}


def ingest_accepted(document: dict) -> Run | None:
    """The run the document is stored as, read back; None when the plausibility model
    refuses it (implausible), which ingest must then do with the model's problems."""
    refused = implausible(document)
    if refused:
        assert {(p.pointer, p.message) for p in ingest_rejected(document)} == refused
        return None
    outcome = run_ingest(document=json.dumps(document), submitter=None)
    assert outcome.created
    return Run.objects.get(pk=outcome.run.pk)  # as the database reads it back


def stored(run: Run, slot: Slot):
    """The value the database holds for the slot's field, read back."""
    if slot.template in DOCUMENT_ONLY:
        return get(json.loads(run.document), slot.path)
    if slot.template in HASHED:
        return run.unit_hash
    row, name = COLUMNS[slot.template]
    value = getattr(ROWS[row](run, slot.path), name)
    if (
        slot.template[-1] == STAR or isinstance(value, dict) and name == slot.template[-2]
    ):  # an item of a stored array or map
        value = value[slot.path[-1]]
    return value


def pointers(problems) -> set[str]:
    return {p.pointer for p in problems}


# -- the bases: each stored as it is, every field of the schema held by one of them ---------------
@pytest.mark.parametrize("base", sorted(BASES))
def test_every_maximal_document_is_stored(base):
    document = BASES[base]()
    run = ingest_accepted(document)
    assert run.schema_version == document["schema_version"]


def test_every_field_the_schema_defines_is_a_slot():
    fields = {path for path, _ in schema_leaves()}
    mirrors = {path for path in fields if mirrored(path)}
    assert {slot.template for slot in SLOTS} == fields - mirrors - SELECTORS
    assert {("results", STAR, "read", *path[3:]) for path in mirrors} <= fields


# -- 1. characters PostgreSQL cannot store -----------------------------------------------------
BAD_CHARACTERS = {
    "nul": (st.just("\x00"), documents.NUL_CHARACTER),
    "surrogate": (st.integers(0xD800, 0xDFFF).map(chr), documents.LONE_SURROGATE),
}


@pytest.mark.parametrize("character", sorted(BAD_CHARACTERS))
@pytest.mark.parametrize("slot", STRING_SLOTS, ids=str)
@PROPERTY
@given(data=st.data())
def test_a_nul_or_lone_surrogate_in_any_string_is_refused_at_its_pointer(slot, character, data):
    characters, message = BAD_CHARACTERS[character]
    base = get(slot.document(set_value=False), slot.path)
    at = data.draw(st.integers(0, len(base)), label="at")
    bad = data.draw(characters, label="character")
    with rolled_back():
        problems = ingest_rejected(slot.document(base[:at] + bad + base[at:]))
    assert [(p.pointer, p.message) for p in problems] == [(slot.pointer, message)]


OBJECTS = [(base, path) for base, make in BASES.items() for path in objects(make())]


@pytest.mark.parametrize(
    "base, path", OBJECTS, ids=lambda v: documents.pointer(*v) if isinstance(v, tuple) else v
)
@pytest.mark.parametrize(
    "key, message",
    [("a\x00b", documents.KEY_NUL_CHARACTER), ("\udfff", documents.KEY_LONE_SURROGATE)],
    ids=["nul", "surrogate"],
)
def test_a_bad_character_in_any_key_is_refused_at_its_object(base, path, key, message):
    document = BASES[base]()
    get(document, path)[key] = 1
    assert [(p.pointer, p.message) for p in ingest_rejected(document)] == [
        (documents.pointer(*path), message)
    ]


# -- 4. lengths: every string is bounded by its column --------------------------------------
@pytest.mark.parametrize("slot", BOUNDED_STRING_SLOTS, ids=str)
@PROPERTY
@given(data=st.data())
def test_a_string_longer_than_its_column_is_refused_at_its_pointer(slot, data):
    limit = slot.node["maxLength"]
    base = get(slot.document(set_value=False), slot.path)
    extra = data.draw(st.integers(limit + 1 - len(base), 3 * limit), label="extra")
    # Padding every pattern accepts, so that the length is the only thing wrong.
    value = base + "a" * extra
    with rolled_back():
        problems = ingest_rejected(slot.document(value))
    assert pointers(problems) == {slot.pointer}
    assert documents.TOO_LONG.format(limit=limit) in {p.message for p in problems}


@pytest.mark.parametrize("slot", FREE_STRING_SLOTS, ids=str)
@PROPERTY
@given(data=st.data())
def test_any_string_the_schema_allows_is_stored_exactly_or_refused_at_its_pointer(slot, data):
    node = {k: v for k, v in slot.node.items() if k != "description"}
    value = data.draw(
        st.one_of(from_schema(node), from_schema({**node, "minLength": node["maxLength"]})),
        label="value",
    )
    with rolled_back():
        if "\x00" in value:
            problems = ingest_rejected(slot.document(value))
            assert [(p.pointer, p.message) for p in problems] == [
                (slot.pointer, documents.NUL_CHARACTER)
            ]
        elif slot.template == ("source", "citation", "url") and not is_http_url(value):
            problems = ingest_rejected(slot.document(value))
            assert [(p.pointer, p.message) for p in problems] == [
                (slot.pointer, documents.NOT_HTTP_URL)
            ]
        else:
            run = ingest_accepted(slot.document(value))
            if run is None:
                return
            if slot.template == ("drive", "firmware") and value == "":
                assert run.firmware is None
            else:
                expect = value.strip() if slot.template in TRIMMED else value
                expect = documents.serial_hash(value) if slot.template in HASHED else expect
                assert stored(run, slot) == expect


# -- 2. numbers the columns cannot hold ------------------------------------------------------
def spelled(value: int, as_float: bool):
    """The integer as JSON would carry it: an integer literal, or a number with an exponent
    (1e20) that reads as a float. A float is used only when it keeps the value's side of
    the bound."""
    return float(value) if as_float else value


@pytest.mark.parametrize("slot", INTEGER_SLOTS, ids=str)
@PROPERTY
@given(data=st.data())
def test_an_integer_above_its_column_is_refused_at_its_pointer(slot, data):
    limit = slot.node["maximum"]
    value = data.draw(st.integers(limit + 1, limit * 4 + 10**20), label="value")
    as_float = data.draw(st.booleans(), label="as float") and float(value) > limit
    with rolled_back():
        problems = ingest_rejected(slot.document(spelled(value, as_float)))
    assert [(p.pointer, p.message) for p in problems] == [
        (slot.pointer, documents.TOO_BIG.format(limit=limit))
    ]


@pytest.mark.parametrize("slot", INTEGER_SLOTS, ids=str)
@PROPERTY
@given(data=st.data())
def test_an_integer_below_its_minimum_is_refused_at_its_pointer(slot, data):
    limit = slot.node["minimum"]
    value = data.draw(st.integers(limit - 2**70, limit - 1), label="value")
    with rolled_back():
        problems = ingest_rejected(slot.document(value))
    assert [(p.pointer, p.message) for p in problems] == [
        (slot.pointer, documents.TOO_SMALL.format(limit=limit))
    ]


def free_document(slot: Slot, value) -> dict:
    """The slot's document with the value, and the fields that must agree with it out of
    the way (bytes = io_count x block size, bytes/s = iops x block size; a mixed result's
    counts = the sums of its reads' and writes'; min <= percentiles <= max in each latency
    summary, its histogram left as it is)."""
    document = slot.document(value)
    if slot.template[:1] != ("results",):
        return document
    entry = document["results"][slot.path[1]]
    owner, tail = entry, slot.path[2:]
    if tail[0] in documents.MIXED_SIDES:
        owner, tail = entry[tail[0]], tail[1:]
        entry.pop("io_count", None)
        entry.pop("bytes", None)
    elif tail in (("io_count",), ("bytes",)):
        del entry["bytes" if tail == ("io_count",) else "io_count"]
        for key in ("rwmixread", *documents.MIXED_SIDES):
            entry.pop(key, None)
    if tail in (("bytes_per_second",), ("iops",)):  # bytes/s = iops x block size
        owner.pop("iops" if tail == ("bytes_per_second",) else "bytes_per_second", None)
    # A histogram's count stays in its histogram: what its total must be is the
    # plausibility model's (a count its io_count does not hold is refused there).
    if tail[0] in documents.LATENCY_KINDS and tail[1] != "histogram":
        kind, name = tail[:2]
        owner[kind] = {"percentiles": {tail[2]: value}} if name == "percentiles" else {name: value}
    return document


@pytest.mark.parametrize("slot", FREE_INTEGER_SLOTS, ids=str)
@PROPERTY
@given(data=st.data())
def test_any_integer_within_its_column_is_stored_exactly(slot, data):
    low, high = slot.node["minimum"], slot.node["maximum"]
    value = data.draw(
        st.one_of(st.sampled_from([low, high]), st.integers(low, high)), label="value"
    )
    # 2.56e11 for 256000000000: the same integer, spelled as JSON with an exponent.
    as_float = data.draw(st.booleans(), label="as float") and float(value) == value
    with rolled_back():
        run = ingest_accepted(free_document(slot, spelled(value, as_float)))
        assert run is None or stored(run, slot) == value


NUMBER_SLOTS = [s for s in SLOTS if s.node.get("type") == "number"]
EDGES = [5e-324, 1e-300, 0.1, 1.0, 1e300, 1.7976931348623157e308]


def numbers(node: dict):
    """Finite floats the schema allows for the node, the extremes of a double among them."""
    low = node.get("minimum", node.get("exclusiveMinimum"))
    high = node.get("maximum")
    inside = [
        e
        for e in EDGES
        if (low is None or e > low or (e == low and "minimum" in node))
        and (high is None or e <= high)
    ]
    floats = st.floats(
        min_value=low,
        max_value=high,
        exclude_min="exclusiveMinimum" in node,
        allow_nan=False,
        allow_infinity=False,
    )
    return st.one_of(st.sampled_from(inside), floats)


@pytest.mark.parametrize("slot", NUMBER_SLOTS, ids=str)
@PROPERTY
@given(data=st.data())
def test_any_number_the_schema_allows_is_stored_exactly(slot, data):
    value = data.draw(numbers(slot.node), label="value")
    document = free_document(slot, value)
    # A result's rate alone: the leaderboard derives the other one, in float8 arithmetic,
    # which must neither overflow nor underflow to 0.
    derived = too_slow = None
    if slot.template in (("results", STAR, "iops"), ("results", STAR, "bytes_per_second")):
        test = document["results"][slot.path[1]]["test"]
        block = Test.objects.get(identifier=test).block_size
        if slot.path[-1] == "iops" and math.isinf(value * block):
            derived = "bytes_per_second"
        elif slot.path[-1] == "bytes_per_second" and value / block == 0:
            derived = "iops"
        # A rate no drive reports (under one I/O in 12 days) would overflow a price per IOPS.
        entry = document["results"][slot.path[1]]
        rate = entry["iops"] if "iops" in entry else entry["bytes_per_second"] / block
        if not derived and rate < documents.MIN_IOPS:
            too_slow = documents.TOO_SLOW.format(
                iops=rate, block_size=block, minimum=documents.MIN_IOPS
            )
        # What no drive can do (under one I/O a second, above its link) is the plausibility
        # model's to refuse: ingest_accepted holds ingest to it.
    with rolled_back():
        if too_slow:
            problems = ingest_rejected(document)
            assert [(p.pointer, p.message) for p in problems] == [(slot.pointer, too_slow)]
            return
        if derived:
            problems = ingest_rejected(document)
            assert [(p.pointer, p.message) for p in problems] == [
                (
                    slot.pointer,
                    documents.DERIVED_OUT_OF_RANGE.format(derived=derived, block_size=block),
                )
            ]
            return
        run = ingest_accepted(document)
        assert run is None or stored(run, slot) == value


# Every latency summary of the maximal documents: a result's latency_ns and clat_ns, and
# those of the reads and the writes of a mixed result.
SUMMARIES = [
    (base, path)
    for base, make in BASES.items()
    for path in objects(make())
    if path and path[-1] in documents.LATENCY_KINDS
]


@pytest.mark.parametrize(
    "base, path", SUMMARIES, ids=lambda v: documents.pointer(*v) if isinstance(v, tuple) else v
)
@settings(PROPERTY, max_examples=10)  # one rule, the same code for each summary
@given(
    bounds=st.lists(st.integers(0, 4), min_size=3, max_size=3),
    percentiles=st.lists(st.integers(0, 4), max_size=3),
)
def test_a_latency_summary_out_of_order_is_refused_at_its_pointer(base, path, bounds, percentiles):
    low, mean, high = bounds
    summary = {"min": low, "mean": float(mean), "max": high}
    if percentiles:
        summary["percentiles"] = {str(10 * (i + 1)): v for i, v in enumerate(percentiles)}
    document = BASES[base]()
    get(document, path[:-1])[path[-1]] = summary
    expected = set()
    if not low <= mean <= high:
        expected.add((documents.pointer(*path), plausibility.LATENCY_ORDER))
    if [low, *percentiles, high] != sorted([low, *percentiles, high]):
        expected.add((documents.pointer(*path, "percentiles"), plausibility.PERCENTILE_ORDER))
    orders = {plausibility.LATENCY_ORDER, plausibility.PERCENTILE_ORDER}
    with rolled_back():
        # Exactly these order problems; the rest of the model (Little's law, the whole's
        # latency against its parts) may refuse such a summary too.
        assert {p for p in implausible(document) if p[1] in orders} == expected
        ingest_accepted(document)


MIXED = next(i for i, e in enumerate(BASES["measured-v2"]()["results"]) if "rwmixread" in e)


@MORE
@given(
    reads=st.integers(0, 10**6),
    writes=st.integers(0, 10**6),
    total=st.none() | st.integers(0, 2 * 10**6),
)
def test_a_mixed_results_counts_are_the_sums_of_its_reads_and_writes(reads, writes, total):
    document = BASES["measured-v2"]()
    entry = document["results"][MIXED]
    total = reads + writes if total is None else total
    for side, count in (("read", reads), ("write", writes)):
        entry[side].update(io_count=count, bytes=count * 4096)
        entry[side].pop("bytes_per_second")
    entry.update(io_count=total, bytes=total * 4096)
    with rolled_back():
        if total == reads + writes:
            run = ingest_accepted(document)
            if run is None:
                return
            result = run.results.order_by("pk")[MIXED]
            assert (result.io_count, result.bytes) == (total, total * 4096)
            return
        problems = {(p.pointer, p.message) for p in ingest_rejected(document)}
        where = documents.pointer("results", MIXED)
        assert {
            (
                f"{where}/{field}",
                plausibility.SUM_MISMATCH.format(field=field, value=value, expected=expected),
            )
            for field, value, expected in (
                ("io_count", total, reads + writes),
                ("bytes", total * 4096, (reads + writes) * 4096),
            )
        } <= problems
        assert problems == implausible(document)


def test_the_largest_counts_round_trip_through_the_consistency_series():
    document = maximal_measured()
    series = [2**63 - 1, 0, 2**31, 2**40, 7]
    document["consistency"][0]["iops"] = series
    document["drive"].update(kind="virtual", interface="other")  # no wire bounds the counts
    run = ingest_accepted(document)
    stored_series = run.consistency_series.get()
    assert stored_series.iops == series
    assert stored_series.steady_min_iops == min(series[3:])


# -- 6. dates: what PostgreSQL stores and psycopg reads back, not in the future ------------------
NOW = datetime.now(UTC)
LAST_INSTANT = datetime(9999, 12, 31, 23, 59, 59, 999999, tzinfo=UTC)


@st.composite
def rfc3339_texts(draw):
    """Date-times in RFC 3339's shape, valid or not: years 0 to 9999, days and hours that
    do not exist, leap seconds, offsets up to +-23:59, fractions beyond microseconds,
    and instants around now + 1 day."""
    if draw(st.booleans()):
        moment = draw(st.datetimes(min_value=datetime(1, 1, 2), max_value=datetime(9999, 12, 30)))
        parts = [moment.year, moment.month, moment.day, moment.hour, moment.minute, moment.second]
    elif draw(st.booleans()):
        moment = NOW.replace(tzinfo=None) + timedelta(
            seconds=draw(st.integers(-3 * 86400, 3 * 86400))
        )
        parts = [moment.year, moment.month, moment.day, moment.hour, moment.minute, moment.second]
    else:
        parts = [
            draw(st.sampled_from([0, 1, 9999]) | st.integers(0, 9999)),
            draw(st.integers(0, 13)),
            draw(st.integers(0, 32)),
            draw(st.integers(0, 24)),
            draw(st.integers(0, 60)),
            draw(st.integers(0, 61)),
        ]
    year, month, day, hour, minute, second = parts
    fraction = draw(st.text("0123456789", max_size=9))
    separator = draw(st.sampled_from("Tt"))
    if draw(st.booleans()):
        zone = draw(st.sampled_from("Zz"))
    else:
        sign = draw(st.sampled_from("+-"))
        zone = f"{sign}{draw(st.integers(0, 25)):02d}:{draw(st.integers(0, 61)):02d}"
    text = f"{year:04d}-{month:02d}-{day:02d}{separator}{hour:02d}:{minute:02d}:{second:02d}"
    return text + (f".{fraction}" if fraction else "") + zone


def expected_instant(text: str) -> datetime | str:
    """The UTC instant, computed without datetime's own range ("bad": no such date-time;
    "range": outside the years 1 to 9999 in UTC)."""
    match = re.fullmatch(
        r"(\d{4})-(\d\d)-(\d\d)[Tt](\d\d):(\d\d):(\d\d)(?:\.(\d+))?(?:[Zz]|([+-])(\d\d):(\d\d))",
        text,
    )
    if not match:
        return "bad"
    year, month, day, hour, minute, second = (int(g) for g in match.groups()[:6])
    fraction, sign, off_h, off_m = match.groups()[6:]
    if year == 0:
        return "range"
    try:
        day_number = date(year, month, day).toordinal() - 1
    except ValueError:
        return "bad"
    if hour > 23 or minute > 59 or second > 59:
        return "bad"
    offset = 0
    if sign:
        if int(off_h) > 23 or int(off_m) > 59:
            return "bad"
        offset = (int(off_h) * 60 + int(off_m)) * 60 * (-1 if sign == "-" else 1)
    seconds = day_number * 86400 + hour * 3600 + minute * 60 + second - offset
    if not 0 <= seconds < date(9999, 12, 31).toordinal() * 86400:
        return "range"
    micro = int((fraction or "")[:6].ljust(6, "0"))
    return datetime(1, 1, 1, tzinfo=UTC) + timedelta(seconds=seconds, microseconds=micro)


@pytest.mark.parametrize("field", ["started_at", "finished_at"])
@MORE
@given(text=rfc3339_texts())
def test_any_date_time_is_stored_as_its_instant_or_refused_at_its_pointer(field, text):
    expect = expected_instant(text)
    document = maximal_published()
    document[field] = text
    limit = datetime.now(UTC) + documents.FUTURE_SLACK
    if isinstance(expect, datetime):
        assume(abs(expect - limit) > timedelta(minutes=1))  # clear of the moving bound
    with rolled_back():
        if isinstance(expect, datetime) and expect <= limit:
            run = ingest_accepted(document)
            if run is None:
                return
            assert getattr(run, field) == expect
            # psycopg reads it back: the drive's page and the API can show it.
            assert Run.objects.values_list(field, flat=True).get(pk=run.pk) == expect
            return
        problems = ingest_rejected(document)
        assert pointers(problems) == {f"/{field}"}
        messages = {p.message for p in problems}
        if expect == "range":
            assert messages == {documents.OUT_OF_RANGE_TIME}
        elif expect == "bad":
            assert len(messages) == 1 and messages < {
                documents.BAD_FORMAT.format(format=documents.FORMAT_NAMES["date-time"]),
                documents.BAD_TIMESTAMP.format(value=documents.quote(text)),
            }
        else:
            assert messages == {documents.FUTURE_TIME}


@pytest.mark.parametrize(
    "text, message",
    [
        ("0000-01-01T00:00:00Z", documents.OUT_OF_RANGE_TIME),
        ("0001-01-01T00:30:00+01:00", documents.OUT_OF_RANGE_TIME),
        ("9999-12-31T23:30:00-01:00", documents.OUT_OF_RANGE_TIME),
        ("2999-01-01T00:00:00Z", documents.FUTURE_TIME),
        ("2026-02-30T10:00:00Z", documents.BAD_TIMESTAMP.format(value='"2026-02-30T10:00:00Z"')),
    ],
)
def test_the_issues_dates(text, message):
    document = maximal_published()
    document["started_at"] = text
    assert [(p.pointer, p.message) for p in ingest_rejected(document)] == [("/started_at", message)]


@MORE
@given(
    year=st.sampled_from([0, 1, 9999]) | st.integers(0, 9999),
    month=st.integers(0, 13),
    day=st.integers(0, 32),
    near_now=st.none() | st.integers(-3, 3),
)
def test_any_publication_date_is_stored_or_refused_at_its_pointer(year, month, day, near_now):
    if near_now is not None:
        moment = NOW.date() + timedelta(days=near_now)
        year, month, day = moment.year, moment.month, moment.day
    text = f"{year:04d}-{month:02d}-{day:02d}"
    document = maximal_published()
    document["source"]["citation"]["published_on"] = text
    try:
        expect = date(year, month, day)
    except ValueError:
        expect = None
    today = datetime.now(UTC)
    assume(expect is None or expect != (today + documents.FUTURE_SLACK).date() + timedelta(1))
    with rolled_back():
        if expect is not None and expect <= (today + documents.FUTURE_SLACK).date():
            assert ingest_accepted(document).citation.published_on == expect
            return
        problems = ingest_rejected(document)
        assert pointers(problems) == {"/source/citation/published_on"}
        if year == 0:
            assert {p.message for p in problems} == {documents.OUT_OF_RANGE_TIME}
        elif expect is None:
            assert {p.message for p in problems} == {
                documents.BAD_DATE.format(value=documents.quote(text))
            }
        else:
            assert {p.message for p in problems} == {documents.FUTURE_TIME}


# -- 7. the units check, in exact arithmetic --------------------------------------------------
BLOCK_SIZES = {"randread-4k-qd3": 4096, "seqread-128k-qd1": 131072, "seqwrite-2m-qd1": 2097152}
POSITIVE = st.floats(min_value=0.0, exclude_min=True, allow_infinity=False, allow_nan=False)


@MORE
@given(
    test=st.sampled_from(sorted(BLOCK_SIZES)),
    iops=POSITIVE | st.sampled_from([1e306, 1.7976931348623157e308, 1e-6]),
    ratio=st.sampled_from([1.0, 1.0099, 1.0101, 0.9901, 0.9899]) | st.floats(0.5, 2.0),
    arbitrary=st.none() | POSITIVE,
)
def test_bytes_per_second_must_be_iops_times_block_size_whatever_the_magnitudes(
    test, iops, ratio, arbitrary
):
    block = BLOCK_SIZES[test]
    bps = arbitrary if arbitrary is not None else iops * block * ratio
    assume(bps != float("inf") and bps > 0)
    # Slower rates are refused as such (tests of their own).
    assume(iops >= plausibility.MIN_PLAUSIBLE_IOPS)
    with localcontext() as exact:
        exact.prec = 1000
        expected = Decimal(iops) * block
        agrees = abs(Decimal(bps) - expected) <= expected / 100
    document = maximal_published()
    document["results"] = [
        {"test": test, "pattern": "incompressible", "iops": iops, "bytes_per_second": bps}
    ]
    with rolled_back():
        if agrees:
            run = ingest_accepted(document)
            if run is None:
                return
            result = run.results.get()
            assert (result.iops, result.bytes_per_second) == (iops, bps)
        else:
            problems = ingest_rejected(document)
            assert pointers(problems) == {"/results/0/bytes_per_second"}
            assert problems[0].message.startswith("bytes_per_second ")


def test_the_issues_overflowing_units():
    document = maximal_published()
    document["results"] = [
        {"test": "randread-4k-qd3", "pattern": "compressible", "iops": 1e306, "bytes_per_second": 1}
    ]
    (problem,) = ingest_rejected(document)
    assert problem.pointer == "/results/0/bytes_per_second"
    assert "4.096e+309" in problem.message


@pytest.mark.parametrize(
    "rate, value, derived",
    [("iops", 1e305, "bytes_per_second"), ("bytes_per_second", 5e-324, "iops")],
)
def test_a_rate_whose_derived_figure_no_double_holds_is_refused(rate, value, derived):
    document = maximal_published()
    document["results"] = [{"test": "randread-4k-qd3", "pattern": "compressible", rate: value}]
    assert [(p.pointer, p.message) for p in ingest_rejected(document)] == [
        (
            f"/results/0/{rate}",
            documents.DERIVED_OUT_OF_RANGE.format(derived=derived, block_size=4096),
        )
    ]


@MORE
@given(
    rate=st.sampled_from(["iops", "bytes_per_second"]),
    value=st.one_of(st.sampled_from(EDGES), st.floats(min_value=5e-324, max_value=1e306)),
)
def test_every_rate_accepted_can_be_priced_and_ranked(client, rate, value):
    """Whatever rate a published result gives, the value view and the leaderboard that
    price and rank it answer 200 — or the document was refused at the rate's pointer."""
    document = maximal_published()
    document["results"] = [{"test": "randread-4k-qd3", "pattern": "compressible", rate: value}]
    with rolled_back():
        try:
            run = run_ingest(document=json.dumps(document), submitter=None).run
        except DocumentRejected as rejected:
            assert [p.pointer for p in rejected.problems] == [f"/results/0/{rate}"]
            return
        Price.objects.create(
            drive_id=run.drive_id, amount=Decimal("99.99"), observed_on=date(2026, 1, 1)
        )
        for url in ("/bench/value/", "/api/v1/value/", "/bench/tests/randread-4k-qd3/"):
            response = client.get(url, {"test": "randread-4k-qd3"})
            assert response.status_code == 200, (url, value)


# -- 3. the document's checks are the constraints' rules -------------------------------------
# The unique constraints, as the database states them (independent of documents.py).
CONSTRAINT_KEYS = {
    "results": lambda e: (e["test"], e["pattern"]),
    "consistency": lambda e: (e["test"], e["spare_area_percent"]),
    "trim": lambda e: (e["test"], e.get("pattern", "unspecified")),
}
RATES = {
    "clean_bytes_per_second": 3e8,
    "after_torture_bytes_per_second": 1e8,
    "after_trim_bytes_per_second": 2.9e8,
}
PATTERNS = ["compressible", "incompressible", "unspecified"]


def maybe(key, values):
    return st.one_of(st.just({}), st.sampled_from(values).map(lambda v: {key: v}))


entries = {
    "results": st.builds(
        lambda test, pattern: {"test": test, "pattern": pattern, "bytes_per_second": 1e8},
        st.sampled_from(["randread-4k-qd3", "seqread-128k-qd1"]),
        st.sampled_from(PATTERNS),
    ),
    "consistency": st.builds(
        lambda spare, pattern: {
            "test": "consistency-4k-qd32",
            "spare_area_percent": spare,
            "iops": [5, 4, 3],
            **pattern,
        },
        st.sampled_from([0, 25]),
        maybe("pattern", ["compressible", "incompressible"]),
    ),
    "trim": st.builds(
        lambda test, pattern: {"test": test, **RATES, **pattern},
        st.sampled_from(["trim-validation", "trim-as-ssd-seqwrite"]),
        maybe("pattern", PATTERNS),
    ),
}


@MORE
@given(
    results=st.lists(entries["results"], min_size=1, max_size=4),
    consistency=st.lists(entries["consistency"], max_size=4),
    trim=st.lists(entries["trim"], max_size=4),
)
def test_entries_repeated_by_the_constraints_rule_are_refused_the_rest_stored(
    results, consistency, trim
):
    document = maximal_published()
    sections = {"results": results, "consistency": consistency, "trim": trim}
    document.update(sections)
    repeated = {}
    for section, items in sections.items():
        seen = set()
        for index, entry in enumerate(items):
            key = CONSTRAINT_KEYS[section](entry)
            if key in seen:
                repeated[documents.pointer(section, index)] = documents.DUPLICATE_ENTRY.format(
                    what=" / ".join(map(str, key))
                )
            seen.add(key)
    with rolled_back():
        if repeated:
            problems = ingest_rejected(document)
            assert {p.pointer: p.message for p in problems} == repeated
        else:
            run = ingest_accepted(document)
            assert run is None or (
                run.results.count(),
                run.consistency_series.count(),
                run.trim_validations.count(),
            ) == (len(results), len(consistency), len(trim))


def test_the_unique_constraints_are_built_from_the_documents_rule():
    for model, section in (
        (Result, "results"),
        (ConsistencySeries, "consistency"),
        (TrimValidation, "trim"),
    ):
        (constraint,) = [c for c in model._meta.constraints if c.name.endswith("_unique")]
        assert tuple(constraint.fields) == ("run", *documents.ENTRY_IDENTITY[section])


LATENCY = {"mean": 20.0, "stddev": 5.0, "min": 10, "max": 30, "percentiles": {"50": 20}}


@MORE
@given(
    rate=st.sampled_from([{}, {"bytes_per_second": 4096e3}, {"iops": 1000.0}]),
    latency=st.none() | st.sets(st.sampled_from(sorted(LATENCY)), min_size=1),
)
def test_a_result_is_stored_exactly_when_it_holds_a_metric(rate, latency):
    entry = {"test": "randread-4k-qd3", "pattern": "compressible", **rate}
    if latency is not None:
        entry["latency_ns"] = {name: LATENCY[name] for name in latency}
    # The result_has_a_metric constraint, as the database states it.
    has_metric = bool(rate) or bool(latency and latency & {"mean", "max", "percentiles"})
    document = maximal_published()
    document["results"] = [entry]
    with rolled_back():
        if has_metric:
            run = ingest_accepted(document)
            if run is None:
                return
            result = run.results.get()
            assert result.latency_mean_ns == entry.get("latency_ns", {}).get("mean")
            return
        (problem,) = ingest_rejected(document)
        needed = ["bytes_per_second", "iops"] + (
            ["latency_ns/max", "latency_ns/mean", "latency_ns/percentiles"]
            if latency
            else ["latency_ns"]
        )
        assert (problem.pointer, problem.message) == (
            "/results/0",
            documents.NEEDS_ONE_OF.format(fields=", ".join(needed)),
        )


# -- 9. messages cap what they quote -------------------------------------------------------------
MEGABYTE = "x" * 2**20


@pytest.mark.parametrize("slot", STRING_SLOTS, ids=str)
def test_a_megabyte_string_gets_a_short_message_at_its_pointer(slot):
    problems = ingest_rejected(slot.document(MEGABYTE))
    assert pointers(problems) == {slot.pointer}


def test_a_megabyte_key_gets_a_short_message_and_pointer():
    document = maximal_measured()
    document["drive"][MEGABYTE] = 1
    (problem,) = ingest_rejected(document)
    assert problem.pointer == "/drive"
    assert problem.message == documents.UNKNOWN_FIELD.format(field=documents.quote(MEGABYTE))
    assert len(problem.message) < 100


def test_a_series_past_its_limit_and_many_problems_stay_short():
    document = maximal_measured()
    document["consistency"][0]["iops"] = [1] * 100_001
    (problem,) = ingest_rejected(document)
    assert (problem.pointer, problem.message) == (
        "/consistency/0/iops",
        documents.TOO_MANY_ITEMS.format(limit=100_000),
    )
    document["consistency"][0]["iops"] = [-1] * 50_000
    problems = ingest_rejected(document)
    assert len(problems) == documents.MAX_PROBLEMS + 1
    assert problems[-1].message == documents.MORE_PROBLEMS.format(count=documents.MAX_PROBLEMS)
    with pytest.raises(DocumentRejected) as caught:
        run_ingest(document=json.dumps(document), submitter=None)
    assert len(str(caught.value)) < 10_000


def test_a_huge_integer_is_quoted_short():
    document = maximal_measured()
    document["schema_version"] = 10**4000
    (problem,) = ingest_rejected(document)
    assert problem.pointer == "/schema_version" and len(problem.message) < 200


# -- 11. idempotency by content, not spelling -----------------------------------------------------
def respell(value, rng: random.Random) -> str:
    """The same JSON value written another way: keys in another order, other spacing,
    integers as 2.56e11 or 256000000000.0 where that is the same number, floats with an
    exponent or all their digits."""
    space = rng.choice(["", " ", "\n  "])
    if isinstance(value, dict):
        items = list(value.items())
        rng.shuffle(items)
        return (
            "{"
            + f",{space}".join(f"{json.dumps(k)}:{space}{respell(v, rng)}" for k, v in items)
            + "}"
        )
    if isinstance(value, list):
        return "[" + f",{space}".join(respell(v, rng) for v in value) + "]"
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return json.dumps(value, ensure_ascii=rng.random() < 0.5)
    if isinstance(value, int):
        choices = [str(value)]
        if value and abs(value) <= 2**53:  # where a double holds the integer exactly
            digits = str(abs(value))
            zeros = len(digits) - len(digits.rstrip("0"))
            choices += [f"{value}.0", f"{value // 10**zeros}e{zeros}"]
        return rng.choice(choices)
    if isinstance(value, float):
        choices = [repr(value), f"{value:.17g}", f"{value:.17e}"]
        if value.is_integer() and abs(value) <= 2**53:
            choices.append(str(int(value)))
        return rng.choice(choices)
    return json.dumps(value)


@PROPERTY
@given(seed=st.integers(0, 2**32))
def test_the_same_content_spelled_otherwise_is_the_same_run(seed):
    document = maximal_measured()
    document["drive"]["capacity_bytes"] = 256000000000
    with rolled_back():
        first = ingest_accepted(document)
        before = row_counts()
        text = respell(document, random.Random(seed))
        assert json.loads(text) == document  # the same values, read back
        again = run_ingest(document=text, submitter=None)
        assert (again.created, again.run.pk, row_counts()) == (False, first.pk, before)
        document["results"][0]["duration_ns"] += 1  # another number: another run
        assert run_ingest(document=respell(document, random.Random(seed)), submitter=None).created


def test_the_issues_spelling_of_a_capacity():
    document = maximal_measured()
    text = json.dumps(document).replace(
        f'"capacity_bytes": {256 * 10**9}', '"capacity_bytes": 2.56e11'
    )
    assert "2.56e11" in text
    first = run_ingest(document=json.dumps(document), submitter=None)
    second = run_ingest(document=text, submitter=None)
    assert not second.created and second.run.pk == first.run.pk


# -- 5. names compared the way the catalog keys them ---------------------------------------------
NAMES = st.text(
    st.characters(codec="utf-8", exclude_categories=["Cs", "Cc"]), min_size=1, max_size=30
).filter(lambda s: s.strip() and "\x00" not in s)


@MORE
@given(name=NAMES, variant=st.sampled_from(["upper", "lower", "casefold", "spaced", "nfd"]))
def test_a_manufacturer_or_model_spelled_otherwise_is_the_same_row_when_its_key_is(name, variant):
    other = {
        "upper": name.upper(),
        "lower": name.lower(),
        "casefold": name.casefold(),
        "spaced": f"  {name}  ",
        "nfd": unicodedata.normalize("NFD", name),
    }[variant]
    assume(other.strip() and len(other) <= 200)
    assume(not is_placeholder(name))  # a name that names nothing names no drive
    first = maximal_measured()
    first["drive"].update(manufacturer=name, model=name)
    second = maximal_measured()
    second["drive"].update(manufacturer=other, model=other, firmware="2.0")
    with rolled_back():
        a = ingest_accepted(first)
        b = ingest_accepted(second)
        same = catalog_key(name) == catalog_key(other)
        assert (a.drive.manufacturer_id == b.drive.manufacturer_id) == same
        assert (a.drive_id == b.drive_id) == same


# -- any document: a clean answer, whatever is changed -------------------------------------------
ANY_JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**70), 2**70)
    | st.floats(allow_nan=False)
    | st.text(max_size=30),
    lambda children: (
        st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=8), children, max_size=3)
    ),
    max_leaves=6,
)


@st.composite
def mutated_documents(draw):
    """A maximal document with one to three values replaced by any JSON, deleted, or
    joined by a new key."""
    document = draw(st.sampled_from(list(BASES.values())))()
    for _ in range(draw(st.integers(1, 3))):
        paths = [path for path, _ in leaves(document)] + [p for p in objects(document) if p]
        path = draw(st.sampled_from(paths))
        parent = get(document, path[:-1])
        action = draw(st.sampled_from(["replace", "delete", "add"]))
        if action == "replace":
            parent[path[-1]] = draw(ANY_JSON)
        elif action == "delete":
            del parent[path[-1]]
        elif isinstance(get(document, path), dict):
            get(document, path)[draw(st.text(max_size=10))] = draw(ANY_JSON)
    return document


@settings(PROPERTY, max_examples=30 * len(BASES))  # 30 changed documents per base
@given(document=mutated_documents())
def test_any_changed_document_is_stored_or_refused_never_an_error(document):
    with rolled_back():
        before = row_counts()
        try:
            run_ingest(document=json.dumps(document), submitter=None)
        except DocumentRejected as rejection:
            assert row_counts() == before
            assert all(len(p.message) <= MESSAGE_LIMIT for p in rejection.problems)
