"""The head to head's sides, held by each process (results.selectors.compare.held_sides): a
side is read again only when its drive's scope or the catalog moved, so a comparison always
shows every drive as it is committed, and one of drives the process holds reads nothing but
the versions. A side a process is asked for again is kept for every process in the shared
cache (shared_sides), at the same version and under the code that built it: another process
reads it from there instead of the catalog; a side asked for once is not written."""

import random
from io import StringIO

import psycopg
import pytest
from django.conf import settings
from django.core.cache import cache
from django.core.management import call_command
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext, override_settings

from core.versions import CATALOG, drive_scope, read_versions
from drives.models import Drive, Manufacturer
from results.models import Run
from results.selectors.compare import _unpack, compare, held_sides, shared_sides
from results.services import run_withdraw
from tests.results.helpers import published
from tests.results.test_compare_golden import answers

pytestmark = pytest.mark.django_db(transaction=True)

TEST = "randwrite-4k-qd3-8g"


def _run(model: str, iops: int, title: str = "A review") -> Run:
    return published(
        manufacturer="Held",
        model=model,
        title=title,
        results=[{"test": TEST, "pattern": "unspecified", "iops": iops}],
    )


def another_process() -> None:
    """What this process holds and remembers of sides, forgotten: as another process."""
    held_sides.clear()
    shared_sides.forget()


@pytest.fixture
def pair():
    another_process()
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


# -- kept for every process (shared_sides) ---------------------------------------------------


def _page(client, pair) -> bytes:
    response = client.get(f"/bench/compare/{pair[0]}/{pair[1]}/")
    assert response.status_code == 200
    return response.content


def _catalog_reads(queries) -> list[str]:
    """The statements that read results (the sides' statement), not versions or the cache."""
    return [q["sql"] for q in queries if "results_result" in q["sql"]]


def _kept(client, pair) -> bytes:
    """The pair's page, asked for twice: its sides built, then kept once the second request
    finished."""
    first = _page(client, pair)
    assert _page(client, pair) == first
    return first


def test_a_side_one_process_built_is_read_by_another_from_the_shared_cache(client, pair):
    first = _kept(client, pair)
    another_process()  # it holds nothing
    with CaptureQueriesContext(connection) as queries:
        again = _page(client, pair)
    assert _catalog_reads(queries) == []
    assert again == first


def test_a_side_asked_for_once_is_not_kept(client, pair):
    first = _page(client, pair)
    another_process()
    with CaptureQueriesContext(connection) as queries:
        again = _page(client, pair)  # both read from the catalog: one statement
    assert len(_catalog_reads(queries)) == 1 and again == first
    another_process()
    with CaptureQueriesContext(connection) as queries:
        _page(client, pair)  # the other process asked once too: nothing kept
    assert len(_catalog_reads(queries)) == 1


def test_a_side_let_go_and_asked_for_again_is_kept(client, pair):
    with override_settings(BENCH_COMPARE_SIDES=1):  # A let go for B as B is held
        _page(client, pair)
        _page(client, pair)  # A built again: both kept once this finished
    another_process()
    with CaptureQueriesContext(connection) as queries:
        _page(client, pair)
    assert _catalog_reads(queries) == []


def test_a_kept_side_of_an_earlier_version_is_not_read(client, pair):
    _kept(client, pair)
    _run("Side B", 3000, title="A later review")
    another_process()
    with CaptureQueriesContext(connection) as queries:
        page = _page(client, pair).decode()
    assert len(_catalog_reads(queries)) == 1
    assert "3,000 IOPS" in page and "2,000 IOPS" not in page


def test_a_kept_side_that_cannot_be_read_is_read_from_the_catalog(client, pair):
    first = _kept(client, pair)
    version = read_versions("default", [CATALOG, drive_scope(pair[0])])
    real = not settings.BENCH_SHOW_SYNTHETIC
    held = ("default", "a", pair[0], None, True, real, max(version.values()))
    cache.set(shared_sides.key(held), b"not a side", timeout=60)
    another_process()
    with CaptureQueriesContext(connection) as queries:
        again = _page(client, pair)
    assert again == first
    assert len(_catalog_reads(queries)) == 1  # A, read again; B from the cache


def test_what_other_code_kept_is_not_read(client, pair, monkeypatch):
    _kept(client, pair)
    another_process()
    monkeypatch.setattr("results.selectors.compare.code_version", lambda: "another release")
    with CaptureQueriesContext(connection) as queries:
        _page(client, pair)
    assert len(_catalog_reads(queries)) == 1


def test_a_side_built_outside_a_request_is_not_kept(client, pair):
    compare(pair)  # a command's comparison: no request finishes to keep its sides
    compare(pair)
    another_process()
    with CaptureQueriesContext(connection) as queries:
        _page(client, pair)
    assert len(_catalog_reads(queries)) == 1


def test_nothing_is_kept_for_every_process_when_told_so(client, pair):
    with override_settings(BENCH_SHARED_SIDES_S=0):
        _kept(client, pair)
        another_process()
        with CaptureQueriesContext(connection) as queries:
            _page(client, pair)
    assert len(_catalog_reads(queries)) == 1


