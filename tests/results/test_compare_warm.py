"""What a server's worker reads before its first request (benchsite.warmup.warm_reads,
results.selectors.compare.warm): comparisons with points and without, so that each of the
head to head's statements is prepared on the worker's own connection, on the plan
PostgreSQL settles on, and the test catalog is held: its first comparisons pay for none."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from results.selectors import compare as selector
from tests.results.helpers import published

pytestmark = pytest.mark.django_db(transaction=True)

TEST = "randwrite-4k-qd3-8g"


def _drive(model: str, synthetic: bool = False) -> str:
    run = published(
        manufacturer="Warm",
        model=model,
        results=[{"test": TEST, "pattern": "unspecified", "iops": 1000}],
    )
    run.drive.synthetic = synthetic
    run.drive.save(update_fields=["synthetic"])
    return run.drive.slug


def _compare_statements() -> list[int]:
    """The head to head's statements prepared on this connection: how many times each was
    run on the plan PostgreSQL settled on (its generic plan)."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT statement, generic_plans FROM pg_prepared_statements")
        return [n for s, n in cursor.fetchall() if "WITH side AS" in s]


@pytest.fixture
def cold():
    """A process that has read no comparison: nothing held, nothing prepared."""
    selector.held_sides.clear()
    selector._held_tests.clear()
    connection.close()


def test_a_warmed_worker_has_each_statement_prepared_and_the_tests_held(cold, settings):
    settings.BENCH_DB_PREPARE = True
    a, b = _drive("One"), _drive("Two")
    assert _compare_statements() == []

    assert selector.warm()

    # With points (the page) and without (the API), each run on its settled plan already.
    assert len(_compare_statements()) == 2 and min(_compare_statements()) >= 1
    tests = selector._held_tests["default"]
    # The first comparison after it reads its sides on a statement prepared already, and
    # not the test catalog again (held: a catalog read would hold a new one).
    selector.held_sides.clear()
    with CaptureQueriesContext(connection) as queries:
        selector.compare([b, a])
    assert len([q for q in queries if "WITH side AS" in q["sql"]]) == 1
    assert len(_compare_statements()) == 2
    assert selector._held_tests["default"] is tests


def test_a_catalog_without_two_drives_to_compare_warms_nothing(cold, settings):
    settings.BENCH_SHOW_SYNTHETIC = False
    _drive("Real")
    _drive("Made up", synthetic=True)
    _drive("Made up too", synthetic=True)  # two, but not shown: not compared either

    assert not selector.warm()

    assert _compare_statements() == [] and selector._held_tests == {}
