"""Driving the served site with wrk: the request scripts and the parsing of wrk's report, for
the load benchmarks (bench_web, bench_api, bench_load).

    script = write_script(folder / "compare.lua", get_rotation(paths))
    result = run_wrk(base_url, script, seconds=5, connections=8)
    result.rate, result.p50_ms, result.p99_ms, result.failures

With a CpuMeter, measure_rounds also says what each request cost in CPU, in the app server's
workers and in PostgreSQL: where the time goes under load, steadier than a rate.
"""

from __future__ import annotations

import functools
import itertools
import os
import re
import shutil
import ssl
import statistics
import subprocess
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from benchsite.replicas import STICKY_COOKIE
from benchsite.response_cache import CACHE_STATUS_HEADER
from loadtests.appserver import children

WRK_TIMEOUT = "10s"


class WrkMissing(RuntimeError):
    pass


def _lua_string(text: str) -> str:
    """text as a Lua long string literal (no escapes inside; the level avoids its content)."""
    level = 0
    while f"]{'=' * level}]" in text:
        level += 1
    return f"[{'=' * level}[{text}]{'=' * level}]"


def _lua_list(items: list[str]) -> str:
    return "{\n" + ",\n".join(_lua_string(item) for item in items) + "\n}"


# X-Request-Start, as nginx sets it (`t=${msec}`): the moment the request is written, on the
# wall clock the server reads too (one machine), so that the server can tell how long it
# waited for a worker (loadtests/request_timing.py). wrk's Lua is LuaJIT: gettimeofday
# through its FFI, since Lua's own clock has whole seconds only.
_STAMP = """
local ffi = require("ffi")
ffi.cdef[[
typedef struct { long tv_sec; long tv_usec; } bench_timeval;
int gettimeofday(bench_timeval *tv, void *tz);
]]
local timeval = ffi.new("bench_timeval")
request_start = function()
  ffi.C.gettimeofday(timeval, nil)
  return string.format("t=%d.%06d", tonumber(timeval.tv_sec), tonumber(timeval.tv_usec))
end
"""
STAMP_HEADER = "X-Request-Start"


def _client_log(path: Path | None) -> str:
    """A wrk response() that appends, for each response carrying the X-Request-Start its
    request was sent with (loadtests/request_timing.py echoes it), that stamp, the moment
    the response was read in full and its status: the client's own latency, request by
    request. One line a write, appended: wrk's threads and processes share the file."""
    if path is None:
        return ""
    return f"""
local client_log = io.open({_lua_string(str(path))}, "a")
client_log:setvbuf("no")
response = function(status, headers, body)
  local sent = headers["{STAMP_HEADER}"]
  if sent then
    ffi.C.gettimeofday(timeval, nil)
    client_log:write(string.format(
      "%s\\t%d.%06d\\t%d\\n", sent, tonumber(timeval.tv_sec), tonumber(timeval.tv_usec), status))
  end
end
"""


_SEEDED_START = """
local i = 0
init = function(args)
  math.randomseed(os.time() + tonumber(tostring({}):sub(8), 16))
  i = math.random(#paths)
end
"""


def get_rotation(
    paths: list[str],
    *,
    fresh: bool = False,
    headers: dict[str, str] | None = None,
    stamp: bool = False,
    client_log: Path | None = None,
) -> str:
    """A wrk script that GETs the paths in turn, each connection thread from a random start.
    fresh: each request also carries a query parameter of its own (`_=`, which the views
    ignore), so that no response cache has seen it. headers: sent with every request.
    stamp: each request says when it was sent (X-Request-Start); client_log: with stamp, each
    response's stamp and the moment it was read are appended there."""
    suffix = ""
    if fresh:
        suffix = ' .. (string.find(paths[i], "?", 1, true) and "&" or "?") .. "_=" .. nonce()'
    fields = ", ".join(
        f"[ {_lua_string(k)} ] = {_lua_string(v)}" for k, v in (headers or {}).items()
    )
    stamping = f'\n  headers["{STAMP_HEADER}"] = request_start()' if stamp else ""
    return f"""local paths = {_lua_list(paths)}
local headers = {{{fields}}}
{_STAMP + _client_log(client_log) if stamp else ""}{_SEEDED_START}
local serial = 0
local tag = nil
nonce = function()
  tag = tag or tostring(math.random(0, 0x7fffffff))  -- after init seeded this thread
  serial = serial + 1
  return tag .. "-" .. serial
end
request = function()
  i = i % #paths + 1{stamping}
  return wrk.format("GET", paths[i]{suffix}, headers)
end
"""


