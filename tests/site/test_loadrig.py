"""The wrk driver of the load benchmarks (loadtests/loadrig.py), against a small real HTTP
server: the scripts send what they say, and the report's figures are read back."""

import socket
import statistics
import subprocess
import sys
import threading
from collections import Counter
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from hypothesis import given
from hypothesis import strategies as st

from loadtests.loadrig import (
    CpuMeter,
    cpu_columns,
    cpu_seconds,
    database_server_pids,
    first_visits,
    get_rotation,
    measure_rounds,
    noise_floor,
    paired_ratio,
    parse_report,
    post_distinct,
    run_wrk,
    write_script,
)


class Recorder(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self) -> None:
        self.paths: Counter = Counter()
        self.bodies: list[bytes] = []
        self.keys: list[str] = []
        self.cookies: Counter = Counter()
        # What the response cache keys a request by beside its path (benchsite.response_cache
        # KEY_HEADERS, the Host), as each path was asked for; and each X-Request-Start.
        self.keyed: dict[str, set] = {}
        self.stamps: list[str | None] = []
        self.lock = threading.Lock()
        super().__init__(("127.0.0.1", 0), Handler)


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def _answer(self, status: int) -> None:
        self.send_response(status)
        self.send_header("Content-Length", "2")
        self.end_headers()
        self.wfile.write(b"ok")

    def do_GET(self) -> None:
        with self.server.lock:
            self.server.paths[self.path] += 1
            self.server.cookies[self.headers.get("Cookie")] += 1
            keyed = tuple(self.headers.get(h) for h in ("Host", "Accept", "HX-Request"))
            self.server.keyed.setdefault(self.path, set()).add(keyed)
            self.server.stamps.append(self.headers.get("X-Request-Start"))
        self._answer(404 if self.path.startswith("/missing") else 200)

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers["Content-Length"]))
        with self.server.lock:
            self.server.bodies.append(body)
            self.server.keys.append(self.headers["Idempotency-Key"])
        self._answer(201)

    def log_message(self, *args) -> None:
        pass


class QuietRecorder(Recorder):
    def handle_error(self, request, client_address) -> None:
        pass  # wrk drops its connections mid-request when its time is up


@pytest.fixture
def recorder():
    server = QuietRecorder()
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server
    server.shutdown()
    server.server_close()


def url(server: Recorder) -> str:
    return f"http://127.0.0.1:{server.server_address[1]}"


def test_a_rotation_visits_every_path_and_counts_what_failed(recorder, tmp_path):
    paths = ["/a/?q=1", "/b/?x=%22quoted%22]]", "/missing/1"]
    script = write_script(tmp_path / "get.lua", get_rotation(paths))
    result = run_wrk(url(recorder), script, seconds=1, connections=2)
    assert set(recorder.paths) == set(paths)
    assert result.requests >= sum(recorder.paths.values()) - 2  # wrk counts completed ones
    assert recorder.paths["/missing/1"] > 0
    assert result.non_2xx == pytest.approx(recorder.paths["/missing/1"], abs=2)
    assert result.rate > 0 and 0 < result.p50_ms <= result.p99_ms


def test_first_visits_ask_for_each_path_once_as_the_run_will(recorder, tmp_path):
    """Every distinct path once, the families in turn, each stamped; keyed by the response
    cache as the wrk scripts' requests of the same path are, so that what they keep is what
    the run finds."""
    families = {"pages": ["/a/", "/b/?x=1", "/a/", "/c/"], "api": ["/api/?q=2", "/missing/1"]}
    visits, seconds = first_visits(url(recorder), families, connections=3)
    assert recorder.paths == Counter(["/a/", "/b/?x=1", "/c/", "/api/?q=2", "/missing/1"])
    assert [(v.family, v.path) for v in visits] == [
        ("pages", "/a/"),
        ("api", "/api/?q=2"),
        ("pages", "/b/?x=1"),
        ("api", "/missing/1"),
        ("pages", "/c/"),
    ]
    assert [v.status for v in visits] == [200, 200, 200, 404, 200]
    assert all(v.ms > 0 for v in visits) and seconds >= max(v.ms for v in visits) / 1e3
    assert all(stamp and stamp.startswith("t=") for stamp in recorder.stamps)

    script = write_script(tmp_path / "get.lua", get_rotation(["/a/", "/api/?q=2"], stamp=True))
    run_wrk(url(recorder), script, seconds=1, connections=1)
    assert recorder.paths["/a/"] > 1 and recorder.paths["/api/?q=2"] > 1
    assert len(recorder.keyed["/a/"]) == len(recorder.keyed["/api/?q=2"]) == 1


