"""Price against performance (the value page and the API's value view)."""

from __future__ import annotations

import datetime
from dataclasses import dataclass

from django.conf import settings

from core.db import prepared_rows
from core.filters import FilterSet
from drives.selectors import (
    CONTROLLER_CHOICES_JSON,
    controller_choices,
)
from results.models import (
    Test,
)
from results.selectors.common import (
    TEST_SHAPE,
)
from results.value_index import ValuePoint, value_index

_VALUE_TESTS_JSON = f"""(
  SELECT json_agg({TEST_SHAPE.array} ORDER BY t.identifier) FROM results_test t
  WHERE t.kind = 'throughput' AND t.block_size = 4096)"""


def value_tests() -> list[Test]:
    """The 4KB throughput tests a value view can price IOPS in. One prepared statement."""
    alias, rows = prepared_rows(Test, f"SELECT {_VALUE_TESTS_JSON}")
    return [TEST_SHAPE.build(v, alias) for v in rows[0][0] or []]


def value_choices() -> tuple[list[Test], list[tuple[str, str]]]:
    """value_tests(), and the controllers a value view's filter form offers. One prepared
    statement."""
    alias, rows = prepared_rows(Test, f"SELECT {_VALUE_TESTS_JSON}, {CONTROLLER_CHOICES_JSON}")
    tests, controllers = rows[0]
    return [TEST_SHAPE.build(v, alias) for v in tests or []], controller_choices(controllers)


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
) -> ValueView:
    """Price against performance in one test among the entries the pages show, narrowed by
    `filters` (a valid ValueFilter): the value frontier (drives no other drive beats on both
    price and IOPS), the cheapest per GB and per 1,000 IOPS, the highlighted drives and a
    sample of `sample` drives for the scatter (those with the lowest hashes of their ids:
    spread as they are, the same in every request), each point with its drive and maker.
    Each drive counts once: its worst case (the default), or its entry in the one data
    pattern the filters name (worst_case=False). Prices are the latest, or as of a date.
    Computed on the process's copy of the priced entries (results.value_index): one
    prepared statement (the catalog's version), two with a search."""
    priced = value_index().price(
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
