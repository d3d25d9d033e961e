"""Write saturation: 128KB sequential writes until the drive's write cache runs out, with
where it ran out (results.models.SaturationSeries). Its variant: SNIA PTS's WSAT (4KB random
writes in rounds from a purged state to 4x the capacity, SaturationSeries.is_wsat), with where
the rate first fell below half of its first round's. Its sections of a comparison: each data
pattern's write saturation, then each one's WSAT, every drive overlaid."""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from django.db.models import Case, F, FloatField, Q, When
from django.db.models.expressions import RawSQL
from django.db.models.functions import Coalesce

from results import charts
from results.charts import wsat_halved_label, wsat_rounds
from results.documents import SECTION_OF_KIND, with_defaults
from results.kinds.base import Kind, Shown
from results.models import Run, SaturationSeries, Test
from results.sections import Figure, Plot, Section, each_side, per_million, verdict_heads
from results.selectors.compare import SIDE_KEYS, Comparison
from results.selectors.kind_rankings import Column, RankedBy, read_pattern
from results.units import decimal, gigabytes, iops, mbps, seconds

KIND_SECTION = SECTION_OF_KIND[Test.Kind.SATURATION]


# -- ingest ----------------------------------------------------------------------------------


def _series(run: Run, test: Test, entry: dict[str, Any]) -> SaturationSeries:
    """One write saturation: its series and where its cache ran out."""
    entry = with_defaults(KIND_SECTION, entry)
    return SaturationSeries(
        run=run,
        test=test,
        pattern=entry["pattern"],
        span_bytes=entry.get("span_bytes"),
        interval_ns=entry["interval_ns"],
        duration_ns=entry.get("duration_ns"),
        discard_method=entry.get("discard_method", ""),
        bytes_per_interval=entry["bytes_per_interval"],
        bytes_written=entry["bytes_written"],
        mean_bytes_per_second=entry.get("mean_bytes_per_second"),
        initial_bytes_per_second=entry.get("initial_bytes_per_second"),
        threshold_fraction=entry.get("threshold_fraction"),
        exhausted=entry["exhausted"],
        exhausted_at_s=entry.get("exhausted_at_s"),
        bytes_before_exhausted=entry.get("bytes_before_exhausted"),
        bytes_per_second_before=entry.get("bytes_per_second_before"),
        bytes_per_second_after=entry.get("bytes_per_second_after"),
        partial=entry.get("partial", False),
        target_bytes=entry.get("target_bytes"),
        time_cap_ns=entry.get("time_cap_ns"),
        stopped_by=entry.get("stopped_by", ""),
        halved_at_s=entry.get("halved_at_s"),
        bytes_before_halved=entry.get("bytes_before_halved"),
    )


def rows(
    run: Run, entries: list[dict[str, Any]], tests: Mapping[str, Test], document: Mapping[str, Any]
) -> list[SaturationSeries]:
    return [_series(run, tests[e["test"]], e) for e in entries]


# -- the compare sections ----------------------------------------------------------------


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


def _gb(num_bytes) -> Figure:
    return Figure(None if num_bytes is None else num_bytes / 1e9, gigabytes(num_bytes))


def _mbps(bytes_per_second) -> Figure:
    return Figure(per_million(bytes_per_second), mbps(bytes_per_second))


def _seconds_figure(value: float) -> Figure:
    """A moment in whole seconds, in a row whose unit says "seconds"."""
    return Figure(value, decimal(value, 0))


def _after_fall(figure: Callable[[SaturationSeries], Figure]):
    """A figure of where the cache ran out: said so where it did not."""
    return lambda w: figure(w) if w.exhausted else "did not run out"


SATURATION_EXPORT = (
    ("mean", "MB/s (higher is better)", lambda w: _mbps(w.mean_bytes_per_second)),
    (
        "cache ran out after",
        "seconds",
        _after_fall(lambda w: _seconds_figure(w.exhausted_at_s)),
    ),
    ("written before the fall", "GB", _after_fall(lambda w: _gb(w.bytes_before_exhausted or 0))),
    ("rate before", "MB/s", _after_fall(lambda w: _mbps(w.bytes_per_second_before))),
    ("rate after", "MB/s", _after_fall(lambda w: _mbps(w.bytes_per_second_after))),
)


def _wsat_iops(w: SaturationSeries) -> Figure:
    rate = (w.mean_bytes_per_second or 0) / (w.test.block_size or 4096)
    return Figure(rate, iops(rate))


