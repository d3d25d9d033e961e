"""The REST API under load beside a trivial DRF endpoint (an APIView returning {"ok": true})
in the same gunicorn server: the filtered drive list, the results list and the compare
endpoint, with filters and drive pairs drawn from the seed_scale catalog and varied across
requests, persistent database connections, no response cache. Prints requests/s, the ratio
to the trivial endpoint and median latency (medians of rounds), then the median latency of
a full-document upload through the API beside the run_ingest call alone.

With --cached the same lists and compare are also served with the response cache on
(benchsite/response_cache.py): hits (a few URLs, repeated) against the trivial endpoint,
and misses (every URL new) against the uncached figure plus one measured cache round trip.

Run by `make bench-api` (CACHED=1 for the cached mode) inside the embedded PostgreSQL
holding the seed_scale catalog (var/bench-web/, shared with bench-web).
"""

from __future__ import annotations

import json
import os
import random
import statistics
import tempfile
import time
import urllib.request
import uuid
from pathlib import Path
from urllib.parse import urlencode

from django.contrib.auth.models import User
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError
from django.db import connection

from drives.models import Drive
from loadtests.appserver import AppServer, prepare
from loadtests.loadrig import (
    CPU_NOTE,
    FIGURES_HEADER,
    UNCACHED_HEADERS,
    CpuMeter,
    WrkMissing,
    WrkResult,
    database_server_pids,
    figures,
    get_rotation,
    measure_alone,
    measure_rounds,
    noise_floor,
    report_misses,
    restarts_text,
    write_script,
)
from results.models import LeaderboardEntry, Test
from results.services import reviewer_token_issue, run_ingest
from results.synthetic import measured_document

SCALE_DRIVES = 10_000
PATHS = 300
TARGETS = {"drives list": 0.25, "results list": 0.25, "compare": 0.15}
CACHED_TARGET = 0.5
UPLOADS = 15
REVIEWER = "bench-api-reviewer"


def api_paths(rng: random.Random) -> dict[str, list[str]]:
    """The paths of each API family (drive list, results list, compare), drawn from the
    catalog so that requests vary."""
    ranked = list(LeaderboardEntry.objects.values_list("drive__slug", flat=True).distinct())
    if len(ranked) < 2:
        raise CommandError("the catalog has fewer than two ranked drives: run seed_scale")
    tests = list(
        Test.objects.filter(kind=Test.Kind.THROUGHPUT).values_list("identifier", flat=True)
    )
    interfaces = list(Drive.objects.values_list("interface", flat=True).distinct())
    words = [m.split()[0][:4] for m in Drive.objects.values_list("model", flat=True)[:2000]]
    drives = []
    for _ in range(PATHS):
        query = {
            "interface": rng.choice(interfaces),
            "capacity_min": rng.choice([0, 120, 240, 480]),
            "ordering": rng.choice(["model", "-capacity_bytes", "release_date"]),
        }
        if rng.random() < 0.3:
            query["q"] = rng.choice(words)
        if rng.random() < 0.3:
            query["cell_type"] = rng.choice(["slc", "mlc", "tlc"])
        drives.append(f"/api/v1/drives/?{urlencode(query)}")
    results = []
    for _ in range(PATHS):
        query = {"test": rng.choice(tests), "limit": 50}
        if rng.random() < 0.5:
            query["pattern"] = rng.choice(["compressible", "incompressible"])
        if rng.random() < 0.3:
            query = {"drive": rng.choice(ranked), "limit": 50}
        results.append(f"/api/v1/results/?{urlencode(query)}")
    compare = [
        f"/api/v1/compare/{a}/{b}/" for a, b in (rng.sample(ranked, 2) for _ in range(PATHS))
    ]
    return {"drives list": drives, "results list": results, "compare": compare}


