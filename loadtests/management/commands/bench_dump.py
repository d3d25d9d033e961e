"""The open-data dump of the seed_scale catalog (10,000 drives, 2,000,000 results, built once
in var/bench-web/ as make bench-web builds it): how long it takes, how large it is, and the
memory it holds while it streams the rows (results/dumps.py writes them batch by batch).
Run by `make bench-dump` (and `make bench`), with the synthetic drives counted as real, as
the other benchmarks count them."""

import resource
import shutil
import tempfile
import time
from pathlib import Path

from django.core.management import call_command
from django.core.management.base import BaseCommand
from django.test import override_settings

from drives.models import Drive
from loadtests.management.commands.bench_web import SCALE_DRIVES
from results.dumps import dump_publish


def _peak_kib() -> int:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # KiB on Linux


class Command(BaseCommand):
    help = __doc__

    def handle(self, *args, **options):
        if Drive.objects.filter(synthetic=True).count() < SCALE_DRIVES:
            self.stdout.write("building the seed_scale catalog")
            call_command("seed_scale", stdout=self.stdout)
        store = Path(tempfile.mkdtemp(prefix="bench-dump-"))
        try:
            before = _peak_kib()
            started = time.perf_counter()
            with override_settings(BENCH_SHOW_SYNTHETIC=True):
                dump = dump_publish(store=store)
            seconds = time.perf_counter() - started
            peak = _peak_kib()
            self.stdout.write(f"dump of the seed_scale catalog: {seconds:,.1f} s")
            self.stdout.write(f"{'file':<28} {'rows':>12} {'bytes':>15}")
            for file in dump.files:
                self.stdout.write(f"{file.name:<28} {file.rows:>12,} {file.bytes:>15,}")
            self.stdout.write(f"{'in all':<28} {'':>12} {dump.bytes:>15,}")
            self.stdout.write(
                f"peak memory of the process: {peak / 1024:,.0f} MiB "
                f"({(peak - before) / 1024:,.0f} MiB above what it held before the dump)"
            )
        finally:
            shutil.rmtree(store, ignore_errors=True)
