"""Throughput: a rate (MB/s, IOPS) and its latency in one test at one queue depth and span,
of each data pattern and repeat (results.models.Result). Its variants: a queue-depth sweep's
tests (Test.family: a sweep's points, compared in a section of their own) and a mixed test
(Test.rwmixread: its reads and writes apart, Result.<direction>_*).

Its sections of a comparison: throughput (each test's rates and verdicts), sweeps (each
sweep's IOPS against queue depth and latency against IOPS), curves (results.kinds.curve: each
response-time curve, its knee and the drives' percentiles at the same loads) and latency
(the page's table of every test's latency; the exports and the API write it with each test's
rows)."""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from operator import attrgetter, itemgetter
from typing import Any

from rest_framework import serializers

from core.held import held
from results import charts
from results.documents import MIXED_SIDES, latency_kind
from results.histograms import PERCENTILE_KEYS
from results.kinds.base import Kind, Shown
from results.models import (
    DIRECTION_FIGURES,
    RESULT_FIGURES,
    Result,
    Run,
    TailSource,
    Test,
    latency_description,
    method_label,
)
from results.sections import (
    Figure,
    Plot,
    Section,
    per_million,
    per_thousand,
    verdict_cells,
    verdict_heads,
)
from results.selectors.common import Figures
from results.selectors.compare import (
    SIDE_KEYS,
    UNSTATED_NOTE,
    Comparison,
    PatternRow,
    Sweep,
    TestRows,
)
from results.spread import Verdict, percentile_unsupported
from results.tails import LATENCIES, tail_label
from results.units import count, iops, iops_spread, latency, mbps, size

LATENCY_PERCENTILES = ("50", "99", "99.9", "99.99")  # the columns between mean and max
# The latency figures of a result the latency table and the exports show, in order: each
# one's name, how it is read, and the percentile it is ("" for the mean and the maximum).
LATENCY_FIGURES = (
    ("mean", lambda r: r.latency_mean_ns, ""),
    *(
        (f"p{q}", lambda r, q=q: (r.latency_percentiles_ns or {}).get(q), q)
        for q in LATENCY_PERCENTILES
    ),
    ("max", lambda r: r.latency_max_ns, ""),
)


def _needs(result, percentile: str) -> str:
    """What a percentile a result's I/Os do not support (spread.ios_needed) says instead of
    its value; "" where they support it (and for the mean and the maximum)."""
    if percentile and (needed := percentile_unsupported(percentile, result.io_count)):
        return f"needs {count(needed)} I/Os"
    return ""


def latency_text(result, read: Callable[[Any], Any], percentile: str) -> str:
    """One of a result's LATENCY_FIGURES as a page writes it; a percentile its I/Os do not
    support says how many it needs instead."""
    return _needs(result, percentile) or latency(read(result))


def latency_figure(result, read: Callable[[Any], Any], percentile: str) -> Figure:
    """latency_text as the exports write it: the value in µs (none where unsupported, the
    text then its note)."""
    if needs := _needs(result, percentile):
        return Figure(None, needs, (needs,))
    value = read(result)
    return Figure(per_thousand(value), latency(value))


def percentile_text(result, percentile: str) -> str:
    """A result's latency at a percentile ("99") as a page writes it (latency_figure)."""
    return latency_text(result, LATENCY_READS[percentile], percentile)


LATENCY_READS = {q: read for _, read, q in LATENCY_FIGURES if q}


@dataclass(frozen=True, slots=True)
class GroupLatency:
    """A side's latency figures where its group's tail is merged from several results'
    histograms (results.tails), as LATENCY_FIGURES read them: the group's percentiles,
    maximum and I/Os; the mean stays its latest result's (the one its verdict reads)."""

    latency_mean_ns: float | None
    latency_percentiles_ns: dict[str, int] | None
    latency_max_ns: int | None
    io_count: int | None


