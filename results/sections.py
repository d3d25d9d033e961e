"""A comparison's sections, declared once: each with its stable id (the page's anchor and
its template, templates/bench/compare/<id>.html), its title in the page's contents, the
parts its template loops over, its charts (each with the key of its image,
results/views/chart_images.py) and its rows in the CSV and Markdown exports. The compare
page loops over them, its chart images are their charts, its exports their rows, and the
API's compare body is written section by section (results/api/reads.py). A section's work
is done where it is read: a chart is drawn when a page or an image shows it, an export's
rows are written when it is asked for.

Two to four drives are compared, A first (results.selectors.compare.Comparison.sides);
nothing here is written per side."""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from results import charts
from results.charts import TRIM_PHASES, wsat_halved_label, wsat_rounds
from results.documents import MIXED_SIDES
from results.models import SaturationSeries, Test, latency_description
from results.selectors.common import Figures
from results.selectors.compare import (
    SIDE_KEYS,
    UNSTATED_NOTE,
    Comparison,
    PatternRow,
    Sweep,
    TestRows,
)
from results.spread import Verdict
from results.units import dollars, gigabytes, iops, latency, mbps, per_gb, per_kiops

LATENCY_PERCENTILES = ("50", "99", "99.9", "99.99")  # the columns between mean and max
# The latency figures of a result the latency table and the exports show, in order.
LATENCY_FIGURES = (
    ("mean", lambda r: r.latency_mean_ns),
    *(
        (f"p{q}", lambda r, q=q: (r.latency_percentiles_ns or {}).get(q))
        for q in LATENCY_PERCENTILES
    ),
    ("max", lambda r: r.latency_max_ns),
)


class Plot:
    """One chart of a section: its image's key (<page>chart/<key>.svg), its element's id on
    the page, its title (after the drives' names, in its image), and how it is drawn (once,
    when first shown)."""

    __slots__ = ("key", "element", "title", "_draw", "_figure")

    def __init__(self, key: str, element: str, title: str, draw: Callable[[], dict]):
        self.key, self.element, self.title, self._draw = key, element, title, draw
        self._figure: dict | None = None

    @property
    def figure(self) -> dict:
        if self._figure is None:
            self._figure = self._draw()
        return self._figure


class Section:
    """One section of a comparison; its `parts` empty where no drive has its figures (the
    page leaves it out; the API writes its list empty). Parts given as a function are made
    when first read: a section only the page shows costs nothing to the exports and API."""

    __slots__ = ("id", "title", "_parts", "plots", "export")

    def __init__(
        self,
        id: str,  # noqa: A002 (the section's id: its anchor, template and API entry)
        title: str,
        parts: list | Callable[[], list],
        plots: list[Plot] | None = None,
        export: Callable[[], Iterator[list[str]]] = lambda: iter(()),
    ):
        self.id, self.title, self._parts = id, title, parts
        self.plots, self.export = plots or [], export

    @property
    def parts(self) -> list:
        if callable(self._parts):
            self._parts = self._parts()
        return self._parts


# -- throughput ------------------------------------------------------------------------------


def _export_notes(f: Figures, pattern: str) -> str:
    """What an exported figure is, beyond its number: a quick run's, or one whose data
    pattern was not stated, compared in a row of a stated one."""
    notes = " (quick run)" if f.quick else ""
    return notes + (f" ({UNSTATED_NOTE})" if f.result.pattern != pattern else "")


def _which_latency(f: Figures | None, sources: dict[int, str]) -> str:
    """Which latency a side's figures are (results.models.latency_description)."""
    if f is None:
        return ""
    return latency_description(f.result.latency_kind, sources.get(f.result.run_id, ""))


def _sources(c: Comparison) -> dict[int, str]:
    return {r.pk: r.source for side in c.sides for r in side.runs}


# The spread of a result's IOPS second by second within its run, as the exports name it:
# (measure, unit, field).
SPREAD_EXPORT = (
    ("IOPS per second, standard deviation", "IOPS", "iops_stddev"),
    ("IOPS of the slowest second", "IOPS (higher is better)", "iops_min"),
)
# A mixed result's reads and writes, each as the exports write it: (measure, unit, read, write).
DIRECTION_EXPORT = (
    ("mean", "IOPS (higher is better)", lambda h: h["iops"], iops),
    ("mean latency", "lower is better", lambda h: h["latency_mean_ns"], latency),
)