def test_a_first_visit_nobody_answers_is_counted_as_no_answer():
    with socket.socket() as closed:
        closed.bind(("127.0.0.1", 0))
        port = closed.getsockname()[1]
    visits, _ = first_visits(f"http://127.0.0.1:{port}", {"pages": ["/a/"]}, connections=1)
    assert [(v.path, v.status, v.cache) for v in visits] == [("/a/", 0, "")]


def test_fresh_requests_never_repeat_a_url(recorder, tmp_path):
    script = write_script(tmp_path / "fresh.lua", get_rotation(["/a/", "/b/?x=1"], fresh=True))
    run_wrk(url(recorder), script, seconds=1, connections=2)
    assert len(recorder.paths) > 10 and set(recorder.paths.values()) == {1}
    assert all(p.startswith(("/a/?_=", "/b/?x=1&_=")) for p in recorder.paths)


def test_requests_carry_the_headers_asked_for(recorder, tmp_path):
    headers = {"Cookie": "bench_primary=4102444800", "Accept": "text/csv"}
    script = write_script(tmp_path / "h.lua", get_rotation(["/a/", "/b/"], headers=headers))
    run_wrk(url(recorder), script, seconds=1, connections=2)
    assert list(recorder.cookies) == ["bench_primary=4102444800"]
    plain = write_script(tmp_path / "plain.lua", get_rotation(["/c/"]))
    recorder.cookies.clear()
    run_wrk(url(recorder), plain, seconds=1, connections=1)
    assert list(recorder.cookies) == [None]


def test_posts_carry_distinct_bodies_and_keys(recorder, tmp_path):
    body = '{"note": "upload @@N@@", "end": "]]"}'
    source = post_distinct("/up/", body, "@@N@@", {"Idempotency-Key": "key-@@N@@"})
    result = run_wrk(
        url(recorder), write_script(tmp_path / "post.lua", source), seconds=1, connections=2
    )
    assert result.failures == 0 and len(recorder.bodies) > 10
    assert len(set(recorder.bodies)) == len(recorder.bodies)
    assert len(set(recorder.keys)) == len(recorder.keys)
    assert all(b"@@N@@" not in b and b.endswith(b'"end": "]]"}') for b in recorder.bodies)


def test_a_report_without_figures_is_refused():
    with pytest.raises(ValueError):
        parse_report("unable to connect to 127.0.0.1:1 Connection refused")


rates = st.floats(min_value=1.0, max_value=1e5, allow_nan=False)


@given(
    st.lists(st.tuples(rates, st.floats(min_value=0.2, max_value=5.0)), min_size=1, max_size=9),
    st.floats(min_value=0.01, max_value=2.0),
)
def test_a_paired_ratio_cancels_the_machine_slowing_between_rounds(rounds, cost):
    """Each round the machine runs at its own speed (a factor on both rates); the page costs
    1/cost of the reference whatever the speed, so every round's ratio is cost."""
    reference = [rate * speed for rate, speed in rounds]
    page = [rate * cost for rate in reference]
    ratio = paired_ratio(page, reference)
    assert ratio.median == pytest.approx(cost)
    assert all(r == pytest.approx(cost) for r in ratio.rounds)


