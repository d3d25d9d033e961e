"""Serve the site with gunicorn on loopback and load its pages with wrk, side by side with a
trivial view in the same server: requests per second, the ratio to the trivial view, median
latency, and how many drives each page considered.

Run by `make bench-web`, against the seed_scale catalog (built once in var/bench-web/ and
reused), with benchsite.settings.bench (production settings with persistent database
connections; synthetic drives count as real). Requests vary across drive pairs, tests,
filters and search words drawn from the catalog; there is no response cache.
"""

from __future__ import annotations

import os
import random
import shutil
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlencode

from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError
from django.db import connection
from django.db.models import Count
from django.test import override_settings

from drives.models import Controller, Drive
from loadtests.appserver import AppServer, prepare
from loadtests.loadrig import (
    CPU_NOTE,
    FIGURES_HEADER,
    UNCACHED_HEADERS,
    CpuMeter,
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
from results.selectors.value import value_frontier

TARGET_RATIO = 0.15
# The others: references.
TARGET_PAGES = ("compare", "compare, 4 drives", "leaderboard", "value", "picker search")
CACHED_TARGET = 0.5
CACHED_PAGES = ("compare", "leaderboard", "value")
SCALE_DRIVES = 10_000
PATHS_PER_PAGE = 200


@dataclass
class Page:
    name: str
    paths: list[str]
    considered: str = ""
    runs: list[WrkResult] = field(default_factory=list)  # its rounds under load
    errors: int = 0
    fresh: bool = False  # every request new to the response cache (its misses)
    headers: dict[str, str] = field(default_factory=dict)  # sent with every request
    alone_ms: list[float] = field(default_factory=list)  # median latency, one connection

    @property
    def medians_ms(self) -> list[float]:
        return [r.p50_ms for r in self.runs]


class Command(BaseCommand):
    help = __doc__

    def add_arguments(self, parser):
        parser.add_argument("--seconds", type=float, default=5.0, help="length of one wrk run")
        # Seven: on a shared two-core machine the median of three moved by a fifth between runs.
        parser.add_argument("--rounds", type=int, default=7, help="runs of every page")
        parser.add_argument("--connections", type=int, default=8)
        parser.add_argument("--workers", type=int, default=4, help="gunicorn workers")
        parser.add_argument("--seed", type=int, default=7)
        parser.add_argument("--cached", action="store_true", help="also with the cache on")

    def handle(self, *args, **opts):
        if shutil.which("wrk") is None:
            raise CommandError("wrk is not installed (apt-get install wrk)")
        synthetic = Drive.objects.filter(synthetic=True).count()
        if synthetic < SCALE_DRIVES:
            self.stdout.write(f"building the seed_scale catalog ({synthetic} synthetic drives)")
            call_command("seed_scale", stdout=self.stdout)
        # What autovacuum does on a live site after a bulk load: statistics for the planner,
        # and the visibility map that lets index-only scans skip the table. The small
        # catalog tables too: autovacuum leaves a table of fewer than 50 rows unanalyzed, and
        # without statistics the planner guesses one NAND type a cell type and picks a plan
        # a hundred times slower for a leaderboard filtered by it.
        with connection.cursor() as cursor:
            for table in ("results_leaderboardentry", "drives_drive", "drives_price"):
                cursor.execute(f"VACUUM (ANALYZE) {table}")
            for table in (
                "drives_manufacturer",
                "drives_controller",
                "drives_nandtype",
                "results_test",
            ):
                cursor.execute(f"ANALYZE {table}")
        rng = random.Random(opts["seed"])
        pages = self.pages(rng)
        env = {**os.environ, "DJANGO_SETTINGS_MODULE": "benchsite.settings.bench"}
        env.setdefault("DJANGO_SECRET_KEY", "bench-web-only-" + os.urandom(16).hex())
        prepare(env)  # migrate and collectstatic, as `make serve` does before gunicorn
        self.measure(pages, {**env, "BENCH_RESPONSE_CACHE": "0"}, opts)
        self.report(pages, {name: TARGET_RATIO for name in TARGET_PAGES})
        if opts["cached"]:
            self.cached(pages, {**env, "BENCH_RESPONSE_CACHE": "1"}, opts)

    def measure(
        self, pages: list[Page], env: dict[str, str], opts, alone: Sequence[Page] = ()
    ) -> None:
        """Serve the site with env and load each page in turn, rounds times over; then the
        `alone` pages with one connection (what one reader waits for)."""
        with (
            tempfile.TemporaryDirectory() as tmp,
            AppServer(env=env, log=Path(tmp) / "gunicorn.log", workers=opts["workers"]) as server,
        ):
            base = server.url
            scripts = {
                page.name: write_script(
                    Path(tmp) / f"{n}.lua",
                    get_rotation(page.paths, fresh=page.fresh, headers=page.headers),
                )
                for n, page in enumerate([*pages, *alone])
            }
            self.stdout.write(
                f"\ngunicorn: {opts['workers']} workers on {base}, response cache "
                f"{'on' if env['BENCH_RESPONSE_CACHE'] == '1' else 'off'}; wrk: 2 threads, "
                f"{opts['connections']} connections, {opts['rounds']} rounds of "
                f"{opts['seconds']:g} s a page"
            )
            booted = server.boots()
            measured = measure_rounds(
                base,
                {page.name: scripts[page.name] for page in pages},
                rounds=opts["rounds"],
                seconds=opts["seconds"],
                connections=opts["connections"],
                meter=CpuMeter(server.worker_pids, database_server_pids),
            )
            self.stdout.write(restarts_text(server.boots() - booted))
            for page in pages:
                page.runs = measured[page.name]
                page.errors = sum(r.failures for r in page.runs)
            singles = measure_alone(
                base, {page.name: scripts[page.name] for page in alone}, seconds=opts["seconds"]
            )
            for page in alone:
                page.alone_ms = [r.p50_ms for r in singles[page.name]]
                page.errors += sum(r.failures for r in singles[page.name])

    def cached(self, uncached: list[Page], env: dict[str, str], opts) -> None:
        """The pages with the response cache on: hits (a few URLs, repeated) against the
        trivial view; misses (every request new to the cache) against the uncached page,
        under load and for one reader at a time (in the same server: a request carrying
        the primary-reads cookie is one the cache must not answer)."""
        cached_pages = [Page(uncached[0].name, uncached[0].paths, uncached[0].considered)]
        alone = []
        for page in uncached[1:]:
            if page.name in CACHED_PAGES:
                cached_pages.append(Page(f"{page.name} (hit)", page.paths[:20], page.considered))
                cached_pages.append(
                    Page(f"{page.name} (miss)", page.paths, page.considered, fresh=True)
                )
                alone.append(Page(f"{page.name} (uncached)", page.paths, headers=UNCACHED_HEADERS))
                alone.append(Page(f"{page.name} (miss)", page.paths, fresh=True))
        self.measure(cached_pages, env, opts, alone)
        self.report(
            [p for p in cached_pages if not p.fresh],
            {f"{name} (hit)": CACHED_TARGET for name in CACHED_PAGES},
        )
        by_name = {p.name: p for p in cached_pages}
        alone_by_name = {p.name: p for p in alone}
        report_misses(
            self.stdout,
            [
                (
                    page.name,
                    {
                        "alone uncached": alone_by_name[f"{page.name} (uncached)"].alone_ms,
                        "alone miss": alone_by_name[f"{page.name} (miss)"].alone_ms,
                        "loaded uncached": page.medians_ms,
                        "loaded miss": by_name[f"{page.name} (miss)"].medians_ms,
                    },
                )
                for page in uncached
                if page.name in CACHED_PAGES
            ],
        )
        if any(p.errors for p in alone):
            raise CommandError("some requests failed (non-2xx or socket errors)")

    def pages(self, rng: random.Random) -> list[Page]:
        """The request mix of every page, drawn from the catalog."""
        catalog = Drive.objects.count()
        with_results = list(
            LeaderboardEntry.objects.values_list("drive__slug", flat=True).distinct()
        )
        # The four-corner tests, which every tree bench_pair may compare with has: a queue-
        # depth sweep's points, the mixed test (issue 33), the latency test's QD1 points
        # (suite lat-2026) and the response-time curves (curve-2026) are not in earlier
        # catalogs.
        tests = list(
            Test.objects.filter(kind=Test.Kind.THROUGHPUT, family="", curve="")
            .exclude(operation=Test.Operation.MIXED)
            .exclude(identifier__endswith="-qd1-lat")
        )
        controllers = list(Controller.objects.values_list("slug", flat=True))
        pairs = [rng.sample(with_results, 2) for _ in range(PATHS_PER_PAGE)]
        compare = [
            f"/bench/compare/{a}/{b}/"
            + rng.choice(["", "", "?scale=linear", "?view=steady", "?scale=linear&view=steady"])
            for a, b in pairs
        ]
        fours = [
            "/bench/compare/{}/{}/{}/{}/".format(*rng.sample(with_results, 4))
            + rng.choice(["", "", "?scale=linear", "?view=steady"])
            for _ in range(PATHS_PER_PAGE)
        ]
        filter_choices = [
            {},
            {},
            {"pattern": "incompressible"},
            {"kind": "ssd"},
            {"interface": "sata-6g"},
            {"cell_type": "mlc"},
            {"capacity_min": "240", "capacity_max": "512"},
            {"source": "measured"},
            {"metric": "latency"},
            {"page": "3"},
        ]
        boards, board_counts = [], []
        for _ in range(PATHS_PER_PAGE):
            test = rng.choice(tests)
            query = dict(rng.choice(filter_choices))
            if rng.random() < 0.2:
                query["controller"] = rng.choice(controllers)
            if rng.random() < 0.2:
                query["highlight"] = rng.choice(with_results)
            boards.append(f"/bench/tests/{test.identifier}/?{urlencode(query)}")
        for path in boards[:20]:
            identifier = path.split("/")[3]
            board_counts.append(
                LeaderboardEntry.objects.filter(test__identifier=identifier).aggregate(
                    n=Count("drive_id", distinct=True)
                )["n"]
            )
        four_k = [t for t in tests if t.block_size == 4096]
        value, value_counts = [], []
        for _ in range(PATHS_PER_PAGE):
            query = {"test": rng.choice(four_k).identifier}
            query.update(rng.choice(filter_choices[:8]))
            if rng.random() < 0.3:
                query["as_of"] = rng.choice(["2025-06-01", "2026-01-01"])
            value.append(f"/bench/value/?{urlencode(query)}")
        # Counted as the served pages count (benchsite.settings.bench shows synthetic drives).
        with override_settings(BENCH_SHOW_SYNTHETIC=True):
            for test in four_k:
                value_counts.append(value_frontier(test=test, sample=1).considered)
        names = list(Drive.objects.values_list("model", flat=True)[:5000])
        words = []
        for _ in range(PATHS_PER_PAGE):
            name = rng.choice(names).split()
            word = rng.choice(name)
            words.append(word[: rng.randint(3, max(3, len(word)))])
        search = [
            f"/bench/compare/pick/?{urlencode({'side': 'a', 'a': w, 'target': 'compare'})}"
            for w in words
        ]
        return [
            Page("trivial view", ["/bench-trivial/"], "—"),
            Page(
                "compare",
                compare,
                f"2 of {len(with_results):,} drives with results ({catalog:,} in the catalog)",
            ),
            Page(
                "compare, 4 drives",
                fours,
                f"4 of {len(with_results):,} drives with results ({catalog:,} in the catalog)",
            ),
            Page(
                "leaderboard",
                boards,
                f"ranks among {min(board_counts):,}-{max(board_counts):,} drives a test",
            ),
            Page(
                "value",
                value,
                f"prices and ranks {min(value_counts):,}-{max(value_counts):,} drives a test",
            ),
            Page("picker search", search, f"searches {catalog:,} drives"),
            Page("healthz", ["/healthz"], "reference: one SELECT 1, no template"),
            Page(
                "catalog home",
                ["/", *(f"/?{urlencode({'q': w})}" for w in words[:50])],
                f"reference: the page that was 0.05x before this work; {catalog:,} drives",
            ),
        ]

    def report(self, pages: list[Page], targets: dict[str, float]) -> None:
        reference = [r.rate for r in pages[0].runs]
        self.stdout.write("")
        header = f"{'page':<15}{FIGURES_HEADER}{'errors':>8}  drives considered"
        self.stdout.write(header)
        self.stdout.write("-" * len(header))
        for page in pages:
            columns, ratio = figures(page.runs, reference)
            target = targets.get(page.name)
            verdict = f"  BELOW {target}x" if target and ratio < target else ""
            self.stdout.write(
                f"{page.name:<15}{columns}{page.errors:>8}  {page.considered}{verdict}"
            )
        self.stdout.write(
            f"\nreq/s and latency: medians of {len(reference)} rounds; x trivial: the median "
            "of each round's ratio to the trivial view's (rounds: their range); target: "
            f"{', '.join(sorted(set(f'{t}x' for t in targets.values())))} of the trivial view"
            f"\n{CPU_NOTE}\n{noise_floor(reference)}"
        )
        if any(p.errors for p in pages):
            raise CommandError("some requests failed (non-2xx or socket errors)")
