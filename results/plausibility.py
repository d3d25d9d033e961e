"""What a figure of a result document may be: one model, declared once.

Which numbers of a document are rates, counts, durations, latencies, series or extents is
declared in the result document's JSON Schema, by the `x-quantity` annotation of each
numeric member (results/schema/result-document.schema.json); `declared()` reads it, and
every rule below applies to every member of a kind, wherever it stands (a throughput
result, one direction of a mixed one, a consistency series, a write saturation, a TRIM
validation). A figure added to the schema is checked as soon as it is annotated, and
tests/api/test_plausibility.py fails while a number of the schema is not.

Refused (figure_problems, with the member's JSON pointer):
- The drive's envelope: a rate, a spread, a series point (over its interval) or a count
  (over the entry's duration) beyond the line rate of the drive's interface; a test's mean
  rate under one I/O a second (a partial result is exempt: it may have measured less);
  an extent (span, WSAT target) beyond the drive's capacity. The catalog's drive decides
  the interface, the kind and the capacity (drives.services refuses a document that says
  otherwise); a drive the catalog records as virtual (not one an upload named, awaiting
  review) has no line rate.
  No I/O completes before its block has crossed the link (issue to completion).
- Internal consistency: a rate is its count over its duration; a member declared
  `at_most` another is not above it (the slowest second above the mean only by what one
  second's edge can add); a spread is one a mean can have (at most mean x sqrt(samples);
  for loadgen, at least what its slowest second gives); directions add up to their total,
  their latencies within the whole's; a total is the sum of its series, a count before a
  time the sum of its series before it; a latency's min <= mean <= max with its
  percentiles in order, a spread its range allows, no I/O longer than the test, its
  completion part within it, its histogram (version 5) one of its I/Os (io_count), in
  buckets of its scheme (results.histograms); a duration within its test and its run; a
  measured rate and its mean latency agree by Little's law at the run's queue depth
  (LITTLE_LOW..LITTLE_HIGH of the I/Os it keeps in flight; for another tool than loadgen,
  which may pace, the upper bound only; not for a paced result, rate_iops, whose rate is
  its schedule's).

Held for review (hold_reasons), against the drive's reviewed reference (Run.reviewed:
published figures and runs imported by staff, runs staff approved, runs of trusted
reviewers; never an uploader's own unreviewed runs, so no sequence of uploads moves it):
- a figure (HEADLINES: a result's rate and mean latency, a TRIM validation's, a write
  saturation's, a consistency series' rate), of a partial entry too, HOLD_FACTOR times or
  more away from the reference's median in the same test;
- an untrusted reviewer's result in a test where the drive has no reference yet, and any
  run of an untrusted reviewer for a drive awaiting review (one an upload named);
- a reviewer's run far outside the distribution of the drive's reviewed runs
  (outside_distribution, once they are MIN_RUNS or more).
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import cache
from typing import Any

from django.db import connection

from drives.models import Drive
from results import histograms, units
from results.documents import (
    MIXED_SIDES,
    SECTION_OF_KIND,
    DocumentProblem,
    DocumentRejected,
    Reading,
    TestSpec,
    capped,
    latency_kind,
    parse_time,
    pointer,
    schema,
    with_defaults,
)
from results.models import LatencyKind, Run, Test
from results.selectors.runs import run_groups
from results.spread import quantiles

# -- the declaration -----------------------------------------------------------------------
KINDS = (
    "rate",  # a test's mean rate: the line rate above, one I/O a second below
    "sample_rate",  # the rate of one sample or part (a second, a direction): line rate above
    "spread",  # a standard deviation of sample rates: line rate, and what its mean allows
    "count",  # I/Os or bytes: at most the line rate over the entry's duration
    "series",  # I/Os or bytes in each interval: at most the line rate over the interval
    "extent",  # bytes of the drive addressed: at most its capacity (x capacities)
    "latency",  # a latency summary (or one of its figures): ordered, Little's law
    "duration",
    "interval",
    "setting",  # how the test was run (block size, queue depth...): the meaning checks'
)


@dataclass(frozen=True)
class Quantity:
    """A member's `x-quantity`: its kind, what it counts (per: "io" or "byte"), and the
    relations it is declared in."""

    kind: str
    per: str = ""
    unit: str = ""
    at_most: str = ""  # a sibling member it may not exceed
    of: str = ""  # a spread: the mean it is the spread of
    part_of: bool = False  # a direction's member: the directions add up to the total's
    total_of: str = ""  # the sum of this sibling series
    within: str = ""  # a latency: the completion part of this sibling latency
    littles_law: bool = False  # a latency whose mean Little's law ties to the rate
    over: str = ""  # a rate: the sibling count it is over the entry's duration
    capacities: int = 1  # an extent: at most this many times the drive's capacity
    least: str = ""  # a spread: the sibling that is its slowest sample
    within_seconds: str = ""  # a rate over `over`: over this sibling duration (seconds)
    upto: str = ""  # a count: the sum of the series `series` before this sibling time (s)
    series: str = ""


@dataclass(frozen=True)
class Member:
    quantity: Quantity | None
    members: dict[str, Member] = field(default_factory=dict)  # an object's own members
    items: bool = False  # an array or map whose every item is of the quantity


def _resolve(node: dict[str, Any]) -> dict[str, Any]:
    ref = node.get("$ref")
    if ref is None:
        return node
    return _resolve(schema()["$defs"][ref.rsplit("/", 1)[1]])


def _member(node: dict[str, Any]) -> Member:
    quantity = Quantity(**node["x-quantity"]) if "x-quantity" in node else None
    target = _resolve(node)
    if target.get("type") == "array":
        inner = _resolve(target["items"])
        return Member(quantity or _quantity(inner), items=True)
    if "properties" in target:
        members = {name: _member(sub) for name, sub in target["properties"].items()}
        extra = target.get("additionalProperties")
        if isinstance(extra, dict) and "x-quantity" in extra:  # latency percentiles
            members["*"] = Member(Quantity(**extra["x-quantity"]), items=True)
        return Member(quantity, members)
    extra = target.get("additionalProperties")
    if isinstance(extra, dict):
        return Member(quantity or _quantity(extra), items=True)
    return Member(quantity or _quantity(target))


def _quantity(node: dict[str, Any]) -> Quantity | None:
    return Quantity(**node["x-quantity"]) if "x-quantity" in node else None


@cache
def declared() -> dict[str, Member]:
    """Each section of a document (results, consistency, saturation, trim) with what each
    member of its entries is, as the schema's `x-quantity` annotations declare it."""
    properties = schema()["properties"]
    return {section: _member(properties[section]["items"]) for section in SECTION_OF_KIND.values()}