def latency_of(f: Figures, direction: str = ""):
    """What a side's latency figures are read from: its group's merged tail, where its
    entry's group has more than one result and every one carries a histogram, else its
    result (whose percentiles are then its own). Of a mixed test's reads or writes
    (`direction`, one of MIXED_SIDES): their group's tail merged from every result's
    histogram of that direction (a group of one too: a result keeps no I/O count of a
    direction), with their latest result's mean; None where it was not merged."""
    t = f.tail
    if direction:
        merged = t.directions.get(direction) if t is not None else None
        if merged is None:
            return None
        mean = (f.result.directions.get(direction) or {}).get("latency_mean_ns")
        return GroupLatency(mean, merged.percentiles, merged.max_ns, merged.io_count)
    if t is not None and t.merged:
        return GroupLatency(f.result.latency_mean_ns, t.percentiles, t.max_ns, t.io_count)
    return f.result


def tail_text(f: Figures) -> str:
    """Where a side's percentiles come from, as the page, the exports and the API say it
    (results.tails.tail_label); "" for a result without percentiles."""
    r = f.result
    if f.tail is not None:
        t = f.tail
        source, runs, found = t.source, t.runs, t.histograms
    elif not r.latency_percentiles_ns:
        return ""
    elif f.spread is not None and f.spread.n > 1:
        return "the latest pass's: a chosen run's passes are not merged"
    else:
        source, runs, found = TailSource.RESULT, 1, 0
    return tail_label(
        tail=source,
        runs=runs,
        histograms=found,
        tool=r.run.tool_name,
        published=r.run.source == Run.Source.PUBLISHED,
    )


def ios_text(io_count: int | None) -> str:
    """The I/Os a result's latencies were measured over, as the latency table says it."""
    return "not stated" if io_count is None else count(io_count)


# -- ingest ----------------------------------------------------------------------------------


def _latency_fields(prefix: str, latency: Mapping[str, Any]) -> dict[str, Any]:
    """A latency summary of the document as the model's <prefix>_* fields."""
    return {
        f"{prefix}_mean_ns": latency.get("mean"),
        f"{prefix}_stddev_ns": latency.get("stddev"),
        f"{prefix}_min_ns": latency.get("min"),
        f"{prefix}_max_ns": latency.get("max"),
        f"{prefix}_percentiles_ns": latency.get("percentiles"),
    }


# What a result stores where its document leaves a figure out and the field has a default.
_FIGURE_DEFAULTS = {
    field.attname: field.get_default()
    for field in map(Result._meta.get_field, RESULT_FIGURES)
    if field.has_default()
}


def result_figures(entry: Mapping[str, Any], latency_kind: str) -> dict[str, Any]:
    """A throughput entry of a document as a Result's figures (RESULT_FIGURES, in order):
    every figure under the name the document and the model both give it (or the field's
    default, None without one, where the entry leaves it out), but the latency summaries:
    latency_ns and clat_ns as the latency_* and clat_* fields, and latency_kind saying
    which latency latency_ns is."""
    figures = {name: entry.get(name, _FIGURE_DEFAULTS.get(name)) for name in RESULT_FIGURES}
    latency = entry.get("latency_ns", {})
    figures.update(
        _latency_fields("latency", latency),
        **_latency_fields("clat", entry.get("clat_ns", {})),
        latency_kind=latency_kind if latency else "",
    )
    for side in MIXED_SIDES:
        figures.update(direction_fields(side, entry.get(side, {})))
    return figures


def direction_fields(side: str, figures: Mapping[str, Any]) -> dict[str, Any]:
    """A mixed result's reads or writes (the document's `read` or `write`) as the Result's
    `<side>_<figure>` fields (DIRECTION_FIGURES); all None for a result that is not mixed."""
    latency = figures.get("latency_ns", {})
    read = {
        "iops": figures.get("iops"),
        "latency_mean_ns": latency.get("mean"),
        "latency_max_ns": latency.get("max"),
        "latency_percentiles_ns": latency.get("percentiles"),
    }
    return {f"{side}_{name}": read[name] for name in DIRECTION_FIGURES}


