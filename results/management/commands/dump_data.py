"""Publish a dump of everything published (results/dumps.py) into BENCH_DUMP_DIR, then keep
only the newest BENCH_DUMP_KEEP: the daily job (deploy/bench-dump.timer, docs/deploy.md).
A second dump the same day is published beside the first, under the next sequence number
(2026-05-01.2): a dump once published never changes."""

from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from results.dumps import dump_prune, dump_publish


class Command(BaseCommand):
    help = __doc__

    def add_arguments(self, parser):
        parser.add_argument(
            "--dir",
            type=Path,
            default=None,
            help="the store to write into (default: BENCH_DUMP_DIR)",
        )
        parser.add_argument(
            "--keep",
            type=int,
            default=None,
            help="dumps kept, the newest (default: BENCH_DUMP_KEEP); older ones are removed",
        )
        parser.add_argument(
            "--prune-only", action="store_true", help="remove old dumps, write no new one"
        )

    def handle(self, *args, dir=None, keep=None, prune_only=False, **options):
        store = dir or Path(settings.BENCH_DUMP_DIR)
        keep = settings.BENCH_DUMP_KEEP if keep is None else keep
        if keep < 1:
            raise CommandError("--keep must be at least 1: the newest dump is always kept")
        if not prune_only:
            dump = dump_publish(store=store)
            rows = ", ".join(f"{t['name']} {t['rows']}" for t in dump.tables)
            self.stdout.write(
                f"dump {dump.name}: {store / dump.name} ({dump.bytes:,} bytes; {rows}; "
                f"documents {dump.file('documents.jsonl').rows})"
            )
        for name in dump_prune(store=store, keep=keep):
            self.stdout.write(f"removed dump {name} (keeping the newest {keep})")
