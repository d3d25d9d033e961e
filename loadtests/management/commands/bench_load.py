"""The production server under load: 64 connections for 60 s over a mix of the compare page,
leaderboards, the value page, the drive list API and the compare API, each family driven by
its own wrk process at once (so each has its own latency figures), against the seed_scale
catalog. Prints requests/s, p50 and p99 latency per family and the count of non-2xx
responses and socket errors: zero is the bar. With --uploads, reviewers upload documents
(each distinct, with its own Idempotency-Key) through the API during the same mix, and the
upload latency is printed with it.

Then where the tail goes: each family's p99 and p99.9 with the split of the requests at or
beyond them (queued for a worker, in Django, in the database, stalled reading an in-process
copy again or waiting on a lock), from the server's own log (loadtests/request_timing.py,
the client's send time from the X-Request-Start the wrk scripts stamp) and PostgreSQL's
lock waits sampled meanwhile (loadtests/tail.py); and what the workers were doing while the
slowest reads waited. The worker model is benchsite/gunicorn.conf.py's; --worker-class,
--threads, --workers (and --gunicorn, any other of gunicorn's settings as its command line
writes them) measure another.

Before the run, the cold start: every read path asked for once, --connections at a time
(loadtests.loadrig.first_visits), each family's p50, p99 and slowest first visit printed
apart. A run starts under its own address, so no page of an earlier one is kept: the first
visits make the pages the run then finds, as a deployment's first readers make them. The
run's tables are of what the site does after them, with uploads moving what they touch;
--cold (`make bench-load COLD=1`) measures from no page kept instead, the cold start inside
the run, set apart in a table of its own.

Run by `make bench-load` (and `make bench-load UPLOADS=1`) inside the embedded PostgreSQL
holding the seed_scale catalog (var/bench-web/, shared with bench-web). The server runs the
production settings — response cache on, as deployed — with synthetic drives served as real
(benchsite.settings.bench) and the worker count gunicorn.conf.py picks for this machine.

--shape says which shape is measured: `serve`, `make serve`'s (gunicorn alone, the cache in
PostgreSQL); `deployed`, the shape docs/deploy.md recommends beyond one machine
(loadtests/deployed.py: nginx with deploy/nginx.conf and TLS in front, Redis for the cache, a
streaming read replica taking the page and API reads); `both`, one after the other, each
with its own tables, then side by side. The same workers, mix and tables in every shape.
"""

from __future__ import annotations

import contextlib
import json
import os
import random
import runpy
import signal
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlencode

from django.contrib.auth.models import User
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError
from django.db import connection

from benchsite.serve import GUNICORN_CONFIG
from drives.models import Drive
from loadtests import deployed
from loadtests.appserver import ROOT, AppServer, prepare
from loadtests.loadrig import (
    WrkMissing,
    WrkResult,
    first_visits,
    get_rotation,
    post_distinct,
    request_once,
    run_wrk_together,
)
from loadtests.loadrig import write_script as script_file
from loadtests.tail import (
    LockSampler,
    Log,
    percentile,
    print_cold_start,
    print_first_visits,
    print_tails,
    print_workers,
    read_log,
)
from results.models import LeaderboardEntry, Run, Test
from results.services import reviewer_token_issue, runs_delete

SCALE_DRIVES = 10_000
PATHS_PER_FAMILY = 300
UPLOAD_DOCUMENT = ROOT / "demo" / "measured" / "consistency-file.json"
PLACEHOLDER = "@@UPLOAD@@"
UPLOADS_PATH = "/api/v1/runs/"
# Vacuumed and analyzed before each shape is measured.
SETTLED = (
    "results_run",
    "results_result",
    "results_consistencyseries",
    "results_leaderboardentry",
    "drives_drive",
    "drives_price",
)
REVIEWER = "bench-load-reviewer"
SHAPES = {"serve": ["serve"], "deployed": ["deployed"], "both": ["serve", "deployed"]}


