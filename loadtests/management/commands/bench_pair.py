"""Two trees of the site side by side: the pages and the API of an earlier commit (--before,
a checkout of it) against this tree's, each served by its own gunicorn on its own copy of the
seed_scale catalog in the same PostgreSQL server, loaded with wrk in alternating rounds (before
then after, after then before, ...). Prints each page's requests/s in both trees and the median
of the rounds' paired ratios (after ÷ before, their range beside it), with the trivial view's
own paired ratio as the noise floor: a change smaller than its spread is not one this machine
can show. Beside them, the CPU a request cost in each tree's gunicorn workers and in the
database server (medians of the rounds): a ratio the noise hides, or one that moved between
runs, is told apart by where the time went. Before the rounds, each page is loaded on each tree
for --warmup seconds (5), so that the rounds compare warm trees: a page's first visits make
what a tree holds (a comparison's sides), which `make bench-load`'s cold start measures.

Run by `make bench-pair BEFORE=<commit>` inside the embedded PostgreSQL of var/bench-web/ (this
tree's catalog, built by bench_web if missing). The earlier tree's catalog is a database of its
commit (`bench_before_<first ten hex digits>`) in the same server, built by that tree's own
migrations and seed_scale (the same seed: the same drives, runs and results) and kept for the
next run of the same commit.
"""

from __future__ import annotations

import os
import random
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import psycopg
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError

from drives.models import Drive
from loadtests.appserver import AppServer, prepare
from loadtests.loadrig import CpuMeter, database_server_pids, get_rotation, run_wrk, write_script
from loadtests.management.commands import bench_api, bench_web

# The earlier tree's catalog: a database of its own for each commit (the fixed reference and
# the tree before an issue are both kept), named by its first ten hex digits.
BEFORE_DATABASE = "bench_before_{revision}"
ANALYZED = ("results_leaderboardentry", "drives_drive", "drives_price", "results_result")
TARGET = 0.85  # the bar: no page more than 15% below the tree before


def _database_url(url: str, name: str) -> str:
    parts = urlsplit(url)
    return urlunsplit(parts._replace(path=f"/{name}"))


def _revision(tree: Path) -> str:
    return subprocess.run(
        ["git", "-C", str(tree), "rev-parse", "HEAD"], capture_output=True, text=True, check=True
    ).stdout.strip()