# -- held packed (held_sides.pack) -------------------------------------------------------------


def test_a_side_let_go_is_made_again_from_its_packed_copy(client, pair):
    """A side the process let go as objects is made again from the copy it packed when the
    side was kept: no read of the shared cache (cleared here) nor of the catalog."""
    with override_settings(BENCH_COMPARE_SIDES=1):
        first = _kept(client, pair)  # built twice, kept and packed once the second finished
        cache.clear()
        with CaptureQueriesContext(connection) as queries:
            again = _page(client, pair)  # A and B each let go for the other as it is held
    assert again == first
    assert [q["sql"] for q in queries if "core_scopeversion" not in q["sql"]] == []


def test_a_side_read_from_the_shared_cache_is_packed_too(client, pair):
    _kept(client, pair)
    another_process()  # which reads both from the shared cache
    with override_settings(BENCH_COMPARE_SIDES=1):
        first = _page(client, pair)
        cache.clear()
        with CaptureQueriesContext(connection) as queries:
            again = _page(client, pair)
    assert again == first and _catalog_reads(queries) == []


def test_a_packed_side_of_an_earlier_version_is_not_read(client, pair):
    with override_settings(BENCH_COMPARE_SIDES=1):
        _kept(client, pair)
        _run("Side B", 3000, title="A later review")
        with CaptureQueriesContext(connection) as queries:
            page = _page(client, pair).decode()
    assert len(_catalog_reads(queries)) == 1  # B, at its new version
    assert "3,000 IOPS" in page and "2,000 IOPS" not in page


def test_nothing_is_packed_when_told_so(client, pair):
    with override_settings(BENCH_COMPARE_SIDES=1, BENCH_COMPARE_PACKED_MB=0):
        _kept(client, pair)
        cache.clear()
        with CaptureQueriesContext(connection) as queries:
            _page(client, pair)
    assert len(_catalog_reads(queries)) == 1


@override_settings(BENCH_COMPARE_PACKED_MB=1)
def test_the_packed_copies_keep_to_their_size_the_least_recently_used_let_go_first(monkeypatch):
    monkeypatch.setattr("results.selectors.compare._unpack", lambda packed: object())
    tier = type(held_sides)()
    third = 2**20 // 3
    for key in "abc":
        tier.pack((key,), bytes(third))
    assert tier.get(("a",)) is not None  # used: "b" is now the least recently used
    tier.pack(("d",), bytes(third))
    assert list(tier._packed) == [("c",), ("a",), ("d",)]
    tier.pack(("e",), bytes(2**20 + 1))  # larger than them all: not packed, nothing let go
    assert list(tier._packed) == [("c",), ("a",), ("d",)]
    tier.pack(("c",), bytes(10))  # packed again: its new size counted, not both
    tier.pack(("f",), bytes(third))
    assert list(tier._packed) == [("d",), ("c",), ("f",)]  # counted twice, "d" would go too


def test_a_packed_copy_that_cannot_be_read_is_let_go():
    tier = type(held_sides)()
    tier.pack(("a",), b"not a side")
    assert tier.get(("a",)) is None
    assert list(tier._packed) == []


def test_held_and_kept_sides_answer_what_sides_read_afresh_do(client, monkeypatch):
    """Every view of a comparison (page, exports, API with and without points) answers the
    same bytes from sides read afresh, from sides held since other comparisons wrote what
    they show of them, from their packed copies, and from sides another process kept: on
    the demo's drives, for addresses of two to four drives in a seeded order, each drive met
    in several."""
    another_process()
    call_command("load_demo", stdout=StringIO())
    slugs = sorted(
        Drive.objects.filter(runs__isnull=False).distinct().values_list("slug", flat=True)
    )
    rng = random.Random(45)
    addresses = [tuple(rng.sample(slugs, n)) for n in (2, 3, 4) * 6]

    def every_answer() -> dict:
        return {(a, name): body for a in addresses for name, body in answers(client, a)}

    with override_settings(BENCH_COMPARE_SIDES=0, BENCH_SHARED_SIDES_S=0):
        afresh = every_answer()
    held = every_answer()  # each side held from the first address that shows it
    assert every_answer() == held  # each asked for again: kept, and packed
    unpacked = []
    monkeypatch.setattr(
        "results.selectors.compare._unpack", lambda b, made=_unpack: unpacked.append(b) or made(b)
    )
    held_sides._sides.clear()  # every side let go as objects, its packed copy kept
    with override_settings(BENCH_COMPARE_SIDES=1):
        packed = every_answer()  # each side made again from its packed copy every time
    assert len(unpacked) > len(addresses) * 5  # a side or more of each address, each view
    kept = {}
    for address in addresses:
        another_process()  # only the shared cache has them
        kept.update({(address, name): body for name, body in answers(client, address)})
    assert [k for k in afresh if held[k] != afresh[k]] == []
    assert [k for k in afresh if packed[k] != afresh[k]] == []
    assert [k for k in afresh if kept[k] != afresh[k]] == []
