"""Where the tail goes, for bench_load: each request's latency split into the time it waited
for a worker (queued), its own time in Django, in the database and stalled (reading an
in-process copy again, waiting on a PostgreSQL lock), from the server's log
(loadtests/request_timing.py) and PostgreSQL's own account of lock waits (LockSampler);
and what the workers were doing while the slowest requests waited.

    sampler = LockSampler(database_url); sampler.start()
    ... the load ...
    sampler.stop()
    served = read_log(log, family_of, sampler.samples)
    print_tails(out, served)
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import orjson
import psycopg

from loadtests.loadrig import Visit

LOCK_SAMPLE_S = 0.01

# A backend waiting on a heavyweight lock (a row, a transaction, an advisory lock, a
# relation), not a lightweight one (LWLock: buffer mappings, WAL insertion), nor I/O.
_LOCK_WAITS_SQL = (
    "SELECT pid, wait_event FROM pg_stat_activity "
    "WHERE wait_event_type = 'Lock' AND pid <> pg_backend_pid()"
)


class LockSampler:
    """PostgreSQL's backends waiting on a lock, read every LOCK_SAMPLE_S from
    pg_stat_activity in a thread of its own, each sample weighted by the time since the
    previous one: a backend's lock wait in a window is the weight of its samples there
    (to within a sample)."""

    def __init__(self, database_url: str, interval: float = LOCK_SAMPLE_S):
        self.url, self.interval = database_url, interval
        self.samples: list[tuple[float, float, int, str]] = []  # (at, weight, pid, event)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="lock-sampler", daemon=True)

    def _run(self) -> None:
        with psycopg.connect(self.url, autocommit=True) as conn:
            previous = time.time()
            while not self._stop.is_set():
                rows = conn.execute(_LOCK_WAITS_SQL).fetchall()
                now = time.time()
                weight = now - previous
                previous = now
                self.samples.extend((now, weight, pid, event) for pid, event in rows)
                self._stop.wait(self.interval)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join()


class LockWaits:
    """Lock-wait samples by backend, to sum over a window."""

    def __init__(self, samples: Iterable[tuple[float, float, int, str]]):
        by_backend: dict[int, list[tuple[float, float]]] = {}
        for at, weight, pid, _event in samples:
            by_backend.setdefault(pid, []).append((at, weight))
        self.at = {pid: np.array([a for a, _ in s]) for pid, s in by_backend.items()}
        self.weight = {pid: np.array([w for _, w in s]) for pid, s in by_backend.items()}

    def seconds(self, backends: Iterable[int], start: float, end: float) -> float:
        total = 0.0
        for pid in backends:
            at = self.at.get(pid)
            if at is not None:
                inside = (at >= start) & (at <= end)
                total += float(self.weight[pid][inside].sum())
        return total


@dataclass
class Served:
    """One request as the server saw it, split (ms): latency = queued + django + database +
    stalled (copies + locks); after = the worker's time once the response was sent."""

    family: str
    path: str
    client: float  # when sent (epoch s)
    start: float
    sent: float
    queued: float
    django: float
    database: float
    copies: float
    locks: float
    after: float
    after_locks: float
    cache: str
    status: int
    worker: int
    client_ms: float | None = None  # what the client measured (None: no line of its own)

    @property
    def stalled(self) -> float:
        return self.copies + self.locks

    @property
    def served(self) -> float:
        """From the client's send to the response sent, as the server saw it."""
        return self.queued + self.django + self.database + self.stalled

    @property
    def unaccounted(self) -> float:
        """What the client waited beyond what the server accounts for (reading the
        response, the client's own scheduling): negative when it read the response before
        the server's close."""
        return self.client_ms - self.served if self.client_ms is not None else 0.0

    @property
    def latency(self) -> float:
        """What the client waited (the server's account where the client has none)."""
        return self.client_ms if self.client_ms is not None else self.served

    @property
    def end(self) -> float:
        return self.sent + self.after / 1e3


@dataclass
class Stall:
    """A worker's stall outside any request (a copy read at its start)."""

    what: str
    start: float
    ms: float
    worker: int


@dataclass
class Log:
    requests: list[Served] = field(default_factory=list)
    stalls: list[Stall] = field(default_factory=list)
    unstamped: int = 0  # requests without X-Request-Start (not in the split)

    def family(self, name: str) -> list[Served]:
        return [r for r in self.requests if r.family == name]

    def reads(self) -> list[Served]:
        """Every request but the uploads."""
        return [r for r in self.requests if r.family != "uploads"]