class Command(BaseCommand):
    help = __doc__

    def add_arguments(self, parser):
        parser.add_argument("--before", required=True, help="a checkout of the earlier tree")
        parser.add_argument("--seconds", type=float, default=4.0, help="length of one wrk run")
        parser.add_argument("--rounds", type=int, default=7, help="paired rounds of every page")
        parser.add_argument("--connections", type=int, default=8)
        parser.add_argument("--workers", type=int, default=2, help="gunicorn workers a tree")
        parser.add_argument("--seed", type=int, default=7)
        parser.add_argument(
            "--warmup", type=float, default=5.0, help="seconds of each page on each tree first"
        )

    def handle(self, *args, **opts):
        before_tree = Path(opts["before"]).resolve()
        if not (before_tree / "manage.py").exists():
            raise CommandError(f"{before_tree} is not a checkout of the site")
        if Drive.objects.filter(synthetic=True).count() < bench_web.SCALE_DRIVES:
            call_command("seed_scale", stdout=self.stdout)
        after_url = os.environ["DATABASE_URL"]
        before_database = BEFORE_DATABASE.format(revision=_revision(before_tree)[:10])
        before_url = _database_url(after_url, before_database)
        self.build_before(before_tree, after_url, before_database)
        for url in (after_url, before_url):
            with psycopg.connect(url, autocommit=True) as conn:
                for table in ANALYZED:
                    conn.execute(f"VACUUM (ANALYZE) {table}")
        rng = random.Random(opts["seed"])
        pages = {p.name: p.paths for p in bench_web.Command().pages(rng)}
        pages.pop("healthz")
        # Trees before the compare of more than two drives (issue 34) have no such page.
        pages.pop("compare, 4 drives")
        families = bench_api.api_paths(random.Random(opts["seed"]))
        pages.update({f"API {name}": paths for name, paths in families.items()})
        secret = "bench-pair-only-" + os.urandom(16).hex()
        trees = {"before": (before_tree, before_url), "after": (None, after_url)}
        with tempfile.TemporaryDirectory(prefix="bench-pair-") as tmp:
            folder = Path(tmp)
            scripts = {
                name: write_script(folder / f"{n}.lua", get_rotation(paths))
                for n, (name, paths) in enumerate(pages.items())
            }
            servers = {}
            try:
                for key, (root, url) in trees.items():
                    env = {
                        "DATABASE_URL": url,
                        "DJANGO_SETTINGS_MODULE": "benchsite.settings.bench",
                        "DJANGO_SECRET_KEY": secret,
                        "BENCH_RESPONSE_CACHE": "0",
                    }
                    prepare(env, root=root)
                    servers[key] = AppServer(
                        env=env, log=folder / f"{key}.log", workers=opts["workers"], root=root
                    )
                    servers[key].start()
                runs = self.measure(servers, scripts, opts)
            finally:
                for server in servers.values():
                    server.stop()
        self.report(runs, before=_revision(before_tree), opts=opts)

    def build_before(self, tree: Path, after_url: str, database: str) -> None:
        """The earlier tree's catalog, built by its own code unless it is there already for
        the same commit (the database's comment names it)."""
        revision = _revision(tree)
        with psycopg.connect(_database_url(after_url, "postgres"), autocommit=True) as conn:
            row = conn.execute(
                "SELECT shobj_description(oid, 'pg_database') FROM pg_database WHERE datname = %s",
                [database],
            ).fetchone()
            if row is not None and row[0] == revision:
                return
            self.stdout.write(f"building the catalog of {revision[:10]} in {database}")
            conn.execute(f"DROP DATABASE IF EXISTS {database}")
            conn.execute(f"CREATE DATABASE {database}")
        env = {
            **{k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "DATABASE_"))},
            "DATABASE_URL": _database_url(after_url, database),
            "DJANGO_SETTINGS_MODULE": "benchsite.settings.dev",
        }
        for command in (["migrate", "--noinput", "-v0"], ["seed_scale"]):
            subprocess.run([sys.executable, "manage.py", *command], cwd=tree, env=env, check=True)
        with psycopg.connect(_database_url(after_url, "postgres"), autocommit=True) as conn:
            conn.execute(f"COMMENT ON DATABASE {database} IS '{revision}'")

    def measure(self, servers: dict[str, AppServer], scripts: dict[str, Path], opts):
        """Every page on both trees, round after round, the order of the two alternating."""
        options = {"connections": opts["connections"]}
        meters = {
            key: CpuMeter(server.worker_pids, database_server_pids)
            for key, server in servers.items()
        }
        # What a tree holds once warm is made by its first requests of each page (a
        # comparison's sides are read, built, and kept in the shared cache once asked for
        # again in a worker): the rounds measure a request of a warm tree, as deployed after
        # its first minutes. The first visits' own cost is bench-load's cold start.
        for server in servers.values():
            for script in scripts.values():
                run_wrk(server.url, script, seconds=opts["warmup"], **options)
        runs = {name: {key: [] for key in servers} for name in scripts}
        for n in range(opts["rounds"]):
            order = list(servers) if n % 2 == 0 else list(servers)[::-1]
            for name, script in scripts.items():
                for key in order:
                    url, meter = servers[key].url, meters[key]
                    result = run_wrk(url, script, seconds=opts["seconds"], meter=meter, **options)
                    if result.failures:
                        raise CommandError(f"{name} on the {key} tree: {result.failures} failed")
                    runs[name][key].append(result)
            self.stdout.write(f"round {n + 1} of {opts['rounds']} done")
        return runs

    def report(self, runs: dict, *, before: str, opts) -> None:
        rates = {
            name: {key: [r.rate for r in results] for key, results in by_tree.items()}
            for name, by_tree in runs.items()
        }
        trivial = rates["trivial view"]
        header = (
            f"{'page':<20}{'before r/s':>11}{'after r/s':>11}{'after÷before':>14}"
            f"{'rounds':>14}{'x trivial b':>13}{'x trivial a':>13}"
            f"{'worker ms b':>13}{'worker ms a':>13}{'db ms b':>9}{'db ms a':>9}"
        )
        self.stdout.write(f"\nbefore: {before[:10]}; after: this tree\n{header}")
        self.stdout.write("-" * len(header))
        noise = [a / b for a, b in zip(trivial["after"], trivial["before"], strict=True)]
        for name, by_tree in rates.items():
            paired = [a / b for a, b in zip(by_tree["after"], by_tree["before"], strict=True)]
            ratio = statistics.median(paired)
            x_trivial = [
                statistics.median(r / t for r, t in zip(by_tree[k], trivial[k], strict=True))
                for k in ("before", "after")
            ]
            cpu = {
                part: [
                    statistics.median(getattr(r, f"{part}_cpu_ms") for r in runs[name][k])
                    for k in ("before", "after")
                ]
                for part in ("worker", "database")
            }
            verdict = "  BELOW" if name != "trivial view" and ratio < TARGET else ""
            self.stdout.write(
                f"{name:<20}{statistics.median(by_tree['before']):>11.0f}"
                f"{statistics.median(by_tree['after']):>11.0f}{ratio:>14.2f}"
                f"{f'{min(paired):.2f}-{max(paired):.2f}':>14}"
                f"{x_trivial[0]:>13.3f}{x_trivial[1]:>13.3f}"
                f"{cpu['worker'][0]:>13.2f}{cpu['worker'][1]:>13.2f}"
                f"{cpu['database'][0]:>9.2f}{cpu['database'][1]:>9.2f}{verdict}"
            )
        self.stdout.write(
            f"\nmedians of {opts['rounds']} paired rounds of {opts['seconds']:g} s, "
            f"{opts['connections']} connections, {opts['workers']} workers a tree; "
            f"noise floor: the trivial view's own after÷before spans "
            f"{min(noise):.2f}-{max(noise):.2f}; bar: {TARGET}; worker and db ms: CPU a "
            f"request in the tree's gunicorn workers and in the database server"
        )
