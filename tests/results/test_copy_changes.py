"""The in-process copies brought up to date from the change log (core.columns.Copy,
core/sql/copy_changes.sql) equal the copies read whole, column by column, after any sequence
of committed writes: drives added, edited and deleted, prices added and removed, entries
changed and removed; and a copy is read whole again only when the log cannot say."""

import datetime

import numpy as np
import orjson
import pytest
from django.db import connection, transaction
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core.columns import _STEPS, Column, Columns
from drives import catalog_index as ci
from drives.models import Drive, Manufacturer, Price
from results import entries_index as vi
from results.models import LeaderboardEntry
from tests.factories import DriveFactory, PriceFactory
from tests.results.helpers import published

pytestmark = pytest.mark.django_db(transaction=True)

TEST = "randwrite-4k-qd3-8g"
COPIES = {"catalog": (ci.catalog_index, ci._COPY), "value": (vi.entries_index, vi._COPY)}
# Few values, so that ranks tie, and NULLs among them.
MODELS = ["Alpha", "Beta", "alpha", "Gamma", "Zeta"]
CAPACITIES = [None, 120 * 10**9, 240 * 10**9, 480 * 10**9]
DAYS = [None, datetime.date(2012, 1, 1), datetime.date(2013, 6, 1), datetime.date(2014, 1, 1)]


def whole(copy) -> dict[str, Columns]:
    """The copy's tables read whole now."""
    with connection.cursor() as cursor:
        cursor.execute(copy.load_sql)
        _version, _written, _seen, *texts = cursor.fetchone()
    return {
        table.name: Columns.loaded("default", table.names, orjson.loads(text) if text else None)
        for table, text in zip(copy.tables, texts, strict=True)
    }


def _decoded(column: Column, order: np.ndarray) -> list:
    """A column's rows in `order` as Python values (None where NULL, text for codes)."""
    null = (np.zeros(len(column.array), bool) if column.null is None else column.null)[order]
    values = column.array[order].tolist()
    if column.codes is not None:
        texts = list(column.codes)
        values = [texts[c] if c >= 0 else None for c in values]
    return [None if n else v for v, n in zip(values, null, strict=True)]


def _order(columns: Columns, names) -> np.ndarray:
    """The positions of the rows, ordered by their values."""
    rows = [orjson.dumps(r) for r in zip(*(columns.values(n) for n in names), strict=True)]
    return np.array(sorted(range(len(rows)), key=rows.__getitem__), dtype=np.intp)


def assert_equal_copies(copy) -> None:
    """The tables the copy holds equal the tables read whole, column by column (the rows in
    one order: a table's rows are in none its readers rely on)."""
    held = copy._sources["default"].tables
    fresh = whole(copy)
    for table in copy.tables:
        mine, theirs = held[table.name], fresh[table.name]
        assert len(mine) == len(theirs), table.name
        # A row is looked up through the changes before its lists are made (Columns.row).
        rows = [mine.row(at) for at in range(len(mine))]
        assert rows == [
            {name: mine.values(name)[at] for name in table.names} for at in range(len(mine))
        ], table.name

        at_mine, at_theirs = _order(mine, table.names), _order(theirs, table.names)
        for name in table.names:
            values = mine.values(name)  # the lists rows are made of (Columns.row)
            assert [values[i] for i in at_mine] == [theirs.values(name)[i] for i in at_theirs], (
                table.name,
                name,
            )
            if name not in mine._columns:
                continue  # made from those values when first read, as the whole copy's
            made, read = mine[name], theirs[name]  # the numpy columns: joined, and made
            # Numbers stay float64 once one was fractional (the readers take them as floats).
            widened = (made.array.dtype, read.array.dtype) == (np.float64, np.int64)
            assert made.array.dtype == read.array.dtype or widened, (table.name, name)
            assert _decoded(made, at_mine) == _decoded(read, at_theirs), (table.name, name)


@pytest.fixture
def copies():
    for _, copy in COPIES.values():
        copy.held.clear()
    published(
        manufacturer="Start",
        model="Alpha",
        capacity_bytes=240 * 10**9,
        results=[{"test": TEST, "pattern": "unspecified", "iops": 5000}],
    )
    for read, _ in COPIES.values():
        read()
    return COPIES


def _drives() -> list[Drive]:
    return list(Drive.objects.order_by("pk"))


def _pick(items: list, n: int):
    return items[n % len(items)] if items else None