# -- the envelope --------------------------------------------------------------------------
# Bytes a second a link carries (after its line code), the most a drive on it can move:
# PATA at UDMA 6, SATA at 8b/10b, and for NVMe (or a link the catalog does not name) the
# widest link a drive can have (PCIe 6.0 x16), since the document does not say its
# generation and lanes.
WIDEST_LINK = 121_000_000_000
LINE_RATES = {
    "pata": 133_000_000,
    "sata-1.5g": 150_000_000,
    "sata-3g": 300_000_000,
    "sata-6g": 600_000_000,
    "pcie-nvme": WIDEST_LINK,
}


@dataclass(frozen=True)
class Envelope:
    """What the drive can do: the most bytes a second its link carries (None: a virtual
    drive the catalog records, no wire), its capacity (None: unknown), and its interface as
    messages name it."""

    line_rate: float | None
    capacity: int | None
    interface: str

    @classmethod
    def of(cls, drive: Drive, spec: Mapping[str, Any]) -> Envelope:
        """The catalog drive's envelope. Where the catalog leaves the interface or the
        capacity blank, the document's may narrow it (never widen: no interface is wider
        than WIDEST_LINK). Only a virtual drive the catalog holds reviewed is unbounded."""
        interface = drive.interface or spec.get("interface") or ""
        capacity = drive.capacity_bytes or spec.get("capacity_bytes")
        capacity = int(capacity) if capacity else None  # 2.56e11 in a document's JSON
        if drive.kind == Drive.Kind.VIRTUAL and not drive.needs_review:
            return cls(None, capacity, interface)
        return cls(LINE_RATES.get(interface, WIDEST_LINK), capacity, interface or "its link")


# -- the rules -----------------------------------------------------------------------------
MIN_PLAUSIBLE_IOPS = 1.0
LITTLE_LOW, LITTLE_HIGH = 0.10, 1.10  # I/Os in flight by Little's law / the queue depth
RATE_TOLERANCE = 0.01  # directions against their total; a rate against count / duration

