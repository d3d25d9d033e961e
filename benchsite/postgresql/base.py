"""Django's PostgreSQL backend, with a health check that costs no round trip while a
connection is in use, and `json` values parsed by orjson.

Django checks a persistent connection before the first query of each request
(CONN_HEALTH_CHECKS) with a SELECT 1: a round trip, which under load is a sizeable share of
a cheap request (the worker and its backend each wait and wake once more). A connection
PostgreSQL has closed (the server stopped or restarted, the backend terminated, an idle
timeout) has something to read on its socket (the server's last message, end of file), and
seeing that needs no round trip. So a connection checked less than IDLE_CHECK_S ago whose
socket is quiet is used as it is; one idle longer, or with anything to read, gets Django's
SELECT 1 (PgBouncer checks its server connections the same way, after server_check_delay).
What a poll cannot see, a silent network failure within the idle window, fails the
request's own query, as a connection lost just after a SELECT 1 would.

The statements that write their rows as JSON (json_build_array, json_agg: the head-to-head,
the filter forms' choices, the drive pages) return `json` values, which psycopg parses with
the standard library; orjson reads them in a fraction of the time, to the same values for
what those statements hold (64-bit integers, doubles, prices, text). It differs only for
integers beyond 64 bits (a float) and refuses numbers beyond a double's range; a refused
value is read by the standard library. `jsonb` stays as Django sets it (text, which
JSONField parses itself).
"""

import json
import select
import time

import orjson
from django.db.backends.postgresql import base
from psycopg import pq
from psycopg.adapt import Loader

IDLE_CHECK_S = 30.0


def _quiet(connection) -> bool:
    """The connection is open and idle, with nothing from the server waiting on its socket."""
    if connection.closed or connection.broken:
        return False
    if connection.pgconn.status != pq.ConnStatus.OK:
        return False
    poll = select.poll()
    poll.register(connection.fileno(), select.POLLIN | select.POLLPRI)
    return not poll.poll(0)


class JsonLoader(Loader):
    def load(self, data):
        try:
            return orjson.loads(data)
        except orjson.JSONDecodeError:
            return json.loads(bytes(data))


class DatabaseWrapper(base.DatabaseWrapper):
    checked_at = 0.0  # time.monotonic() of the last connect or check that found it usable

    def get_new_connection(self, conn_params):
        connection = super().get_new_connection(conn_params)
        connection.adapters.register_loader("json", JsonLoader)
        self.checked_at = time.monotonic()
        return connection

    def is_usable(self) -> bool:
        if self.connection is None:
            return False
        now = time.monotonic()
        if now - self.checked_at < IDLE_CHECK_S and _quiet(self.connection):
            usable = True
        else:
            usable = super().is_usable()
        if usable:
            self.checked_at = now
        return usable
