"""The copy of the entries rankings rank and value views price (results.entries_index) is
current: a server process keeps its copy while the version of what it holds stays, and
brings it up to date when a transaction that wrote entries (of any test), prices, drives,
makers, controllers or tests commits (and only then); a transaction that has written them
reads a copy of what it sees."""

import datetime

import psycopg
import pytest
from django.db import connection, transaction

from core.versions import CATALOG, DRIVES, RANKINGS, VALUE, versions_sql
from drives.models import Controller, Drive, Manufacturer, Price
from results import entries_index as vi
from results.models import LeaderboardEntry, Test
from results.selectors.rankings import leaderboard
from results.selectors.value import value_frontier
from tests.factories import PriceFactory
from tests.results.helpers import published

pytestmark = pytest.mark.django_db(transaction=True)

TEST = "randwrite-4k-qd3-8g"
SEQUENTIAL = "seqread-128k-qd1"  # a test no value view prices


def _version() -> int:
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT {versions_sql(CATALOG, RANKINGS, VALUE, DRIVES)}")
        return cursor.fetchone()[0]


def _drive(model: str, iops: float, price: str) -> Drive:
    run = published(
        manufacturer="Value",
        model=model,
        capacity_bytes=240 * 10**9,
        results=[
            {"test": TEST, "pattern": "unspecified", "iops": iops},
            {"test": SEQUENTIAL, "pattern": "unspecified", "bytes_per_second": iops * 1e5},
        ],
    )
    PriceFactory(drive=run.drive, amount=price, observed_on="2013-01-01")
    return run.drive


@pytest.fixture
def priced():
    vi._held.clear()
    return [_drive("Cheap", 1000, "50.00"), _drive("Fast", 9000, "90.00")]


def _prices() -> dict[str, float]:
    view = value_frontier(test=Test.objects.get(identifier=TEST))
    return {p.drive.model: p.price for p in view.points}


def test_a_copy_is_kept_while_nothing_changes_and_checked_with_one_statement(
    priced, django_assert_num_queries
):
    first = vi.entries_index()
    with django_assert_num_queries(1):
        assert vi.entries_index() is first
    # Reads of every kind move nothing.
    list(LeaderboardEntry.objects.all())
    _prices()
    assert vi.entries_index() is first


WRITES = {
    "a price": lambda d: PriceFactory(drive=d, amount="10.00", observed_on="2014-01-01"),
    "a price deleted": lambda d: Price.objects.filter(drive=d).delete(),
    "a drive renamed": lambda d: Drive.objects.filter(pk=d.pk).update(model="Renamed"),
    "a maker renamed": lambda d: Manufacturer.objects.filter(pk=d.manufacturer_id).update(
        name="Other"
    ),
    "a controller added": lambda d: Controller.objects.create(
        vendor=d.manufacturer, model="C1", slug="value-c1"
    ),
    "an entry changed": lambda d: LeaderboardEntry.objects.filter(drive=d).update(iops=1),
    "an unpriced test's entry changed": lambda d: LeaderboardEntry.objects.filter(
        drive=d, test__identifier=SEQUENTIAL
    ).update(bytes_per_second=1),
    "a test renamed": lambda d: Test.objects.filter(identifier=TEST).update(name="T"),
}


@pytest.mark.parametrize("write", list(WRITES), ids=list(WRITES))
def test_a_committed_write_to_what_value_views_read_moves_the_version_once(priced, write):
    before = _version()
    held = vi.entries_index()
    with transaction.atomic():
        WRITES[write](priced[0])
        PriceFactory(drive=priced[1], amount="11.00", observed_on="2014-01-01")
        assert _version() == before  # not until the commit
    after = _version()
    assert after == before + 1  # once for the transaction
    fresh = vi.entries_index()
    assert fresh is not held and fresh.version == after
    assert vi.entries_index() is fresh