def histogram_fields(entry: Mapping[str, Any]) -> dict[str, Any]:
    """A throughput entry's latency histograms (schema version 5) as the Result's
    HISTOGRAM_FIELDS: its latency_ns's, and a mixed test's reads' and writes' (None where
    the document has none)."""
    found = {"latency_histogram": entry.get("latency_ns", {}).get("histogram")}
    for side in MIXED_SIDES:
        latency = entry.get(side, {}).get("latency_ns", {})
        found[f"{side}_latency_histogram"] = latency.get("histogram")
    return found


def rows(
    run: Run, entries: list[dict[str, Any]], tests: Mapping[str, Test], document: Mapping[str, Any]
) -> list[Result]:
    """A document's results as rows of the run, with their histograms; the document says
    which latency its latency_ns is (documents.latency_kind)."""
    kind = latency_kind(document)
    return [
        Result(run=run, test=tests[e["test"]], **result_figures(e, kind), **histogram_fields(e))
        for e in entries
    ]


# -- the compare sections ----------------------------------------------------------------


def _export_notes(f: Figures, pattern: str, derived: str) -> tuple[str, ...]:
    """What an exported figure is, beyond its number: derived (from the other rate, where
    `derived` is the figure derived), a quick run's, or one whose data pattern was not
    stated, compared in a row of a stated one."""
    return (
        *(("derived",) if f.derived == derived else ()),
        *(("quick run",) if f.quick else ()),
        *((UNSTATED_NOTE,) if f.result.pattern != pattern else ()),
    )


def _which_latency(f: Figures | None) -> str:
    """Which latency a side's figures are (results.models.latency_description)."""
    if f is None:
        return ""
    return latency_description(f.result.latency_kind, f.result.run.source)


# The spread of a result's IOPS second by second within its run, as the exports name it:
# (measure, unit, field).
SPREAD_EXPORT = (
    ("IOPS per second, standard deviation", "IOPS", "iops_stddev"),
    ("IOPS of the slowest second", "IOPS (higher is better)", "iops_min"),
)
# A mixed result's reads and writes, each as the exports write it: (measure, unit, figure).
DIRECTION_EXPORT = (
    ("mean", "IOPS (higher is better)", lambda h: Figure(h["iops"], iops(h["iops"]))),
    (
        "mean latency",
        "µs, lower is better",
        lambda h: Figure(per_thousand(h["latency_mean_ns"]), latency(h["latency_mean_ns"])),
    ),
)