def verdict_heads(n: int) -> list[str]:
    """The exports' verdict columns for n drives: two drives' winner and difference; three
    or four drives' best and each one's verdict against A."""
    if n > 2:
        return ["best", *(f"{key.upper()} against A" for key in SIDE_KEYS[1:n])]
    return ["winner", "difference"]


def verdict_cells(row: PatternRow) -> list[str]:
    """A row's verdict cells under verdict_heads."""
    if len(row.figures) > 2:
        return [
            row.best.upper() or row.no_best_reason or "none",
            *(v.label for v in row.verdicts[1:]),
        ]
    v = row.verdicts[1]
    diff = f"{v.difference_percent:.1f}%" if v.difference_percent is not None else ""
    return [v.winner.upper() if v.winner in ("a", "b") else v.label, diff]


def _throughput_rows(c: Comparison, tests: list[TestRows]) -> Iterator[list[str]]:
    """Each test's rows in the exports: MB/s and IOPS with the verdict, a mixed test's reads
    and writes, the run-to-run spread, the spread within the run, and the latencies."""
    keys = SIDE_KEYS[: len(c.sides)]
    blank = [""] * len(verdict_heads(len(keys)))
    sources = _sources(c)
    for one in tests:
        name = one.test.name
        for p in one.rows:
            figures = p.figures
            cells = []
            for f in figures:
                if f is None:
                    cells.append("not tested")
                else:
                    note = " (derived)" if f.derived == "bytes_per_second" else ""
                    cells.append(mbps(f.bytes_per_second) + note + _export_notes(f, p.pattern))
            who = verdict_cells(p)
            yield ["throughput", name, p.pattern, "mean", "MB/s (higher is better)", *cells, *who]
            cells = []
            for f in figures:
                if f is None or f.iops is None:
                    cells.append("not tested" if f is None else "")
                else:
                    note = " (derived)" if f.derived == "iops" else ""
                    cells.append(iops(f.iops) + note + _export_notes(f, p.pattern))
            yield ["throughput", name, p.pattern, "mean", "IOPS (higher is better)", *cells, *who]
            for side in MIXED_SIDES:
                halves = [f.result.directions.get(side) if f else None for f in figures]
                if any(halves):
                    for measure, unit, read, write in DIRECTION_EXPORT:
                        cells = [write(read(h)) if h else "" for h in halves]
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
                spreads = [f.spread.label if f and f.spread else "" for f in figures]
                yield ["throughput", name, p.pattern, "run-to-run spread of MB/s"] + [
                    "± coefficient of variation (n averaged)",
                    *spreads,
                    *blank,
                ]
            for measure, unit, figure in SPREAD_EXPORT:
                values = [getattr(f.result, figure) if f else None for f in figures]
                if any(v is not None for v in values):
                    cells = ["" if v is None else iops(v) for v in values]
                    yield ["throughput", name, p.pattern, measure, unit, *cells, *blank]
            kinds = [_which_latency(f, sources) for f in figures]
            named = {kind for kind in kinds if kind}
            if len(named) > 1:
                which = ", ".join(
                    f"{key.upper()} {kind}" for key, kind in zip(keys, kinds, strict=True) if kind
                )
            else:
                which = next(iter(named), "")
            unit = f"{which}; lower is better" if which else "lower is better"
            for measure, read in LATENCY_FIGURES:
                values = [read(f.result) if f else None for f in figures]
                if any(v is not None for v in values):
                    cells = [latency(v) for v in values]
                    yield ["latency", name, p.pattern, measure, unit, *cells, *blank]