IMPLAUSIBLY_SLOW = (
    "gives {iops:.3g} IOPS at block size {block_size}, under one I/O a second: no working "
    "drive runs a whole test that slowly; is the unit right (bytes/s, not MB/s)?"
)
ABOVE_LINE_RATE = (
    "{rate:.10g} MB/s is above what {interface} carries ({limit:g} MB/s at most): is the "
    "interface right, and the unit (bytes/s)?"
)
COUNT_ABOVE_LINE_RATE = (
    "{value} {what} in {seconds:.6g} s is {rate:.6g} MB/s, above what {interface} carries "
    "({limit:g} MB/s at most)"
)
BEYOND_CAPACITY = "{value} bytes is beyond {times}the drive's capacity of {capacity} bytes"
ABOVE_SIBLING = "{value:.10g} is above {other} ({limit:.10g}), which it cannot exceed"
SPREAD_TOO_WIDE = (
    "a standard deviation of {value:.6g} over {samples} one-second samples is more than a "
    "mean of {mean:.6g} can have ({limit:.6g} at most: all of it in one second)"
)
SPREAD_TOO_NARROW = (
    "a standard deviation of {value:.6g} is less than a slowest second of {least:.6g} "
    "against a mean of {mean:.6g} over {samples} seconds gives ({limit:.6g} at least)"
)
LATENCY_SPREAD = (
    "a standard deviation of {value:.6g} ns is not one that latencies from {low} to {high} "
    "ns over {count} I/Os can have ({least:.6g} to {most:.6g})"
)
PARTS_OUTSIDE = "the reads' or the writes' latencies lie outside the whole's min and max"
PARTS_MEAN = (
    "a mean of {value:.6g} ns is not the reads' and the writes' weighted by their I/Os "
    "({expected:.6g} ns) within 1%"
)
UPTO_MISMATCH = "{value} is not the sum of {series} before {upto} ({expected})"
LONGER_THAN = "{value:.6g} s is longer than {what} ({limit:.6g} s)"
FASTER_THAN_WIRE = (
    "a latency of {value:.6g} ns is shorter than {block} bytes take to cross {interface} "
    "({limit:.6g} ns at least)"
)
LONGER_THAN_TEST = "an I/O of {value} ns is longer than the whole test ({limit:.0f} ns)"
SUM_MISMATCH = "{field} {value} is not the sum of the reads' and the writes' ({expected})"
TOTAL_MISMATCH = "{value} is not the sum of {series} ({expected})"
RATE_MISMATCH = (
    "{value:.10g} a second is not {count} over duration_ns ({expected:.10g} a second) within 1%"
)
HISTOGRAM_COUNT = "the histogram holds {held} I/Os where its latency is of {count} (io_count)"
LATENCY_ORDER = "latency must satisfy min <= mean <= max"
PERCENTILE_ORDER = "latency percentiles must not decrease and must lie within min and max"
NOT_WITHIN = "the completion part's {figure} ({value}) is above the whole latency's ({limit})"
LITTLES_LAW = (
    "{iops:.6g} IOPS at a mean latency of {latency:.6g} µs keep {in_flight:.3g} I/Os in "
    "flight (Little's law), where the run kept {depth} (queue depth x jobs): {what}"
)
LITTLE_TOO_MANY = "more than its queue can hold"
LITTLE_TOO_FEW = "the rate or the latency is not what was measured"

Problem = Callable[[str, str], None]


@dataclass(frozen=True)
class Context:
    """What the rules of one entry read beside its members."""

    spec: TestSpec
    envelope: Envelope | None
    measured: bool
    loadgen: bool
    partial: bool
    seconds: float | None  # the entry's duration
    interval: float | None  # its series' interval, seconds
    run_seconds: float | None  # the whole run's, from started_at to finished_at
    issue_to_completion: bool  # latency_ns runs from issue (documents.latency_kind "lat")


def figure_problems(
    document: Mapping[str, Any], specs: Mapping[str, TestSpec], envelope: Envelope | None
) -> list[DocumentProblem]:
    """Every figure of the document against the rules of its declared quantity: the
    drive's envelope (envelope None: internal consistency only) and its neighbours. For a
    document the meaning checks passed (its tests known, in their sections)."""
    problems: list[DocumentProblem] = []

    def problem(where: str, message: str) -> None:
        problems.append(DocumentProblem(where, message))

    source = document.get("source", {}).get("kind")
    started = parse_time(document.get("started_at"))
    finished = parse_time(document.get("finished_at"))
    run_seconds = (finished - started).total_seconds() if started and finished else None
    issue_to_completion = latency_kind(document) == LatencyKind.TOTAL
    tool = document.get("tool", {}).get("name", "")
    for section, member in declared().items():
        for index, raw in enumerate(document.get(section, [])):
            entry = with_defaults(section, raw)
            duration = entry.get("duration_ns")
            interval = entry.get("interval_ns")
            context = Context(
                spec=specs[entry["test"]],
                envelope=envelope,
                measured=source == "measured",
                loadgen=tool == "loadgen",
                partial=bool(entry.get("partial")),
                seconds=duration / 1e9 if duration else None,
                interval=interval / 1e9 if interval else None,
                run_seconds=run_seconds,
                issue_to_completion=issue_to_completion,
            )
            _check_object(entry, member, pointer(section, index), context, problem)
    return problems