def _throughput_rows(c: Comparison, tests: list[TestRows]) -> Iterator[list[str]]:
    """Each test's rows in the exports: MB/s and IOPS with the verdict, a mixed test's reads
    and writes, the run-to-run spread, the spread within the run, and the latencies."""
    keys = SIDE_KEYS[: len(c.sides)]
    blank = [""] * len(verdict_heads(len(keys)))
    for one in tests:
        name = one.test.name
        for p in one.rows:
            figures = p.figures
            cells = [
                "not tested"
                if f is None
                else Figure.noted(
                    per_million(f.bytes_per_second),
                    mbps(f.bytes_per_second),
                    _export_notes(f, p.pattern, "bytes_per_second"),
                )
                for f in figures
            ]
            who = verdict_cells(p)
            yield ["throughput", name, p.pattern, "mean", "MB/s (higher is better)", *cells, *who]
            cells = [
                ("not tested" if f is None else "")
                if f is None or f.iops is None
                else Figure.noted(f.iops, iops(f.iops), _export_notes(f, p.pattern, "iops"))
                for f in figures
            ]
            yield ["throughput", name, p.pattern, "mean", "IOPS (higher is better)", *cells, *who]
            for side in MIXED_SIDES:
                halves = [f.result.directions.get(side) if f else None for f in figures]
                if any(halves):
                    for measure, unit, figure in DIRECTION_EXPORT:
                        cells = [figure(h) if h else "" for h in halves]
                        yield [
                            "throughput",
                            name,
                            p.pattern,
                            f"{side}s: {measure}",
                            unit,
                            *cells,
                            *blank,
                        ]
            if any(figures):
                spreads = [
                    Figure(
                        None if f.spread.cv is None else f.spread.cv * 100,
                        f.spread.label,
                        (f"n = {f.spread.n}",),
                    )
                    if f and f.spread
                    else ""
                    for f in figures
                ]
                yield ["throughput", name, p.pattern, "run-to-run spread of MB/s"] + [
                    "± coefficient of variation, % (n averaged)",
                    *spreads,
                    *blank,
                ]
            for measure, unit, figure in SPREAD_EXPORT:
                values = [getattr(f.result, figure) if f else None for f in figures]
                if any(v is not None for v in values):
                    cells = ["" if v is None else Figure(v, iops(v)) for v in values]
                    yield ["throughput", name, p.pattern, measure, unit, *cells, *blank]
            kinds = [_which_latency(f) for f in figures]
            named = {kind for kind in kinds if kind}
            if len(named) > 1:
                which = ", ".join(
                    f"{key.upper()} {kind}" for key, kind in zip(keys, kinds, strict=True) if kind
                )
            else:
                which = next(iter(named), "")
            unit = f"µs, {which}; lower is better" if which else "µs, lower is better"
            for direction in LATENCIES:
                # the whole's rows, then a mixed group's reads' and writes' merged tails
                held = [latency_of(f, direction) if f else None for f in figures]
                if direction and not any(held):
                    continue
                of = f"{direction}s: " if direction else ""
                for measure, read, percentile in LATENCY_FIGURES:
                    if any(r is not None and read(r) is not None for r in held):
                        cells = [
                            latency_figure(r, read, percentile) if r else Figure(None, "—")
                            for r in held
                        ]
                        yield ["latency", name, p.pattern, of + measure, unit, *cells, *blank]
                counts = [r.io_count if r else None for r in held]
                if any(n is not None for n in counts):
                    cells = [
                        ""
                        if n is None
                        else Figure.noted(n, count(n), (text,) if (text := tail_text(f)) else ())
                        for n, f in zip(counts, figures, strict=True)
                    ]
                    measure = f"{of}I/Os measured"
                    yield ["latency", name, p.pattern, measure, "I/Os", *cells, *blank]
        if params := one.parameters:
            for d in params.differ:
                yield ["parameters", name, "", d.parameter, "differs", *d.values, *blank]
            same = ", ".join(params.same) or "nothing"
            yield ["parameters", name, "", "the same", same, *[""] * len(keys), *blank]


@dataclass(slots=True)
class Cell:
    """A drive's figures in a row of the page's throughput table (`figures` None: not
    tested), with what the comparison says of them: better than every other (of three or
    four drives) and B's to D's verdict against A. What the figures alone say (their
    numbers formatted once, results.units, and their notes) is read from them where the
    page writes them, once while their side is held (`held` in benchsite/jinja2.py)."""

    key: str
    figures: Figures | None
    pattern: str = ""  # the row's data pattern
    best: bool = False  # of three or four drives, better than every other
    against_a: Verdict | None = None  # of three or four drives, B's to D's verdict against A

    @property
    def texts(self) -> tuple[str, str, str, str, str]:
        """mbps, iops, the block a derived rate is reckoned with, its IOPS second by second
        (units.iops_spread) and its run-to-run range's title (_figures_texts)."""
        return _figures_texts(self.figures)

    @property
    def notes(self) -> tuple[str, ...]:
        """Its data pattern not stated, its deviations from the method."""
        r = self.figures.result
        return (*((UNSTATED_NOTE,) if r.pattern != self.pattern else ()), *r.deviations)

    @property
    def directions(self) -> tuple:
        """A mixed test's (IOPS, mean latency) of its reads, then writes, as shown."""
        f = self.figures
        return _directions(f) if f.result.test.operation == Test.Operation.MIXED else ()


