"""The shared cache in PostgreSQL, when there is no Redis: Django's database cache, with a
write that is one upsert.

Django's database cache counts the whole table before every write, to cull it when full:
with thousands of kept pages that count was most of the cost of storing one (a cache miss
cost the page plus several milliseconds). Here a write is a single INSERT ... ON CONFLICT,
and one write in CULL_EVERY (at random) deletes what has expired (CULL_BATCH entries at
most) and, beyond MAX_ENTRIES, the entries that expire first. Values are stored as
Django's database cache stores them (pickled, base64), in the table `createcachetable`
makes, so reads are Django's own. The writes are the cache API's public ones (set, add,
touch; set_many goes through set); with Redis configured (REDIS_URL) it is not used at all.
"""

from __future__ import annotations

import base64
import datetime
import pickle
import random

from django.conf import settings
from django.core.cache import caches
from django.core.cache.backends.base import DEFAULT_TIMEOUT
from django.core.cache.backends.db import DatabaseCache
from django.db import connections, router, transaction
from django.utils import timezone

CULL_EVERY = 100  # writes, on average, between two culls
# Expired entries a cull deletes at most: twice what the writes between two culls add, so
# they cannot pile up, while no cull holds its request's worker for long. Deleting every
# expired entry at once took 224 ms for the 3,740 pages of an earlier `make bench-load` run
# (each page's value is a few dozen TOAST chunks), 678 ms under that benchmark's load, in
# the first second of the next run, when its workers were needed most.
CULL_BATCH = 2 * CULL_EVERY
NEVER = datetime.datetime.max.replace(tzinfo=datetime.UTC)


class PostgresCache(DatabaseCache):
    """Django's DatabaseCache with one-upsert writes. Its settings are read from the
    constructor's arguments as Django's backends read them (LOCATION, OPTIONS' MAX_ENTRIES
    and CULL_FREQUENCY), so the CACHES options mean the same."""

    def __init__(self, table: str, params: dict):
        super().__init__(table, params)
        options = params.get("OPTIONS", {})
        self.table = table
        self.max_entries = int(params.get("max_entries", options.get("MAX_ENTRIES", 300)))
        self.cull_frequency = int(params.get("cull_frequency", options.get("CULL_FREQUENCY", 3)))

    def set(self, key, value, timeout=DEFAULT_TIMEOUT, version=None) -> None:
        self._write("set", self.make_and_validate_key(key, version=version), value, timeout)

    def add(self, key, value, timeout=DEFAULT_TIMEOUT, version=None) -> bool:
        return self._write("add", self.make_and_validate_key(key, version=version), value, timeout)

    def touch(self, key, timeout=DEFAULT_TIMEOUT, version=None) -> bool:
        return self._write("touch", self.make_and_validate_key(key, version=version), None, timeout)

    def _write(self, mode: str, key: str, value, timeout) -> bool:
        """One upsert (touch: one update), and a cull one write in CULL_EVERY."""
        timeout = self.get_backend_timeout(timeout)
        expires = (
            NEVER
            if timeout is None
            else datetime.datetime.fromtimestamp(timeout, tz=datetime.UTC).replace(microsecond=0)
        )
        alias = router.db_for_write(self.cache_model_class)
        connection = connections[alias]
        table = connection.ops.quote_name(self.table)
        now = timezone.now().replace(microsecond=0)
        if random.random() * CULL_EVERY < 1:
            with transaction.atomic(using=alias), connection.cursor() as cursor:
                self._trim(cursor, table, now)
        with connection.cursor() as cursor:  # one statement: no transaction of its own
            if mode == "touch":
                cursor.execute(
                    f"UPDATE {table} SET expires = %s WHERE cache_key = %s AND expires >= %s",
                    [expires, key, now],
                )
                return cursor.rowcount > 0
            pickled = pickle.dumps(value, self.pickle_protocol)
            params = [key, base64.b64encode(pickled).decode("latin1"), expires]
            # add() replaces only an entry that has expired; set() any.
            replace_when = ""
            if mode == "add":
                replace_when = f" WHERE {table}.expires < %s"
                params.append(now)
            cursor.execute(
                f"INSERT INTO {table} (cache_key, value, expires) VALUES (%s, %s, %s) "
                "ON CONFLICT (cache_key) DO UPDATE "
                f"SET value = EXCLUDED.value, expires = EXCLUDED.expires{replace_when} "
                "RETURNING 1",
                params,
            )
            return cursor.fetchone() is not None

    def _trim(self, cursor, table: str, now: datetime.datetime) -> None:
        """Delete what has expired (CULL_BATCH entries at most), then, beyond MAX_ENTRIES,
        what expires first: the surplus and a CULL_FREQUENCY-th of the entries more (all of
        them for 0), as Django culls."""
        cursor.execute(
            f"DELETE FROM {table} WHERE cache_key IN "
            f"(SELECT cache_key FROM {table} WHERE expires < %s LIMIT %s)",
            [now, CULL_BATCH],
        )
        cursor.execute(f"SELECT count(*) FROM {table}")
        count = cursor.fetchone()[0]
        if count > self.max_entries:
            if not self.cull_frequency:  # CULL_FREQUENCY 0: empty the cache
                cursor.execute(f"DELETE FROM {table}")
                return
            surplus = count - self.max_entries + count // self.cull_frequency
            cursor.execute(
                f"DELETE FROM {table} WHERE cache_key IN "
                f"(SELECT cache_key FROM {table} ORDER BY expires LIMIT %s)",
                [surplus],
            )


def prepare_table(using: str) -> None:
    """The table of every PostgresCache on database `using`, made for a cache (after
    createcachetable): UNLOGGED, as nothing in it needs to outlive a crash (the server
    empties it after one) or reach a replica (cache reads go to the primary), so a write
    logs nothing; its values stored without PostgreSQL's compression, which only spent
    time on values that are compressed already (a kept page) or small (a write of a 30 KB
    page went from 1.1 to 0.5 ms); and never shortened by a vacuum. An autovacuum that
    shortens a table holds it in ACCESS EXCLUSIVE mode meanwhile, which every cache read
    waits for: in a `make bench-load` run, shortening the values' 190 MB of expired pages
    stalled every worker's cache reads for 1.1 s, until PostgreSQL cancelled the vacuum.
    The space a cull frees is written again by the next pages anyway. All are no-ops once
    done."""
    connection = connections[using]
    if connection.vendor != "postgresql":
        return
    for name, options in settings.CACHES.items():
        backend = caches[name]
        if not isinstance(backend, PostgresCache) or not router.allow_migrate_model(
            using, backend.cache_model_class
        ):
            continue
        table = connection.ops.quote_name(options["LOCATION"])
        with connection.cursor() as cursor:
            cursor.execute(f"ALTER TABLE {table} SET UNLOGGED")
            cursor.execute(f"ALTER TABLE {table} ALTER COLUMN value SET STORAGE EXTERNAL")
            cursor.execute(
                f"ALTER TABLE {table} SET (vacuum_truncate = off, toast.vacuum_truncate = off)"
            )