def _check_object(
    given: Mapping[str, Any], member: Member, where: str, context: Context, problem: Problem
) -> None:
    values = _in_ios(given, member, context)
    for name, value in given.items():
        inner = member.members.get(name)
        if inner is None or value is None:
            continue
        at = f"{where}/{name}"
        quantity = inner.quantity
        if inner.members:  # an object: a direction, a latency summary
            _check_object(value, inner, at, context, problem)
            if quantity is not None and quantity.kind == "latency":
                _check_latency(values, name, value, quantity, at, context, problem)
            continue
        if quantity is None:
            continue
        if inner.items:
            _check_items(value, quantity, at, context, problem)
        elif not _restated(given, member, quantity):
            _check_figure(values, name, value, quantity, at, context, problem)
        else:
            _check_relations(values, value, quantity, at, context, problem)
    if MIXED_SIDES[0] in member.members and all(side in values for side in MIXED_SIDES):
        _check_directions(values, member.members[MIXED_SIDES[0]], where, problem)


def _in_ios(values: Mapping[str, Any], member: Member, context: Context) -> Mapping[str, Any]:
    """The object's members as its relations read them: a figure in I/Os it leaves out
    (iops) stated by its counterpart in bytes (bytes_per_second ÷ block size), so that a
    spread or a slowest second is judged against the mean whichever unit gives it."""
    filled = None
    for name, inner in member.members.items():
        quantity = inner.quantity
        if quantity is None or quantity.per != "io" or values.get(name) is not None:
            continue
        for other, counterpart in member.members.items():
            q = counterpart.quantity
            if q is not None and q.kind == quantity.kind and q.per == "byte" and values.get(other):
                filled = filled or dict(values)
                filled[name] = values[other] / context.spec.block_size
                break
    return filled or values


def _restated(values: Mapping[str, Any], member: Member, quantity: Quantity) -> bool:
    """Whether this figure in bytes restates one in I/Os beside it (bytes_per_second beside
    iops, which the meaning checks hold to agree): its envelope is that figure's."""
    return quantity.per == "byte" and any(
        values.get(name) is not None
        and other.quantity is not None
        and other.quantity.kind == quantity.kind
        and other.quantity.per == "io"
        for name, other in member.members.items()
    )


def _bytes(value: float, quantity: Quantity, context: Context) -> float:
    return value * context.spec.block_size if quantity.per == "io" else value


def _above_line_rate(rate: float, context: Context) -> str | None:
    envelope = context.envelope
    if envelope is None or envelope.line_rate is None or rate <= envelope.line_rate:
        return None
    return ABOVE_LINE_RATE.format(
        rate=rate / 1e6, interface=envelope.interface, limit=envelope.line_rate / 1e6
    )


def _check_figure(
    values: Mapping[str, Any],
    name: str,
    value: float,
    quantity: Quantity,
    at: str,
    context: Context,
    problem: Problem,
) -> None:
    kind = quantity.kind
    if kind in ("rate", "sample_rate", "spread"):
        message = _above_line_rate(_bytes(value, quantity, context), context)
        if message:
            problem(at, message)
    if kind == "rate":
        iops = value if quantity.per == "io" else value / context.spec.block_size
        if iops < MIN_PLAUSIBLE_IOPS and not context.partial and context.envelope is not None:
            problem(at, IMPLAUSIBLY_SLOW.format(iops=iops, block_size=context.spec.block_size))
    elif kind == "count" and context.seconds:
        envelope = context.envelope
        moved = _bytes(value, quantity, context)
        if (
            envelope is not None
            and envelope.line_rate is not None
            and (moved > envelope.line_rate * context.seconds)
        ):
            problem(
                at,
                COUNT_ABOVE_LINE_RATE.format(
                    value=value,
                    what="I/Os" if quantity.per == "io" else "bytes",
                    seconds=context.seconds,
                    rate=moved / context.seconds / 1e6,
                    interface=envelope.interface,
                    limit=envelope.line_rate / 1e6,
                ),
            )
    elif kind == "extent":
        envelope = context.envelope
        if envelope is not None and envelope.capacity:
            limit = envelope.capacity * quantity.capacities
            if value > limit:
                times = "" if quantity.capacities == 1 else f"{quantity.capacities} times "
                problem(
                    at,
                    BEYOND_CAPACITY.format(value=value, times=times, capacity=envelope.capacity),
                )
    _check_relations(values, value, quantity, at, context, problem)


