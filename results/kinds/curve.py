"""Throughput's response-time curves (results.curves): the compare page's section of them.
Each curve and data pattern is a part: the curve drawn for every drive (achieved IOPS against
p99, and p50), each drive's knee (the lowest load whose p99 exceeds twice its 10% load's), the
lowest queue depth of the matching queue-depth sweep that reaches 95% of its peak IOPS, and
every drive's p50 to p99.99 at the same offered loads, each percentile shown where its I/Os
support it (results.spread.ios_needed) and its tail judged by the winner rule only where that
percentile's run-to-run variation is known (results.curves.percentile_variation). The page,
its chart images, the exports and the API's body all read these parts."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field

from results import charts, curves
from results.curves import PERCENTILES, TAIL
from results.kinds.throughput import LATENCY_READS, latency_figure, latency_text
from results.models import Test
from results.sections import Figure, Plot, Section, verdict_heads
from results.selectors.common import Figures
from results.selectors.compare import SIDE_KEYS, Comparison, Curve, against_a, best_of
from results.spread import Side as RuleSide
from results.spread import Spread, Verdict, percentile_unsupported, verdict
from results.units import count, iops, percent

KNEE_TEXT = f"the lowest load whose p99 exceeds {curves.KNEE_FACTOR}x its {curves.LOW_LOAD}% load's"
DEPTH_TEXT = f"the lowest queue depth reaching {percent(curves.PEAK_SHARE * 100)} of peak IOPS"


def supported(f: Figures | None, percentile: str) -> int | None:
    """A side's latency at a percentile, in ns, where its I/Os support it; else None."""
    if f is None or percentile_unsupported(percentile, f.result.io_count):
        return None
    return LATENCY_READS[percentile](f.result)


@dataclass(slots=True)
class LoadCell:
    """A drive's figures at one load, as the page writes them."""

    figures: Figures
    iops: str
    values: tuple[str, ...]  # PERCENTILES, each its latency or "needs N I/Os"
    ios: str


@dataclass(slots=True)
class LoadRow:
    """One offered load (a curve's point) in one data pattern: every drive's figures (None:
    not tested), and at each tail percentile each drive's verdict against A and the best."""

    load: int
    test: Test
    figures: list[Figures | None]
    cells: list[tuple[str, LoadCell | None]]  # each drive's key and cell
    verdicts: dict[str, list[Verdict]] = field(default_factory=dict)  # by percentile
    best: dict[str, str] = field(default_factory=dict)  # by percentile: the key, or ""


@dataclass(slots=True)
class CurveSide:
    """A drive's curve in one data pattern."""

    key: str
    maximum: Figures | None  # its unpaced test
    points: list[tuple[int, Figures]]  # (load, figures), lowest load first
    knee: int | None
    depth: int | None  # the sweep's lowest depth reaching PEAK_SHARE of its peak

    @property
    def knee_text(self) -> str:
        if not self.points:
            return "not tested"
        if self.knee is None:
            low = next((f for load, f in self.points if load == curves.LOW_LOAD), None)
            return "none" if supported(low, "99") else f"not known (no p99 at {curves.LOW_LOAD}%)"
        return f"{self.knee}%"

    @property
    def depth_text(self) -> str:
        return "no sweep" if self.depth is None else f"QD{self.depth}"


@dataclass
class CurvePart:
    curve: Curve
    pattern: str
    id: str
    sweep: str  # the matching queue-depth sweep's family, "" where none
    sides: list[CurveSide]
    rows: list[LoadRow]
    plot: Plot
    percentiles = PERCENTILES  # the columns of its table at each load
    knee_rule = KNEE_TEXT


def _row_of(one, pattern: str) -> list[Figures | None] | None:
    return next((p.figures for p in one.rows if p.pattern == pattern), None)


def _tail_verdicts(row: LoadRow, measured: Mapping | None) -> None:
    """The winner rule on each tail percentile (the lower latency wins: its reciprocal is
    compared as a rate), with that percentile's measured variation as the method's."""
    for q in TAIL:
        variation = curves.percentile_variation(row.test.identifier, q, measured)
        rule = []
        for f in row.figures:
            ns = supported(f, q)
            rule.append(
                None if not ns else RuleSide(Spread.of([1e9 / ns]), f.method, variation, f.quick)
            )
        against = [verdict(rule[0], other) for other in rule[1:]]
        row.verdicts[q] = [Verdict()] + [
            against_a(v, key) for key, v in zip(SIDE_KEYS[1:], against, strict=False)
        ]
        best = best_of(rule, against)
        row.best[q] = "" if best is None else SIDE_KEYS[best]


def _cell(f: Figures | None) -> LoadCell | None:
    if f is None:
        return None
    r = f.result
    return LoadCell(
        f,
        iops(f.iops),
        tuple(latency_text(r, LATENCY_READS[q], q) for q in PERCENTILES),
        count(r.io_count) if r.io_count is not None else "not stated",
    )