def post_distinct(
    path: str,
    body: str,
    placeholder: str,
    headers: dict[str, str],
    *,
    stamp: bool = False,
    client_log: Path | None = None,
) -> str:
    """A wrk script that POSTs body to path, with placeholder replaced in the body and in every
    header value by a value unique to the request (thread and counter), so that no two
    requests carry the same document or Idempotency-Key. stamp, client_log: as
    get_rotation's."""
    header_lines = "\n".join(
        f"  h[ {_lua_string(k)} ] = string.gsub({_lua_string(v)}, {_lua_string(placeholder)}, n)"
        for k, v in headers.items()
    )
    if stamp:
        header_lines += f'\n  h["{STAMP_HEADER}"] = request_start()'
    return f"""{_STAMP + _client_log(client_log) if stamp else ""}local body = {_lua_string(body)}
local placeholder = {_lua_string(placeholder)}
local prefix = ""
local count = 0
init = function(args)
  math.randomseed(os.time() + tonumber(tostring({{}}):sub(8), 16))
  prefix = string.format("%08x", math.random(0, 0x7fffffff))
end
request = function()
  count = count + 1
  local n = prefix .. "-" .. count
  local h = {{}}
{header_lines}
  return wrk.format("POST", {_lua_string(path)}, h, (string.gsub(body, placeholder, n)))
end
"""


def write_script(path: Path, source: str) -> Path:
    path.write_text(source)
    return path


@dataclass
class WrkResult:
    rate: float  # requests per second
    p50_ms: float
    p99_ms: float
    requests: int
    non_2xx: int  # responses other than 2xx and 3xx
    socket_errors: int
    # CPU a request (ms) in the app server's workers and in the database server, when a
    # CpuMeter watched the run
    worker_cpu_ms: float | None = None
    database_cpu_ms: float | None = None

    @property
    def failures(self) -> int:
        return self.non_2xx + self.socket_errors


_UNITS_MS = {"us": 1e-3, "ms": 1.0, "s": 1e3, "m": 60e3}


def _percentile_ms(report: str, label: str) -> float:
    found = re.search(rf"^\s+{label}\s+([\d.]+)(us|ms|s|m)\s*$", report, re.M)
    if found is None:
        return float("nan")
    return float(found[1]) * _UNITS_MS[found[2]]


def parse_report(report: str) -> WrkResult:
    """The figures of one `wrk --latency` report."""
    rate = re.search(r"Requests/sec:\s+([\d.]+)", report)
    total = re.search(r"^\s*(\d+) requests in", report, re.M)
    if rate is None or total is None:
        raise ValueError(f"not a wrk report:\n{report}")
    bad = re.search(r"Non-2xx or 3xx responses:\s+(\d+)", report)
    socket = re.search(
        r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)", report
    )
    return WrkResult(
        rate=float(rate[1]),
        p50_ms=_percentile_ms(report, "50%"),
        p99_ms=_percentile_ms(report, "99%"),
        requests=int(total[1]),
        non_2xx=int(bad[1]) if bad else 0,
        socket_errors=sum(int(n) for n in socket.groups()) if socket else 0,
    )


def wrk_command(url: str, script: Path, *, seconds: float, connections: int) -> list[str]:
    if shutil.which("wrk") is None:
        raise WrkMissing("wrk is not installed (Debian: apt-get install wrk)")
    threads = max(1, min(2, connections))
    return [
        "wrk",
        f"-t{threads}",
        f"-c{connections}",
        f"-d{seconds:g}s",
        "--latency",
        "--timeout",
        WRK_TIMEOUT,
        "-s",
        str(script),
        url,
    ]