def _check_relations(
    values: Mapping[str, Any],
    value: float,
    quantity: Quantity,
    at: str,
    context: Context,
    problem: Problem,
) -> None:
    """The rules that tie a figure to the members beside it."""
    kind = quantity.kind
    seconds = values.get(quantity.within_seconds) if quantity.within_seconds else context.seconds
    if quantity.over and values.get(quantity.over) is not None and seconds:
        expected = values[quantity.over] / seconds
        if abs(value - expected) > RATE_TOLERANCE * max(value, expected):
            problem(at, RATE_MISMATCH.format(value=value, count=quantity.over, expected=expected))
    if kind == "spread" and values.get(quantity.of):
        samples = max(2, math.ceil(context.seconds or context.spec.duration_s))
        mean = values[quantity.of]
        limit = mean * math.sqrt(samples)
        if value > limit:
            message = SPREAD_TOO_WIDE.format(value=value, samples=samples, mean=mean, limit=limit)
            problem(at, message)
        least = values.get(quantity.least)
        # One second at `least` among `samples` whole seconds of the same run (loadgen's;
        # another tool's windows need not span the run its mean is over) spreads them so.
        # Their own mean is the figure's within RATE_TOLERANCE (the figure is over the
        # elapsed time, the seconds whole): a paced run's seconds, each at its rate, may
        # lie a fraction of an I/O from a mean reckoned so, with no spread at all.
        if context.loadgen and least is not None and least < mean * (1 - RATE_TOLERANCE):
            floor = (mean * (1 - RATE_TOLERANCE) - least) / math.sqrt(samples)
            if value < floor * (1 - RATE_TOLERANCE):
                problem(
                    at,
                    SPREAD_TOO_NARROW.format(
                        value=value, least=least, mean=mean, samples=samples, limit=floor
                    ),
                )
    if quantity.at_most and values.get(quantity.at_most) is not None:
        limit = values[quantity.at_most]
        if kind == "sample_rate" and quantity.per:
            # The run's mean is over its whole duration, a second's over a whole second:
            # the slowest second may exceed the mean by what one second's edge adds.
            limit *= 1 + RATE_TOLERANCE + 1 / max(1.0, context.seconds or 1.0)
        if value > limit:
            problem(at, ABOVE_SIBLING.format(value=value, other=quantity.at_most, limit=limit))
    series = values.get(quantity.series)
    if quantity.upto and values.get(quantity.upto) is not None and series and context.interval:
        expected = sum(series[: round(values[quantity.upto] / context.interval)])
        if value != expected:
            problem(
                at,
                UPTO_MISMATCH.format(
                    value=value, series=quantity.series, upto=quantity.upto, expected=expected
                ),
            )
    if kind == "duration":
        took = value / 1e9 if quantity.unit == "ns" else value
        for limit, what in ((context.seconds, "the test"), (context.run_seconds, "the run")):
            if limit is not None and took > limit * (1 + RATE_TOLERANCE) + 1:
                problem(at, LONGER_THAN.format(value=took, what=what, limit=limit))
                break
    if quantity.total_of and isinstance(values.get(quantity.total_of), list):
        expected = sum(values[quantity.total_of])
        if value != expected:
            problem(
                at, TOTAL_MISMATCH.format(value=value, series=quantity.total_of, expected=expected)
            )


def _check_items(
    value: Any, quantity: Quantity, at: str, context: Context, problem: Problem
) -> None:
    """A series: every point over its interval within the line rate (the first beyond it
    named, and how many are)."""
    if quantity.kind != "series" or not isinstance(value, list) or not context.interval:
        return
    envelope = context.envelope
    if envelope is None or envelope.line_rate is None:
        return
    limit = envelope.line_rate * context.interval
    scale = context.spec.block_size if quantity.per == "io" else 1
    beyond = [i for i, point in enumerate(value) if point * scale > limit]
    if beyond:
        first = beyond[0]
        message = _above_line_rate(value[first] * scale / context.interval, context)
        more = f" ({len(beyond)} points in all)" if len(beyond) > 1 else ""
        problem(f"{at}/{first}", f"{message}{more}")


