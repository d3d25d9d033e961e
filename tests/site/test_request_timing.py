"""The load benchmark's account of where a request's time went (loadtests/request_timing.py),
in-process and through a real gunicorn worker."""

import io
import socket
import threading
import time
import urllib.request

import orjson
import pytest
from django.core.management.base import OutputWrapper
from django.core.signals import request_finished
from django.db import close_old_connections, connection
from django.http import HttpResponse
from django.template.loader import render_to_string
from django.test import RequestFactory
from hypothesis import given
from hypothesis import strategies as st

from benchsite.warmup import jinja_environments
from core.columns import Columns
from loadtests.loadrig import Visit
from loadtests.request_timing import RequestTimingMiddleware
from loadtests.tail import (
    Log,
    Served,
    cold_start_end,
    print_cold_start,
    print_first_visits,
    read_log,
)
from tests.site.conftest import query

HOLD_S = 1.0  # how long a slow client holds the only worker


def _lines(log):
    return [orjson.loads(line) for line in log.read_bytes().splitlines()]


@pytest.fixture
def connections_kept():
    """A response's close() keeps the test's connection open, as Django's test client has it."""
    request_finished.disconnect(close_old_connections)
    yield
    request_finished.connect(close_old_connections)


@pytest.mark.django_db
def test_each_request_is_one_line_with_its_database_time(settings, tmp_path, connections_kept):
    settings.BENCH_TIMING_LOG = str(tmp_path / "timing.jsonl")

    def view(request):
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_sleep(0.02)")
            cursor.execute("SELECT 1")
        return HttpResponse("ok")

    middleware = RequestTimingMiddleware(view)
    for query_string in ("a=1", "b=%22x%22"):
        request = RequestFactory().get(
            f"/bench/value/?{query_string}", HTTP_X_REQUEST_START=f"t={time.time():.6f}"
        )
        response = middleware(request)
        assert response.content == b"ok"
        assert response["X-Request-Start"] == request.META["HTTP_X_REQUEST_START"]
        response.close()  # what the server does once it has sent the response
    lines = _lines(tmp_path / "timing.jsonl")
    assert [line["path"] for line in lines] == ["/bench/value/?a=1", "/bench/value/?b=%22x%22"]
    for line in lines:
        assert line["own_ms"] >= line["db_ms"] >= 20.0
        assert line["statements"] == 2 and line["cache"] == "-"
        assert line["client"] <= line["start"] <= line["sent"]


def test_nothing_is_written_unless_asked(settings, tmp_path):
    settings.BENCH_TIMING_LOG = ""
    RequestTimingMiddleware(lambda request: HttpResponse("ok"))(RequestFactory().get("/"))
    assert list(tmp_path.iterdir()) == []


def _get(url: str, path: str) -> dict[str, str]:
    request = urllib.request.Request(
        url + path, headers={"X-Request-Start": f"t={time.time():.6f}"}
    )
    with urllib.request.urlopen(request, timeout=30) as response:
        assert response.status == 200
        return dict(response.headers)