@dataclass
class Measured:
    """One shape's run: wrk's figures per family and the server's log."""

    shape: str
    results: dict[str, WrkResult]
    log: Log
    load: tuple[float, float]  # the 1-minute load average before and after
    first_failures: int = 0  # first visits (the cold start, before the run) not answered 2xx


def _families(rng: random.Random) -> dict[str, list[str]]:
    """The paths of each URL family, drawn from the catalog so that requests vary."""
    ranked = list(LeaderboardEntry.objects.values_list("drive__slug", flat=True).distinct())
    if len(ranked) < 2:
        raise CommandError("the catalog has fewer than two ranked drives: run seed_scale")
    tests = list(
        Test.objects.filter(kind=Test.Kind.THROUGHPUT).values_list("identifier", flat=True)
    )
    four_k = list(
        Test.objects.filter(kind=Test.Kind.THROUGHPUT, block_size=4096).values_list(
            "identifier", flat=True
        )
    )
    interfaces = list(Drive.objects.values_list("interface", flat=True).distinct())
    pairs = [rng.sample(ranked, 2) for _ in range(PATHS_PER_FAMILY)]
    filters = [{}, {"pattern": "incompressible"}, {"kind": "ssd"}, {"cell_type": "mlc"}]
    return {
        "compare page": [f"/bench/compare/{a}/{b}/" for a, b in pairs],
        "leaderboard": [
            f"/bench/tests/{rng.choice(tests)}/?{urlencode(rng.choice(filters))}"
            for _ in range(PATHS_PER_FAMILY)
        ],
        "value page": [
            f"/bench/value/?{urlencode({'test': rng.choice(four_k), **rng.choice(filters)})}"
            for _ in range(PATHS_PER_FAMILY)
        ],
        "drives API": [
            "/api/v1/drives/?"
            + urlencode(
                {
                    "interface": rng.choice(interfaces),
                    "capacity_min": rng.choice([0, 120, 240]),
                    "ordering": rng.choice(["model", "-capacity_bytes"]),
                }
            )
            for _ in range(PATHS_PER_FAMILY)
        ],
        "compare API": [f"/api/v1/compare/{a}/{b}/" for a, b in pairs[::-1]],
    }


def family_finder(families: dict[str, list[str]]):
    """The family of a logged path (None: not the benchmark's)."""
    # As Django gives it back (get_full_path): an empty query string's "?" dropped.
    family_of = {path.removesuffix("?"): n for n, paths in families.items() for path in paths}

    def find(path: str) -> str | None:
        return family_of.get(path, "uploads" if path.startswith(UPLOADS_PATH) else None)

    return find


def _reviewer_token() -> str:
    return reviewer_token_issue(user=User.objects.get_or_create(username=REVIEWER)[0])


def _upload_headers(token: str) -> dict[str, str]:
    return {"Authorization": f"Token {token}", "Content-Type": "application/json"}


def _upload_body() -> str:
    document = json.loads(UPLOAD_DOCUMENT.read_text())
    # Distinct content per upload (the tool's command line is provenance, not a figure).
    document["tool"]["command_line"] += f" # load upload {PLACEHOLDER}"
    return json.dumps(document)