def _check_latency(
    values: Mapping[str, Any],
    name: str,
    latency: Mapping[str, Any],
    quantity: Quantity,
    at: str,
    context: Context,
    problem: Problem,
) -> None:
    low, mean, high = latency.get("min"), latency.get("mean"), latency.get("max")
    ordered = [v for v in (low, mean, high) if v is not None]
    if ordered != sorted(ordered):
        problem(at, LATENCY_ORDER)
    percentiles = latency.get("percentiles") or {}
    points = [percentiles[k] for k in sorted(percentiles, key=float)]
    bounded = ([low] if low is not None else []) + points + ([high] if high is not None else [])
    if bounded != sorted(bounded):
        problem(f"{at}/percentiles", PERCENTILE_ORDER)
    envelope = context.envelope
    if envelope is not None and envelope.line_rate is not None and not quantity.within:
        # No I/O completes before its block has crossed the link (issue to completion; the
        # completion part, clat, may be over before the call that issued it returns).
        wire = context.spec.block_size / envelope.line_rate * 1e9
        shortest = next((v for v in (low, *points, mean) if v is not None), None)
        if shortest is not None and shortest < wire and context.issue_to_completion:
            problem(
                at,
                FASTER_THAN_WIRE.format(
                    value=shortest,
                    block=context.spec.block_size,
                    interface=envelope.interface,
                    limit=wire,
                ),
            )
    spread, count = latency.get("stddev"), values.get("io_count")
    if spread is not None and low is not None and high is not None:
        # Latencies between min and max spread at most their range, and, where one I/O is
        # at each end of it, at least the range over sqrt(2 x I/Os).
        least = (high - low) / math.sqrt(2 * count) if count else 0
        if not least * (1 - RATE_TOLERANCE) <= spread <= high - low:
            problem(
                f"{at}/stddev",
                LATENCY_SPREAD.format(
                    value=spread,
                    low=low,
                    high=high,
                    count=count or "its",
                    least=least,
                    most=high - low,
                ),
            )
    encoded = latency.get("histogram")
    if encoded is not None and count is not None:
        try:
            held = histograms.decode(encoded).total
        except histograms.HistogramError as error:
            problem(f"{at}/histogram", str(error))
        else:
            if held != count:
                problem(f"{at}/histogram", HISTOGRAM_COUNT.format(held=held, count=count))
    if high is not None and context.seconds and high > context.seconds * 1e9 * 1.01:
        problem(f"{at}/max", LONGER_THAN_TEST.format(value=high, limit=context.seconds * 1e9))
    whole = values.get(quantity.within) if quantity.within else None
    if whole:
        for figure in ("mean", "max"):
            part, limit = latency.get(figure), whole.get(figure)
            if part is not None and limit is not None and part > limit * (1 + RATE_TOLERANCE):
                problem(f"{at}/{figure}", NOT_WITHIN.format(figure=figure, value=part, limit=limit))
    iops = values.get("iops")
    # A paced result's rate is its schedule's, and its latency runs from each I/O's due
    # time, a wait for a free slot included: Little's law does not tie them to its depth.
    paced = values.get("rate_iops") is not None
    if quantity.littles_law and context.measured and mean and iops and not paced:
        depth = (values.get("queue_depth") or context.spec.queue_depth) * values.get("jobs", 1)
        in_flight = iops * mean / 1e9
        what = None
        if in_flight > depth * LITTLE_HIGH:
            what = LITTLE_TOO_MANY
        elif context.loadgen and not context.partial and in_flight < depth * LITTLE_LOW:
            what = LITTLE_TOO_FEW
        if what:
            problem(
                f"{at}/mean",
                LITTLES_LAW.format(
                    iops=iops, latency=mean / 1e3, in_flight=in_flight, depth=depth, what=what
                ),
            )


def _check_directions(
    values: Mapping[str, Any], direction: Member, where: str, problem: Problem
) -> None:
    """A mixed result's reads and writes add up to its own figures: counts exactly, rates
    within RATE_TOLERANCE; each side's latency within the whole's (its min and max), whose
    mean is theirs weighted by their I/Os."""
    for name, inner in direction.members.items():
        quantity = inner.quantity
        if quantity is None or not quantity.part_of or values.get(name) is None:
            continue
        parts = [values[side].get(name) for side in MIXED_SIDES]
        if any(p is None for p in parts):
            continue
        if quantity.kind == "latency":
            counts = [values[side].get("io_count") for side in MIXED_SIDES]
            _check_parts_latency(values[name], parts, counts, f"{where}/{name}", problem)
            continue
        total, expected = values[name], sum(parts)
        exact = quantity.kind == "count"
        if (total != expected) if exact else abs(total - expected) > RATE_TOLERANCE * total:
            problem(
                f"{where}/{name}", SUM_MISMATCH.format(field=name, value=total, expected=expected)
            )


def _check_parts_latency(
    whole: Mapping[str, Any], parts: list, counts: list, at: str, problem: Problem
) -> None:
    low, high, mean = whole.get("min"), whole.get("max"), whole.get("mean")
    if any(
        (high is not None and p.get("max") is not None and p["max"] > high)
        or (low is not None and p.get("min") is not None and p["min"] < low)
        for p in parts
    ):
        problem(at, PARTS_OUTSIDE)
    means = [p.get("mean") for p in parts]
    if mean is not None and None not in means and None not in counts and sum(counts):
        expected = sum(m * n for m, n in zip(means, counts, strict=True)) / sum(counts)
        if abs(mean - expected) > RATE_TOLERANCE * max(mean, expected):
            problem(f"{at}/mean", PARTS_MEAN.format(value=mean, expected=expected))