WSAT_EXPORT = (
    # From the stored figures only: the export reads no series (compare(points=False)).
    ("mean", "IOPS (higher is better)", _wsat_iops),
    (
        "below half of it from",
        "seconds",
        lambda w: "never" if w.halved_at_s is None else _seconds_figure(w.halved_at_s),
    ),
    (
        "written before",
        "GB",
        lambda w: "—" if w.bytes_before_halved is None else _gb(w.bytes_before_halved),
    ),
    ("written in all", "GB", lambda w: _gb(w.bytes_written)),
    ("stopped by", "", lambda w: w.get_stopped_by_display()),
)


def _series_section(
    c: Comparison,
    variant: str,
    patterns: list[str],
    title: str,
    draw: Callable[[list], dict],
    columns: Callable[[list], list],
    export: tuple,
) -> Section:
    """One variant's section ("saturation" or "wsat"): each data pattern any drive has it in,
    every drive overlaid; its rows in the exports and its entry in the API's body."""
    parts = []
    for pattern in patterns:
        series = [getattr(side, variant).get(pattern) for side in c.sides]
        plot = Plot(
            f"{variant}-{pattern}",
            f"{variant}-{pattern}",
            f"{title}, {pattern} data",
            lambda series=series: draw(list(zip(c.names, series, strict=True))),
        )
        parts.append(SeriesPart(pattern, plot, series, columns))
    name = VARIANT_NAMES[variant]

    def rows() -> Iterator[list[str]]:
        blank = [""] * len(verdict_heads(len(c.sides)))
        for part in parts:
            for measure, unit, value in export:
                cells = ["not tested" if w is None else value(w) for w in part.series]
                yield [name, "", part.pattern, measure, unit, *cells, *blank]

    write = _body(VARIANT_FIELDS[variant])
    return Section(
        variant,
        "Write saturation" if variant == "saturation" else "WSAT",
        parts,
        [p.plot for p in parts],
        rows,
        (variant, lambda keys, points: _by_pattern(parts, keys, points, write)),
    )


def sections(c: Comparison, shown: Shown) -> list[Section]:
    """Write saturation, then WSAT (drawn against the time or the bytes written, ?wsat_x=)."""
    return [
        _series_section(
            c,
            "saturation",
            c.saturation_patterns,
            "write saturation, 128KB sequential write",
            charts.saturation,
            saturation_columns,
            SATURATION_EXPORT,
        ),
        _series_section(
            c,
            "wsat",
            c.wsat_patterns,
            "WSAT, 4KB random write QD32 to 4x the capacity",
            lambda named: charts.wsat(named, shown.wsat_axis),
            wsat_columns,
            WSAT_EXPORT,
        ),
    ]


# -- the API's compare body ---------------------------------------------------------------


def _by_pattern(parts: list[SeriesPart], keys, points: bool, write) -> list[dict[str, Any]]:
    """A series section's entries: each data pattern's series of every side."""
    return [
        {"pattern": part.pattern, **each_side(keys, part.series, lambda w: write(w, points))}
        for part in parts
    ]


# Each variant's name in the exports, and its own fields in the API's body (after the run,
# its interval and the bytes written).
VARIANT_NAMES = {"saturation": "write saturation", "wsat": "WSAT"}
VARIANT_FIELDS = {
    "saturation": (
        "exhausted",
        "exhausted_at_s",
        "bytes_before_exhausted",
        "bytes_per_second_before",
        "bytes_per_second_after",
    ),
    "wsat": ("target_bytes", "time_cap_ns", "stopped_by", "halved_at_s", "bytes_before_halved"),
}


def _body(fields: tuple[str, ...]) -> Callable[[SaturationSeries | None, bool], dict | None]:
    """How a variant's series is written in the API's body (None: not tested); its points
    too with points=True."""

    def write(series: SaturationSeries | None, points: bool) -> dict[str, Any] | None:
        if series is None:
            return None
        body = {
            "run": series.run_id,
            "interval_ns": series.interval_ns,
            "bytes_written": series.bytes_written,
            **{name: getattr(series, name) for name in fields},
            "partial": series.partial,
            "url": f"/api/v1/saturation/{series.pk}/",
        }
        if points:
            body["bytes_per_interval"] = series.bytes_per_interval
        return body

    return write


# -- its rankings --------------------------------------------------------------------------


def _seconds(otherwise: str) -> Callable[[float | None], str]:
    """Seconds as a column writes them, or what their absence means."""
    return lambda value: otherwise if value is None else seconds(value, 0)


