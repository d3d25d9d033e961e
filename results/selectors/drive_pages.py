"""A drive's page, and the pages of a controller's or NAND type's drives."""

from __future__ import annotations

from dataclasses import dataclass, field

from django.db.models import Count, OuterRef, Prefetch, QuerySet, Subquery

from drives.models import Controller, Drive, NandType, Price
from results.models import (
    ConsistencySeries,
    LeaderboardEntry,
    Result,
    Run,
    SaturationSeries,
    Test,
    TrimValidation,
)
from results.selectors.common import (
    PATTERN_ORDER,
    SERIES_POINTS,
    Figures,
    entries,
    run_recency,
    series_is_quick,
    test_order_key,
)
from results.selectors.runs import RunGroup, run_groups
from results.spread import Spread

# -- drive pages and groups -----------------------------------------------------------------


@dataclass
class FirmwareGroup:
    """The runs of a drive measured on one firmware version ("" where the run does not say
    which), newest first; `older`: the group of the version before it, which its compare
    link sets against it (None for the oldest)."""

    version: str
    runs: list[Run]
    older: FirmwareGroup | None = None

    @property
    def latest(self) -> Run:
        return self.runs[0]


def firmware_history(runs: list[Run]) -> list[FirmwareGroup]:
    """A drive's runs (newest first) grouped by the firmware they were measured on, the
    version of the newest run first; each group set against the one before it in time."""
    groups: dict[str, FirmwareGroup] = {}
    for run in runs:
        version = run.firmware.version if run.firmware_id else ""
        groups.setdefault(version, FirmwareGroup(version, [])).runs.append(run)
    ordered = list(groups.values())
    for newer, older in zip(ordered, ordered[1:], strict=False):
        newer.older = older
    return ordered


@dataclass
class DrivePage:
    """A drive with everything published about it, grouped for display."""

    drive: Drive
    runs: list[Run]
    held_runs: int = 0  # runs held for review (results.plausibility), not shown until approved
    results: list[Figures] = field(default_factory=list)
    consistency: list[ConsistencySeries] = field(default_factory=list)
    trim: list[TrimValidation] = field(default_factory=list)
    saturation: list[SaturationSeries] = field(default_factory=list)
    prices: list[Price] = field(default_factory=list)
    # Each test and pattern's group (results.spread), by (test id, pattern): what its
    # rankings and comparisons show, the mean of the results listed.
    spreads: dict[tuple[int, str], Spread] = field(default_factory=dict)
    # Each published run's rate by test, pattern and method: where each run falls.
    run_groups: list[RunGroup] = field(default_factory=list)
    firmware: list[FirmwareGroup] = field(default_factory=list)  # firmware_history(runs)


def drive_page(*, slug: str) -> DrivePage:
    """One drive's specs, firmware versions, price history and every published run with its
    results and provenance, each test and pattern's run-to-run spread, and how many of its
    runs are held for review, and where each run falls among the others (run_groups). Ten
    queries.
    Raises Drive.DoesNotExist."""
    held = Run.objects.filter(drive=OuterRef("pk"), status=Run.Status.HELD).order_by()
    drive = (
        Drive.objects.real()
        .with_specs()
        .annotate(held_runs=Subquery(held.values("drive").annotate(n=Count("pk")).values("n")))
        .prefetch_related("firmware_versions")
        .get(slug=slug)
    )
    runs = sorted(
        Run.objects.published()
        .filter(drive=drive)
        .select_related("firmware", "bench", "citation", "suite", "submitter")
        .defer("document")
        .prefetch_related(
            Prefetch("results", queryset=Result.objects.select_related("test")),
            Prefetch(
                "consistency_series",
                queryset=ConsistencySeries.objects.select_related("test")
                .defer(*SERIES_POINTS)
                .order_by("spare_area_percent"),
            ),
            Prefetch("trim_validations", queryset=TrimValidation.objects.select_related("test")),
            Prefetch(
                "saturation_series",
                queryset=SaturationSeries.objects.select_related("test").order_by("pattern"),
            ),
        ),
        key=run_recency,
    )
    page = DrivePage(
        drive=drive, runs=runs, held_runs=drive.held_runs or 0, firmware=firmware_history(runs)
    )
    for run in runs:
        page.results.extend(Figures.of(r) for r in run.results.all())
        for series in run.consistency_series.all():
            series.quick = series_is_quick(series)
            page.consistency.append(series)
        page.trim.extend(run.trim_validations.all())
        page.saturation.extend(run.saturation_series.all())
    rank = {r.pk: i for i, r in enumerate(runs)}
    page.results.sort(
        key=lambda f: (
            test_order_key(f.result.test),
            PATTERN_ORDER.get(f.result.pattern, 9),
            rank[f.result.run_id],
            f.result.repeat,
        )
    )
    page.spreads = {
        (e.test_id, e.pattern): Spread.of_entry(e)
        for e in LeaderboardEntry.objects.filter(drive=drive, bytes_per_second__isnull=False).only(
            "test_id", "pattern", "runs", "bytes_per_second", "low_bps", "high_bps", "cv"
        )
    }
    page.prices = list(Price.objects.filter(drive=drive).order_by("observed_on", "currency"))
    page.run_groups = run_groups(drive_id=drive.pk)
    return page


KEY_TESTS = ("randread-4k-qd3", "randwrite-4k-qd3-8g", "seqread-128k-qd1", "seqwrite-128k-qd1")


@dataclass
class GroupRow:
    drive: Drive
    figures: dict[str, LeaderboardEntry]  # key test id -> its worst-case entry
    tests: list[str] = field(default_factory=list)

    @property
    def cells(self) -> list[LeaderboardEntry | None]:
        """The worst-case entry of each key test (None: not tested), in the group's column
        order."""
        return [self.figures.get(t) for t in self.tests]


@dataclass
class DriveGroup:
    """The drives of one controller or NAND type with their key results, one page of them."""

    title: str
    key_tests: list[Test]
    rows: list[GroupRow]
    page: int
    has_next: bool


def drive_group(
    *, drives: QuerySet[Drive], title: str, page: int = 1, page_size: int = 50
) -> DriveGroup:
    """`drives` (e.g. one controller's) with the key four-corner figures. Three queries."""
    start = (page - 1) * page_size
    window = list(
        drives.real()
        .with_specs()
        .order_by("sort_name", "capacity_bytes", "pk")[start : start + page_size + 1]
    )
    shown = window[:page_size]
    tests = sorted(Test.objects.filter(identifier__in=KEY_TESTS), key=test_order_key)
    order = [t.identifier for t in tests]
    rows = {d.pk: GroupRow(d, {}, order) for d in shown}
    for e in (
        entries()
        .filter(drive_id__in=rows, test__identifier__in=KEY_TESTS)
        .select_related("test")
        .order_by("bytes_per_second")
    ):
        rows[e.drive_id].figures.setdefault(e.test.identifier, e)
    return DriveGroup(
        title=title,
        key_tests=tests,
        rows=list(rows.values()),
        page=page,
        has_next=len(window) > page_size,
    )


def controller_by_slug(slug: str) -> Controller:
    return Controller.objects.select_related("vendor").get(slug=slug)


def nand_by_slug(slug: str) -> NandType:
    return NandType.objects.select_related("vendor").get(slug=slug)
