"""Price against performance (the value page and the API's value view)."""

from __future__ import annotations

import datetime
from dataclasses import dataclass

from django.conf import settings

from core.filters import FilterSet
from results.entries_index import EntriesIndex, ValuePoint, entries_index
from results.models import Test


@dataclass(frozen=True, slots=True)
class ValueChoices:
    """What a value view's form offers: the 4KB throughput tests it can price IOPS in, and
    the controllers; read from the copy (`priced`) that value_frontier then prices on."""

    tests: list[Test]
    controllers: list[tuple[str, str]]
    priced: EntriesIndex


def value_choices() -> ValueChoices:
    """The 4KB throughput tests a value view can price IOPS in, the controllers its filter
    form offers, and the copy they were read from (results.entries_index): one prepared
    statement (the copy's version)."""
    index = entries_index()
    return ValueChoices(index.tests, index.controllers, index)


# -- value -------------------------------------------------------------------------------


@dataclass
class ValueView:
    test: Test
    as_of: datetime.date | None
    considered: int  # drives with a result in the test and a price, after the filters
    points: list[ValuePoint]  # frontier, highlighted, cheapest lists and a sample, by price
    sample_size: int
    frontier: list[ValuePoint]  # in price order
    cheapest_per_gb: list[ValuePoint]  # among drives with a capacity
    cheapest_per_kiops: list[ValuePoint]


VALUE_TABLE_ROWS = 10
VALUE_SAMPLE = 200


def value_frontier(
    *,
    test: Test,
    filters: FilterSet | None = None,
    as_of: datetime.date | None = None,
    highlight: tuple[str, ...] = (),
    sample: int = VALUE_SAMPLE,
    worst_case: bool = True,
    priced: EntriesIndex | None = None,
) -> ValueView:
    """Price against performance in one test among the entries the pages show, narrowed by
    `filters` (a valid ValueFilter): the value frontier (drives no other drive beats on both
    price and IOPS), the cheapest per GB and per 1,000 IOPS, the highlighted drives and a
    sample of `sample` drives for the scatter (those with the lowest hashes of their ids:
    spread as they are, the same in every request), each point with its drive and maker.
    Each drive counts once: its worst case (the default), or its entry in the one data
    pattern the filters name (worst_case=False). Prices are the latest, or as of a date.
    Computed on the process's copy of the priced entries (results.entries_index): one
    prepared statement (the catalog's version), none on the copy a value view's choices
    were read from (`priced`: ValueChoices.priced); one more with a search."""
    priced = (priced or entries_index()).price(
        test_id=test.pk,
        filters=filters,
        as_of=as_of,
        worst=worst_case,
        real=not settings.BENCH_SHOW_SYNTHETIC,
        highlight=highlight[:5],
        sample=sample,
        cheapest=VALUE_TABLE_ROWS,
    )
    return ValueView(
        test=test,
        as_of=as_of,
        considered=priced.considered,
        points=priced.points,
        sample_size=sample,
        frontier=priced.frontier,
        cheapest_per_gb=priced.cheapest_per_gb,
        cheapest_per_kiops=priced.cheapest_per_kiops,
    )
