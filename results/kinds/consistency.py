"""Performance consistency: IOPS in each second of a long 4KB random write run at QD32, at
one spare-area level (results.models.ConsistencySeries), and its steady state by SNIA PTS's
rule (results.steady_state). Its section of a comparison: each spare-area level's series
of every drive, on a chart of their own."""

from __future__ import annotations

import statistics
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from django.db.models import F, Q

from core.query import whole_number
from results import charts
from results.documents import SECTION_OF_KIND, with_defaults
from results.kinds.base import Kind, Shown
from results.models import ConsistencySeries, Run, Test
from results.sections import Figure, Plot, Section, each_side, verdict_heads
from results.selectors.compare import Comparison
from results.selectors.kind_rankings import Column, RankedBy
from results.steady_state import steady_state
from results.units import iops

KIND_SECTION = SECTION_OF_KIND[Test.Kind.CONSISTENCY]


# -- ingest ----------------------------------------------------------------------------------


def steady_state_fields(iops: list[int], interval_ns: int) -> dict[str, Any]:
    """The steady-state fields of a consistency series: the window results.steady_state
    found (the first steady one, else the last), or the last 30% of a series too short to
    test; the IOPS over it (mean, standard deviation and the slowest interval's)."""
    found = steady_state(iops, interval_ns)
    seconds = interval_ns / 1e9
    window = found.window
    if window is None:
        start, end = int(len(iops) * 0.7), len(iops)
        start_s, end_s = round(start * seconds), round(end * seconds)
    else:
        start_s, end_s = window.start_s, window.end_s
        start, end = round(start_s / seconds), round(end_s / seconds)
    tail = [v / seconds for v in iops[start:end]]
    return {
        "steady": found.steady,
        "steady_state_start_s": start_s,
        "steady_state_end_s": end_s,
        "steady_excursion": window.excursion if window else None,
        "steady_slope": window.slope if window else None,
        "steady_mean_iops": window.mean_iops if window else statistics.fmean(tail),
        "steady_stddev_iops": statistics.pstdev(tail),
        "steady_min_iops": round(min(tail)),
    }


def consistency_figures(entry: Mapping[str, Any]) -> dict[str, Any]:
    """A consistency entry of a document as a ConsistencySeries' fields (the run and test
    aside): its series, and the steady state read from it."""
    entry = with_defaults(KIND_SECTION, entry)
    return {
        "spare_area_percent": entry["spare_area_percent"],
        "pattern": entry["pattern"],
        "span_bytes": entry.get("span_bytes"),
        "interval_ns": entry["interval_ns"],
        "iops": entry["iops"],
        **steady_state_fields(entry["iops"], entry["interval_ns"]),
        "partial": entry.get("partial", False),
    }


def rows(
    run: Run, entries: list[dict[str, Any]], tests: Mapping[str, Test], document: Mapping[str, Any]
) -> list[ConsistencySeries]:
    return [
        ConsistencySeries(run=run, test=tests[e["test"]], **consistency_figures(e)) for e in entries
    ]


# -- the compare section ------------------------------------------------------------------


@dataclass(slots=True)
class LevelPart:
    level: int
    plot: Plot
    series: list  # each side's ConsistencySeries, or None


def sections(c: Comparison, shown: Shown) -> list[Section]:
    parts = []
    for level in c.consistency_levels:
        plot = Plot(
            f"consistency-{level}",
            f"consistency-{level}",
            f"IOPS each second, 4KB random write QD32, {level}% spare area",
            lambda level=level: charts.consistency(
                level, c.sides, c.names, scale=shown.scale, view=shown.view
            ),
        )
        parts.append(LevelPart(level, plot, [side.consistency.get(level) for side in c.sides]))

    def rows() -> Iterator[list[str]]:
        blank = [""] * len(verdict_heads(len(c.sides)))
        for part in parts:
            values = [
                Figure(s.steady_mean_iops, iops(s.steady_mean_iops)) if s else "not tested"
                for s in part.series
            ]
            yield [
                "consistency",
                f"{part.level}% spare area",
                "",
                "steady-state mean",
                "IOPS (higher is better)",
                *values,
                *blank,
            ]

    def body(keys: list[str], points: bool) -> list[dict[str, Any]]:
        return [
            {
                "spare_area_percent": part.level,
                **each_side(keys, part.series, lambda s: _series(s, points)),
            }
            for part in parts
        ]

    return [
        Section(
            "consistency",
            "Consistency",
            parts,
            [p.plot for p in parts],
            rows,
            ("consistency", body),
        )
    ]


# -- the API's compare body ---------------------------------------------------------------


def _series(series: ConsistencySeries | None, points: bool) -> dict[str, Any] | None:
    if series is None:
        return None
    body = {
        "id": series.pk,
        "run": series.run_id,
        "pattern": series.pattern,
        "interval_ns": series.interval_ns,
        "steady": series.steady,
        "steady_label": series.steady_label,
        "steady_state_start_s": series.steady_state_start_s,
        "steady_state_end_s": series.steady_state_end_s,
        "steady_excursion": series.steady_excursion,
        "steady_slope": series.steady_slope,
        "steady_mean_iops": series.steady_mean_iops,
        "steady_min_iops": series.steady_min_iops,
        "partial": series.partial,
        "url": f"/api/v1/consistency/{series.pk}/",
    }
    if points:
        body["iops"] = series.iops_json  # JSON text, as the selector read it
    return body


# -- its ranking ---------------------------------------------------------------------------

# Each drive's latest whole series at one spare-area level, by its steady-state IOPS: the
# mean over the first window that meets the SNIA PTS rule, or over its last window for a
# series that never settled (said so, and its bar striped).
RANKED_BY = RankedBy(
    model=ConsistencySeries,
    figure=F("steady_mean_iops"),
    unit="IOPS (higher is better)",
    scale=1,
    what="Each drive's latest whole series at one spare-area level, ranked by its "
    "steady-state IOPS: the mean over the first window of five 60-second rounds that meets "
    "the SNIA PTS steady-state rule, or, for a drive that never settled, over its last "
    "window (said so, and striped in the chart).",
    choice="spare_area_percent",
    choice_param="spare",
    choice_label="Spare area",
    choice_text=lambda level: f"{level}% of the target unused",
    # At most 90%: a series' check constraint.
    read_choice=lambda query: whole_number(query, "spare", minimum=0, maximum=90),
    # Recorded for less than 90% of the test's duration (selectors.common.series_is_quick).
    quick=Q(points__lt=0.9 * F("test__duration_s") * 1e9 / F("interval_ns")),
    whole=Q(partial=False),
    columns=(
        Column("Steady-state IOPS (mean)", "steady_mean_iops", lambda s: s.steady_mean_iops, iops),
        Column("std. dev.", "steady_stddev_iops", lambda s: s.steady_stddev_iops, iops),
        Column("minimum", "steady_min_iops", lambda s: s.steady_min_iops, iops),
        Column("Steady state (SNIA PTS)", "steady_label", lambda s: s.steady_label, numeric=False),
    ),
    deferred=("iops", "iops_text"),
    note=lambda s: "" if s.steady else s.steady_label,
    striped=lambda s: not s.steady,
)

KIND = Kind(
    Test.Kind.CONSISTENCY, ConsistencySeries, rows, sections, ranked_by=lambda test: RANKED_BY
)