class Command(BaseCommand):
    help = __doc__

    def add_arguments(self, parser):
        parser.add_argument("--seconds", type=float, default=60.0)
        parser.add_argument("--connections", type=int, default=64)
        parser.add_argument("--uploads", action="store_true", help="reviewers upload meanwhile")
        parser.add_argument(
            "--upload-connections", type=int, default=2, help="of --connections, uploading"
        )
        parser.add_argument("--no-cache", action="store_true", help="response cache off")
        parser.add_argument("--seed", type=int, default=11)
        # The worker model: benchsite/gunicorn.conf.py's unless given (GUNICORN_CMD_ARGS).
        parser.add_argument("--worker-class", help="gunicorn's (sync, gthread)")
        parser.add_argument("--threads", type=int, help="a gthread worker's")
        parser.add_argument("--workers", type=int, help="gunicorn's worker processes")
        parser.add_argument(
            "--gunicorn", default="", metavar="ARGS", help="more gunicorn settings, as its CLI"
        )
        parser.add_argument(
            "--keep", metavar="FOLDER", help="keep the server's logs and wrk's scripts there"
        )
        parser.add_argument(
            "--shape",
            choices=list(SHAPES),
            default="serve",
            help="make serve's, docs/deploy.md's (nginx, Redis, a replica), or both in turn",
        )
        parser.add_argument(
            "--cold",
            action="store_true",
            help="measure from no page kept (the cold start inside the run), rather than after "
            "every read path has been asked for once",
        )

    def handle(self, *args, **opts):
        # A TERM (make's timeout, the launcher passing on its own) stops every server started
        # here as an error does, not the process alone.
        signal.signal(signal.SIGTERM, _terminate)
        if Drive.objects.filter(synthetic=True).count() < SCALE_DRIVES:
            self.stdout.write("building the seed_scale catalog")
            call_command("seed_scale", stdout=self.stdout)
        families = _families(random.Random(opts["seed"]))
        env = {
            "DATABASE_URL": os.environ["DATABASE_URL"],
            "DJANGO_SETTINGS_MODULE": "benchsite.settings.bench",
            "DJANGO_SECRET_KEY": "bench-load-only-" + os.urandom(16).hex(),
            "BENCH_RESPONSE_CACHE": "0" if opts["no_cache"] else "1",
        }
        # Given a replica or a Redis (the deployed shape uses them rather than its own).
        for name in ("DATABASE_REPLICA_URLS", "REDIS_URL"):
            if os.environ.get(name):
                env[name] = os.environ[name]
        # The worker model benchsite/gunicorn.conf.py picks in production, but what is given.
        config = runpy.run_path(str(GUNICORN_CONFIG))
        workers = opts["workers"] or config["workers"]
        opts["worker_class"] = opts["worker_class"] or config.get("worker_class", "sync")
        opts["threads"] = opts["threads"] or config.get("threads", 1)
        given = opts["gunicorn"]
        if opts["worker_class"] != config.get("worker_class", "sync"):
            given += f" --worker-class {opts['worker_class']}"
        if opts["threads"] != config.get("threads", 1):
            given += f" --threads {opts['threads']}"
        if given.strip():
            env["GUNICORN_CMD_ARGS"] = given.strip()
        measured = [
            self.measure(shape, env, families, opts, workers) for shape in SHAPES[opts["shape"]]
        ]
        if len(measured) > 1:
            self.compare(measured)
        self.finish(measured)

    @contextlib.contextmanager
    def serving(self, shape: str, env: dict[str, str], folder: Path, workers: int):
        """The shape started (and stopped at the end): yields (the URL wrk loads, the app
        server, the databases its requests reach by name, the deployed shape or None)."""
        if shape == "serve":
            serve_env = {
                k: v for k, v in env.items() if k not in ("DATABASE_REPLICA_URLS", "REDIS_URL")
            }
            prepare(serve_env)
            with AppServer(env=serve_env, log=folder / "gunicorn.log", workers=workers) as server:
                yield server.url, server, {"primary": env["DATABASE_URL"]}, None
            return
        try:
            with deployed.DeployedShape(env=env, folder=folder, workers=workers) as shape_:
                databases = {"primary": env["DATABASE_URL"]}
                for n, url in enumerate(shape_.replica_urls):
                    databases[f"replica {n}" if len(shape_.replica_urls) > 1 else "replica"] = url
                yield shape_.url, shape_.server, databases, shape_
        except deployed.ShapeError as error:
            raise CommandError(f"the deployed shape: {error}") from error

    def measure(self, shape: str, env, families, opts, workers: int) -> Measured:
        # Every run starts from the seeded catalog: an upload's work grows with its drive's
        # runs, and an earlier run's uploads would make this one slower than the last.
        removed = runs_delete(runs=Run.objects.filter(submitter__username=REVIEWER))
        with connection.cursor() as cursor:  # what autovacuum does after a bulk load or delete
            for table in SETTLED:
                cursor.execute(f"VACUUM (ANALYZE) {table}")
        runs_before = Run.objects.count()
        self.stdout.write(f"\n=== shape: {shape} " + "=" * 60)
        if removed:
            self.stdout.write(f"{removed} runs uploaded by earlier runs of this benchmark deleted")
        with tempfile.TemporaryDirectory(prefix=f"bench-load-{shape}-") as tmp:
            folder = Path(opts["keep"]) / shape if opts["keep"] else Path(tmp)
            folder.mkdir(parents=True, exist_ok=True)
            folder.chmod(0o755)  # nginx's workers (another user under root) write below it
            timing = folder / "timing.jsonl"
            env = {**env, "BENCH_TIMING_LOG": str(timing)}
            token = _reviewer_token() if opts["uploads"] else ""
            jobs = self.jobs(folder, families, opts, token)
            with self.serving(shape, env, folder, workers) as (url, server, databases, shape_):
                threads = f" of {opts['threads']} threads" if opts["threads"] > 1 else ""
                more = f" ({opts['gunicorn']})" if opts["gunicorn"] else ""
                self.stdout.write(
                    f"gunicorn: {workers} {opts['worker_class']} workers{threads}{more}"
                    f" on {server.url}, response cache {'off' if opts['no_cache'] else 'on'}; "
                    f"{opts['connections']} connections for {opts['seconds']:g} s to {url}"
                )
                if shape_ is not None:
                    self.stdout.write(
                        f"in front: nginx (deploy/nginx.conf, TLS) at {url}; cache: Redis at "
                        f"{shape_.redis_url}; reads: {len(shape_.replica_urls)} streaming "
                        f"replica(s), {deployed.streaming_standbys(env['DATABASE_URL'])} "
                        "streaming from the primary now"
                    )
                ready = server.wait_ready()
                self.stdout.write(
                    f"workers ready {ready:.1f} s after gunicorn listened (each reads the "
                    "in-process copies before its first request); measuring from then"
                )
                first_failures = 0
                if opts["uploads"]:
                    first_failures += self.first_upload(url, token)
                if not opts["cold"]:
                    visits, took = first_visits(url, families, connections=opts["connections"])
                    print_first_visits(self.stdout, visits, took, opts["connections"])
                    first_failures += sum(not 200 <= v.status < 300 for v in visits)
                boots = server.boots()
                samplers = [LockSampler(u) for u in databases.values()]
                for sampler in samplers:
                    sampler.start()
                before = self.counts(databases, shape_)
                load = [os.getloadavg()]
                window = [time.time()]
                try:
                    results = run_wrk_together(url, jobs, seconds=opts["seconds"])
                except WrkMissing as error:
                    raise CommandError(str(error)) from error
                finally:
                    window.append(time.time())
                    load.append(os.getloadavg())
                    for sampler in samplers:
                        sampler.stop()
                after = self.counts(databases, shape_)
                if shape_ is not None:  # while the replica still runs
                    after["lag"] = [
                        deployed.replay_lag_bytes(env["DATABASE_URL"], u)
                        for u in shape_.replica_urls
                    ]
                boots = server.boots() - boots
            samples = [s for sampler in samplers for s in sampler.samples]
            log = read_log(
                timing, family_finder(families), samples, folder / "client.tsv", since=window[0]
            )
            self.report(results, jobs, log, uploaded=Run.objects.count() - runs_before)
            self.stdout.write(
                f"load average (1, 5, 15 min) at the start {_loadavg(load[0])}, at the end "
                f"{_loadavg(load[1])} (this machine: {os.cpu_count()} CPUs)"
            )
            if shape_ is not None:
                self.report_deployed(before, after, shape_)
        print_tails(
            self.stdout, log, list(results), {name: r.p99_ms for name, r in results.items()}
        )
        if opts["cold"]:
            print_cold_start(self.stdout, log, list(results))
        print_workers(self.stdout, log, workers * opts["threads"], (window[0], window[1]))
        self.stdout.write(
            f"gunicorn workers started while measuring: {boots}; requests without "
            f"X-Request-Start: {log.unstamped}"
        )
        return Measured(shape, results, log, (load[0][0], load[1][0]), first_failures)

    def first_upload(self, url: str, token: str) -> int:
        """One upload of the run's document, through the API, before anything is measured:
        deleting the earlier runs' uploads took the reviewer's drive out of the lists
        (runs_delete), and the upload that lists it again changes the catalog, whose version
        every page depends on. The run then measures a reviewer adding runs to a listed
        drive, not the whole site's pages made again at its start. 1 when it failed, else 0."""
        body = _upload_body().replace(PLACEHOLDER, "first").encode()
        status, _ = request_once(url, UPLOADS_PATH, data=body, headers=_upload_headers(token))
        self.stdout.write(
            f"one upload before the run, listing the reviewer's drive again: {status}"
        )
        return 0 if 200 <= status < 300 else 1

    @staticmethod
    def counts(databases: dict[str, str], shape_) -> dict[str, object]:
        """What the deployed shape's parts have counted so far: each database's
        transactions, Redis's lookups."""
        found: dict[str, object] = {
            name: deployed.database_activity(url) for name, url in databases.items()
        }
        if shape_ is not None:
            found["redis"] = deployed.redis_stats(shape_.redis_url)
        return found

    def report_deployed(self, before, after, shape_) -> None:
        """Where the deployed shape's work went: the databases, Redis, nginx."""
        databases = [n for n in before if n != "redis"]
        self.stdout.write(
            "\ndatabase transactions during the run: "
            + ", ".join(f"{n} {after[n] - before[n]:,}" for n in databases)
        )
        self.stdout.write(
            "replica replay behind the primary at the end: "
            + ", ".join(f"{n:,} bytes of WAL" for n in after["lag"])
        )
        redis_before, redis_after = before["redis"], after["redis"]
        hits = redis_after["hits"] - redis_before["hits"]
        misses = redis_after["misses"] - redis_before["misses"]
        self.stdout.write(
            f"Redis: {hits:,} lookups found a key, {misses:,} did not "
            f"({hits / ((hits + misses) or 1):.0%} found); {redis_after['keys']:,} keys, "
            f"{redis_after['memory'] / 2**20:.0f} MiB, "
            f"{redis_after['evicted'] - redis_before['evicted']:,} evicted"
        )
        times = deployed.proxy_times(shape_.access_log)
        if times:
            own = [request - upstream for request, _, upstream in times]
            connect = [c for _, c, _ in times]
            self.stdout.write(
                f"nginx: {len(times):,} requests proxied; its own time beyond the app server's "
                f"answer p50 {percentile(own, 50):.1f} ms, p99 {percentile(own, 99):.1f} ms; "
                f"connecting to gunicorn p99 {percentile(connect, 99):.1f} ms, "
                f"max {max(connect):.0f} ms"
            )

    def compare(self, measured: list[Measured]) -> None:
        """The shapes side by side: wrk's rate, p50 and p99, the server log's p99.9, errors."""
        columns = f"{'req/s':>8}{'p50':>7}{'p99':>8}{'p99.9':>8}{'errors':>7}"
        width = len(columns)
        titles = [f"{m.shape}, load {m.load[0]:.1f} to {m.load[1]:.1f}" for m in measured]
        self.stdout.write(
            "\nthe shapes side by side (ms; wrk's p50 and p99, p99.9 from the server's log as "
            "in the tail table; errors: non-2xx and socket errors)\n"
            + f"{'':<14}"
            + "".join(f"  {title:^{width}}" for title in titles)
            + f"\n{'URL family':<14}"
            + f"  {columns}" * len(measured)
        )
        for name in measured[0].results:
            row = f"{name:<14}"
            for m in measured:
                r = m.results[name]
                p999 = percentile([x.latency for x in m.log.family(name)], 99.9)
                row += (
                    f"  {r.rate:>8.1f}{r.p50_ms:>7.0f}{r.p99_ms:>8.0f}{p999:>8.0f}{r.failures:>7}"
                )
            self.stdout.write(row)
        reads = [sum(r.rate for n, r in m.results.items() if n != "uploads") for m in measured]
        self.stdout.write(
            f"{'all reads':<14}" + "".join(f"  {rate:>8.1f}{'':<{width - 8}}" for rate in reads)
        )

    def jobs(self, folder: Path, families: dict[str, list[str]], opts, token: str) -> dict:
        total = opts["connections"]
        uploaders = opts["upload_connections"] if opts["uploads"] else 0
        readers = total - uploaders
        share, extra = divmod(readers, len(families))
        jobs = {}
        for n, (name, paths) in enumerate(families.items()):
            rotation = get_rotation(paths, stamp=True, client_log=folder / "client.tsv")
            script = script_file(folder / f"read-{n}.lua", rotation)
            jobs[name] = (script, share + (1 if n < extra else 0))
        if uploaders:
            source = post_distinct(
                UPLOADS_PATH,
                _upload_body(),
                PLACEHOLDER,
                {**_upload_headers(token), "Idempotency-Key": f"bench-load-{PLACEHOLDER}"},
                stamp=True,
                client_log=folder / "client.tsv",
            )
            jobs["uploads"] = (script_file(folder / "uploads.lua", source), uploaders)
        return jobs

    def report(self, results, jobs, log: Log, *, uploaded: int) -> None:
        header = (
            f"{'URL family':<14}{'conns':>6}{'req/s':>9}{'p50 ms':>9}{'p99 ms':>9}"
            f"{'requests':>10}{'non-2xx':>9}{'sock err':>9}{'server ms':>10}{'db share':>9}"
            f"{'cache hits':>11}"
        )
        self.stdout.write("\n" + header + "\n" + "-" * len(header))
        for name, result in results.items():
            mine = log.family(name)
            n = len(mine) or 1
            own = sum(r.django + r.database + r.stalled for r in mine)
            database = sum(r.database for r in mine)
            hits = sum(r.cache == "hit" for r in mine)
            self.stdout.write(
                f"{name:<14}{jobs[name][1]:>6}{result.rate:>9.1f}{result.p50_ms:>9.1f}"
                f"{result.p99_ms:>9.1f}{result.requests:>10}{result.non_2xx:>9}"
                f"{result.socket_errors:>9}{own / n:>10.2f}{database / (own or 1):>9.0%}"
                f"{hits / n:>11.0%}"
            )
        reads = [r for name, r in results.items() if name != "uploads"]
        self.stdout.write("-" * len(header))
        self.stdout.write(
            f"{'all reads':<14}{sum(jobs[n][1] for n in results if n != 'uploads'):>6}"
            f"{sum(r.rate for r in reads):>9.1f}"
        )
        if "uploads" in results:
            self.stdout.write(
                f"\nuploads: {results['uploads'].requests} sent, {uploaded} new runs stored; "
                f"upload latency p50 {results['uploads'].p50_ms:.1f} ms, "
                f"p99 {results['uploads'].p99_ms:.1f} ms"
            )
        self.stdout.write(
            "\nserver ms: mean time a request held its worker until its response was sent "
            "(the server's own log); db share: the part of it in SQL statements; cache hits: "
            "responses served from the response cache"
        )

    def finish(self, measured: list[Measured]) -> None:
        failures = sum(r.failures for m in measured for r in m.results.values())
        failures += sum(m.first_failures for m in measured)
        self.stdout.write(
            f"\nnon-2xx responses and socket errors, first visits included: {failures} (the bar: 0)"
        )
        if failures:
            raise CommandError(f"{failures} requests failed under load")


def _terminate(signum, frame) -> None:
    raise SystemExit(f"bench_load: stopped by signal {signum}")


def _loadavg(load: tuple[float, float, float]) -> str:
    return " ".join(f"{x:.2f}" for x in load)