@dataclass(slots=True)
class TableRow:
    """One data pattern's row of a test's table on the page (PatternRow, as it is shown)."""

    pattern: PatternRow
    cells: list[Cell]


def _figures_texts(f: Figures) -> tuple[str, str, str, str, str]:
    """A drive's figures as its cell writes them, whatever they are compared with (Cell's
    texts), worked out once while its side is held (Figures.shown)."""
    return held(f.shown, "cell", _cell_texts, f)


def _cell_texts(f: Figures) -> tuple[str, str, str, str, str]:
    s = f.spread
    return (
        mbps(f.bytes_per_second),
        iops(f.iops),
        size(f.block_size) if f.derived else "",
        iops_spread(f.result),
        f"mean of {count(s.n)} results, {mbps(s.low)}–{mbps(s.high)} MB/s" if s and s.n > 1 else "",
    )


def _directions(f: Figures) -> tuple:
    """A mixed test's (IOPS, mean latency) of its reads, then its writes, as shown."""
    return held(f.shown, "directions", _direction_texts, f.result.directions)


def _direction_texts(halves: dict) -> tuple:
    return tuple(
        (iops(h["iops"]), latency(h["latency_mean_ns"])) if (h := halves.get(side)) else None
        for side in MIXED_SIDES
    )


def _table(one: TestRows) -> list[TableRow]:
    """The rows of a test's table on the page: each data pattern's, every drive's cell."""
    rows = []
    for p in one.rows:
        if len(p.figures) > 2:
            best, verdicts = p.best, p.verdicts
            cells = [
                Cell(key, f, p.pattern, best == key, verdicts[i] if i else None)
                for i, (key, f) in enumerate(zip(SIDE_KEYS, p.figures, strict=False))
            ]
        else:
            cells = [Cell(key, f, p.pattern) for key, f in zip(SIDE_KEYS, p.figures, strict=False)]
        rows.append(TableRow(p, cells))
    return rows


@dataclass
class TestPart:
    """A test of the throughput section: its rows (TestRows), its bars and, as the page
    shows them, its table's rows (made where read: the exports and the API do not)."""

    one: TestRows
    plot: Plot

    @functools.cached_property
    def table(self) -> list[TableRow]:
        return _table(self.one)


def _throughput(c: Comparison) -> Section:
    parts = []
    for i, one in enumerate(c.tests):
        plot = Plot(
            one.test.identifier,
            f"bars-{i}",
            one.test.name,
            lambda one=one: charts.compare_bars(one, c.names),
        )
        parts.append(TestPart(one, plot))
    return Section(
        "throughput",
        "Throughput",
        parts,
        [part.plot for part in parts if part.one.has_rates],
        lambda: _throughput_rows(c, c.tests),
        ("tests", lambda keys, points: [_test_rows(part.one) for part in parts]),
    )


def _sweeps(c: Comparison) -> Section:
    parts = []
    for i, sweep in enumerate(c.sweeps):
        element = f"sweep-{i}"
        iops_plot = Plot(
            f"{sweep.family}-iops",
            f"{element}-iops",
            f"{sweep.name}, IOPS against queue depth",
            lambda sweep=sweep: charts.sweep_iops(sweep, c.names),
        )
        demand = Plot(
            f"{sweep.family}-demand",
            f"{element}-demand",
            f"{sweep.name}, latency against IOPS",
            lambda sweep=sweep: charts.sweep_demand(sweep, c.names),
        )
        parts.append(SweepPart(sweep, element, iops_plot, demand))
    return Section(
        "sweeps",
        "Queue depth",
        parts,
        [plot for part in parts for plot in (part.iops, part.demand)],
        lambda: _throughput_rows(c, [point for sweep in c.sweeps for point in sweep.points]),
        ("sweeps", lambda keys, points: [_sweep_body(part.sweep) for part in parts]),
    )


