"""The head to head's test catalog, held by each process: the compare statement sends the tests
only when the catalog's version moved since the process read them (or this transaction has
written the catalog itself), so a comparison always names tests as they are committed."""

import psycopg
import pytest
from django.db import connection, transaction

from results.models import Test
from results.selectors.compare import _held_tests, compare
from tests.results.helpers import published

pytestmark = pytest.mark.django_db(transaction=True)

TEST = "randwrite-4k-qd3-8g"


@pytest.fixture
def pair():
    _held_tests.clear()
    runs = [
        published(
            manufacturer="Held",
            model=model,
            results=[{"test": TEST, "pattern": "unspecified", "iops": iops}],
        )
        for model, iops in (("Held A", 1000), ("Held B", 2000))
    ]
    return runs[0].drive.slug, runs[1].drive.slug


def _names(a: str, b: str) -> list[str]:
    return [p.test.name for p in compare([a, b]).tests]


def _held():
    (held,) = _held_tests.values()
    return held


def test_the_tests_are_read_once_and_held_while_the_catalog_stays(pair):
    first = compare([pair[0], pair[1]])
    held = _held()
    again = compare([pair[0], pair[1]])
    assert _held() is held
    assert again.tests[0].test is first.tests[0].test is held.by_id[first.tests[0].test.pk]


def test_a_committed_change_to_a_test_is_in_the_next_comparison(pair):
    before = _names(*pair)
    held = _held()
    Test.objects.filter(identifier=TEST).update(name="Renamed test")
    assert _names(*pair) == ["Renamed test"] != before
    assert _held() is not held and _held().version > held.version


def test_a_test_added_after_the_tests_were_held_is_named(pair):
    _names(*pair)
    template = Test.objects.get(identifier=TEST)
    template.pk, template.identifier, template.name = None, "randwrite-4k-qd3-new", "New test"
    template.save()
    run = published(
        manufacturer="Held",
        model="Held C",
        results=[{"test": "randwrite-4k-qd3-new", "pattern": "unspecified", "iops": 5}],
    )
    assert "New test" in _names(pair[0], run.drive.slug)


def test_an_uncommitted_change_elsewhere_is_not_seen_until_its_commit(pair):
    before = _names(*pair)
    params = connection.get_connection_params()
    params.pop("cursor_factory", None)
    params.pop("context", None)
    with psycopg.connect(**params) as other:
        other.execute("UPDATE results_test SET name = 'Elsewhere' WHERE identifier = %s", [TEST])
        assert _names(*pair) == before
        other.commit()
    assert _names(*pair) == ["Elsewhere"]


def test_a_transaction_that_changed_a_test_sees_it_and_holds_nothing_of_it(pair):
    before = _names(*pair)
    held = _held()
    with transaction.atomic():
        Test.objects.filter(identifier=TEST).update(name="Mine only")
        assert _names(*pair) == ["Mine only"]
        assert _held() is held
        transaction.set_rollback(True)
    assert _names(*pair) == before
    assert _held() is held
