"""The health check of persistent connections (benchsite/postgresql): no round trip for a
busy connection, Django's SELECT 1 after an idle spell, and every way PostgreSQL closes a
connection seen before a request uses it."""

import json
import select
import time

import pytest
from django.db import connection, connections
from hypothesis import given, settings
from hypothesis import strategies as st
from psycopg import postgres
from psycopg.pq import Format

from benchsite.postgresql.base import IDLE_CHECK_S, DatabaseWrapper, JsonLoader

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def own():
    """A connection of its own to the test database, as a worker holds one between requests."""
    wrapper = connections.create_connection("default")
    assert isinstance(wrapper, DatabaseWrapper)
    wrapper.ensure_connection()
    yield wrapper
    wrapper.close()


def last_query(wrapper) -> str:
    with connection.cursor() as cursor:
        cursor.execute("SELECT query FROM pg_stat_activity WHERE pid = %s", [backend(wrapper)])
        return cursor.fetchone()[0]


def backend(wrapper) -> int:
    return wrapper.connection.info.backend_pid


def run(wrapper, sql: str) -> None:
    with wrapper.cursor() as cursor:
        cursor.execute(sql)


def health_check(wrapper) -> None:
    """What Django does before a request's first query on a reused connection."""
    wrapper.health_check_done = False
    wrapper.close_if_health_check_failed()


def wait_readable(wrapper, timeout: float = 10.0) -> None:
    poll = select.poll()
    poll.register(wrapper.connection.fileno(), select.POLLIN)
    assert poll.poll(timeout * 1000), "the server did not close the connection"


def test_busy_connection_is_checked_without_a_round_trip(own):
    run(own, "SELECT 'the request before'")
    for _ in range(3):
        health_check(own)
        assert own.connection is not None
        assert last_query(own) == "SELECT 'the request before'"


def test_connection_idle_longer_gets_select_1(own):
    run(own, "SELECT 'long ago'")
    own.checked_at = time.monotonic() - IDLE_CHECK_S - 1
    pid = backend(own)
    health_check(own)
    assert backend(own) == pid
    assert last_query(own) == "SELECT 1"
    # Checked now: the next request's check needs no round trip again.
    run(own, "SELECT 'next'")
    health_check(own)
    assert last_query(own) == "SELECT 'next'"


def _terminated(wrapper) -> None:
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_terminate_backend(%s)", [backend(wrapper)])


def _timed_out(wrapper) -> None:
    run(wrapper, "SET idle_session_timeout = 50")


@pytest.mark.parametrize("close", [_terminated, _timed_out], ids=["terminated", "idle timeout"])
def test_connection_the_server_closed_is_replaced_before_use(own, close):
    pid = backend(own)
    close(own)
    wait_readable(own)
    health_check(own)
    assert own.connection is None  # closed by the check, not by a failed query
    run(own, "SELECT 'after'")
    assert backend(own) != pid


def test_connection_closed_on_this_side_is_replaced(own):
    own.connection.close()
    health_check(own)
    assert own.connection is None
    run(own, "SELECT 1")


# -- json values ------------------------------------------------------------------------------

_JSON_ROW = (
    "SELECT json_build_array(%s::bigint, %s::float8, %s::numeric(12, 2), %s::text, %s::bool)"
)


@settings(max_examples=150, deadline=None)
@given(
    integer=st.integers(-(2**63), 2**63 - 1),
    double=st.floats(allow_nan=False, allow_infinity=False),
    price=st.decimals(min_value=0, max_value=10**10 - 1, places=2, allow_nan=False),
    text=st.text(st.characters(blacklist_categories=["Cs"], blacklist_characters="\x00")),
    flag=st.booleans(),
)
def test_json_values_read_as_the_standard_library_reads_them(integer, double, price, text, flag):
    """The statements that write rows as JSON get what json.loads makes of PostgreSQL's text,
    for every kind of column they hold."""
    params = [integer, double, price, text, flag]
    with connection.cursor() as cursor:
        cursor.execute(_JSON_ROW, params)
        value = cursor.fetchone()[0]
        cursor.execute(f"SELECT ({_JSON_ROW.removeprefix('SELECT ')})::text", params)
        expected = json.loads(cursor.fetchone()[0])
    assert value == expected
    assert [type(v) for v in value] == [type(v) for v in expected]
    loader = connection.connection.adapters.get_loader(postgres.types["json"].oid, Format.TEXT)
    assert loader is JsonLoader


def test_json_numbers_beyond_a_double_are_read_by_the_standard_library():
    with connection.cursor() as cursor:
        cursor.execute("SELECT '[1e400, 2]'::json, '{\"a\": 1}'::jsonb")
        value, document = cursor.fetchone()
    assert value == [float("inf"), 2]
    assert document == '{"a": 1}'  # jsonb stays text, as Django's JSONField expects
