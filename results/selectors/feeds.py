"""The newest published runs as the Atom feeds list them (results/views/feeds.py): every
run, the runs of the drives a catalog filter keeps, of one drive, or holding one test.

A feed lists what the drive pages and the runs API list (runs_listed): published runs of
real drives, never a held, withdrawn or synthetic one. The runs of a drive that awaits
staff review (Drive.needs_review) are listed too, as its page shows them, and each says
its drive is not ranked yet: a feed announces runs, not rankings.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.db.models import Exists, OuterRef, Q, QuerySet

from drives.models import Drive
from results.models import ConsistencySeries, Result, Run, SaturationSeries, Test, TrimValidation
from results.selectors.runs import runs_listed

FEED_ENTRIES = 50  # the newest runs a feed lists

# What a run measured: each of these rows names its run and its test.
_MEASURES = (Result, ConsistencySeries, TrimValidation, SaturationSeries)


@dataclass(frozen=True, slots=True)
class FeedRun:
    """A run as a feed entry shows it: the run with its provenance, and the names of the
    tests it holds, in the catalog's order."""

    run: Run
    tests: list[str]


@dataclass(frozen=True, slots=True)
class RunFeed:
    """A feed's runs, newest first, and what it follows: the drive or the test it is of
    (None: every run, or the runs of the drives a filter keeps)."""

    subject: Drive | Test | None
    entries: list[FeedRun]


def run_feed(
    *,
    drives: QuerySet[Drive] | None = None,
    drive: str = "",
    test: str = "",
    limit: int = FEED_ENTRIES,
) -> RunFeed:
    """The newest `limit` published runs of real drives by ingestion (runs_listed's), with
    the tests each holds: of the drives in `drives` (a DriveFilter's queryset), of the real
    drive whose slug is `drive`, holding the test whose identifier is `test` (a result,
    series or validation of it), or all. Two queries, three with a drive or a test. Raises
    Drive.DoesNotExist or Test.DoesNotExist."""
    subject: Drive | Test | None = None
    runs = runs_listed().defer("document")
    if drives is not None:
        runs = runs.filter(drive__in=drives.order_by().values("pk"))
    if drive:
        subject = Drive.objects.real().select_related("manufacturer").get(slug=drive)
        runs = runs.filter(drive=subject)
    if test:
        subject = Test.objects.get(identifier=test)
        held = Q()
        for model in _MEASURES:
            held |= Exists(model.objects.filter(run=OuterRef("pk"), test=subject))
        runs = runs.filter(held)
    listed = list(runs[:limit])
    entries = [FeedRun(run, tests) for run, tests in zip(listed, _tests_held(listed), strict=True)]
    return RunFeed(subject, entries)


def _tests_held(runs: list[Run]) -> list[list[str]]:
    """The names of the tests each run holds, in the catalog's order (one query)."""
    if not runs:
        return []
    ids = [run.pk for run in runs]
    parts = [
        model.objects.filter(run_id__in=ids).values_list("run_id", "test_id", "test__name")
        for model in _MEASURES
    ]
    held: dict[int, dict[int, str]] = {pk: {} for pk in ids}
    for run_id, test_id, name in parts[0].union(*parts[1:]):
        held[run_id][test_id] = name
    return [[name for _, name in sorted(held[pk].items())] for pk in ids]