def test_the_copy_follows_a_new_price_and_a_renamed_drive(priced):
    assert _prices() == {"Cheap": 50.0, "Fast": 90.0}
    PriceFactory(drive=priced[1], amount="40.00", observed_on="2014-01-01")
    Drive.objects.filter(pk=priced[0].pk).update(model="Thrifty")
    assert _prices() == {"Thrifty": 50.0, "Fast": 40.0}


def _ranked(test: str) -> list[tuple[str, float]]:
    board = leaderboard(test=Test.objects.get(identifier=test))
    return [(r.entry.drive.model, r.rank) for r in board.rows]


def test_a_ranking_follows_its_entries_in_a_test_no_value_view_prices(priced):
    assert _ranked(SEQUENTIAL) == [("Fast", 1), ("Cheap", 2)]
    before = dict(vi._COPY.reads)
    LeaderboardEntry.objects.filter(drive=priced[0], test__identifier=SEQUENTIAL).update(
        bytes_per_second=2e9
    )
    assert _ranked(SEQUENTIAL) == [("Cheap", 1), ("Fast", 2)]
    # Applied, not read whole.
    assert vi._COPY.reads == {"whole": before["whole"], "changes": before["changes"] + 1}
    LeaderboardEntry.objects.filter(drive=priced[0], test__identifier=SEQUENTIAL).update(
        bytes_per_second=9e8
    )
    assert _ranked(SEQUENTIAL) == [("Cheap", 1), ("Fast", 1)]  # a tie shares its rank
    Drive.objects.filter(pk=priced[1].pk).update(needs_review=True)
    assert _ranked(SEQUENTIAL) == [("Cheap", 1)]  # awaiting review: on no page


def test_an_uncommitted_write_elsewhere_is_not_seen_and_its_commit_is(priced):
    held = vi.entries_index()
    params = connection.get_connection_params()
    params.pop("cursor_factory", None)
    params.pop("context", None)
    with psycopg.connect(**params) as other:
        other.execute("UPDATE drives_price SET amount = 20 WHERE drive_id = %s", [priced[1].pk])
        assert vi.entries_index() is held  # the other transaction is still open
        assert _prices()["Fast"] == 90.0
        other.commit()
    assert vi.entries_index() is not held
    assert _prices()["Fast"] == 20.0


def test_a_transaction_that_wrote_reads_its_own_copy_and_keeps_none(priced):
    held = vi.entries_index()
    with transaction.atomic():
        PriceFactory(drive=priced[0], amount="5.00", observed_on="2014-01-01")
        mine = vi.entries_index()
        assert mine is not held and vi.entries_index() is not mine
        assert _prices()["Cheap"] == 5.0
        transaction.set_rollback(True)
    assert vi.entries_index() is held
    assert _prices()["Cheap"] == 50.0


def test_truncating_moves_the_version_at_once(priced):
    before = _version()
    with transaction.atomic():
        with connection.cursor() as cursor:
            cursor.execute("TRUNCATE drives_price")
        assert _version() > before
    # Prices as of a date are read from the prices themselves (the latest travel with the
    # entries, kept by row triggers, which TRUNCATE does not fire).
    view = value_frontier(test=Test.objects.get(identifier=TEST), as_of=datetime.date(2014, 1, 1))
    assert view.points == []


def test_prices_as_of_a_date_come_from_the_copy(priced):
    PriceFactory(drive=priced[1], amount="70.00", observed_on="2015-01-01")
    test = Test.objects.get(identifier=TEST)
    for day, expected in (
        (datetime.date(2012, 12, 31), {}),
        (datetime.date(2013, 1, 1), {"Cheap": 50.0, "Fast": 90.0}),
        (datetime.date(2015, 1, 1), {"Cheap": 50.0, "Fast": 70.0}),
    ):
        view = value_frontier(test=test, as_of=day)
        assert {p.drive.model: p.price for p in view.points} == expected, day
        assert all(p.observed_on <= day for p in view.points)