# -- holds ---------------------------------------------------------------------------------
HOLD_FACTOR = 10
FAR_FROM_OTHERS = (
    "{test}, {pattern}: {value} {unit} is {factor:.0f}x {direction} the drive's reviewed "
    "figures in this test (median {median} {unit} over {count})"
)
NO_REFERENCE = (
    "{test}, {pattern}: {value} {unit}, and the drive has no reviewed figure in this test "
    "to judge it by"
)
DRIVE_UNREVIEWED = (
    "the drive {drive} is new to the catalog (an upload named it): its specs and figures "
    "await staff review"
)


@dataclass(frozen=True)
class Headline:
    """A figure of an entry that holds judge against the reference: what messages call
    it, the section it is read from, how (of a document's entry, with its test), and where
    the stored rows keep it (a table, aliased x beside its test t, and the figure in SQL)."""

    section: str
    name: str  # "IOPS" or "µs mean latency": how messages give the figure
    read: Callable[[Mapping[str, Any], TestSpec], float | None]
    table: str
    sql: str
    whole: bool = True  # a stored entry may be partial: only whole ones make the reference


def _io_rate(entry: Mapping[str, Any], spec: TestSpec) -> float | None:
    if entry.get("iops") is not None:
        return entry["iops"]
    bps = entry.get("bytes_per_second")
    return bps / spec.block_size if bps else None


def _steady_tail(entry: Mapping[str, Any], spec: TestSpec) -> float:
    """A consistency series' late rate, I/Os a second: the mean of its last 30%, as the
    stored series' steady_mean_iops is where no steady window is found (and near it where
    one is)."""
    iops = entry["iops"]
    return statistics.fmean(iops[int(len(iops) * 0.7) :]) / (entry["interval_ns"] / 1e9)


# A throughput result's rate and mean latency, a TRIM validation's clean rate, a write
# saturation's mean, a consistency series' steady rate: rates in I/Os a second, latencies
# in µs.
HEADLINES = (
    Headline(
        "results",
        "IOPS",
        _io_rate,
        "results_result",
        "COALESCE(x.iops, x.bytes_per_second / t.block_size)",
    ),
    Headline(
        "results",
        "µs mean latency",
        lambda e, spec: (e.get("latency_ns") or {}).get("mean", 0) / 1e3 or None,
        "results_result",
        "x.latency_mean_ns / 1e3",
    ),
    Headline(
        "trim",
        "IOPS",
        lambda e, spec: e["clean_bytes_per_second"] / spec.block_size,
        "results_trimvalidation",
        "x.clean_bytes_per_second / t.block_size",
        whole=False,
    ),
    Headline(
        "saturation",
        "IOPS",
        lambda e, spec: (
            e["mean_bytes_per_second"] / spec.block_size if e.get("mean_bytes_per_second") else None
        ),
        "results_saturationseries",
        "x.mean_bytes_per_second / t.block_size",
    ),
    Headline(
        "consistency", "IOPS", _steady_tail, "results_consistencyseries", "x.steady_mean_iops"
    ),
)
# Each headline's figures of the drive's reviewed runs, read from its own table through
# the drive's runs (run_drive_status_idx), never a test's rows of every drive.
_REFERENCE_SQL = """
SELECT x.test_id, {n}, {sql} FROM {table} x
JOIN results_run run ON run.id = x.run_id
JOIN results_test t ON t.id = x.test_id
WHERE run.drive_id = %(drive)s AND run.status = 'published' AND run.reviewed
  AND x.test_id = ANY(%(tests)s){whole}"""


def reference(drive: Drive, test_ids: list[int]) -> dict[tuple[int, int], list[float]]:
    """The drive's reviewed reference in these tests: each test's HEADLINES figures (by
    test id and headline index) of its published, reviewed runs (Run.reviewed). One
    query."""
    sql = " UNION ALL ".join(
        _REFERENCE_SQL.format(
            n=n, sql=h.sql, table=h.table, whole=" AND NOT x.partial" if h.whole else ""
        )
        for n, h in enumerate(HEADLINES)
    )
    found: dict[tuple[int, int], list[float]] = {}
    with connection.cursor() as cursor:
        cursor.execute(sql, {"drive": drive.pk, "tests": test_ids})
        for test_id, headline, value in cursor.fetchall():
            if value is not None and value > 0:
                found.setdefault((test_id, headline), []).append(float(value))
    return found