def test_a_request_behind_a_busy_worker_shows_its_wait_as_queued(site, workdir):
    """One sync worker, held by a client that sends its headers slowly: a request sent
    meanwhile waits in the listen backlog, which the worker cannot see; its X-Request-Start
    shows the wait. The worker's copies read at its start, and again in a request after a
    write moved their version, are logged as stalls."""
    log = workdir / "timing.jsonl"
    env = {"DJANGO_SETTINGS_MODULE": "benchsite.settings.bench", "BENCH_TIMING_LOG": str(log)}
    with site.server(replica=False, workers=1, **env) as server:
        server.wait_ready()
        host, port = server.url.removeprefix("http://").split(":")
        with socket.create_connection((host, int(port))) as slow:
            slow.sendall(b"GET /bench-trivial/ HTTP/1.1\r\nHost: 127.0.0.1\r\n")
            time.sleep(0.2)  # the worker has taken it and waits for the rest of its headers
            behind: dict[str, str] = {}
            sent = threading.Thread(
                target=lambda: behind.update(_get(server.url, "/bench-trivial/"))
            )
            sent.start()
            time.sleep(HOLD_S)
            slow.sendall(b"\r\n")
            assert slow.recv(65536).startswith(b"HTTP/1.1 200")
        sent.join(30)
        assert "X-Request-Start" in behind

        # A write that moves the drive lists' version: the next drive list reads its copy again.
        maker = "id = (SELECT min(id) FROM drives_manufacturer)"
        url = site.primary.url()
        query(url, f"UPDATE drives_manufacturer SET name = name || '~' WHERE {maker}")
        try:
            _get(server.url, "/api/v1/drives/")
            _get(server.url, "/api/v1/drives/")
        finally:
            query(url, f"UPDATE drives_manufacturer SET name = rtrim(name, '~') WHERE {maker}")
    timed = read_log(log, lambda path: path)
    trivial = [r for r in timed.requests if r.family == "/bench-trivial/"]
    assert len(trivial) == 1  # the slow client's request has no X-Request-Start
    assert trivial[0].queued >= 0.9 * HOLD_S * 1e3
    assert trivial[0].django + trivial[0].database < HOLD_S * 1e3 / 2
    assert timed.unstamped == 1

    assert sorted(s.what for s in timed.stalls) == ["copy catalog", "copy value"]
    listed = [r for r in timed.requests if r.family == "/api/v1/drives/"]
    assert [r.copies > 0 for r in listed] == [True, False]
    reread = [line for line in _lines(log) if line.get("path") == "/api/v1/drives/"][0]
    assert reread["copies"] == ["catalog"]


# A request's end (request_finished) checks the database connection an earlier test of the
# process may have opened, as it does after every request.
@pytest.mark.django_db
def test_a_request_that_compiles_a_template_or_makes_a_column_says_so(settings, tmp_path):
    """What a server's warm-up does before a worker's first request (benchsite/warmup.py),
    counted when a request does it instead: the check a fresh worker's first requests pass
    (tests/site/test_worker_start.py)."""
    settings.BENCH_TIMING_LOG = str(tmp_path / "timing.jsonl")
    columns = Columns.loaded("default", ["size", "label"], [[1, 2], [[1], [2]]])

    def view(request):
        columns["size"]  # noqa: B018 - made on its first read
        columns["size"]  # noqa: B018 - and kept
        return HttpResponse(render_to_string("error.html", {"title": "t", "message": "m"}))

    for env in jinja_environments():
        env.cache.clear()  # as in a process that has compiled nothing yet
    middleware = RequestTimingMiddleware(view)
    for _ in range(2):
        middleware(RequestFactory().get("/bench-trivial/")).close()
    first, second = _lines(tmp_path / "timing.jsonl")
    assert (first["compiled"], first["made"]) == (1, 1)
    assert (second["compiled"], second["made"]) == (0, 0)


def _served(family, path, client, latency, cache="hit"):
    return Served(
        family=family,
        path=path,
        client=client,
        start=client,
        sent=client + latency / 1e3,
        queued=0.0,
        django=latency,
        database=0.0,
        copies=0.0,
        locks=0.0,
        after=0.0,
        after_locks=0.0,
        cache=cache,
        status=200,
        worker=1,
        client_ms=latency,
    )


REQUESTS = st.lists(
    st.tuples(
        st.sampled_from(["page", "api", "uploads"]),
        st.sampled_from(["/a", "/b", "/c", "/d"]),
        st.floats(0, 60),
        st.floats(0.1, 500),
    ),
    min_size=1,
    max_size=40,
)


@given(REQUESTS)
def test_the_cold_start_ends_when_the_last_read_path_was_first_answered(requests):
    log = Log([_served(*r) for r in requests])
    reads = [r for r in log.requests if r.family != "uploads"]
    end = cold_start_end(log)
    if not reads:
        assert end is None
        return
    firsts = [
        min((r for r in reads if r.path == p), key=lambda r: r.client)
        for p in {r.path for r in reads}
    ]
    assert all(r.sent <= end for r in firsts)
    assert any(r.sent == end for r in firsts)


