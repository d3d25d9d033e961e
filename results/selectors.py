"""Reads of results that span models, for pages and the API."""

from dataclasses import dataclass, field

from django.db.models import Prefetch

from drives.models import Drive
from results.models import ConsistencySeries, Result, Run, SaturationSeries, TrimValidation


@dataclass
class DriveResults:
    """Every published result of a drive, grouped for display."""

    runs: list[Run]
    results: list[Result] = field(default_factory=list)
    consistency: list[ConsistencySeries] = field(default_factory=list)
    trim: list[TrimValidation] = field(default_factory=list)
    saturation: list[SaturationSeries] = field(default_factory=list)


def drive_results(*, drive: Drive) -> DriveResults:
    """Published runs of a drive with their provenance, in a fixed number of queries."""
    runs = list(
        Run.objects.published()
        .filter(drive=drive)
        .select_related("firmware", "bench", "citation", "suite", "submitter")
        .prefetch_related(
            Prefetch(
                "results",
                queryset=Result.objects.select_related("test").order_by(
                    "test__identifier", "pattern"
                ),
            ),
            Prefetch(
                "consistency_series",
                queryset=ConsistencySeries.objects.select_related("test")
                .defer("iops")
                .order_by("spare_area_percent"),
            ),
            Prefetch("trim_validations", queryset=TrimValidation.objects.select_related("test")),
            Prefetch(
                "saturation_series",
                queryset=SaturationSeries.objects.select_related("test").defer(
                    "bytes_per_interval"
                ),
            ),
        )
        .order_by("-started_at", "-ingested_at")
    )
    grouped = DriveResults(runs=runs)
    for run in runs:
        grouped.results.extend(run.results.all())
        grouped.consistency.extend(run.consistency_series.all())
        grouped.trim.extend(run.trim_validations.all())
        grouped.saturation.extend(run.saturation_series.all())
    grouped.results.sort(key=lambda r: (r.test.identifier, r.pattern, -(r.run.pk)))
    return grouped
