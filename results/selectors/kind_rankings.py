"""The ranking of a test of a kind whose figures are not one rate (consistency, TRIM, write
saturation, WSAT): each drive once, by its latest whole series or validation of the test at
one value of the kind's choice (a spare-area level, a data pattern), ordered by the figure
the kind ranks by (results.kinds: each kind's `ranking`), with the drive filters and the
comparability classes the other rankings have (full-length runs with published figures, or
quick runs alone)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from django.conf import settings
from django.db import models
from django.db.models import Count, F, Q, QuerySet, Window
from django.db.models.functions import Coalesce, Rank

from core.query import QueryError, choice_message
from drives.models import Drive
from results.models import DataPattern, Run, Test
from results.spread import Comparability

METHODS = tuple(value for value, _ in Comparability.CHOICES)


@dataclass(frozen=True, slots=True)
class Column:
    """A column of the ranking's table and of its API rows: its heading, its key in the
    API, how its value is read from a row's object, and how the page writes it."""

    heading: str
    key: str
    value: Callable[[Any], Any]
    shown: Callable[[Any], str] = str
    numeric: bool = True  # set right, as numbers are; False: words


@dataclass(frozen=True, slots=True)
class RankedBy:
    """How a kind's test is ranked: its model (rows with a `run` and a `test`); the figure
    it orders by (an expression over the model's fields, higher first), its unit and what
    it is; the field each ranking takes one value of (`choice`, with its label for forms);
    the rows never ranked (`whole`: interrupted ones); a quick (smoke) run's rows; the
    columns the table and the API show (the figure first); and the note a row may carry
    (and whether its bar is drawn striped: a figure with a qualification)."""

    model: type[models.Model]
    figure: models.Expression
    unit: str  # the chart's axis: "IOPS (higher is better)"
    scale: float  # the figure in the chart's unit: 1e-9 for bytes drawn as GB
    what: str  # the page's lead: what is ranked, in words
    choice: str  # a field of the model
    choice_param: str  # the query's name for it
    choice_label: str  # the form's label for it
    choice_text: Callable[[Any], str]  # a value of it, as the form offers it
    # The value of it the query asks for (None: none; core.query.QueryError: not one).
    read_choice: Callable[[Mapping[str, str]], Any]
    quick: Q  # the rows of quick (smoke) runs
    columns: tuple[Column, ...]
    whole: Q = field(default_factory=Q)
    annotations: dict[str, models.Expression] = field(default_factory=dict)  # columns read
    deferred: tuple[str, ...] = ()  # the model's fields no column reads (a series' points)
    note: Callable[[Any], str] = lambda row: ""
    striped: Callable[[Any], bool] = lambda row: False


@dataclass
class KindRow:
    rank: int
    row: Any  # the model's row, with its run, the run's drive and the drive's maker
    highlighted: bool = False

    @property
    def drive(self) -> Drive:
        return self.row.run.drive


@dataclass
class KindRanking:
    test: Test
    by: RankedBy
    choice: Any  # the value of by.choice ranked
    choices: list  # the values of it the test's rows were recorded at
    method: str  # one of METHODS
    rows: list[KindRow]
    page: int
    page_size: int
    has_next: bool
    elsewhere: list[KindRow]  # highlighted drives ranked outside this page
    considered: int  # drives ranked

    @property
    def has_previous(self) -> bool:
        return self.page > 1


def read_pattern(query: Mapping[str, str]) -> str | None:
    """The data pattern a query ranks (`pattern`), None for none; a QueryError for a value
    that is not one."""
    value = query.get("pattern") or None
    if value is not None and value not in DataPattern.values:
        raise QueryError("pattern", choice_message(DataPattern.values))
    return value


def ranked_test(identifier: str, kinds: tuple[str, ...]) -> Test | None:
    """The test of this identifier if it is of one of these kinds, else None."""
    return Test.objects.filter(identifier=identifier, kind__in=kinds).first()


def _latest(
    test: Test, by: RankedBy, choice: Any, method: str, drives: QuerySet[Drive] | None
) -> QuerySet:
    """Each ranked drive's latest whole row of the test at this choice, by the same recency
    as its runs (results.selectors.common.run_recency)."""
    rows = by.model.objects.filter(
        by.whole,
        test=test,
        run__status=Run.Status.PUBLISHED,
        run__drive__needs_review=False,
        **{by.choice: choice},
    )
    if drives is not None:
        rows = rows.filter(run__drive__in=drives)
    if not settings.BENCH_SHOW_SYNTHETIC:
        rows = rows.exclude(run__source=Run.Source.SYNTHETIC)
    rows = rows.filter(by.quick) if method == Comparability.QUICK else rows.exclude(by.quick)
    return rows.order_by(
        "run__drive_id",
        Coalesce("run__started_at", "run__citation__published_on", "run__ingested_at").desc(),
        "-run_id",
        "-pk",
    ).distinct("run__drive_id")


def chosen_drives(filters) -> QuerySet[Drive] | None:
    """The drives a valid DriveFilter keeps, for `drives`: None where it chooses nothing (every
    listed drive, without the filter's statement)."""
    return filters.qs if any(filters.form.cleaned_data.values()) else None


def ranked_count(
    *, test: Test, by: RankedBy, choice: Any, method: str, drives: QuerySet[Drive] | None = None
) -> int:
    """How many drives `kind_ranking` ranks at this choice and method (a page that ranks none
    says how many another class of runs has). One query."""
    return _latest(test, by, choice, method, drives).count()


def kind_ranking(
    *,
    test: Test,
    by: RankedBy,
    choice: Any = None,
    method: str = METHODS[0],
    drives: QuerySet[Drive] | None = None,
    page: int = 1,
    page_size: int = 25,
    highlight: tuple[str, ...] = (),
) -> KindRanking:
    """The drives (of `drives`, every listed one for None) ranked by `by.figure` of their
    latest row of `test` at `choice` (None, or a value not recorded: the first recorded),
    highest first (equal figures share a rank, listed by the row's id); a page of them, and
    the highlighted drives' rows wherever they rank. Four queries, and two for each
    highlighted drive outside the page."""
    choices = sorted(set(by.model.objects.filter(test=test).values_list(by.choice, flat=True)))
    if choice not in choices:
        choice = choices[0] if choices else None
    ranked = (
        by.model.objects.filter(pk__in=_latest(test, by, choice, method, drives).values("pk"))
        .annotate(figure=by.figure, **by.annotations)
        .select_related("run__drive__manufacturer", "run__drive__controller__vendor", "test")
        .defer(*by.deferred)
    )
    # Equal figures share a rank: one more than the drives strictly better (1, 2, 2, 4).
    ordered = ranked.annotate(place=Window(Rank(), order_by=F("figure").desc())).order_by(
        "-figure", "pk"
    )
    start = (page - 1) * page_size
    window = list(ordered[start : start + page_size + 1])
    marked = set(highlight)
    rows = [KindRow(row.place, row, row.run.drive.slug in marked) for row in window[:page_size]]
    shown = {r.drive.slug for r in rows}
    elsewhere = [
        KindRow(ranked.filter(figure__gt=row.figure).count() + 1, row, True)
        for row in ranked.filter(run__drive__slug__in=marked - shown)
    ]
    considered = ranked.aggregate(n=Count("pk"))["n"]
    return KindRanking(
        test=test,
        by=by,
        choice=choice,
        choices=choices,
        method=method,
        rows=rows,
        page=page,
        page_size=page_size,
        has_next=len(window) > page_size,
        elsewhere=sorted(elsewhere, key=lambda r: r.rank),
        considered=considered,
    )
