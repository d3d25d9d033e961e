"""The PostgreSQL cache behaves as Django's database cache does (set, add, touch, expiry,
culling beyond MAX_ENTRIES), every write one statement, no count of the table."""

import time

import pytest
from django.core.cache.backends.db import DatabaseCache
from django.db import connection
from hypothesis import given, settings
from hypothesis import strategies as st

from benchsite import pgcache
from benchsite.pgcache import PostgresCache

pytestmark = pytest.mark.django_db

TABLE = "bench_cache"
OPERATIONS = st.lists(
    st.tuples(
        st.sampled_from(["set", "add", "touch", "get", "delete", "incr"]),
        st.sampled_from(["a", "b", "c"]),
        st.one_of(st.integers(-5, 5), st.text(max_size=5), st.none()),
        st.sampled_from([None, 300, 0]),
    ),
    max_size=20,
)


def _row(sql: str, params: list) -> tuple:
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.fetchone()


def _caches():
    params = {"OPTIONS": {"MAX_ENTRIES": 1000}}
    return PostgresCache(TABLE, params), DatabaseCache(TABLE, params)


def _apply(cache, op, key, value, timeout, prefix):
    key = f"{prefix}:{key}"
    if op == "set":
        return cache.set(key, value, timeout)
    if op == "add":
        return cache.add(key, value, timeout)
    if op == "touch":
        return cache.touch(key, timeout)
    if op == "delete":
        return cache.delete(key)
    if op == "incr":
        try:
            return cache.incr(key)
        except (ValueError, TypeError) as error:
            return type(error)
    return cache.get(key, "missing")


@settings(max_examples=40, deadline=None, derandomize=True, database=None)
@given(OPERATIONS)
def test_every_operation_answers_as_djangos_database_cache(operations):
    ours, django = _caches()
    prefix = f"ops{time.monotonic_ns()}"
    for op, key, value, timeout in operations:
        assert _apply(ours, op, key, value, timeout, f"{prefix}o") == _apply(
            django, op, key, value, timeout, f"{prefix}d"
        ), (op, key, value, timeout)


def test_a_write_is_one_statement(django_assert_num_queries, monkeypatch):
    ours, _ = _caches()
    monkeypatch.setattr(pgcache, "CULL_EVERY", 10**9)  # no cull in this write
    with django_assert_num_queries(1):
        ours.set("one", "value", 300)
    with django_assert_num_queries(1):
        assert ours.add("one", "other", 300) is False
    assert ours.get("one") == "value"


def test_culling_keeps_at_most_max_entries_and_drops_the_expired_first(monkeypatch):
    cache = PostgresCache(TABLE, {"OPTIONS": {"MAX_ENTRIES": 10, "CULL_FREQUENCY": 5}})
    cache.clear()
    cache.set("expired", 1, 1)
    with connection.cursor() as cursor:  # it expired a minute ago
        cursor.execute(f"UPDATE {TABLE} SET expires = now() - interval '1 minute'")
    monkeypatch.setattr(pgcache, "CULL_EVERY", 10**9)
    for i in range(15):
        cache.set(f"k{i:02}", i, 100 + i)  # k00 expires first
    monkeypatch.setattr(pgcache, "CULL_EVERY", 1)  # this write culls first
    cache.set("last", "x", 1000)
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT cache_key FROM {TABLE}")
        kept = {key.rsplit(":", 1)[-1] for (key,) in cursor.fetchall()}
    # 15 live entries > 10: 5 surplus and 15 // 5 more culled, the soonest to expire.
    assert "expired" not in kept and "last" in kept
    assert kept == {f"k{i:02}" for i in range(8, 15)} | {"last"}


def test_a_cull_deletes_a_batch_of_the_expired_and_they_do_not_pile_up(monkeypatch):
    cache = PostgresCache(TABLE, {"OPTIONS": {"MAX_ENTRIES": 1000}})
    cache.clear()
    monkeypatch.setattr(pgcache, "CULL_EVERY", 10**9)
    for i in range(25):
        cache.set(f"old{i}", "x" * 5000, 1)
    cache.set("live", 1, 300)
    with connection.cursor() as cursor:  # they expired a minute ago
        cursor.execute(
            f"UPDATE {TABLE} SET expires = now() - interval '1 minute' WHERE cache_key LIKE %s",
            ["%:old%"],
        )

    def expired() -> int:
        with connection.cursor() as cursor:
            cursor.execute(f"SELECT count(*) FROM {TABLE} WHERE expires < now()")
            return cursor.fetchone()[0]

    monkeypatch.setattr(pgcache, "CULL_EVERY", 1)  # every write culls first
    monkeypatch.setattr(pgcache, "CULL_BATCH", 10)
    left = []
    for i in range(3):
        cache.set(f"new{i}", i, 300)
        left.append(expired())
    assert left == [15, 5, 0]
    assert cache.get("live") == 1 and cache.get("new2") == 2


def test_the_table_is_made_for_a_cache():
    """Unlogged (a write logs nothing; a crash empties it) and its values stored as they come
    (kept pages are compressed already): migrate leaves it so, and saying it again is
    harmless."""

    def shape():
        return _row(
            "SELECT c.relpersistence, a.attstorage FROM pg_class c JOIN pg_attribute a "
            "ON a.attrelid = c.oid AND a.attname = 'value' WHERE c.relname = %s",
            [TABLE],
        )

    assert shape() == ("u", "e")
    pgcache.prepare_table("default")
    assert shape() == ("u", "e")


@pytest.mark.django_db(transaction=True)
def test_a_vacuum_never_shortens_the_table_so_reads_never_wait_for_one():
    """A vacuum that shortens a table locks out its readers meanwhile: the cache's table and
    its values' storage keep their length once emptied, where a table made the same way
    without prepare_table is shortened (so the emptying below is one a vacuum shortens)."""
    scratch = "bench_cache_unprepared"

    def sizes(table):
        return _row(
            "SELECT pg_relation_size(c.oid), pg_relation_size(c.reltoastrelid) "
            "FROM pg_class c WHERE c.relname = %s",
            [table],
        )

    def fill_empty_vacuum(table):
        with connection.cursor() as cursor:
            cursor.execute(f"DELETE FROM {table}")
            cursor.execute(f"VACUUM {table}")
            # 1,000 values of 16 KB, about 2,000 pages of storage: more than the fewest pages
            # a vacuum shortens a table by (1,000).
            cursor.execute(
                f"INSERT INTO {table} (cache_key, value, expires) "
                "SELECT 'vacuum' || i, repeat(md5(i::text), 512), now() "
                "FROM generate_series(1, 1000) AS i"
            )
            filled = sizes(table)
            cursor.execute(f"DELETE FROM {table}")
            cursor.execute(f"VACUUM {table}")
            return filled, sizes(table)

    with connection.cursor() as cursor:
        cursor.execute(f"CREATE TABLE {scratch} (LIKE {TABLE} INCLUDING ALL)")
        cursor.execute(f"ALTER TABLE {scratch} ALTER COLUMN value SET STORAGE EXTERNAL")
    try:
        filled, emptied = fill_empty_vacuum(scratch)
        assert filled[1] > 1000 * 8192 and emptied[1] == 0, (filled, emptied)
        filled, emptied = fill_empty_vacuum(TABLE)
        assert filled[1] > 1000 * 8192 and emptied == filled, (filled, emptied)
    finally:
        with connection.cursor() as cursor:
            cursor.execute(f"DROP TABLE {scratch}")