def run_wrk(
    url: str, script: Path, *, seconds: float, connections: int, meter: CpuMeter | None = None
) -> WrkResult:
    """One wrk run; with a meter, the result also holds the CPU a request cost in the
    workers and the database."""
    command = wrk_command(url, script, seconds=seconds, connections=connections)
    start = meter.read() if meter else None
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"wrk failed ({script.name}): {done.stderr.strip() or done.stdout}")
    result = parse_report(done.stdout)
    if meter and result.requests:
        used = meter.used(start, meter.read())
        result.worker_cpu_ms = used["workers"] / result.requests * 1e3
        result.database_cpu_ms = used["database"] / result.requests * 1e3
    return result


def run_wrk_together(
    url: str, jobs: dict[str, tuple[Path, int]], *, seconds: float
) -> dict[str, WrkResult]:
    """Several wrk processes at once against url, one per named (script, connections)."""
    running = {
        name: subprocess.Popen(
            wrk_command(url, script, seconds=seconds, connections=connections),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for name, (script, connections) in jobs.items()
    }
    results = {}
    for name, process in running.items():
        out, err = process.communicate(timeout=seconds + 60)
        if process.returncode != 0:
            raise RuntimeError(f"wrk ({name}) failed: {err}")
        results[name] = parse_report(out)
    return results


@dataclass(frozen=True, slots=True)
class Visit:
    """One path's first request: its family, what it waited (ms), its status (0: no
    answer) and what the response cache said of it (X-Bench-Cache: hit, miss or "")."""

    family: str
    path: str
    ms: float
    status: int
    cache: str


@functools.cache
def _unchecked_tls() -> ssl.SSLContext:
    """One TLS client context for every request (made once: a context made for each of a
    cold start's 923 requests cost the client more CPU than the server's pages), which
    checks no certificate (the deployed shape makes its own)."""
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    return context


def request_once(
    url: str,
    path: str,
    *,
    data: bytes | None = None,
    headers: dict[str, str] | None = None,
    timeout: float = 30.0,
) -> tuple[int, str]:
    """One request (a GET, or a POST of `data`), stamped (X-Request-Start) as the wrk
    scripts stamp theirs and otherwise keyed by the response cache as theirs are (the same
    Host, no Accept): its status (0: no answer) and what the response cache said of it
    (X-Bench-Cache: hit, miss or ""). A TLS address's certificate is not checked (the
    deployed shape makes its own)."""
    context = _unchecked_tls() if url.startswith("https:") else None
    stamped = {**(headers or {}), STAMP_HEADER: f"t={time.time():.6f}"}
    request = urllib.request.Request(url + path, data=data, headers=stamped)
    try:
        with urllib.request.urlopen(request, timeout=timeout, context=context) as response:
            response.read()
            return response.status, response.headers.get(CACHE_STATUS_HEADER, "")
    except urllib.error.HTTPError as error:
        return error.code, error.headers.get(CACHE_STATUS_HEADER, "")
    except OSError:  # refused, reset or timed out: no answer
        return 0, ""


def first_visits(
    url: str, families: dict[str, list[str]], *, connections: int
) -> tuple[list[Visit], float]:
    """Each distinct path of the named families asked for once (request_once),
    `connections` at a time, the families' paths taken in turn as a run's readers ask for
    them: the cold start of a deployment (every page made for the first time), which leaves
    kept the pages a run's requests then find. The visits in the order sent, and the seconds
    they took."""
    queues = [[(name, path) for path in dict.fromkeys(paths)] for name, paths in families.items()]
    order = [item for turn in itertools.zip_longest(*queues) for item in turn if item]

    def visit(item: tuple[str, str]) -> Visit:
        family, path = item
        started = time.perf_counter()
        status, cache = request_once(url, path)
        return Visit(family, path, (time.perf_counter() - started) * 1e3, status, cache)

    started = time.perf_counter()
    with ThreadPoolExecutor(connections) as pool:
        visits = list(pool.map(visit, order))
    return visits, time.perf_counter() - started


_CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pids: Iterable[int]) -> dict[int, float]:
    """The CPU time (user and system) each of these processes has used so far; a process
    that has exited is left out."""
    used = {}
    for pid in pids:
        try:
            stat = Path(f"/proc/{pid}/stat").read_text()
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[1].split()  # after the command, which may hold spaces
        used[pid] = (int(fields[11]) + int(fields[12])) / _CLOCK_TICKS
    return used