def _write(op: str, n: int) -> None:
    drive = _pick(_drives(), n)
    if op == "drive added":
        DriveFactory(
            model=_pick(MODELS, n), capacity_bytes=_pick(CAPACITIES, n), release_date=_pick(DAYS, n)
        )
    elif op == "drive with an entry":
        run = published(
            manufacturer=_pick(["Start", "Other"], n),
            model=f"{_pick(MODELS, n)} {n}",
            capacity_bytes=_pick(CAPACITIES[1:], n),
            results=[{"test": TEST, "pattern": "unspecified", "iops": 1000 + n}],
        )
        PriceFactory(drive=run.drive, amount=f"{20 + n % 50}.00", observed_on="2013-01-01")
    elif op == "drive renamed":
        Drive.objects.filter(pk=drive.pk).update(model=_pick(MODELS, n // 7))
    elif op == "capacity":
        Drive.objects.filter(pk=drive.pk).update(capacity_bytes=_pick(CAPACITIES, n // 3))
    elif op == "released":
        Drive.objects.filter(pk=drive.pk).update(release_date=_pick(DAYS, n // 5))
    elif op == "price":
        PriceFactory(drive=drive, amount=f"{10 + n % 90}.50", observed_on=_pick(DAYS[1:], n))
    elif op == "price removed":
        Price.objects.filter(pk__in=Price.objects.filter(drive=drive).values("pk")[:1]).delete()
    elif op == "entries changed":
        LeaderboardEntry.objects.filter(drive=drive).update(iops=100 + n, price_usd=n % 7 or None)
    elif op == "entry removed":
        LeaderboardEntry.objects.filter(
            pk__in=LeaderboardEntry.objects.filter(drive=drive).values("pk")[:1]
        ).delete()
    elif op == "drive deleted" and not drive.runs.exists():
        drive.delete()
    elif op == "maker renamed":
        Manufacturer.objects.filter(pk=drive.manufacturer_id).update(name=f"Maker {n}")
    elif op == "two at once":
        with transaction.atomic():
            _write("price", n)
            _write("drive renamed", n + 1)


OPS = [
    "drive added",
    "drive with an entry",
    "drive renamed",
    "capacity",
    "released",
    "price",
    "price removed",
    "entries changed",
    "entry removed",
    "drive deleted",
    "maker renamed",
    "two at once",
]


@settings(
    max_examples=12,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    writes=st.lists(
        st.tuples(st.sampled_from(OPS), st.integers(0, 1000), st.integers(0, 2**16)),
        min_size=1,
        max_size=6,
    ),
)
def test_a_copy_kept_up_to_date_equals_the_copy_read_whole(copies, writes):
    # The database is not emptied between examples: each goes on from where the last left,
    # one long sequence of writes, the copies checked after each example's. Before each
    # write, the copies are read and some of their columns made (the bits of the write's
    # third number say which), so that a column is joined or made after any number of
    # changes, and each list is made from the last made of it and the changes since.
    for op, n, made in writes:
        for read, copy in copies.values():
            read()
            for table in copy.tables:
                held = copy._sources["default"].tables[table.name]
                for bit, name in enumerate(table.names):
                    # Not a shape (lists), which none can tell while the table is empty.
                    if (
                        made >> (bit % 16) & 1
                        and len(held)
                        and not any(isinstance(v, list) for v in held.values(name))
                    ):
                        held[name]
        _write(op, n)
    for read, copy in copies.values():
        read()
        assert_equal_copies(copy)


def test_a_copy_changed_more_times_than_its_lists_stand_behind_equals_the_copy_read_whole(
    copies,
):
    # Some changes with nothing read between them, beyond what the lists may stand behind:
    # each list is then made, and the changes after go on from there.
    for n in range(_STEPS + 5):
        _write("drive with an entry" if n % 3 else "entries changed", 2000 + n)
        for read, copy in copies.values():
            read()
            if n % 11 == 0:
                copy._sources["default"].tables[copy.tables[0].name].values("id")
    for read, copy in copies.values():
        read()
        assert copy.reads["changes"] >= _STEPS
        assert_equal_copies(copy)


def test_a_price_is_applied_not_read_whole(copies):
    drive = Drive.objects.get(model="Alpha")
    for read, copy in copies.values():
        before = dict(copy.reads)
        PriceFactory(drive=drive, amount="12.00", observed_on="2014-02-02")
        held = read()
        assert copy.reads["changes"] == before["changes"] + 1, copy.name
        assert copy.reads["whole"] == before["whole"], copy.name
        assert_equal_copies(copy)
        assert read() is held


def test_a_maker_renamed_or_a_log_that_does_not_reach_back_reads_whole(copies):
    drive = Drive.objects.get(model="Alpha")
    before = {name: dict(copy.reads) for name, (_, copy) in copies.items()}
    Manufacturer.objects.filter(pk=drive.manufacturer_id).update(name="Renamed Maker")
    for name, (read, copy) in copies.items():
        read()
        assert copy.reads["whole"] == before[name]["whole"] + 1, name
        assert_equal_copies(copy)
    # The log's oldest rows forgotten past what a copy holds: read whole.
    with connection.cursor() as cursor:
        cursor.execute("UPDATE core_copyhorizon SET horizon = horizon + 1000000")
    try:
        PriceFactory(drive=drive, amount="13.00", observed_on="2014-03-03")
        for name, (read, copy) in copies.items():
            read()
            assert copy.reads["whole"] == before[name]["whole"] + 2, name
            assert_equal_copies(copy)
    finally:
        with connection.cursor() as cursor:
            cursor.execute("UPDATE core_copyhorizon SET horizon = horizon - 1000000")


def test_what_a_commit_changed_is_logged_under_its_version(copies):
    drive = Drive.objects.get(model="Alpha")
    with transaction.atomic():
        PriceFactory(drive=drive, amount="14.00", observed_on="2014-04-04")
        LeaderboardEntry.objects.filter(drive=drive).update(iops=4321)
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT copy, drives, whole, version = (SELECT version FROM core_scopeversion "
            "WHERE scope = 'any') FROM core_copychange ORDER BY version DESC, copy LIMIT 2"
        )
        assert cursor.fetchall() == [
            ("catalog", [drive.pk], False, True),
            ("value", [drive.pk], False, True),
        ]