def read_client_log(path: Path | None) -> dict[str, float]:
    """The client's lines (loadtests.loadrig's client_log): its latency (ms) by stamp."""
    found = {}
    for line in path.read_text().splitlines() if path and path.exists() else []:
        stamp, read, _status = line.split("\t")
        sent = float(stamp.removeprefix("t="))
        found[stamp] = (float(read) - sent) * 1e3
    return found


def read_log(
    path: Path,
    family_of: Callable[[str], str | None],
    samples=(),
    client_log: Path | None = None,
    since: float | None = None,
) -> Log:
    """The server's log, each request of a named family split; lock waits from the
    sampler's samples, by the request's backends, during its own time and after it; the
    client's latency from its own log, by the request's stamp. `since`: only the requests
    sent from then on, and the stalls begun from then on (a run after its first visits)."""
    waits = LockWaits(samples)
    client = read_client_log(client_log)
    log = Log()
    for line in path.read_bytes().splitlines() if path.exists() else []:
        record = orjson.loads(line)
        if "stall" in record:
            if since is not None and record["start"] < since:
                continue
            log.stalls.append(
                Stall(record["stall"], record["start"], record["ms"], record["worker"])
            )
            continue
        family = family_of(record["path"])
        if family is None or "sent" not in record:
            continue
        if record["client"] is None:
            log.unstamped += 1
            continue
        if since is not None and record["client"] < since:
            continue
        start, sent = record["start"], record["sent"]
        end = sent + record["after_ms"] / 1e3
        locks = waits.seconds(record["backends"], start, sent) * 1e3
        after_locks = waits.seconds(record["backends"], sent, end) * 1e3
        own = (sent - start) * 1e3
        copies = record["copy_ms"]
        database = max(record["db_ms"] - locks, 0.0)  # a wait inside a statement is the lock's
        log.requests.append(
            Served(
                family=family,
                path=record["path"],
                client=record["client"],
                start=start,
                sent=sent,
                queued=max((start - record["client"]) * 1e3, 0.0),
                django=max(own - database - copies - locks, 0.0),
                database=database,
                copies=copies,
                locks=locks,
                after=record["after_ms"],
                after_locks=after_locks,
                cache=record["cache"],
                status=record["status"],
                worker=record["worker"],
                client_ms=client.get(record["stamp"]),
            )
        )
    return log


def percentile(values: list[float], q: float) -> float:
    """The nearest-rank percentile q (0-100) of values (NaN for none)."""
    if not values:
        return math.nan
    ordered = sorted(values)
    return ordered[max(math.ceil(q / 100 * len(ordered)) - 1, 0)]


def tail(requests: list[Served], q: float) -> tuple[float, list[Served]]:
    """The latency at percentile q, and the requests at or beyond it (the slowest)."""
    at = percentile([r.latency for r in requests], q)
    return at, [r for r in requests if r.latency >= at]


SPLIT = ("queued", "django", "database", "stalled", "unaccounted")


def split(requests: list[Served]) -> dict[str, float]:
    """The mean of each part (ms) over these requests."""
    n = len(requests) or 1
    return {part: sum(getattr(r, part) for r in requests) / n for part in SPLIT}


# What a worker can be doing: its requests' own time by kind, the copies it reads again,
# and its work once a response is sent.
ACTIVITIES = ("reads", "uploads", "copies", "after response")


def activities(log: Log) -> dict[str, list[tuple[float, float]]]:
    """Every (start, end) of each activity of the workers, from the log."""
    made: dict[str, list[tuple[float, float]]] = {name: [] for name in ACTIVITIES}
    for r in log.requests:
        # A request's copy reads are at some point in its own time: counted apart from it,
        # their length taken from its start (where a page reads them, before its rows).
        own_start = r.start + r.copies / 1e3
        if r.copies:
            made["copies"].append((r.start, own_start))
        made["uploads" if r.family == "uploads" else "reads"].append((own_start, r.sent))
        made["after response"].append((r.sent, r.end))
    for s in log.stalls:
        made["copies"].append((s.start, s.start + s.ms / 1e3))
    return made