def database_server_pids() -> list[int]:
    """The processes of the PostgreSQL server the default connection reaches (its backends
    and background processes: the postmaster's children), when it runs on this machine;
    none when it runs elsewhere."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        backend = cursor.fetchone()[0]
    try:
        status = Path(f"/proc/{backend}/status").read_text()
    except OSError:
        return []  # another machine's process
    postmaster = int(re.search(r"^PPid:\s*(\d+)", status, re.MULTILINE)[1])
    return children(postmaster)


class CpuMeter:
    """The CPU time two groups of processes use over a run: the app server's workers and
    the database server's processes, each listed afresh at every reading (a worker or a
    backend started during the run counts from its start; one that ended is lost)."""

    def __init__(self, workers: Callable[[], list[int]], database: Callable[[], list[int]]):
        self.groups = {"workers": workers, "database": database}

    def read(self) -> dict[str, dict[int, float]]:
        return {name: cpu_seconds(pids()) for name, pids in self.groups.items()}

    @staticmethod
    def used(before: dict[str, dict[int, float]], after: dict[str, dict[int, float]]):
        """Seconds of CPU each group used between two readings."""
        return {
            name: sum(t - before[name].get(pid, 0.0) for pid, t in after[name].items())
            for name in after
        }


def measure_rounds(
    url: str,
    scripts: dict[str, Path],
    *,
    rounds: int,
    seconds: float,
    connections: int,
    meter: CpuMeter | None = None,
) -> dict[str, list[WrkResult]]:
    """Each named script in turn, `rounds` times over (after a one-second warm-up of each),
    so that every figure is a median of runs spread over the same stretch of time. With a
    meter, each result also holds the CPU a request cost in the workers and the database."""
    for script in scripts.values():
        run_wrk(url, script, seconds=1, connections=connections)
    results: dict[str, list[WrkResult]] = {name: [] for name in scripts}
    for _ in range(rounds):
        for name, script in scripts.items():
            results[name].append(
                run_wrk(url, script, seconds=seconds, connections=connections, meter=meter)
            )
    return results


def cpu_columns(runs: list[WrkResult]) -> str:
    """The medians of a family's CPU a request, workers then database, for a report."""
    cells = []
    for values in ([r.worker_cpu_ms for r in runs], [r.database_cpu_ms for r in runs]):
        known = [v for v in values if v is not None]
        cells.append(f"{statistics.median(known):>8.2f}" if known else f"{'—':>8}")
    return "".join(cells)


CPU_HEADER = f"{'app ms':>8}{'db ms':>8}"
FIGURES_HEADER = f"{'req/s':>9}{'x trivial':>11}{'rounds':>12}{'median ms':>11}{CPU_HEADER}"


def figures(runs: list[WrkResult], reference: list[float]) -> tuple[str, float]:
    """A family's columns under FIGURES_HEADER (medians of its rounds; x trivial paired
    round by round with the reference's rates) and that ratio."""
    rates = [r.rate for r in runs]
    ratio = paired_ratio(rates, reference)
    columns = (
        f"{statistics.median(rates):>9.1f}{ratio.median:>10.2f}x{ratio.span():>12}"
        f"{statistics.median(r.p50_ms for r in runs):>11.2f}{cpu_columns(runs)}"
    )
    return columns, ratio.median


CPU_NOTE = (
    "app ms, db ms: CPU a request under the load (median of rounds), in the gunicorn workers "
    "and in PostgreSQL's processes (its backends and background work)"
)


def restarts_text(boots: int) -> str:
    """The line a benchmark prints about the workers gunicorn started while it measured
    (max_requests, benchsite/gunicorn.conf.py): each imports the whole site, a cost every
    endpoint shares but the lightest feels most."""
    return f"gunicorn workers started while measuring: {boots}"


@dataclass
class Ratio:
    """A family's throughput against the reference's (the trivial view), round by round:
    each round's rate over the reference's in the same round (measured seconds apart, so
    the machine's drift between rounds cancels), the figure being their median."""

    rounds: list[float]

    @property
    def median(self) -> float:
        return statistics.median(self.rounds)

    def span(self) -> str:
        return f"{min(self.rounds):.2f}-{max(self.rounds):.2f}"


def paired_ratio(rates: list[float], reference: list[float]) -> Ratio:
    if len(rates) != len(reference) or not rates:
        raise ValueError("one rate a round for both, at least one round")
    return Ratio([rate / ref for rate, ref in zip(rates, reference, strict=True)])


