"""The ranking of a performance-consistency test: each drive's latest consistency series at
one spare-area level, by its steady-state IOPS (the mean over the SNIA PTS window the series
settled in, or over its last window where it never did: results.steady_state)."""

from __future__ import annotations

from dataclasses import dataclass

from django.conf import settings
from django.db.models import Count, F, Q, QuerySet
from django.db.models.functions import Coalesce

from results.filters import MethodFilter
from results.models import ConsistencySeries, Run, Test

# As the other rankings' `method` filter: full-length series (the default), or quick ones.
METHODS = tuple(value for value, _ in MethodFilter.CHOICES)


@dataclass
class SteadyRow:
    rank: int
    series: ConsistencySeries  # with its run, the run's drive and the drive's maker
    highlighted: bool = False


@dataclass
class SteadyRanking:
    test: Test
    spare_area: int  # percent of the target left unused
    levels: list[int]  # the spare-area levels the test's series were recorded at
    method: str  # one of METHODS
    rows: list[SteadyRow]
    page: int
    page_size: int
    has_next: bool
    elsewhere: list[SteadyRow]  # highlighted drives ranked outside this page
    considered: int  # drives ranked

    @property
    def has_previous(self) -> bool:
        return self.page > 1


def consistency_test(identifier: str) -> Test | None:
    """The consistency test of this identifier (a steady-state ranking's), or None."""
    return Test.objects.filter(identifier=identifier, kind=Test.Kind.CONSISTENCY).first()


def _quick() -> Q:
    """A series recorded for less than 90% of its test's duration (a quick smoke run), as
    results.selectors.common.series_is_quick says."""
    return Q(points__lt=0.9 * F("test__duration_s") * 1e9 / F("interval_ns"))


def _latest(test: Test, spare_area: int, method: str) -> QuerySet[ConsistencySeries]:
    """Each ranked drive's latest whole series of the test at this level, by the same
    recency as its runs (results.selectors.common.run_recency)."""
    series = ConsistencySeries.objects.filter(
        test=test,
        spare_area_percent=spare_area,
        partial=False,
        run__status=Run.Status.PUBLISHED,
        run__drive__needs_review=False,
    )
    if not settings.BENCH_SHOW_SYNTHETIC:
        series = series.exclude(run__source=Run.Source.SYNTHETIC)
    series = series.filter(_quick()) if method == MethodFilter.QUICK else series.exclude(_quick())
    return series.order_by(
        "run__drive_id",
        Coalesce("run__started_at", "run__citation__published_on", "run__ingested_at").desc(),
        "-run_id",
        "-pk",
    ).distinct("run__drive_id")


def steady_ranking(
    *,
    test: Test,
    spare_area: int | None,
    method: str = METHODS[0],
    page: int = 1,
    page_size: int = 25,
    highlight: tuple[str, ...] = (),
) -> SteadyRanking:
    """The drives ranked by the steady-state IOPS of their latest series of `test` at
    `spare_area` percent (None: the lowest level recorded), highest first, ties by the
    series' id; a page of them, and the highlighted drives' rows wherever they rank.
    Four queries, and one for each highlighted drive outside the page."""
    levels = sorted(
        set(
            ConsistencySeries.objects.filter(test=test).values_list("spare_area_percent", flat=True)
        )
    )
    if spare_area is None or spare_area not in levels:
        spare_area = levels[0] if levels else 0
    ranked = (
        ConsistencySeries.objects.filter(pk__in=_latest(test, spare_area, method).values("pk"))
        .select_related("run__drive__manufacturer", "run__drive__controller__vendor", "test")
        .defer("iops", "iops_text")
        .order_by("-steady_mean_iops", "pk")
    )
    start = (page - 1) * page_size
    window = list(ranked[start : start + page_size + 1])
    marked = set(highlight)
    rows = [
        SteadyRow(start + i + 1, s, s.run.drive.slug in marked)
        for i, s in enumerate(window[:page_size])
    ]
    shown = {r.series.run.drive.slug for r in rows}
    elsewhere = []
    for series in ranked.filter(run__drive__slug__in=marked - shown):
        ahead = ranked.filter(
            Q(steady_mean_iops__gt=series.steady_mean_iops)
            | Q(steady_mean_iops=series.steady_mean_iops, pk__lt=series.pk)
        )
        elsewhere.append(SteadyRow(ahead.count() + 1, series, True))
    considered = ranked.aggregate(n=Count("pk"))["n"]
    return SteadyRanking(
        test=test,
        spare_area=spare_area,
        levels=levels,
        method=method,
        rows=rows,
        page=page,
        page_size=page_size,
        has_next=len(window) > page_size,
        elsewhere=sorted(elsewhere, key=lambda r: r.rank),
        considered=considered,
    )