def occupancy(
    windows: list[tuple[float, float]], busy: dict[str, list[tuple[float, float]]]
) -> dict[str, float]:
    """For each activity, the mean number of workers in it over these windows (the total
    overlap divided by the windows' total length)."""
    length = sum(b - a for a, b in windows) or 1.0
    starts = np.array([a for a, _ in windows])
    ends = np.array([b for _, b in windows])
    found = {}
    for name, spans in busy.items():
        if not spans:
            found[name] = 0.0
            continue
        s = np.array([a for a, _ in spans])
        e = np.array([b for _, b in spans])
        total = 0.0
        for a, b in zip(starts, ends, strict=True):
            total += float(np.clip(np.minimum(e, b) - np.maximum(s, a), 0, None).sum())
        found[name] = total / length
    return found


def print_tails(out, log: Log, families: list[str], wrk_p99: dict[str, float]) -> None:
    """The p99 and p99.9 of each family with the split of the requests at or beyond them,
    and when the slowest were sent."""
    header = (
        f"{'URL family':<14}{'served':>8}{'wrk p99':>9}{'pct':>7}{'ms':>8}{'n':>5}"
        f"{'queued':>8}{'Django':>8}{'db':>8}{'stalled':>8}{'(copies':>8}{'locks)':>7}"
        f"{'unacc.':>8}"
    )
    out.write(
        "\nthe tail, split: at each percentile of what the client waited, that latency and the "
        "mean split of the n requests at or beyond it, ms\n" + header + "\n" + "-" * len(header)
    )
    for name in families:
        mine = log.family(name)
        if not mine:
            continue
        for q in (99.0, 99.9):
            at, slowest = tail(mine, q)
            parts = split(slowest)
            copies = sum(r.copies for r in slowest) / len(slowest)
            locks = sum(r.locks for r in slowest) / len(slowest)
            lead = (
                f"{name:<14}{len(mine):>8}{wrk_p99.get(name, math.nan):>9.0f}"
                if q == 99.0
                else f"{'':<14}{'':>8}{'':>9}"
            )
            out.write(
                f"{lead}{f'p{q:g}':>7}{at:>8.0f}{len(slowest):>5}"
                + "".join(f"{parts[p]:>8.0f}" for p in SPLIT[:4])
                + f"{copies:>8.0f}{locks:>7.0f}{parts['unaccounted']:>8.0f}"
            )
    out.write(
        "served: requests in the server's log (wrk p99, the client's own figure, leaves out "
        "its latencies beyond its 10 s timeout); unacc.: what the client waited beyond the "
        "server's account (from its X-Request-Start to the response sent)"
    )
    reads = log.reads()
    if reads:
        first = min(r.client for r in reads)
        _, slowest = tail(reads, 99.0)
        by_second: dict[int, list[Served]] = {}
        for r in slowest:
            by_second.setdefault(int((r.client - first) // TIMELINE_S * TIMELINE_S), []).append(r)
        out.write(
            f"when the slowest 1% of reads were sent (s from the first; {TIMELINE_S:g} s "
            "bins): "
            + ", ".join(
                f"{at}: {len(rs)} ({min(r.latency for r in rs):.0f}-"
                f"{max(r.latency for r in rs):.0f} ms)"
                for at, rs in sorted(by_second.items())
            )
        )


TIMELINE_S = 4


def cold_start_end(log: Log) -> float | None:
    """When the cold start ends: the moment the last read path first answered had its
    response sent (every page the run asks for has been made once by then, whatever the
    response cache held at the start). None: no reads."""
    first: dict[str, float] = {}
    for r in sorted(log.reads(), key=lambda r: r.client):
        first.setdefault(r.path, r.sent)
    return max(first.values(), default=None)


def print_cold_start(out, log: Log, families: list[str]) -> None:
    """Each read family's p50 and p99 over the whole run, over the requests sent during the
    cold start (until every path had been answered once) and over those sent after it: the
    share of the tail the first visits make, apart from what the site does once warm."""
    end = cold_start_end(log)
    if end is None:
        return
    reads = log.reads()
    first = min(r.client for r in reads)
    during = [r for r in reads if r.client < end]
    paths = len({r.path for r in reads})
    out.write(
        f"\nthe cold start: every read path ({paths:,}) first answered {end - first:.1f} s "
        f"from the first read; {len(during):,} reads sent meanwhile "
        f"({len(during) / len(reads):.1%} of {len(reads):,}); "
        f"misses of the response cache then {sum(r.cache == 'miss' for r in during):,}, "
        f"after it {sum(r.cache == 'miss' for r in reads if r.client >= end):,}"
    )
    parts = ("whole run", "cold start", "after it")
    header = f"{'URL family':<14}" + "".join(f"{p + ' p50':>16}{'p99':>7}" for p in parts)
    out.write(header + f"{'p99/p50 after':>15}\n" + "-" * (len(header) + 15))
    for name in families:
        served = log.family(name) if name != "uploads" else []
        if not served:
            continue
        mine = [r.latency for r in served]
        cold = [r.latency for r in served if r.client < end]
        warm = [r.latency for r in served if r.client >= end]
        row = f"{name:<14}"
        for values in (mine, cold, warm):
            row += f"{percentile(values, 50):>16.0f}{percentile(values, 99):>7.0f}"
        ratio = percentile(warm, 99) / percentile(warm, 50) if warm else math.nan
        out.write(row + f"{ratio:>15.2f}")


def print_first_visits(out, visits: list[Visit], seconds: float, connections: int) -> None:
    """The cold start, as first visits measured it before a run: how long every read path
    took to be asked for once, the response cache's misses meanwhile, and each family's
    p50, p99 and slowest first visit, with those not answered 2xx."""
    out.write(
        f"\nthe cold start, before the run: every read path ({len(visits):,}) asked for once, "
        f"{connections} at a time, in {seconds:.1f} s; misses of the response cache "
        f"{sum(v.cache == 'miss' for v in visits):,}; the run is measured after it"
    )
    header = f"{'URL family':<14}{'paths':>7}{'p50 ms':>9}{'p99 ms':>9}{'max ms':>9}{'non-2xx':>9}"
    out.write(header + "\n" + "-" * len(header))
    for name in dict.fromkeys(v.family for v in visits):
        mine = [v for v in visits if v.family == name]
        waited = [v.ms for v in mine]
        out.write(
            f"{name:<14}{len(mine):>7}{percentile(waited, 50):>9.0f}{percentile(waited, 99):>9.0f}"
            f"{max(waited):>9.0f}{sum(not 200 <= v.status < 300 for v in mine):>9}"
        )


def print_workers(out, log: Log, workers: int, window: tuple[float, float]) -> None:
    """What the workers did while the slowest requests waited, against the whole run; and
    what they did outside requests."""
    busy = activities(log)
    whole = occupancy([window], busy)
    read_requests = log.reads()
    rows = [("the whole run", whole)]
    for q in (99.0, 99.9):
        _, slowest = tail(read_requests, q)
        waits = [(r.client, r.start) for r in slowest if r.start > r.client]
        rows.append((f"reads' p{q:g} waits", occupancy(waits, busy)))
    header = f"{'':<22}" + "".join(f"{name:>15}" for name in ACTIVITIES) + f"{'idle':>8}"
    out.write(
        f"\nworkers ({workers}) busy with each, on average, over the run and while the slowest "
        "reads (all read families) waited in the queue\n" + header + "\n" + "-" * len(header)
    )
    for label, found in rows:
        idle = workers - sum(found.values())
        out.write(
            f"{label:<22}" + "".join(f"{found[n]:>15.2f}" for n in ACTIVITIES) + f"{idle:>8.2f}"
        )
    copies_in = [r.copies for r in log.requests if r.copies]
    after = [r.after for r in log.requests]
    locked = [r.locks for r in log.requests if r.locks]
    out.write(
        f"\nstalls: copies read again {len(copies_in)} times in requests (p50 "
        f"{percentile(copies_in, 50):.0f} ms, max {max(copies_in, default=math.nan):.0f} ms, "
        f"{sum(copies_in) / 1e3:.1f} s in all) and {len(log.stalls)} times at a worker's start "
        f"({sum(s.ms for s in log.stalls) / 1e3:.1f} s); lock waits in {len(locked)} requests "
        f"({sum(locked) / 1e3:.1f} s), after responses "
        f"{sum(r.after_locks for r in log.requests) / 1e3:.1f} s; after responses (cache "
        f"writes) p99 {percentile(after, 99):.0f} ms, max {max(after, default=math.nan):.0f} ms, "
        f"{sum(after) / 1e3:.1f} s in all"
    )
