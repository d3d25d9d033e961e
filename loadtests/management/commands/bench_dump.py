"""The open-data dump of a seed_scale catalog: how long it takes, how large it is, and the
memory it holds while it streams the rows (results/dumps.py writes them batch by batch).

`make bench-dump` runs it on two catalogs: 1,000 drives (200,000 results) built in a
throw-away database, then the 10,000-drive catalog (2,000,000 results, built once in
var/bench-web/ as make bench-web builds it). A dump that streams holds about the same memory
for either; one that held a table would hold ten times as much for the larger. The synthetic
drives are counted as real, as the other benchmarks count them.

Memory is the process's resident set (Linux's /proc/self/status), its high-water mark reset
(/proc/self/clear_refs) as the dump and each of its tables begin: what the dump took beyond
what the process held before it, table by table."""

import gc
import shutil
import tempfile
import time
from pathlib import Path

from django.core.management import call_command
from django.core.management.base import BaseCommand
from django.test import override_settings

from drives.models import Drive
from loadtests.management.commands.bench_web import SCALE_DRIVES
from results.dumps import Streaming, dump_publish

RESULTS_PER_DRIVE = 200  # seed_scale's own proportions: 2,000,000 results, 20,000 series
SERIES_PER_DRIVE = 2


def _status_kib(field: str) -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(f"{field}:"):
            return int(line.split()[1])
    raise RuntimeError(f"/proc/self/status has no {field}")


def _reset_peak() -> None:
    """The resident set's high-water mark (VmHWM) down to what is resident now."""
    Path("/proc/self/clear_refs").write_text("5")


class Peaks:
    """Each table's peak resident set above the dump's start, and the seconds it took, as the
    dump tells its progress."""

    def __init__(self) -> None:
        self.start_kib = _status_kib("VmRSS")
        self.kib: dict[str, int] = {}
        self.seconds: dict[str, float] = {}
        self.table, self.began = "", 0.0
        _reset_peak()

    def progress(self, table: str, rows: int) -> None:
        if rows == 0:
            self.close()
            self.table, self.began = table, time.perf_counter()

    def close(self) -> None:
        """The table being written ends: its peak read, the mark reset for the next."""
        if self.table:
            self.kib[self.table] = _status_kib("VmHWM") - self.start_kib
            self.seconds[self.table] = time.perf_counter() - self.began
            self.table = ""
        _reset_peak()


class Command(BaseCommand):
    help = __doc__

    def add_arguments(self, parser):
        parser.add_argument(
            "--drives",
            type=int,
            default=SCALE_DRIVES,
            help="the catalog's drives, built with seed_scale (200 results and 2 consistency "
            f"series a drive) unless the database has them (default {SCALE_DRIVES:,})",
        )

    def handle(self, *args, drives: int, **options):
        if Drive.objects.filter(synthetic=True).count() < drives:
            self.stdout.write(f"building a seed_scale catalog of {drives:,} drives")
            call_command(
                "seed_scale",
                f"--drives={drives}",
                f"--results={drives * RESULTS_PER_DRIVE}",
                f"--series={drives * SERIES_PER_DRIVE}",
                stdout=self.stdout,
            )
        store = Path(tempfile.mkdtemp(prefix="bench-dump-"))
        try:
            gc.collect()
            peaks = Peaks()
            started = time.perf_counter()
            with override_settings(BENCH_SHOW_SYNTHETIC=True):
                dump = dump_publish(store=store, streaming=Streaming(progress=peaks.progress))
            seconds = time.perf_counter() - started
            peaks.close()  # the documents'
            self.report(drives, dump, seconds, peaks)
        finally:
            shutil.rmtree(store, ignore_errors=True)

    def report(self, drives, dump, seconds, peaks: Peaks) -> None:
        write = self.stdout.write
        write(f"dump of the seed_scale catalog of {drives:,} drives: {seconds:,.1f} s")
        write(f"{'file':<24} {'rows':>11} {'bytes':>14} {'s':>7} {'peak RSS over start':>20}")
        for file in dump.files:
            shown = file.format != "csv"  # a table's two files are written together
            took = f"{peaks.seconds[file.table]:7.1f}" if shown else ""
            peak = f"{peaks.kib[file.table] / 1024:16,.1f} MiB" if shown else ""
            write(f"{file.name:<24} {file.rows:>11,} {file.bytes:>14,} {took:>7} {peak:>20}")
        write(f"{'in all':<24} {'':>11} {dump.bytes:>14,}")
        write(
            f"peak memory of the dump: {max(peaks.kib.values()) / 1024:,.1f} MiB above the "
            f"{peaks.start_kib / 1024:,.0f} MiB the process held before it (resident set)"
        )