SATURATION_RANKED = RankedBy(
    model=SaturationSeries,
    # The data written before the first drop; all of it for a drive whose rate never fell.
    figure=Case(When(exhausted=True, then=F("bytes_before_exhausted")), default=F("bytes_written")),
    unit="GB written before the rate fell (higher is better)",
    scale=1e-9,
    what="Each drive's latest whole write saturation of one data pattern, ranked by the data "
    "it wrote before its write cache ran out and the rate fell; a drive whose rate never fell "
    "by all it wrote (said so, and striped in the chart).",
    choice="pattern",
    choice_param="pattern",
    choice_label="Data",
    choice_text=lambda pattern: f"{pattern} data",
    read_choice=read_pattern,
    # Wrote less than 90% of the drive (a quick run writes a capped span).
    quick=Q(bytes_written__lt=0.9 * F("run__drive__capacity_bytes")),
    whole=Q(partial=False, target_bytes__isnull=True),
    columns=(
        Column("Written before the fall", "bytes_before_fall", lambda w: w.figure, gigabytes),
        Column(
            "Cache ran out after",
            "exhausted_at_s",
            lambda w: w.exhausted_at_s,
            _seconds("did not run out"),
        ),
        Column("MB/s before", "bytes_per_second_before", lambda w: w.bytes_per_second_before, mbps),
        Column("MB/s after", "bytes_per_second_after", lambda w: w.bytes_per_second_after, mbps),
        Column("Mean MB/s", "mean_bytes_per_second", lambda w: w.mean_bytes_per_second, mbps),
    ),
    deferred=("bytes_per_interval",),
    note=lambda w: "" if w.exhausted else "did not run out",
    striped=lambda w: not w.exhausted,
)

# WSAT's steady rate: bytes a second over the five whole rounds before its last (which may
# be cut short by the time cap or the target), from the stored series.
_LAST_ROUNDS = RawSQL(
    "(SELECT avg(v) FROM unnest(results_saturationseries.bytes_per_interval["
    "greatest(cardinality(results_saturationseries.bytes_per_interval) - 5, 1):"
    "greatest(cardinality(results_saturationseries.bytes_per_interval) - 1, 1)]) v)"
    " * 1e9 / results_saturationseries.interval_ns",
    (),
    output_field=FloatField(),
)

WSAT_RANKED = RankedBy(
    model=SaturationSeries,
    # The data written before the rate first fell below half its first round's; all of it
    # for a drive whose rate never did.
    figure=Coalesce(F("bytes_before_halved"), F("bytes_written")),
    unit="GB written before half the first round's IOPS (higher is better)",
    scale=1e-9,
    what="Each drive's latest whole WSAT (SNIA PTS write saturation) of one data pattern, "
    "ranked by the data it wrote before its rate first fell below half of its first round's "
    "(a drive whose rate never did: by all it wrote, said so and striped in the chart), with "
    "its steady rate after: the IOPS of its last whole rounds.",
    choice="pattern",
    choice_param="pattern",
    choice_label="Data",
    choice_text=lambda pattern: f"{pattern} data",
    read_choice=read_pattern,
    # Stopped by a time cap under 90% of the test's duration (a quick run's) before it wrote
    # its target.
    quick=Q(time_cap_ns__lt=0.9 * F("test__duration_s") * 1e9) & ~Q(stopped_by="bytes"),
    whole=Q(partial=False, target_bytes__isnull=False),
    columns=(
        Column("Written before half", "bytes_before_halved", lambda w: w.figure, gigabytes),
        Column("Below half from", "halved_at_s", lambda w: w.halved_at_s, _seconds("never")),
        Column(
            "Steady IOPS (last rounds)",
            "steady_iops",
            lambda w: (
                w.last_rounds_bps / (w.test.block_size or 4096)
                if w.last_rounds_bps is not None
                else None
            ),
            iops,
        ),
        Column("Written in all", "bytes_written", lambda w: w.bytes_written, gigabytes),
        Column("Stopped by", "stopped_by", lambda w: w.get_stopped_by_display(), numeric=False),
    ),
    annotations={"last_rounds_bps": _LAST_ROUNDS},
    deferred=("bytes_per_interval",),
    note=lambda w: "never below half" if w.halved_at_s is None else "",
    striped=lambda w: w.halved_at_s is None,
)


def ranked_by(test: Test) -> RankedBy:
    """WSAT's ranking for its random-write test, the write saturation's for the other."""
    return WSAT_RANKED if test.access == Test.Access.RANDOM else SATURATION_RANKED


KIND = Kind(Test.Kind.SATURATION, SaturationSeries, rows, sections, ranked_by=ranked_by)