def test_a_paired_ratio_is_the_median_of_the_rounds_and_shows_their_range():
    ratio = paired_ratio([100, 300, 150], [1000, 1000, 500])
    assert ratio.rounds == [0.1, 0.3, 0.3]
    assert ratio.median == 0.3
    assert ratio.span() == "0.10-0.30"
    with pytest.raises(ValueError):
        paired_ratio([1, 2], [1])
    with pytest.raises(ValueError):
        paired_ratio([], [])


def test_the_noise_floor_is_how_far_apart_the_reference_rounds_are():
    assert noise_floor([1000, 2000, 1500]) == (
        "noise floor: the trivial endpoint's 3 rounds served 1,000-2,000 req/s (100% apart)"
    )


# A process that burns the CPU seconds it reads from stdin, one line at a time, and says
# "done" after each.
BURNER = """
import sys, time
for line in sys.stdin:
    start = time.process_time()
    while time.process_time() - start < float(line):
        pass
    print("done", flush=True)
"""


@pytest.fixture
def burner():
    process = subprocess.Popen(
        [sys.executable, "-c", BURNER], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )

    def burn(seconds: float) -> None:
        process.stdin.write(f"{seconds}\n")
        process.stdin.flush()
        assert process.stdout.readline() == "done\n"

    burn.pid = process.pid
    yield burn
    process.kill()
    process.wait()


def test_a_meter_counts_the_cpu_a_group_used_between_two_readings(burner):
    meter = CpuMeter(lambda: [burner.pid], lambda: [])
    burner(0.05)  # started and running
    before = meter.read()
    burner(0.4)
    used = meter.used(before, meter.read())
    assert used["workers"] == pytest.approx(0.4, abs=0.1)
    assert used["database"] == 0


def test_a_process_started_during_a_run_counts_from_its_start(burner):
    pids: list[int] = []
    meter = CpuMeter(lambda: list(pids), lambda: [])
    before = meter.read()
    pids.append(burner.pid)
    burner(0.3)
    assert meter.used(before, meter.read())["workers"] >= 0.25


def test_an_exited_process_is_left_out():
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()
    assert cpu_seconds([gone.pid]) == {}


class SteppingMeter(CpuMeter):
    """A meter whose groups use a known amount of CPU between each two readings."""

    def __init__(self, step: dict[str, float]) -> None:
        super().__init__(lambda: [], lambda: [])
        self.step, self.readings = step, 0

    def read(self) -> dict[str, dict[int, float]]:
        self.readings += 1
        return {name: {1: self.readings * used} for name, used in self.step.items()}


def test_each_round_shares_the_cpu_used_over_its_requests(recorder, tmp_path):
    script = write_script(tmp_path / "get.lua", get_rotation(["/a/"]))
    meter = SteppingMeter({"workers": 2.0, "database": 0.5})
    runs = measure_rounds(
        url(recorder), {"a": script}, rounds=2, seconds=1, connections=2, meter=meter
    )["a"]
    assert meter.readings == 4  # before and after each round, not around the warm-up
    for result in runs:
        assert result.worker_cpu_ms == pytest.approx(2000 / result.requests)
        assert result.database_cpu_ms == pytest.approx(500 / result.requests)
    assert cpu_columns(runs).split() == [
        f"{statistics.median(r.worker_cpu_ms for r in runs):.2f}",
        f"{statistics.median(r.database_cpu_ms for r in runs):.2f}",
    ]
    unmetered = run_wrk(url(recorder), script, seconds=1, connections=2)
    assert cpu_columns([unmetered]).split() == ["—", "—"]


@pytest.mark.django_db
def test_the_database_group_is_the_local_postgresql_server():
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        backend = cursor.fetchone()[0]
    pids = database_server_pids()
    assert backend in pids
    meter = CpuMeter(lambda: [], database_server_pids)
    before = meter.read()
    with connection.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM generate_series(1, 3000000)")
    assert meter.used(before, meter.read())["database"] >= 0.05
