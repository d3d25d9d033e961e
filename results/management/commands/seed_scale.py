"""Build the synthetic catalog that benchmarks and query budgets are measured against.

Every drive is marked synthetic and every run has source "synthetic": the pages and
rankings leave them out, and `make run` never loads them. Rows go in through COPY, in one
transaction; an earlier synthetic catalog is removed first, so the command can be re-run.
"""

import hashlib
import random
import time
from itertools import product

from django.core.management.base import BaseCommand, CommandError
from django.db import connection, transaction

from drives.models import Controller, Manufacturer, NandType, catalog_key
from results.kinds.consistency import steady_state_fields
from results.kinds.throughput import result_figures
from results.models import RESULT_FIGURES, LatencyKind, Test
from results.services import leaderboard_refresh

PATTERNS = ("compressible", "incompressible", "unspecified")
REPEATS = 3  # passes of each run's tests (loadgen --repeat's default)
QUICK_EVERY = 25  # one drive in this many known only from quick runs
# The first drives (one in a hundred) have up to this many runs more than the others, so
# that pages show where each run falls among a drive's runs (drive and run pages).
EXTRA_RUNS = 4
DISTINCT_SERIES = 500  # shapes to draw consistency series from; points are generated once
MAKERS, CONTROLLERS, NAND_TYPES = 60, 40, 30
SYNTHETIC_DOCUMENT = '{"synthetic": true}'


def _copy(cursor, table: str, columns: tuple[str, ...], rows) -> int:
    count = 0
    with cursor.copy(f"COPY {table} ({', '.join(columns)}) FROM STDIN") as copy:
        for row in rows:
            copy.write_row(row)
            count += 1
    return count


def _next_id(cursor, table: str) -> int:
    cursor.execute(f"SELECT COALESCE(MAX(id), 0) + 1 FROM {table}")
    return cursor.fetchone()[0]


def _sync_sequence(cursor, table: str) -> None:
    cursor.execute(
        f"SELECT setval(pg_get_serial_sequence('{table}', 'id'), "
        f"(SELECT COALESCE(MAX(id), 1) FROM {table}))"
    )


