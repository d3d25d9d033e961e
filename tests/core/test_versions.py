"""Versions by scope (core.versions, core/sql/scope_versions.sql, the scope triggers
drives.versioned and results.versioned declare) on a real PostgreSQL: a transaction moves,
as it commits and once, exactly the scopes its changed rows touch, as RULES below restates
the declarations; writers never deadlock on the versions."""

from __future__ import annotations

import datetime
import importlib
import itertools
import random
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import psycopg
import pytest
from django.db import connection, transaction
from django.utils import timezone
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core.versions import ANY, CATALOG, DRIVES, RANKINGS, VALUE, drive_scope, ranking_scope
from drives.models import Controller, Drive, FirmwareVersion, Manufacturer, NandType, Price
from results.models import (
    Citation,
    ConsistencySeries,
    LeaderboardEntry,
    Result,
    Run,
    Suite,
    Test,
    TestBench,
)
from results.services import run_withdraw
from tests.factories import ControllerFactory, DriveFactory, NandTypeFactory, PriceFactory
from tests.results.helpers import measured, published

pytestmark = pytest.mark.django_db(transaction=True)

State = dict[str, dict[int, dict]]  # table -> id -> row


@dataclass(frozen=True)
class Rule:
    """What a changed row of a table touches, besides ANY: `always`, `inserted` for a new
    row, `changed` for an updated or deleted one, and `of_row(row, state)`."""

    always: frozenset[str] = frozenset()
    inserted: frozenset[str] = frozenset()
    changed: frozenset[str] = frozenset()
    of_row: Callable[[dict, State], set[str]] = field(default=lambda row, state: set())


def _drive_of(row: dict, state: State) -> set[str]:
    return {drive_scope(state["drives_drive"][row["drive_id"]]["slug"])}


def _drive_of_run(row: dict, state: State) -> set[str]:
    return _drive_of(state["results_run"][row["run_id"]], state)


def _entry(row: dict, state: State) -> set[str]:
    test = state["results_test"][row["test_id"]]
    four_k = test["kind"] == "throughput" and test["block_size"] == 4096
    priced = {VALUE} if four_k and row["price_usd"] is not None else set()
    return _drive_of(row, state) | {ranking_scope(test["identifier"])} | priced


_CATALOG_AND_LISTS = Rule(always=frozenset({CATALOG, DRIVES}))
_CATALOG = Rule(always=frozenset({CATALOG}))
_EDITED_ONLY = Rule(changed=frozenset({CATALOG}))  # shown only through the runs naming it
_OF_RUN = Rule(of_row=_drive_of_run)

# The scopes of each versioned table, written from what the pages show (core.versions'
# docstring), independently of the triggers' SQL.
RULES = {
    "drives_manufacturer": _CATALOG_AND_LISTS,
    "drives_controller": _CATALOG_AND_LISTS,
    "drives_nandtype": _CATALOG_AND_LISTS,
    "drives_drive": Rule(
        always=frozenset({DRIVES}),
        changed=frozenset({CATALOG}),
        of_row=lambda row, state: {drive_scope(row["slug"])},
    ),
    "drives_firmwareversion": Rule(of_row=_drive_of),
    "drives_price": Rule(always=frozenset({DRIVES, VALUE}), of_row=_drive_of),
    "results_suite": _CATALOG,
    "results_suitetest": _CATALOG,
    "results_test": _CATALOG,
    "results_testbench": _EDITED_ONLY,
    "results_citation": _EDITED_ONLY,
    "results_run": Rule(of_row=_drive_of),
    "results_result": _OF_RUN,
    "results_consistencyseries": _OF_RUN,
    "results_trimvalidation": _OF_RUN,
    "results_saturationseries": _OF_RUN,
    "results_leaderboardentry": Rule(always=frozenset({RANKINGS}), of_row=_entry),
}


DECLARED_IN = ("drives.versioned", "results.versioned")


def test_the_rules_cover_the_declared_tables():
    declared = set()
    for migration in DECLARED_IN:
        declared |= set(importlib.import_module(migration).VERSIONED)
    assert declared == set(RULES)


def snapshot() -> State:
    state = {}
    with connection.cursor() as cursor:
        for table in RULES:
            cursor.execute(f"SELECT * FROM {table}")
            names = [c.name for c in cursor.description]
            state[table] = {row[0]: dict(zip(names, row, strict=True)) for row in cursor.fetchall()}
    return state


def touched(before: State, after: State) -> set[str]:
    """The scopes the rows changed between two states touch, by RULES."""
    scopes = set()
    for table, rule in RULES.items():
        old, new = before[table], after[table]
        for pk in old.keys() | new.keys():
            if old.get(pk) == new.get(pk):
                continue
            scopes |= {ANY, *rule.always}
            scopes |= rule.inserted if pk not in old else rule.changed
            if pk in old:
                scopes |= rule.of_row(old[pk], before)
            if pk in new:
                scopes |= rule.of_row(new[pk], after)
    return scopes