def noise_floor(reference: list[float]) -> str:
    """How far the reference's rounds are from each other: the machine's noise, beside
    which a ratio's distance from its target must be read."""
    low, high = min(reference), max(reference)
    return (
        f"noise floor: the trivial endpoint's {len(reference)} rounds served "
        f"{low:,.0f}-{high:,.0f} req/s ({(high / low - 1) * 100:.0f}% apart)"
    )


def cache_round_trip_ms() -> float:
    """The median time of one read of a kept response (50 KB) and the catalog version from
    the shared cache: what a response-cache hit costs, and a miss adds."""
    from django.core.cache import cache

    cache.set("bench-probe", b"x" * 50_000)
    timings = []
    for _ in range(200):
        started = time.perf_counter()
        cache.get_many(["bench-probe", "bench:catalog-version"])
        timings.append((time.perf_counter() - started) * 1e3)
    cache.delete("bench-probe")
    return statistics.median(timings)


# A request the response cache must not answer (benchsite/response_cache.py): reads pinned to
# the primary, as after one's own write. Without replicas, the same work as any reader's: the
# uncached page, asked for in a server whose cache is on.
UNCACHED_HEADERS = {"Cookie": f"{STICKY_COOKIE}=4102444800"}
ALONE_ROUNDS = 5  # one-connection rounds of each script, alternating


def measure_alone(
    url: str, scripts: dict[str, Path], *, seconds: float
) -> dict[str, list[WrkResult]]:
    """Each named script with one connection (what one reader waits for, the server otherwise
    idle), ALONE_ROUNDS times over in turn."""
    return measure_rounds(url, scripts, rounds=ALONE_ROUNDS, seconds=seconds, connections=1)


def report_misses(out, rows: list[tuple[str, dict[str, list[float]]]]) -> None:
    """Print what a response-cache miss costs against the uncached page, beside one cache
    round trip. Each row: (name, median latencies in ms of rounds, by kind): "alone
    uncached" and "alone miss" with one connection (what one reader waits for; measured in
    the same server, in alternating rounds, the uncached page asked for by a request the
    cache must not answer), "loaded uncached" and "loaded miss" under the benchmark's load
    (where every millisecond a request adds is multiplied by the queue). The spread of the
    uncached rounds is the noise floor of the comparison."""
    trip = cache_round_trip_ms()
    header = (
        f"{'':<22}{'one reader at a time':^40}  {'under load':^30}\n"
        f"{'':<22}{'uncached':>10}{'miss':>10}{'extra':>10}{'noise':>10}  "
        f"{'uncached':>10}{'miss':>10}{'extra':>10}"
    )
    out.write(
        f"\ncache misses against the uncached pages, median ms of rounds (one cache round "
        f"trip here: {trip:.2f} ms; a miss is the page, that read, and a write once the "
        f"response is sent; noise: the spread of the uncached rounds)\n{header}"
    )
    over, noisy = [], []
    for name, ms in rows:
        uncached, miss = (statistics.median(ms[k]) for k in ("alone uncached", "alone miss"))
        noise = max(ms["alone uncached"]) - min(ms["alone uncached"])
        loaded = [statistics.median(ms[k]) for k in ("loaded uncached", "loaded miss")]
        extra = miss - uncached
        verdict = ""
        if extra > trip + noise:
            over.append(name)
            verdict = "  MORE than a round trip, beyond the noise"
        elif extra > trip:
            noisy.append(name)
            verdict = "  more than a round trip, within the noise"
        out.write(
            f"{name:<22}{uncached:>10.2f}{miss:>10.2f}{extra:>10.2f}{noise:>10.2f}  "
            f"{loaded[0]:>10.2f}{loaded[1]:>10.2f}{loaded[1] - loaded[0]:>10.2f}{verdict}"
        )
    verdict = "met" if not over and not noisy else ""
    if noisy:
        verdict = f"within the noise for {', '.join(noisy)}"
    if over:
        verdict = f"not met: {', '.join(over)}" + (f"; {verdict}" if noisy else "")
    out.write(
        "target: a miss costs a reader no more than the uncached page plus one cache round "
        f"trip ({verdict})"
    )