@dataclass(slots=True)
class SweepPart:
    sweep: Sweep
    id: str
    iops: Plot
    demand: Plot


# -- latency ---------------------------------------------------------------------------------


@dataclass(slots=True)
class LatencySide:
    key: str  # "a" to "d"
    values: tuple[str, ...] | None  # mean, LATENCY_PERCENTILES, max as shown; None: not tested
    kind: str  # which latency they are (results.models.latency_description)
    ios: str = ""  # the I/Os they were measured over (ios_text)
    tail: str = ""  # where its percentiles come from (tail_text)
    verdict: Verdict = field(default_factory=Verdict)  # its mean's against A's (A's own empty)
    # Where its figures' row is written once while their side is held (Figures.shown), and
    # which row it is: the whole's (""), or a mixed test's "read" or "write".
    shown: dict = field(default_factory=dict)
    direction: str = ""


@dataclass(slots=True)
class LatencyRow:
    test: str
    pattern: str
    sides: tuple[LatencySide, ...]
    verdicts: list[Verdict] = field(default_factory=list)  # each side's against A's


def _latency_side(key: str, f: Figures | None, v: Verdict, direction: str = "") -> LatencySide:
    """A side's row in the latency table (its mean's verdict against A's: `v`; of a mixed
    test's reads or writes, `direction`: their group's merged tail, latency_of), its
    figures as written (latency_text), which latency they are and the I/Os they were
    measured over (ios_text) worked out once while the side is held (Figures.shown)."""
    r = latency_of(f, direction) if f is not None else None
    if r is None:
        return LatencySide(key, None, "", "", "", v)
    found = held(f.shown, f"latency{direction}", _latency_texts, f, r)
    return LatencySide(key, *found, v, f.shown, direction)


def _latency_texts(f: Figures, r) -> tuple:
    return (
        tuple(latency_text(r, read, q) for _, read, q in LATENCY_FIGURES),
        _which_latency(f),
        ios_text(r.io_count),
        tail_text(f),
    )


def _latency(c: Comparison) -> Section:
    """The latency table: each test and data pattern with a latency, every side's figures
    (its rows in the exports are the throughput section's; the page alone reads it)."""

    def rows() -> list[LatencyRow]:
        found = []
        for one in c.tests:
            if not one.has_latency:
                continue
            for p in one.rows:
                verdicts = p.latency_verdicts
                sides = tuple(
                    _latency_side(key, f, v)
                    for key, f, v in zip(SIDE_KEYS, p.figures, verdicts, strict=False)
                )
                found.append(LatencyRow(one.test.name, p.pattern, sides, verdicts))
                # A mixed group's reads and writes, where merged: their tails, not judged.
                for direction in LATENCIES[1:]:
                    if any(f and latency_of(f, direction) for f in p.figures):
                        unjudged = [Verdict()] * len(p.figures)
                        sides = tuple(
                            _latency_side(key, f, Verdict(), direction)
                            for key, f in zip(SIDE_KEYS, p.figures, strict=False)
                        )
                        pattern = f"{p.pattern}: {direction}s"
                        found.append(LatencyRow(one.test.name, pattern, sides, unjudged))
        return found

    # No entry of its own in the API's body: its figures are its tests' (each side's `latency`).
    return Section("latency", "Latency", rows)


# -- the API's compare body ---------------------------------------------------------------


# PERCENTILE_KEYS (loadgen's, results.histograms): a latency summary's columns in the API's
# CSV (another percentile a result has, as fio writes them, follows).


class PercentilesField(serializers.DictField):
    """Percentile (a decimal string) to latency in ns; in the API's CSV a column each
    (benchsite.api: a field's `csv_keys`)."""

    csv_keys = PERCENTILE_KEYS

    def __init__(self, **kwargs):
        super().__init__(child=serializers.IntegerField(), **kwargs)


