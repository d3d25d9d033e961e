"""How long a server process takes to bring its in-process copies (drives.catalog_index,
results.entries_index) up to date after a write, read whole as before and from the change log
(core.columns.Copy), on the seed_scale catalog (`make bench-copies`).

Each round commits one write, then times each copy read whole (as a process that held none
would) and brought up to date from the copy it held before the write, and checks that the
two are the same rows. The writes: an upload (the document `make bench-load UPLOADS=1`
sends, through run_ingest, for a drive new to the catalog), and a new USD price for a drive
with priced 4KB entries (what moves the value views' copy). Writes to the database it runs
on: `make bench-copies` runs on var/bench-web, as bench-load does.
"""

from __future__ import annotations

import datetime
import json
import statistics
import time

import orjson
from django.core.management.base import BaseCommand
from django.db import connection

from core.columns import Columns
from drives import catalog_index as ci
from drives.models import Drive, Price
from loadtests.management.commands.bench_load import PLACEHOLDER, UPLOAD_DOCUMENT
from results import entries_index as vi
from results.models import LeaderboardEntry
from results.services import run_ingest

COPIES = {"drives": ci._COPY, "value": vi._COPY}


def _upload(round_: int) -> None:
    document = json.loads(UPLOAD_DOCUMENT.read_text())
    command = document["tool"]["command_line"] + f" # bench-copies {time.time()} {round_}"
    document["tool"]["command_line"] = command.replace(PLACEHOLDER, "")
    # A drive the catalog does not hold yet, as the first upload of `make bench-load` is:
    # it moves the drive lists, and so both copies.
    document["drive"]["model"] += f" bench-copies {time.time():.0f} {round_}"
    run_ingest(document=json.dumps(document), submitter=None)


def _price(round_: int) -> None:
    drive_id = (
        LeaderboardEntry.objects.filter(price_usd__isnull=False, test__block_size=4096)
        .order_by("drive_id")
        .values_list("drive_id", flat=True)[round_ * 7 % 500]
    )
    Price.objects.create(
        drive=Drive.objects.get(pk=drive_id),
        amount=f"{50 + round_}.99",
        currency="USD",
        observed_on=datetime.date(2030, 1, 1) + datetime.timedelta(days=round_),
        source=f"bench-copies {time.time()}",
        source_url="",
    )


WRITES = {"an upload": _upload, "a price": _price}


def _rows(tables: dict[str, Columns], copy) -> dict[str, list[bytes]]:
    """Each table's rows, in one order (a table's rows are in none its readers rely on)."""
    return {
        t.name: sorted(
            orjson.dumps(r) for r in zip(*(tables[t.name].values(n) for n in t.names), strict=True)
        )
        for t in copy.tables
    }


class Command(BaseCommand):
    help = __doc__

    def add_arguments(self, parser):
        parser.add_argument("--rounds", type=int, default=5, help="writes of each kind")

    def handle(self, *args, **opts):
        drives = Drive.objects.count()
        self.stdout.write(f"{drives:,} drives, {LeaderboardEntry.objects.count():,} entries")
        for copy in COPIES.values():
            copy.current()
        spent: dict[tuple[str, str, str], list[float]] = {}
        for write_name, write in WRITES.items():
            for round_ in range(opts["rounds"]):
                write(round_)
                for name, copy in COPIES.items():
                    reads, held = dict(copy.reads), copy.held.get(connection.alias)
                    started = time.perf_counter()
                    kept = copy.current()  # from the change log
                    changes = time.perf_counter() - started
                    if kept is held:
                        continue  # the write moved nothing this copy depends on
                    assert copy.reads["changes"] == reads["changes"] + 1, (name, copy.reads)
                    kept_tables = copy._sources[kept.alias].tables
                    copy.held.clear()
                    started = time.perf_counter()
                    copy.current()  # whole, as before
                    whole = time.perf_counter() - started
                    assert _rows(kept_tables, copy) == _rows(
                        copy._sources[kept.alias].tables, copy
                    ), f"{name}: the copy kept up to date is not the copy read whole"
                    spent.setdefault((write_name, name, "whole"), []).append(whole)
                    spent.setdefault((write_name, name, "changes"), []).append(changes)
        with connection.cursor() as cursor:
            cursor.execute("SELECT count(*) FROM core_copychange")
            (logged,) = cursor.fetchone()
        self.stdout.write(
            f"\n{'after':<12}{'copy':<8}{'read whole ms':>16}{'from the log ms':>18}"
            "   (median, min-max; of the rounds that moved the copy's version)"
        )
        for write_name in WRITES:
            for name in COPIES:
                if (write_name, name, "whole") not in spent:
                    self.stdout.write(f"{write_name:<12}{name:<8}{'(not moved)':>16}")
                    continue
                whole = [s * 1e3 for s in spent[(write_name, name, "whole")]]
                changes = [s * 1e3 for s in spent[(write_name, name, "changes")]]
                self.stdout.write(
                    f"{write_name:<12}{name:<8}{statistics.median(whole):>9.0f} "
                    f"({min(whole):.0f}-{max(whole):.0f})"
                    f"{statistics.median(changes):>9.1f} ({min(changes):.0f}-{max(changes):.0f})"
                    f"  {len(whole)} rounds"
                )
        self.stdout.write(f"\nchange log: {logged} rows; the copies are the same rows either way")