class Command(BaseCommand):
    help = __doc__

    def add_arguments(self, parser):
        parser.add_argument("--drives", type=int, default=10_000)
        parser.add_argument("--results", type=int, default=2_000_000)
        parser.add_argument("--series", type=int, default=20_000)
        parser.add_argument("--points", type=int, default=2_000)
        parser.add_argument("--seed", type=int, default=2026)

    def log(self, started: float, message: str) -> None:
        self.stdout.write(f"[{time.monotonic() - started:6.1f} s] {message}")

    def handle(self, *args, **opts):
        drives, total_results, total_series = opts["drives"], opts["results"], opts["series"]
        if drives < 1 or total_results < 0 or total_series < 0 or opts["points"] < 1:
            raise CommandError("counts must be positive")
        # A run holds its first 20 (test, pattern) pairs: the seeds' tests, as the pages have
        # most of; the queue-depth sweeps', the curves' and the mixed test after them.
        tests = sorted(
            Test.objects.filter(kind=Test.Kind.THROUGHPUT),
            key=lambda t: (
                bool(t.family or t.curve) or t.operation == Test.Operation.MIXED,
                t.identifier,
            ),
        )
        consistency = Test.objects.get(identifier="consistency-4k-qd32")
        combos = list(product(tests, PATTERNS))
        # Each run's tests in REPEATS passes, as a full-length loadgen run has them.
        per_run = min(20, len(combos)) * REPEATS
        # Enough runs for the results, and one run for each pair of consistency series.
        run_count = max(-(-total_results // per_run), -(-total_series // 2), 1)
        rng = random.Random(opts["seed"])
        started = time.monotonic()
        # The extra runs come first, so that they hold results (a quarter of them at most).
        several = max(1, drives // 100)
        extra = min(EXTRA_RUNS * several, -(-total_results // per_run) // 4)

        def drive_of(run: int) -> int:
            """The drive (its place in the catalog) whose run this is."""
            return run % several if run < extra else (run - extra) % drives

        with transaction.atomic(), connection.cursor() as wrapper:
            cursor = wrapper.cursor
            self.log(started, "removing an earlier synthetic catalog")
            self._remove_synthetic(cursor)

            makers = Manufacturer.objects.bulk_create(
                Manufacturer(name=f"Synthetic Maker {i}", slug=f"synthetic-maker-{i}")
                for i in range(MAKERS)
            )
            controllers = Controller.objects.bulk_create(
                Controller(
                    vendor=makers[i % MAKERS],
                    model=f"SYN-{i}",
                    slug=f"synthetic-ctl-{i}",
                    channels=rng.choice((4, 8, 10)),
                    compresses_data=i % 5 == 0,
                )
                for i in range(CONTROLLERS)
            )
            nand_types = NandType.objects.bulk_create(
                NandType(
                    vendor=makers[i % MAKERS],
                    process_nm=10 + i,
                    layers=None,
                    cell_type=NandType.CellType.values[i % 4],
                    interface=NandType.Interface.values[i % 4],
                    slug=f"synthetic-nand-{i}",
                )
                for i in range(NAND_TYPES)
            )

            first_drive = _next_id(cursor, "drives_drive")
            capacities = [120, 128, 240, 256, 480, 500, 512, 960, 1000, 2000]
            interfaces = ("sata-3g", "sata-6g", "pcie-nvme")
            count = _copy(
                cursor,
                "drives_drive",
                (
                    "id",
                    "manufacturer_id",
                    "model",
                    "model_key",
                    "capacity_bytes",
                    "part_number",
                    "hardware_revision",
                    "slug",
                    "kind",
                    "interface",
                    "form_factor",
                    "controller_id",
                    "nand_id",
                    "synthetic",
                    "created_at",
                    "updated_at",
                ),
                (
                    (
                        first_drive + i,
                        makers[i % MAKERS].pk,
                        f"Synthetic {i // len(capacities)}",
                        catalog_key(f"Synthetic {i // len(capacities)}"),
                        capacities[i % len(capacities)] * 10**9,
                        "",
                        "",
                        f"synthetic-drive-{i}",
                        "hdd" if i % 17 == 0 else "ssd",
                        interfaces[i % len(interfaces)],
                        "2.5in",
                        controllers[i % CONTROLLERS].pk,
                        nand_types[i % NAND_TYPES].pk,
                        True,
                        "now",
                        "now",
                    )
                    for i in range(drives)
                ),
            )
            _sync_sequence(cursor, "drives_drive")
            self.log(started, f"{count:,} drives")

            # One to three USD prices a drive, so that value views have a whole catalog to rank.
            def price_rows():
                for i in range(drives):
                    per_gb = rng.uniform(0.05, 2.5)
                    for k in range(1 + i % 3):
                        amount = per_gb * capacities[i % len(capacities)] * (1 + 0.15 * k)
                        yield (first_drive + i, f"{amount:.2f}", "USD", f"{2026 - k}-01-15")

            count = _copy(
                cursor,
                "drives_price",
                ("drive_id", "amount", "currency", "observed_on", "source", "source_url"),
                ((*row, "synthetic price", "") for row in price_rows()),
            )
            self.log(started, f"{count:,} prices")

            first_run = _next_id(cursor, "results_run")
            count = _copy(
                cursor,
                "results_run",
                (
                    "id",
                    "drive_id",
                    "tool_name",
                    "tool_version",
                    "engine",
                    "source",
                    "citation_locator",
                    "drive_state",
                    "status",
                    "withdrawn_reason",
                    "document",
                    "content_hash",
                    "ingested_at",
                    "started_at",
                    "finished_at",
                ),
                (
                    (
                        first_run + n,
                        first_drive + drive_of(n),
                        "synthetic",
                        "",
                        "",
                        "synthetic",
                        "",
                        "unknown",
                        "published",
                        "",
                        SYNTHETIC_DOCUMENT,
                        hashlib.sha256(f"synthetic-run-{opts['seed']}-{n}".encode()).hexdigest(),
                        "now",
                        None,
                        None,
                    )
                    for n in range(extra + run_count)
                ),
            )
            _sync_sequence(cursor, "results_run")
            self.log(started, f"{count:,} runs")

            def result_rows():
                # Entries as a document would give them, stored as ingest stores them.
                scale = 1.0
                for n in range(total_results):
                    run, slot = divmod(n, per_run)
                    (test, pattern), repeat = combos[slot // REPEATS], slot % REPEATS + 1
                    if repeat == 1:
                        scale = rng.lognormvariate(0, 0.6)
                    # Each pass within a few percent of the run's figure.
                    speed = scale * rng.uniform(0.95, 1.05)
                    iops = max(1.0, 20000 * speed / (test.block_size / 4096) ** 0.7)
                    mean = test.queue_depth / iops * 1e9
                    entry = {
                        "pattern": pattern,
                        "block_size": test.block_size,
                        "queue_depth": test.queue_depth,
                        "bytes_per_second": iops * test.block_size,
                        "iops": iops,
                        "latency_ns": {"mean": mean, "max": int(mean * 30)},
                        "repeat": repeat,
                    }
                    if drive_of(run) % QUICK_EVERY == QUICK_EVERY - 1:
                        entry["duration_ns"] = 2 * 10**9  # a quick run's 2 seconds

                    figures = result_figures(entry, LatencyKind.TOTAL.value).values()
                    yield (first_run + run, test.pk, *figures)

            count = _copy(
                cursor, "results_result", ("run_id", "test_id", *RESULT_FIGURES), result_rows()
            )
            self.log(started, f"{count:,} results")

            shapes = []
            for _ in range(min(DISTINCT_SERIES, total_series) or 1):
                fresh, steady = rng.randint(30000, 90000), rng.randint(2000, 15000)
                cliff = rng.randint(opts["points"] // 20, opts["points"] // 2)
                points = [
                    rng.randint(int(fresh * 0.8), fresh)
                    if t < cliff
                    else max(0, int(rng.gauss(steady, steady * 0.3)))
                    for t in range(opts["points"])
                ]
                shapes.append((points, steady_state_fields(points, 1_000_000_000)))

            def series_rows():
                for n in range(total_series):
                    drive, level = divmod(n, 2)
                    points, steady = shapes[n % len(shapes)]
                    yield (
                        first_run + extra + drive % run_count,
                        consistency.pk,
                        25 * level,
                        "incompressible",
                        1_000_000_000,
                        points,
                        *steady.values(),
                    )

            count = _copy(
                cursor,
                "results_consistencyseries",
                (
                    "run_id",
                    "test_id",
                    "spare_area_percent",
                    "pattern",
                    "interval_ns",
                    "iops",
                    *shapes[0][1],  # the steady-state fields, as ingest writes them
                ),
                series_rows(),
            )
            self.log(started, f"{count:,} consistency series of {opts['points']:,} points")
            count = leaderboard_refresh(drive_ids=None)
            self.log(started, f"{count:,} leaderboard entries")
        with connection.cursor() as cursor:
            for table in (
                "drives_drive",
                "drives_price",
                "results_run",
                "results_result",
                "results_consistencyseries",
                "results_leaderboardentry",
            ):
                cursor.execute(f"ANALYZE {table}")
        self.log(started, "done")

    def _remove_synthetic(self, cursor) -> None:
        synthetic_runs = "SELECT id FROM results_run WHERE source = 'synthetic'"
        cursor.execute("DELETE FROM results_leaderboardentry WHERE synthetic")
        for table in ("results_result", "results_consistencyseries", "results_trimvalidation"):
            cursor.execute(f"DELETE FROM {table} WHERE run_id IN ({synthetic_runs})")
        cursor.execute("DELETE FROM results_run WHERE source = 'synthetic'")
        synthetic_drives = "SELECT id FROM drives_drive WHERE synthetic"
        cursor.execute(f"DELETE FROM drives_price WHERE drive_id IN ({synthetic_drives})")
        cursor.execute("DELETE FROM drives_drive WHERE synthetic")
        for model, prefix in (
            (Controller, "synthetic-ctl-"),
            (NandType, "synthetic-nand-"),
            (Manufacturer, "synthetic-maker-"),
        ):
            model.objects.filter(slug__startswith=prefix).delete()