# A latency summary (LatencySerializer writes it from a result's figures).
class LatencyShape(serializers.Serializer):
    mean_ns = serializers.FloatField(allow_null=True)
    stddev_ns = serializers.FloatField(allow_null=True)
    min_ns = serializers.IntegerField(allow_null=True)
    max_ns = serializers.IntegerField(allow_null=True)
    percentiles_ns = PercentilesField()


# A latency summary (LatencyShape): a result's <prefix>_<field> figures as stored
# (prefix "latency" or "clat"; a values() row or an instance), null when it has none (no
# mean, maximum or percentiles). No docstring: it would be the schema's description of the
# block.
class LatencySerializer(LatencyShape):
    def __init__(self, *args, prefix: str = "latency", **kwargs):
        self.prefix = prefix
        super().__init__(*args, **kwargs)

    @functools.cached_property
    def _read(self) -> tuple[tuple[str, ...], Callable[[Any], tuple], Callable[[Any], tuple]]:
        """The fields' names, and how their figures are read from a values() row and from
        an instance."""
        columns = [f"{self.prefix}_{name}" for name in self.fields]
        return tuple(self.fields), itemgetter(*columns), attrgetter(*columns)

    def to_representation(self, result) -> dict[str, Any] | None:
        names, from_row, from_instance = self._read
        read = from_row if isinstance(result, dict) else from_instance
        block = dict(zip(names, read(result), strict=False))
        if block["mean_ns"] is None and block["max_ns"] is None and not block["percentiles_ns"]:
            return None
        block["percentiles_ns"] = block["percentiles_ns"] or {}
        return block


# A mixed result's reads or writes (`side`: read or write): its <side>_<figure> columns
# (results.models.DIRECTION_FIGURES), null for a result that is not mixed.
class DirectionSerializer(serializers.Serializer):
    iops = serializers.FloatField(allow_null=True)
    latency_mean_ns = serializers.FloatField(allow_null=True)
    latency_max_ns = serializers.IntegerField(allow_null=True)
    latency_percentiles_ns = PercentilesField(allow_null=True)

    def __init__(self, *args, side: str = "read", **kwargs):
        self.side = side
        super().__init__(*args, **kwargs)

    @functools.cached_property
    def _read(self) -> tuple[tuple[str, ...], Callable[[Any], tuple], Callable[[Any], tuple]]:
        """The fields' names, and how their figures are read from a values() row and from
        an instance (made once: a compare body writes a direction for every figure)."""
        columns = [f"{self.side}_{name}" for name in self.fields]
        return tuple(self.fields), itemgetter(*columns), attrgetter(*columns)

    def to_representation(self, result) -> dict[str, Any] | None:
        names, from_row, from_instance = self._read
        read = from_row if isinstance(result, dict) else from_instance
        values = read(result)
        if all(v is None for v in values):
            return None
        return dict(zip(names, values, strict=True))


LATENCY = LatencySerializer()
DIRECTIONS = {side: DirectionSerializer(side=side) for side in MIXED_SIDES}


def _figures(figures: Figures | None) -> dict[str, Any] | None:
    """A side's figures in the compare body, whatever they are compared with: written once
    while their side is held (Figures.shown), and only read after that."""
    if figures is None:
        return None
    return held(figures.shown, "body", _figures_body, figures)


def _figures_body(figures: Figures) -> dict[str, Any]:
    result = figures.result
    return {
        "result": result.pk,
        "run": result.run_id,
        "bytes_per_second": figures.bytes_per_second,
        "iops": figures.iops,
        "iops_stddev": result.iops_stddev,
        "iops_min": result.iops_min,
        "derived": figures.derived or None,
        "missing_rates_reason": figures.missing_rates_reason,
        "method": figures.method or None,
        "method_label": method_label(figures.method, result.run.tool_name)
        if figures.method
        else None,
        "spread": figures.spread.as_dict() if figures.spread else None,
        "quick": figures.quick,
        "comparability": figures.comparability,
        "partial": result.partial,
        "latency_kind": result.latency_kind,
        "latency": LATENCY.to_representation(result),
        "io_count": result.io_count,
        "latency_needs_ios": {
            q: needed
            for q in result.latency_percentiles_ns or {}
            if (needed := percentile_unsupported(q, result.io_count))
        },
        "group_latency": _group_latency(figures),
        **{side: writer.to_representation(result) for side, writer in DIRECTIONS.items()},
    }