def versions() -> dict[str, int]:
    with connection.cursor() as cursor:
        cursor.execute("SELECT scope, version FROM core_scopeversion")
        return dict(cursor.fetchall())


# -- writes a transaction can make ------------------------------------------------------------


def _some(model, rng: random.Random, **filters):
    rows = list(model.objects.filter(**filters).order_by("pk"))
    return rng.choice(rows) if rows else None


def _edit(model, name: str, value_of: Callable, **filters):
    def write(rng: random.Random) -> None:
        if (row := _some(model, rng, **filters)) is not None:
            setattr(row, name, value_of(rng, row))
            row.save()

    return write


def _delete(model, **filters):
    def write(rng: random.Random) -> None:
        if (row := _some(model, rng, **filters)) is not None:
            row.delete()

    return write


def _add_price(rng: random.Random) -> None:
    PriceFactory(
        drive=_some(Drive, rng),
        amount=f"{rng.randint(20, 400)}.00",
        observed_on=datetime.date(2013, rng.randint(1, 12), 1),
    )


_serial = itertools.count()


def _add_firmware(rng: random.Random) -> None:
    FirmwareVersion.objects.create(drive=_some(Drive, rng), version=f"fw {next(_serial)}")


def _withdraw_by_hand(rng: random.Random) -> None:
    if (run := _some(Run, rng, status="published")) is not None:
        run.status, run.withdrawn_at = "withdrawn", timezone.now()
        run.save(update_fields=["status", "withdrawn_at"])


def _withdraw(rng: random.Random) -> None:
    if (run := _some(Run, rng, status="published")) is not None:
        run_withdraw(run=run, reason="a test of versions")


def _renamed(rng: random.Random, row) -> str:
    return f"renamed {rng.randint(0, 10**6)}"


def _figure(rng: random.Random, row) -> float:
    return rng.choice([row.iops, 1234.5, 99.0]) if hasattr(row, "iops") else 1.0


def _price(rng: random.Random, row) -> float | None:
    return rng.choice([None, row.price_usd, 12.5, 99.0])


WRITES: dict[str, Callable[[random.Random], None]] = {
    "a price added": _add_price,
    "a price changed": _edit(Price, "amount", lambda rng, p: f"{rng.randint(20, 400)}.00"),
    "a price saved unchanged": _edit(Price, "amount", lambda rng, p: p.amount),
    "a price deleted": _delete(Price),
    "a drive renamed": _edit(Drive, "model", _renamed),
    "a drive's slug changed": _edit(Drive, "slug", lambda rng, d: f"slug-{rng.randint(0, 10**6)}"),
    "a drive added": lambda rng: DriveFactory(manufacturer=_some(Manufacturer, rng)),
    # Its entries' copies of its specs follow (results.copies): they move as entries do.
    "a drive's capacity changed": _edit(
        Drive, "capacity_bytes", lambda rng, d: rng.choice([None, d.capacity_bytes, 2 * 10**12])
    ),
    "a drive's controller changed": _edit(
        Drive, "controller", lambda rng, d: rng.choice([None, _some(Controller, rng)])
    ),
    "a maker renamed": _edit(Manufacturer, "name", _renamed),
    "a controller renamed": _edit(Controller, "model", _renamed),
    "a NAND type's cell type changed": _edit(NandType, "cell_type", lambda rng, n: "tlc"),
    "a test renamed": _edit(Test, "name", _renamed),
    "a suite retitled": _edit(Suite, "title", _renamed),
    "a bench edited": _edit(TestBench, "name", _renamed),
    "a citation edited": _edit(Citation, "title", _renamed),
    "a bench added": lambda rng: TestBench.objects.create(name=f"bench {next(_serial)}"),
    "firmware added": _add_firmware,
    "a run withdrawn by hand": _withdraw_by_hand,
    "a run withdrawn": _withdraw,
    "a result's figure changed": _edit(Result, "iops", _figure),
    "a series edited": _edit(ConsistencySeries, "steady_mean_iops", lambda rng, s: rng.random()),
    "an entry's price changed": _edit(LeaderboardEntry, "price_usd", _price),
    "an entry deleted": _delete(LeaderboardEntry),
}


@pytest.fixture
def catalog(test_catalog):
    """Drives with published figures in 4KB and sequential tests, prices, a controller, a
    NAND type and a measured run with consistency series."""
    for n, tests in enumerate((["randread-4k-qd3", "seqread-128k-qd1"], ["seqwrite-128k-qd1"])):
        published(
            manufacturer=f"Vendor {n}",
            model=f"Drive {n}",
            results=[{"test": t, "pattern": "unspecified", "iops": 1000.0 + n} for t in tests],
        )
    measured(manufacturer="Vendor 0", model="Measured drive")
    for drive in Drive.objects.all()[:2]:
        PriceFactory(drive=drive, amount="75.00")
    Drive.objects.filter(model="Drive 0").update(
        controller=ControllerFactory(), nand=NandTypeFactory()
    )


