"""The run-to-run variation of loadgen's throughput tests, from documents of runs with several
passes (loadgen run --repeat N): each test's coefficient of variation of bytes/s between
passes, per document and data pattern, and the largest of them, which --write stores beside
the test catalog (results/schema/run-to-run.json, read by suite_catalog_sync) for the winner rule
(results.spread; docs/methodology.md, "Spread and the winner rule").

    manage.py run_to_run demo/measured/corners-file.json [--write]
"""

import json
from collections import defaultdict
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from results.documents import TEST_VARIATION
from results.spread import Spread


def variation(documents: dict[str, dict]) -> dict[str, dict[tuple[str, str], Spread]]:
    """Each test's spread between the passes of each document, by (document, pattern)."""
    found: dict[str, dict[tuple[str, str], Spread]] = defaultdict(dict)
    for name, document in documents.items():
        passes: dict[tuple[str, str], list[float]] = defaultdict(list)
        for r in document.get("results", []):
            if not r.get("partial") and r.get("bytes_per_second"):
                passes[(r["test"], r["pattern"])].append(r["bytes_per_second"])
        for (test, pattern), values in passes.items():
            if len(values) > 1:
                found[test][(name, pattern)] = Spread.of(values)
    return dict(found)


class Command(BaseCommand):
    help = "The run-to-run variation of each throughput test, from documents of repeated runs."

    def add_arguments(self, parser):
        parser.add_argument("documents", nargs="+", type=Path)
        parser.add_argument(
            "--write",
            action="store_true",
            help="store the largest CV of each test (run-to-run.json)",
        )

    def handle(self, *args, **opts):
        documents = {}
        for path in opts["documents"]:
            try:
                documents[path.name] = json.loads(path.read_text())
            except (OSError, ValueError) as error:
                raise CommandError(f"{path}: {error}") from error
        found = variation(documents)
        if not found:
            raise CommandError("no test has two passes or more in these documents")
        largest = {}
        for test in sorted(found):
            for (name, pattern), spread in sorted(found[test].items()):
                self.stdout.write(
                    f"{test:<24} {pattern:<15} {name:<28} n={spread.n} "
                    f"mean {spread.mean / 1e6:9.1f} MB/s  CV {spread.cv * 100:5.2f}%"
                )
            largest[test] = round(max(s.cv for s in found[test].values()), 4)
        if opts["write"]:
            stored = {
                "comment": (
                    "loadgen's run-to-run variation of each throughput test: the largest "
                    "coefficient of variation of bytes/s between the passes of "
                    f"{', '.join(sorted(documents))} (manage.py run_to_run), over their data "
                    "patterns. The winner rule's margin for a single full-length loadgen "
                    "result (docs/methodology.md)."
                ),
                "tests": largest,
            }
            TEST_VARIATION.write_text(json.dumps(stored, indent=2) + "\n")
            self.stdout.write(f"wrote {len(largest)} tests' variation to {TEST_VARIATION}")