def judge(
    reading: Reading,
    specs: Mapping[str, TestSpec],
    tests: Mapping[str, Test],
    drive: Drive,
    *,
    trusted: bool,
) -> list[str]:
    """A document's figures judged before its run is written: DocumentRejected with every
    figure no drive of its envelope can give (figure_problems: the catalog drive's envelope,
    narrowed by the drive block the document names it by), else why its run should be held
    for staff review (hold_reasons)."""
    problems = figure_problems(reading.document, specs, Envelope.of(drive, reading.drive))
    if problems:
        raise DocumentRejected(capped(problems))
    return hold_reasons(reading.document, tests, drive, trusted=trusted)


def hold_reasons(
    document: Mapping[str, Any], tests: Mapping[str, Test], drive: Drive, *, trusted: bool
) -> list[str]:
    """Why a run of this document should be held for staff review (empty: none): each
    entry's HEADLINES figure, partial or whole, HOLD_FACTOR times or more away from the
    median of the drive's reviewed reference in its test; from an untrusted submitter, each
    figure of a test without a reference, and any entry of a drive awaiting review."""
    reasons = []
    if not trusted and drive.needs_review:
        reasons.append(DRIVE_UNREVIEWED.format(drive=drive))
    figures = [
        (n, headline, with_defaults(headline.section, entry))
        for n, headline in enumerate(HEADLINES)
        for entry in document.get(headline.section, [])
    ]
    if not figures:
        return reasons
    known = reference(drive, sorted({tests[e["test"]].pk for _, _, e in figures}))
    for n, headline, entry in figures:
        test = tests[entry["test"]]
        spec = TestSpec(test.identifier, test.kind, test.block_size, test.queue_depth)
        value = headline.read(entry, spec)
        if value is None:
            continue
        others = known.get((test.pk, n))
        said = {"test": test.identifier, "pattern": entry["pattern"], "unit": headline.name}
        if not others:
            # A latency alone has nothing else to be judged by; beside a rate, the rate is.
            alone = headline.section != "results" or n == 0 or _io_rate(entry, spec) is None
            if not trusted and alone:
                reasons.append(NO_REFERENCE.format(value=units.iops(value), **said))
            continue
        median = statistics.median(others)
        factor = value / median if value >= median else (median / value if value else math.inf)
        if factor >= HOLD_FACTOR:
            reasons.append(
                FAR_FROM_OTHERS.format(
                    value=units.iops(value),
                    factor=factor,
                    direction="above" if value > median else "below",
                    median=units.iops(median),
                    count=len(others),
                    **said,
                )
            )
    return reasons


MIN_RUNS = 5  # the drive's reviewed runs a distribution needs before it judges a run
FAR_OUT = 3  # interquartile ranges beyond a quartile: Tukey's "far out"
# The least spread a distribution is taken to have, as a share of its median: runs that
# agree to the percent do not make a run 5% slower far out.
MIN_SPREAD = 0.05
OUTSIDE_RUNS = (
    "{test}, {pattern}: {rate} MB/s is far outside this drive's {count} reviewed runs "
    "(their middle half {q1}–{q3} MB/s; held beyond {low}–{high} MB/s)"
)


def outside_distribution(run: Run) -> list[str]:
    """Why `run` (stored with its results, not yet ranked) lies far outside its drive's
    reviewed runs: for each test, pattern and method (results.selectors.runs.RunGroup)
    with MIN_RUNS reviewed runs or more besides it, its rate FAR_OUT interquartile ranges
    (at least MIN_SPREAD of the median) below the lower quartile or above the upper one.
    Only reviewed runs make the distribution, so no sequence of uploads widens it."""
    reasons = []
    for group in run_groups(drive_id=run.drive_id, run_id=run.pk, partial=True):
        rate = group.rates.get(run.pk)
        others = [v for r, v in group.rates.items() if r != run.pk and r in group.reviewed]
        if rate is None or len(others) < MIN_RUNS:
            continue
        _, q1, median, q3, _ = quantiles(others)
        spread = max(q3 - q1, MIN_SPREAD * median)
        low, high = q1 - FAR_OUT * spread, q3 + FAR_OUT * spread
        if not low <= rate <= high:
            reasons.append(
                OUTSIDE_RUNS.format(
                    test=group.test_name,
                    pattern=group.pattern,
                    rate=units.mbps(rate),
                    count=len(others),
                    q1=units.mbps(q1),
                    q3=units.mbps(q3),
                    low=units.mbps(max(low, 0)),
                    high=units.mbps(high),
                )
            )
    return reasons