def test_the_cold_start_split_sets_first_visits_apart_from_the_warm_run():
    # Two paths first answered slowly (misses) by 1.2 s; then a steady 50-60 ms.
    cold = [_served("page", "/a", 0.0, 900, "miss"), _served("page", "/b", 0.1, 1100, "miss")]
    warm = [_served("page", ["/a", "/b"][i % 2], 2.0 + i / 100, 50 + i % 11) for i in range(200)]
    written = io.StringIO()
    print_cold_start(
        OutputWrapper(written),
        Log(cold + warm + [_served("uploads", "/up", 0, 3000)]),
        ["page", "uploads"],
    )
    text = written.getvalue()
    assert "first answered 1.2 s from the first read" in text
    assert (
        "2 reads sent meanwhile" in text
        and "misses of the response cache then 2, after it 0" in text
    )
    row = next(line.split() for line in text.splitlines() if line.startswith("page"))
    assert row[1:] == ["55", "60", "900", "1100", "55", "60", "1.09"]
    assert not any(line.startswith("uploads") for line in text.splitlines())


def _record(path: str, client: float, **more) -> dict:
    sent = client + 0.05
    return {
        "path": path,
        "stamp": f"t={client:.6f}",
        "client": client,
        "start": client + 0.01,
        "sent": sent,
        "after_ms": 1.0,
        "backends": [],
        "copy_ms": 0.0,
        "db_ms": 2.0,
        "cache": "miss",
        "status": 200,
        "worker": 7,
        **more,
    }


def test_a_run_after_its_first_visits_reads_only_what_was_sent_from_its_start(tmp_path):
    """bench_load's first visits are stamped as the run's requests are; the run's tables
    read the log from the run's start (`since`): neither those requests nor a stall begun
    before it count, and none of them is called unstamped."""
    lines = [
        {"stall": "copy catalog", "start": 99.0, "ms": 400.0, "worker": 7},
        _record("/a", 100.0),  # a first visit
        _record("/b", 100.5),
        {"stall": "copy value", "start": 101.5, "ms": 30.0, "worker": 7},
        _record("/a", 102.0, cache="hit"),  # the run
        _record("/up", 102.5),
    ]
    log_path = tmp_path / "timing.jsonl"
    log_path.write_bytes(b"\n".join(orjson.dumps(line) for line in lines))
    family = {"/a": "page", "/b": "page", "/up": "uploads"}.get

    whole = read_log(log_path, family)
    assert [r.client for r in whole.requests] == [100.0, 100.5, 102.0, 102.5]
    assert len(whole.stalls) == 2

    run = read_log(log_path, family, since=101.0)
    assert [(r.path, r.cache) for r in run.requests] == [("/a", "hit"), ("/up", "miss")]
    assert [s.what for s in run.stalls] == ["copy value"]
    assert run.unstamped == whole.unstamped == 0


def test_the_first_visits_table_gives_each_family_its_tail_and_failures():
    visits = [Visit("page", f"/p{i}", 10.0 + i, 200, "miss") for i in range(100)]
    visits += [Visit("api", "/api/1", 40.0, 200, "hit"), Visit("api", "/api/2", 900.0, 503, "")]
    written = io.StringIO()
    print_first_visits(OutputWrapper(written), visits, 3.31, 64)
    text = written.getvalue()
    assert "every read path (102) asked for once, 64 at a time, in 3.3 s" in text
    assert "misses of the response cache 100" in text
    rows = {line.split()[0]: line.split()[1:] for line in text.splitlines()[2:] if line.strip()}
    assert rows["page"] == ["100", "59", "108", "109", "0"]
    assert rows["api"] == ["2", "40", "900", "900", "1"]