@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    writes=st.lists(st.sampled_from(sorted(WRITES)), min_size=1, max_size=4),
    seed=st.integers(0, 2**32),
)
def test_a_transaction_moves_once_what_its_changed_rows_touch(catalog, writes, seed):
    rng = random.Random(seed)
    before_all = versions()
    expected = set()
    with transaction.atomic():
        for write in writes:
            before = snapshot()
            WRITES[write](rng)
            expected |= touched(before, snapshot())
        assert versions() == before_all  # not before the commit
    after_all = versions()
    moved = {s for s, v in after_all.items() if before_all.get(s) != v}
    assert moved == expected, writes
    # One version for the commit, newer than every version before it.
    assert len({after_all[s] for s in moved}) <= 1
    assert all(after_all[s] > max(before_all.values()) for s in moved)


def test_a_rolled_back_transaction_moves_nothing(catalog):
    before = versions()
    with pytest.raises(RuntimeError), transaction.atomic():
        _add_price(random.Random(1))
        raise RuntimeError("rolled back")
    assert versions() == before


def test_a_transaction_that_has_written_says_so_until_it_ends(catalog):
    def written() -> bool:
        with connection.cursor() as cursor:
            cursor.execute("SELECT current_setting('bench.written', true) = 'on'")
            return bool(cursor.fetchone()[0])

    with transaction.atomic():
        list(Price.objects.all())
        assert not written()
        _add_price(random.Random(2))
        assert written()
    assert not written()


def test_truncate_moves_any_and_the_catalog_at_once(catalog):
    before = versions()
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("TRUNCATE drives_price")
        now = versions()
        assert {s for s in now if now[s] != before.get(s)} == {ANY, CATALOG}


# -- two writers --------------------------------------------------------------------------


def _url() -> str:
    db = connection.settings_dict
    return f"postgresql://{db['USER']}@/{db['NAME']}?host={db['HOST']}"


def _add_firmware_sql(conn: psycopg.Connection, drive_id: int) -> None:
    conn.execute(
        "INSERT INTO drives_firmwareversion (drive_id, version, notes) VALUES (%s, %s, '')",
        [drive_id, f"fw {next(_serial)}"],
    )


def test_two_writers_touching_the_same_scopes_in_opposite_orders_never_deadlock(catalog):
    """The first writer holds its versions (moved early, as at commit) while the second,
    which touched the same scopes in the other order, commits: the second waits, then
    goes on, and the versions are in commit order."""
    a, b = Drive.objects.order_by("pk").values_list("pk", flat=True)[:2]
    first = psycopg.connect(_url())
    second = psycopg.connect(_url())
    failures = []

    def commit_second() -> None:
        try:
            second.commit()
        except psycopg.Error as error:  # a deadlock is reported to one of the two
            failures.append(error)

    try:
        for _ in range(5):
            _add_firmware_sql(first, a)
            _add_firmware_sql(first, b)
            first.execute("SET CONSTRAINTS ALL IMMEDIATE")  # its deferred triggers fire now
            _add_firmware_sql(second, b)
            _add_firmware_sql(second, a)

            waiting = threading.Thread(target=commit_second)
            waiting.start()
            assert _waits_for_a_lock(second)
            _add_firmware_sql(first, a)  # the first goes on writing while the second waits
            first.commit()
            waiting.join(30)
            assert not waiting.is_alive() and failures == []
            now = versions()
            slugs = dict(Drive.objects.filter(pk__in=[a, b]).values_list("pk", "slug"))
            # The second committed last: its version is the newest of both drives.
            assert now[drive_scope(slugs[a])] == now[drive_scope(slugs[b])] == max(now.values())
    finally:
        first.close()
        second.close()


def _waits_for_a_lock(conn: psycopg.Connection) -> bool:
    pid = conn.info.backend_pid
    with psycopg.connect(_url(), autocommit=True) as observer:
        for _ in range(200):
            row = observer.execute(
                "SELECT wait_event_type FROM pg_stat_activity WHERE pid = %s", [pid]
            ).fetchone()
            if row and row[0] == "Lock":
                return True
            time.sleep(0.05)
    return False


def test_concurrent_writers_all_commit(catalog):
    """Writers committing at the same moment, each having touched the drives' scopes in its
    own order, all commit."""
    drives = list(Drive.objects.order_by("pk").values_list("pk", flat=True)[:3])
    failures = []
    together = threading.Barrier(4)

    def writer(order: list[int]) -> None:
        with psycopg.connect(_url()) as conn:
            for _ in range(10):
                for drive in order:
                    _add_firmware_sql(conn, drive)
                together.wait(timeout=30)
                try:
                    conn.commit()
                except psycopg.Error as error:
                    failures.append(error)
                    conn.rollback()

    orders = [drives, drives[::-1], drives[1:] + drives[:1], drives[2:] + drives[:2]]
    threads = [threading.Thread(target=writer, args=(order,)) for order in orders]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert failures == []