def _group_latency(figures: Figures) -> dict[str, Any] | None:
    """A side's group tail (results.tails) in the compare body: where its percentiles come
    from, and the group's percentiles, maximum and I/Os with the I/Os each percentile needs
    where they fall short (results.spread.ios_needed); null where it was not read with its
    entry (a chosen run's)."""
    t = figures.tail
    if t is None:
        return None
    return {
        "tail_source": t.source or None,
        "label": tail_text(figures) or None,
        "runs": t.runs,
        "histograms": t.histograms,
        **_tail_figures(t.io_count, t.percentiles, t.max_ns),
        **{
            side: None
            if (d := t.directions.get(side)) is None
            else _tail_figures(d.io_count, d.percentiles, d.max_ns)
            for side in MIXED_SIDES
        },
    }


def _tail_figures(io_count: int | None, percentiles: dict | None, max_ns: int | None) -> dict:
    """A group tail's I/Os, percentiles and maximum, with the I/Os each percentile needs
    where they fall short (results.spread.ios_needed)."""
    return {
        "io_count": io_count,
        "percentiles_ns": percentiles,
        "max_ns": max_ns,
        "needs_ios": {
            q: needed for q in percentiles or {} if (needed := percentile_unsupported(q, io_count))
        },
    }


# `loadgen run --compare` reads this body of a drive compared with itself (loadgen/src/compare.c:
# a.drive.name, tests[].test, tests[].patterns[].pattern and side a's figures): a key it reads
# renamed is every deployed loadgen's comparison lost.
def _test_rows(one: TestRows) -> dict[str, Any]:
    return {
        "test": one.test.identifier,
        "name": one.test.name,
        "unit": one.test.unit,
        "higher_is_better": one.test.higher_is_better,
        "patterns": [
            {
                "pattern": p.pattern,
                **{key: _figures(f) for key, f in zip(SIDE_KEYS, p.figures, strict=False)},
                # A against B, as the body of two drives has always said it.
                "winner": p.verdicts[1].winner or None,
                "difference_percent": p.verdicts[1].difference_percent,
                "verdict": p.verdicts[1].as_dict(),
                "verdicts": {
                    key: v.as_dict() for key, v in zip(SIDE_KEYS[1:], p.verdicts[1:], strict=False)
                },
                "best": p.best or None,
            }
            for p in one.rows
        ],
        **_parameters(one),
    }


def _parameters(one: TestRows) -> dict[str, Any]:
    """What differs between the sides' figures of the test, and what is the same."""
    params = one.parameters
    if params is None:
        return {"differences": [], "same": []}
    return {
        "differences": [
            {"parameter": d.parameter, "values": dict(zip(SIDE_KEYS, d.values, strict=False))}
            for d in params.differ
        ],
        "same": list(params.same),
    }


def _sweep_body(sweep: Sweep) -> dict[str, Any]:
    return {
        "family": sweep.family,
        "name": sweep.name,
        "points": [
            {"queue_depth": point.test.queue_depth, **_test_rows(point)} for point in sweep.points
        ],
    }


def sections(c: Comparison, shown: Shown) -> list[Section]:
    # The curves' module reads this one's latency texts: imported where it is called.
    from results.kinds import curve

    return [_throughput(c), _sweeps(c), curve.section(c), _latency(c)]


KIND = Kind(Test.Kind.THROUGHPUT, Result, rows, sections)
