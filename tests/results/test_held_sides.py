"""The head to head's sides, held by each process (results.selectors.compare.held_sides): a
side is read again only when its drive's scope or the catalog moved, so a comparison always
shows every drive as it is committed, and one of drives the process holds reads nothing but
the versions."""

import psycopg
import pytest
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext, override_settings

from drives.models import Manufacturer
from results.models import Run
from results.selectors.compare import compare, held_sides
from results.services import run_withdraw
from tests.results.helpers import published

pytestmark = pytest.mark.django_db(transaction=True)

TEST = "randwrite-4k-qd3-8g"


def _run(model: str, iops: int, title: str = "A review") -> Run:
    return published(
        manufacturer="Held",
        model=model,
        title=title,
        results=[{"test": TEST, "pattern": "unspecified", "iops": iops}],
    )


@pytest.fixture
def pair():
    held_sides.clear()
    a, b = _run("Side A", 1000), _run("Side B", 2000)
    return a.drive.slug, b.drive.slug


def _iops(slugs) -> list[float | None]:
    (row,) = compare(slugs).tests[0].rows
    return [f.iops if f else None for f in row.figures]


def test_a_comparison_of_held_sides_reads_only_their_versions(pair):
    first = compare(pair)
    with CaptureQueriesContext(connection) as queries:
        again = compare(pair)
    assert len(queries) == 1 and "core_scopeversion" in queries[0]["sql"]
    assert [s is t for s, t in zip(first.sides, again.sides, strict=True)] == [True, True]
    # The other order holds each drive again, in its other place.
    swapped = compare(pair[::-1])
    assert [s.key for s in swapped.sides] == ["a", "b"]
    assert [s.drive.slug for s in swapped.sides] == list(pair[::-1])


def test_a_run_published_for_one_drive_is_in_the_next_comparison_and_the_other_stays(pair):
    first = compare(pair)
    _run("Side B", 3000, title="A later review")
    assert _iops(pair) == [1000, 3000]
    again = compare(pair)
    assert again.sides[0] is first.sides[0] and again.sides[1] is not first.sides[1]


def test_a_withdrawn_run_leaves_the_next_comparison(pair):
    later = _run("Side B", 3000, title="A later review")
    assert _iops(pair) == [1000, 3000]
    run_withdraw(run=later, reason="wrong drive")
    assert _iops(pair) == [1000, 2000]


def test_a_catalog_edit_is_in_the_next_comparison(pair):
    compare(pair)
    Manufacturer.objects.filter(name="Held").update(name="Held Renamed")
    assert [s.drive.manufacturer.name for s in compare(pair).sides] == ["Held Renamed"] * 2


def test_an_uncommitted_run_elsewhere_is_not_seen_until_its_commit(pair):
    before = _iops(pair)
    run = Run.objects.get(drive__slug=pair[1])
    params = connection.get_connection_params()
    params.pop("cursor_factory", None)
    params.pop("context", None)
    with psycopg.connect(**params) as other:
        other.execute("UPDATE results_result SET iops = 7 WHERE run_id = %s", [run.pk])
        # The leaderboard entry the comparison reads its group from moves with it.
        other.execute("UPDATE results_leaderboardentry SET iops = 7 WHERE run_id = %s", [run.pk])
        assert _iops(pair) == before
        other.commit()
    assert _iops(pair) == [1000, 7]


def test_a_transaction_that_wrote_sees_its_writes_and_holds_nothing_of_them(pair):
    held = compare(pair).sides
    with transaction.atomic():
        _run("Side B", 3000, title="Mine only")
        assert _iops(pair) == [1000, 3000]
        transaction.set_rollback(True)
    assert compare(pair).sides[1] is held[1]
    assert _iops(pair) == [1000, 2000]


def test_the_process_holds_at_most_the_sides_it_is_told(pair):
    c = _run("Side C", 500).drive.slug
    with override_settings(BENCH_COMPARE_SIDES=2):
        compare([*pair, c])
        first = compare(pair)
        assert compare(pair).sides[0] is first.sides[0]
        compare([c, pair[1]])  # A is the least recently used: let go
        assert compare(pair).sides[0] is not first.sides[0]
    with override_settings(BENCH_COMPARE_SIDES=0):
        held_sides.clear()
        assert compare(pair).sides[0] is not compare(pair).sides[0]
        assert _iops(pair) == [1000, 2000]


def test_the_same_drive_on_both_sides_is_held_in_each_place(pair):
    one = compare([pair[0], pair[0]])
    assert [s.key for s in one.sides] == ["a", "b"]
    again = compare([pair[0], pair[0]])
    assert [s is t for s, t in zip(one.sides, again.sides, strict=True)] == [True, True]