def parts(c: Comparison, measured: Mapping | None = None) -> list[CurvePart]:
    """Each curve's part in each data pattern; `measured`: the percentiles' run-to-run
    variation (results.curves.percentile_variation; run-to-run.json's by default)."""
    sweeps = {sweep.family: sweep for sweep in c.sweeps}
    made = []
    for curve in c.curves:
        family = curves.sweep_of(curve.curve)
        sweep = sweeps.get(family)
        for pattern in curve.patterns:
            rows = []
            for point in curve.points:
                figures = _row_of(point, pattern)
                if figures is None:
                    continue
                cells = list(zip(SIDE_KEYS, map(_cell, figures), strict=False))
                row = LoadRow(point.test.load_percent, point.test, figures, cells)
                _tail_verdicts(row, measured)
                rows.append(row)
            maxima = _row_of(curve.maximum, pattern) if curve.maximum else None
            sides = []
            for i, key in enumerate(SIDE_KEYS[: len(c.sides)]):
                points = [
                    (row.load, row.figures[i])
                    for row in rows
                    if row.figures[i] is not None and row.figures[i].iops is not None
                ]
                depths = []
                if sweep is not None:
                    for one in sweep.points:
                        found = _row_of(one, pattern)
                        f = found[i] if found else None
                        depths.append((one.test.queue_depth, f.iops if f else None))
                sides.append(
                    CurveSide(
                        key,
                        maxima[i] if maxima else None,
                        points,
                        curves.knee((load, supported(f, "99")) for load, f in points),
                        curves.depth_at_peak(depths),
                    )
                )
            element = f"curve-{len(made)}"
            plot = Plot(
                f"{curve.curve}-{pattern}",
                element,
                f"{curve.name}, {pattern} data: latency against IOPS",
                lambda curve=curve, sides=sides, pattern=pattern: charts.response_curve(
                    curve.name, sides, c.names
                ),
            )
            made.append(
                CurvePart(curve, pattern, element, family if sweep else "", sides, rows, plot)
            )
    return made


def _verdict_cells(verdicts: list[Verdict], best: str) -> list:
    """A tail percentile's verdict cells under verdict_heads (as sections.verdict_cells)."""
    if len(verdicts) > 2:
        return [best.upper() or "none", *(v.label for v in verdicts[1:])]
    v = verdicts[1]
    diff = v.difference_percent
    return [
        v.winner.upper() if v.winner in ("a", "b") else v.label,
        Figure(diff, percent(diff)) if diff is not None else "",
    ]


def _rows(c: Comparison, parts: list[CurvePart]) -> Iterator[list]:
    blank = [""] * len(verdict_heads(len(c.sides)))
    for part in parts:
        name, pattern = part.curve.name, part.pattern
        head = ["curve", name, pattern]
        yield [
            *head,
            "maximum (unpaced)",
            "IOPS (higher is better)",
            *(
                "" if s.maximum is None else Figure(s.maximum.iops, iops(s.maximum.iops))
                for s in part.sides
            ),
            *blank,
        ]
        for row in part.rows:
            load = f"at {row.load}% load"
            yield [
                *head,
                f"{load}: achieved",
                "IOPS",
                *("not tested" if f is None else Figure(f.iops, iops(f.iops)) for f in row.figures),
                *blank,
            ]
            for q in PERCENTILES:
                cells = [
                    "not tested" if f is None else latency_figure(f.result, LATENCY_READS[q], q)
                    for f in row.figures
                ]
                who = _verdict_cells(row.verdicts[q], row.best[q]) if q in TAIL else blank
                yield [*head, f"{load}: p{q}", "µs, lower is better", *cells, *who]
            yield [
                *head,
                f"{load}: I/Os measured",
                "I/Os",
                *(
                    ""
                    if f is None or f.result.io_count is None
                    else Figure(f.result.io_count, count(f.result.io_count))
                    for f in row.figures
                ),
                *blank,
            ]
        yield [
            *head,
            f"knee: {KNEE_TEXT}",
            "% of the maximum",
            *(s.knee_text if s.knee is None else Figure(s.knee, s.knee_text) for s in part.sides),
            *blank,
        ]
        if part.sweep:
            yield [
                *head,
                f"{DEPTH_TEXT} (queue-depth sweep)",
                "queue depth",
                *(
                    s.depth_text if s.depth is None else Figure(s.depth, s.depth_text)
                    for s in part.sides
                ),
                *blank,
            ]


def _side_at_load(f: Figures | None) -> dict | None:
    if f is None:
        return None
    r = f.result
    values = r.latency_percentiles_ns or {}
    return {
        "result": r.pk,
        "iops": f.iops,
        "quick": f.quick,
        "io_count": r.io_count,
        "percentiles_ns": {q: values.get(q) for q in PERCENTILES if q in values},
        "needs_ios": {
            q: needed for q in PERCENTILES if (needed := percentile_unsupported(q, r.io_count))
        },
    }


def _body(part: CurvePart) -> dict:
    keys = [s.key for s in part.sides]
    return {
        "curve": part.curve.curve,
        "name": part.curve.name,
        "pattern": part.pattern,
        "sweep": part.sweep or None,
        "maximum_iops": {s.key: None if s.maximum is None else s.maximum.iops for s in part.sides},
        "knee_percent": {s.key: s.knee for s in part.sides},
        "depth_at_peak": {s.key: s.depth for s in part.sides},
        "loads": [
            {
                "load_percent": row.load,
                "test": row.test.identifier,
                **{key: _side_at_load(f) for key, f in zip(keys, row.figures, strict=True)},
                "verdicts": {
                    q: {
                        key: v.as_dict()
                        for key, v in zip(keys[1:], row.verdicts[q][1:], strict=True)
                    }
                    for q in TAIL
                },
                "best": {q: row.best[q] or None for q in TAIL},
            }
            for row in part.rows
        ],
    }


def section(c: Comparison) -> Section:
    """The curves' section: no work for a comparison without curves (the parts of one with
    them are what its page, exports and API all show)."""
    shown = parts(c) if c.curves else []
    return Section(
        "curves",
        "Response time",
        shown,
        [part.plot for part in shown],
        lambda: _rows(c, shown),
        ("curves", lambda keys, points: [_body(part) for part in shown]),
    )