class Command(BaseCommand):
    help = __doc__

    def add_arguments(self, parser):
        parser.add_argument("--seconds", type=float, default=5.0, help="length of one wrk run")
        parser.add_argument("--rounds", type=int, default=3)
        parser.add_argument("--connections", type=int, default=8)
        parser.add_argument("--workers", type=int, default=4, help="gunicorn workers")
        parser.add_argument("--cached", action="store_true", help="also with the cache on")
        parser.add_argument("--seed", type=int, default=5)

    def handle(self, *args, **opts):
        self.alone_ms: dict[str, list[float]] = {}
        if Drive.objects.filter(synthetic=True).count() < SCALE_DRIVES:
            self.stdout.write("building the seed_scale catalog")
            call_command("seed_scale", stdout=self.stdout)
        with connection.cursor() as cursor:  # what autovacuum does after a bulk load
            for table in ("results_leaderboardentry", "drives_drive", "drives_price"):
                cursor.execute(f"VACUUM (ANALYZE) {table}")
        rng = random.Random(opts["seed"])
        families = api_paths(rng)
        env = {
            "DATABASE_URL": os.environ["DATABASE_URL"],
            "DJANGO_SETTINGS_MODULE": "benchsite.settings.bench",
            "DJANGO_SECRET_KEY": "bench-api-only-" + os.urandom(16).hex(),
            "BENCH_RESPONSE_CACHE": "0",
        }
        prepare(env)
        try:
            with tempfile.TemporaryDirectory(prefix="bench-api-") as tmp:
                folder = Path(tmp)
                scripts = {"trivial DRF": ["/bench-trivial-api/"], **families}
                uncached = self.serve(folder, env, opts, scripts, uploads=True)
                self.report("uncached (the figure)", uncached, TARGETS)
                self.report_uploads()
                if opts["cached"]:
                    self.cached(folder, env, opts, families, uncached)
        except WrkMissing as error:
            raise CommandError(str(error)) from error

    def serve(
        self, folder, env, opts, paths, *, uploads=False, alone=None
    ) -> dict[str, list[WrkResult]]:
        """Load each family of paths under the server with env; then, with one connection,
        the `alone` families (name: (paths, request headers)) into self.alone_ms."""
        alone = alone or {}

        def script(name: str, urls: list[str], headers=None) -> Path:
            return write_script(
                folder / f"{len(os.listdir(folder))}.lua",
                get_rotation(urls, fresh=name.endswith("(miss)"), headers=headers),
            )

        scripts = {name: script(name, p) for name, p in paths.items()}
        singles = {name: script(name, *family) for name, family in alone.items()}
        log = folder / f"gunicorn-{env['BENCH_RESPONSE_CACHE']}.log"  # one a server
        with AppServer(env=env, log=log, workers=opts["workers"]) as server:
            self.stdout.write(
                f"\ngunicorn: {opts['workers']} workers on {server.url}, response cache "
                f"{'on' if env['BENCH_RESPONSE_CACHE'] == '1' else 'off'}; wrk: "
                f"{opts['connections']} connections, {opts['rounds']} rounds of "
                f"{opts['seconds']:g} s each"
            )
            booted = server.boots()
            results = measure_rounds(
                server.url,
                scripts,
                rounds=opts["rounds"],
                seconds=opts["seconds"],
                connections=opts["connections"],
                meter=CpuMeter(server.worker_pids, database_server_pids),
            )
            self.stdout.write(restarts_text(server.boots() - booted))
            measured = measure_alone(server.url, singles, seconds=opts["seconds"])
            for name, runs in measured.items():
                if any(r.failures for r in runs):
                    raise CommandError(f"{name}: some requests failed")
                self.alone_ms[name] = [r.p50_ms for r in runs]
            if uploads:
                self.uploads_ms = self.upload_latencies(server.url)
        return results

    def report(self, title: str, results, targets: dict[str, float]) -> None:
        reference = [r.rate for r in results["trivial DRF"]]
        header = f"{'endpoint':<22}{FIGURES_HEADER}{'errors':>8}"
        self.stdout.write(f"\n{title}\n{header}\n{'-' * len(header)}")
        for name, runs in results.items():
            columns, ratio = figures(runs, reference)
            errors = sum(r.failures for r in runs)
            target = targets.get(name)
            verdict = f"  BELOW {target}x" if target and ratio < target else ""
            self.stdout.write(f"{name:<22}{columns}{errors:>8}{verdict}")
        targets_text = ", ".join(f"{n} >= {t}x" for n, t in targets.items())
        self.stdout.write(
            f"targets: {targets_text}; req/s and latency: medians of rounds; x trivial: the "
            f"median of each round's ratio (rounds: their range)\n{CPU_NOTE}\n"
            f"{noise_floor(reference)}"
        )
        if any(sum(r.failures for r in runs) for runs in results.values()):
            raise CommandError("some requests failed (non-2xx or socket errors)")

    def upload_latencies(self, base: str) -> tuple[list[float], list[float]]:
        """Full-document uploads through the server and run_ingest called here, in turn
        (each pair a moment apart, so the machine's drift falls on both alike): the
        latencies of each, in ms."""
        token = reviewer_token_issue(user=User.objects.get_or_create(username=REVIEWER)[0])
        posted, direct = [], []
        for n in range(UPLOADS):
            body = json.dumps(measured_document(seed=n, model=f"Bench API upload {uuid.uuid4()}"))
            request = urllib.request.Request(
                f"{base}/api/v1/runs/",
                data=body.encode(),
                method="POST",
                headers={"Authorization": f"Token {token}", "Content-Type": "application/json"},
            )
            started = time.perf_counter()
            with urllib.request.urlopen(request, timeout=60) as response:
                response.read()
                if response.status != 201:
                    raise CommandError(f"upload answered {response.status}")
            posted.append((time.perf_counter() - started) * 1e3)
            body = json.dumps(measured_document(seed=n, model=f"Bench API ingest {uuid.uuid4()}"))
            started = time.perf_counter()
            run_ingest(document=body, submitter=None)
            direct.append((time.perf_counter() - started) * 1e3)
        return posted, direct

    def report_uploads(self) -> None:
        posted, direct = self.uploads_ms
        api, alone = statistics.median(posted), statistics.median(direct)
        self.stdout.write(
            f"\nfull-document upload ({UPLOADS} distinct documents, the four corners in both "
            f"patterns and two 2,000-point series; each upload followed by one run_ingest "
            f"call): POST /api/v1/runs/ {api:.1f} ms median, run_ingest alone {alone:.1f} ms "
            f"median ({api / alone:.2f}x)"
        )

    def cached(self, folder, env, opts, families, uncached) -> None:
        """Hits against the trivial endpoint; misses against the uncached endpoint, under
        load and for one reader at a time (in the same server: a request carrying the
        primary-reads cookie is one the cache must not answer)."""
        env = {**env, "BENCH_RESPONSE_CACHE": "1"}
        paths = {"trivial DRF": ["/bench-trivial-api/"]}
        alone = {}
        for name, urls in families.items():
            paths[f"{name} (hit)"] = urls[:20]
            paths[f"{name} (miss)"] = urls  # each request made new to the cache
            alone[f"{name} (uncached)"] = (urls, UNCACHED_HEADERS)
            alone[f"{name} (miss)"] = (urls, None)
        results = self.serve(folder, env, opts, paths, alone=alone)
        self.report(
            "cached: hits against the trivial endpoint",
            {k: v for k, v in results.items() if "(miss)" not in k},
            {f"{name} (hit)": CACHED_TARGET for name in families},
        )
        report_misses(
            self.stdout,
            [
                (
                    name,
                    {
                        "alone uncached": self.alone_ms[f"{name} (uncached)"],
                        "alone miss": self.alone_ms[f"{name} (miss)"],
                        "loaded uncached": [r.p50_ms for r in uncached[name]],
                        "loaded miss": [r.p50_ms for r in results[f"{name} (miss)"]],
                    },
                )
                for name in families
            ],
        )