def _throughput(c: Comparison) -> Section:
    parts = []
    for i, one in enumerate(c.tests):
        plot = Plot(
            one.test.identifier,
            f"bars-{i}",
            one.test.name,
            lambda one=one: charts.compare_bars(one, c.names),
        )
        parts.append((one, plot))
    return Section(
        "throughput",
        "Throughput",
        parts,
        [plot for one, plot in parts if one.has_rates],
        lambda: _throughput_rows(c, c.tests),
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
    figures: list | None  # mean, LATENCY_PERCENTILES, max in ns; None: not tested
    kind: str  # which latency they are (results.models.latency_description)


@dataclass(slots=True)
class LatencyRow:
    test: str
    pattern: str
    sides: tuple[LatencySide, ...]
    verdicts: list[Verdict] = field(default_factory=list)  # each side's against A's


def _latency(c: Comparison) -> Section:
    """The latency table: each test and data pattern with a latency, every side's figures
    (its rows in the exports are the throughput section's; the page alone reads it)."""

    def rows() -> list[LatencyRow]:
        sources = _sources(c)
        found = []
        for one in c.tests:
            if not one.has_latency:
                continue
            for p in one.rows:
                sides = tuple(
                    LatencySide(
                        key,
                        None if f is None else [read(f.result) for _, read in LATENCY_FIGURES],
                        _which_latency(f, sources),
                    )
                    for key, f in zip(SIDE_KEYS, p.figures, strict=False)
                )
                found.append(LatencyRow(one.test.name, p.pattern, sides, p.latency_verdicts))
        return found

    return Section("latency", "Latency", rows)


# -- consistency -----------------------------------------------------------------------------


@dataclass(slots=True)
class LevelPart:
    level: int
    plot: Plot
    series: list  # each side's ConsistencySeries, or None


def _consistency(c: Comparison, scale: str, view: str) -> Section:
    parts = []
    for level in c.consistency_levels:
        plot = Plot(
            f"consistency-{level}",
            f"consistency-{level}",
            f"IOPS each second, 4KB random write QD32, {level}% spare area",
            lambda level=level: charts.consistency(level, c.sides, c.names, scale=scale, view=view),
        )
        parts.append(LevelPart(level, plot, [side.consistency.get(level) for side in c.sides]))

    def rows() -> Iterator[list[str]]:
        blank = [""] * len(verdict_heads(len(c.sides)))
        for part in parts:
            values = [iops(s.steady_mean_iops) if s else "not tested" for s in part.series]
            yield [
                "consistency",
                f"{part.level}% spare area",
                "",
                "steady-state mean",
                "IOPS (higher is better)",
                *values,
                *blank,
            ]

    return Section("consistency", "Consistency", parts, [p.plot for p in parts], rows)


# -- TRIM ------------------------------------------------------------------------------------


@dataclass(slots=True)
class TrimPart:
    test: Test
    pattern: str
    plot: Plot
    sides: list  # each side's TrimValidation, or None


def _trim(c: Comparison) -> Section:
    parts = []
    for i, (test, pattern) in enumerate(c.trim_keys):
        key = (test.identifier, pattern)
        plot = Plot(
            f"trim-{test.identifier}-{pattern}",
            f"trim-{i}",
            f"{test.name}, {pattern} data",
            lambda key=key: charts.trim_bars(c.sides, key, c.names),
        )
        parts.append(TrimPart(test, pattern, plot, [side.trim.get(key) for side in c.sides]))

    def rows() -> Iterator[list[str]]:
        blank = [""] * len(verdict_heads(len(c.sides)))
        for part in parts:
            for attr, phase in TRIM_PHASES:
                values = [mbps(getattr(t, attr)) if t else "not tested" for t in part.sides]
                yield [
                    "TRIM validation",
                    part.test.name,
                    part.pattern,
                    phase,
                    "MB/s (higher is better)",
                    *values,
                    *blank,
                ]

    return Section("trim", "TRIM", parts, [p.plot for p in parts], rows)


# -- write saturation and WSAT ---------------------------------------------------------------


def saturation_columns(named) -> list[dict]:
    """The columns of a write-saturation table (templates/bench/_saturation.html) from
    (heading, css class, series or None) triples: each with the seconds it recorded."""
    return [
        {
            "heading": heading,
            "css": css,
            "series": series,
            "seconds": len(series.bytes_per_interval) * series.interval_ns / 1e9
            if series is not None
            else None,
        }
        for heading, css, series in named
    ]


def wsat_columns(named) -> list[dict]:
    """The columns of a WSAT table (templates/bench/_wsat.html) from (heading, css class,
    series or None) triples: each with its first round's IOPS, its rounds and where its
    rate first fell below half of that."""
    columns = []
    for heading, css, series in named:
        column = {"heading": heading, "css": css, "series": series}
        if series is not None:
            rates, seconds, _ = wsat_rounds(series)
            column.update(
                first_iops=rates[0] if rates else None,
                last_iops=rates[-1] if rates else None,
                rounds=len(series.bytes_per_interval),
                round_s=series.interval_ns / 1e9,
                seconds=seconds[-1] if seconds else 0,
                halved=wsat_halved_label(series),
            )
        columns.append(column)
    return columns


class SeriesPart:
    """One data pattern's write saturation or WSAT (templates/bench/_saturation.html,
    _wsat.html): every side's series, its chart and its table's columns (made when shown)."""

    def __init__(self, pattern: str, plot: Plot, series: list, columns: Callable[[list], list]):
        self.pattern, self.plot, self.series, self._columns = pattern, plot, series, columns

    @property
    def id(self) -> str:
        return self.plot.element

    @property
    def figure(self) -> dict:
        return self.plot.figure

    @functools.cached_property
    def columns(self) -> list[dict]:
        keys = SIDE_KEYS[: len(self.series)]
        return self._columns(
            [(key.upper(), f"side-{key}", w) for key, w in zip(keys, self.series, strict=True)]
        )


SATURATION_EXPORT = (
    ("mean", "MB/s (higher is better)", lambda w: mbps(w.mean_bytes_per_second)),
    ("cache ran out after", "seconds", lambda w: f"{w.exhausted_at_s:.0f}"),
    ("written before the fall", "GB", lambda w: gigabytes(w.bytes_before_exhausted or 0)),
    ("rate before", "MB/s", lambda w: mbps(w.bytes_per_second_before)),
    ("rate after", "MB/s", lambda w: mbps(w.bytes_per_second_after)),
)


def _saturation_cell(w: SaturationSeries | None, measure: str, value) -> str:
    if w is None:
        return "not tested"
    if measure != "mean" and not w.exhausted:
        return "did not run out"
    return value(w)


WSAT_EXPORT = (
    # From the stored figures only: the export reads no series (compare(points=False)).
    (
        "mean",
        "IOPS (higher is better)",
        lambda w: iops((w.mean_bytes_per_second or 0) / (w.test.block_size or 4096)),
    ),
    (
        "below half of it from",
        "seconds",
        lambda w: "never" if w.halved_at_s is None else f"{w.halved_at_s:.0f}",
    ),
    (
        "written before",
        "GB",
        lambda w: "—" if w.bytes_before_halved is None else gigabytes(w.bytes_before_halved),
    ),
    ("written in all", "GB", lambda w: gigabytes(w.bytes_written)),
    ("stopped by", "", lambda w: w.get_stopped_by_display()),
)


def _saturation(c: Comparison) -> Section:
    """Write saturation in each data pattern any drive has it: every drive overlaid."""
    parts = []
    for pattern in c.saturation_patterns:
        series = [side.saturation.get(pattern) for side in c.sides]
        plot = Plot(
            f"saturation-{pattern}",
            f"saturation-{pattern}",
            f"write saturation, 128KB sequential write, {pattern} data",
            lambda series=series: charts.saturation(list(zip(c.names, series, strict=True))),
        )
        parts.append(SeriesPart(pattern, plot, series, saturation_columns))

    def rows() -> Iterator[list[str]]:
        blank = [""] * len(verdict_heads(len(c.sides)))
        for part in parts:
            for measure, unit, value in SATURATION_EXPORT:
                cells = [_saturation_cell(w, measure, value) for w in part.series]
                yield ["write saturation", "", part.pattern, measure, unit, *cells, *blank]

    return Section("saturation", "Write saturation", parts, [p.plot for p in parts], rows)


def _wsat(c: Comparison, axis: str) -> Section:
    """WSAT in each data pattern any drive has it: every drive overlaid, against the time or
    the bytes written (`axis`, ?wsat_x=)."""
    parts = []
    for pattern in c.wsat_patterns:
        series = [side.wsat.get(pattern) for side in c.sides]
        plot = Plot(
            f"wsat-{pattern}",
            f"wsat-{pattern}",
            f"WSAT, 4KB random write QD32 to 4x the capacity, {pattern} data",
            lambda series=series: charts.wsat(list(zip(c.names, series, strict=True)), axis),
        )
        parts.append(SeriesPart(pattern, plot, series, wsat_columns))

    def rows() -> Iterator[list[str]]:
        blank = [""] * len(verdict_heads(len(c.sides)))
        for part in parts:
            for measure, unit, value in WSAT_EXPORT:
                cells = ["not tested" if w is None else value(w) for w in part.series]
                yield ["WSAT", "", part.pattern, measure, unit, *cells, *blank]

    return Section("wsat", "WSAT", parts, [p.plot for p in parts], rows)


# -- the list --------------------------------------------------------------------------------


def sections(
    c: Comparison, *, scale: str = "log", view: str = "full", wsat_axis: str = "time"
) -> list[Section]:
    """Every section of a comparison, in the page's order (each, empty or not): the
    consistency charts on the `scale` and `view` chosen, WSAT's against `wsat_axis`."""
    return [
        _throughput(c),
        _sweeps(c),
        _latency(c),
        _consistency(c, scale, view),
        _trim(c),
        _saturation(c),
        _wsat(c, wsat_axis),
    ]


EXPORT_HEADER = ("section", "test", "data pattern", "measure", "unit")


def export_rows(c: Comparison, shown: list[Section]) -> list[list[str]]:
    """The comparison as rows: section, test, data pattern, measure, unit, each drive's
    figure (A first), then the verdict columns (verdict_heads); every section's rows, then
    the specifications. Numbers are written as the page writes them (results.units)."""
    heads = [f"{key.upper()}: {side.drive}" for key, side in zip(SIDE_KEYS, c.sides, strict=False)]
    rows = [[*EXPORT_HEADER, *heads, *verdict_heads(len(c.sides))]]
    for section in shown:
        rows.extend(section.export())
    return rows + _spec_rows(c)


# What the value test is called where a price per 1,000 IOPS names it.
VALUE_TEST_NAMES = {"randwrite-4k-qd3-8g": "4KB random write"}


def value_test_name(c: Comparison) -> str:
    return VALUE_TEST_NAMES.get(c.value_test, c.value_test)


def _spec_rows(c: Comparison) -> list[list[str]]:
    """The specifications as the page's table shows them, one row each."""
    sides = c.sides
    drives = [s.drive for s in sides]
    blank = [""] * len(verdict_heads(len(sides)))

    def row(what: str, unit: str, values) -> list[str]:
        cells = [str(v) if v not in (None, "") else "—" for v in values]
        return ["specs", "", "", what, unit, *cells, *blank]

    prices = [s.price.amount if s.price else None for s in sides]
    return [
        row("manufacturer", "", (d.manufacturer.name for d in drives)),
        row("kind", "", (d.get_kind_display() for d in drives)),
        row("controller", "", (str(d.controller) if d.controller else "" for d in drives)),
        row("NAND", "", (str(d.nand) if d.nand else "" for d in drives)),
        row("firmware tested", "", (", ".join(s.firmware) for s in sides)),
        row("capacity", "bytes", (d.capacity_bytes for d in drives)),
        row("interface", "", (d.get_interface_display() for d in drives)),
        row("form factor", "", (d.get_form_factor_display() for d in drives)),
        row(
            "latest price",
            "USD",
            (
                f"{dollars(s.price.amount)} ({s.price.observed_on})" if s.price else ""
                for s in sides
            ),
        ),
        row("price per GB", "USD", map(per_gb, prices, (d.capacity_bytes for d in drives))),
        row(
            f"price per 1,000 IOPS ({value_test_name(c)}, worst case)",
            "USD",
            map(per_kiops, prices, c.value_iops),
        ),
    ]
