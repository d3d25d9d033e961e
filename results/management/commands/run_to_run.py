"""The run-to-run variation of loadgen's throughput tests, from documents of runs with several
passes (loadgen run --repeat N): each test's coefficient of variation of bytes/s between
passes, per document and data pattern, and the largest of them; and likewise of each latency
percentile the response-time curves compare (results.curves.PERCENTILES), where every pass
has the I/Os that percentile needs (results.spread.ios_needed), never below the precision of
the histograms it is read from (results.histograms.RELATIVE_PRECISION). --write stores them beside
the test catalog (results/schema/run-to-run.json: `tests`, read by suite_catalog_sync, and
`percentiles`, read by results.curves.percentile_variation) for the winner rule
(results.spread; docs/methodology.md, "Spread and the winner rule").

    manage.py run_to_run demo/measured/corners-file.json demo/measured/curve-file.json [--write]
"""

import json
from collections import defaultdict
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from results.curves import PERCENTILES
from results.documents import TEST_VARIATION
from results.histograms import RELATIVE_PRECISION
from results.spread import Spread, ios_needed

# What varies between passes, by (document, pattern): a test's bytes/s, or its latency at a
# percentile as the rate it stands for (its reciprocal, 1/s: what the winner rule compares,
# results.kinds.curve), keyed (test, percentile).
Found = dict[tuple[str, str], Spread]


def _passes(document: dict) -> dict[tuple[str, str], list[dict]]:
    """Each test's whole results (not partial) by (test, pattern): one a pass."""
    passes: dict[tuple[str, str], list[dict]] = defaultdict(list)
    for r in document.get("results", []):
        if not r.get("partial"):
            passes[(r["test"], r["pattern"])].append(r)
    return passes


def variation(documents: dict[str, dict]) -> dict[str, Found]:
    """Each test's spread of bytes/s between the passes of each document, by (document,
    pattern)."""
    found: dict[str, Found] = defaultdict(dict)
    for name, document in documents.items():
        for (test, pattern), results in _passes(document).items():
            values = [r["bytes_per_second"] for r in results if r.get("bytes_per_second")]
            if len(values) > 1:
                found[test][(name, pattern)] = Spread.of(values)
    return dict(found)


def percentile_variation(documents: dict[str, dict]) -> dict[tuple[str, str], Found]:
    """Each test's spread of the rate each of PERCENTILES stands for (1e9 over its latency
    in ns) between the passes of each document, by (document, pattern), keyed (test,
    percentile): only where there are two passes or more and every one of them states its
    I/Os, has as many as the percentile needs (ios_needed: a percentile of fewer is its
    maximum by another name) and gives that percentile."""
    found: dict[tuple[str, str], Found] = defaultdict(dict)
    for name, document in documents.items():
        for (test, pattern), results in _passes(document).items():
            if len(results) < 2:
                continue
            for q in PERCENTILES:
                needed = ios_needed(q)
                values = []
                for r in results:
                    ns = (r.get("latency_ns") or {}).get("percentiles", {}).get(q)
                    io_count = r.get("io_count")
                    if not ns or io_count is None or io_count < needed:
                        break
                    values.append(1e9 / ns)
                else:
                    found[(test, q)][(name, pattern)] = Spread.of(values)
    return dict(found)


class Command(BaseCommand):
    help = (
        "The run-to-run variation of each throughput test, and of its latency percentiles, "
        "from documents of repeated runs."
    )

    def add_arguments(self, parser):
        parser.add_argument("documents", nargs="+", type=Path)
        parser.add_argument(
            "--write",
            action="store_true",
            help="store the largest CV of each test and percentile (run-to-run.json)",
        )
        parser.add_argument(
            "--output",
            type=Path,
            default=TEST_VARIATION,
            help=f"where --write stores them (default {TEST_VARIATION})",
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
        tails: dict[str, dict[str, float]] = {}
        for (test, q), spreads in sorted(percentile_variation(documents).items()):
            for (name, pattern), spread in sorted(spreads.items()):
                self.stdout.write(
                    f"{test:<24} {pattern:<15} {name:<28} n={spread.n} "
                    f"p{q:<6} mean {1e9 / spread.mean / 1e3:11.1f} µs  CV {spread.cv * 100:6.2f}%"
                )
            # Passes whose percentile falls in one bucket agree within the histogram's
            # precision, not exactly: no smaller variation is stored (a margin of 0 would
            # make any difference a win).
            cv = max(max(s.cv for s in spreads.values()), RELATIVE_PRECISION)
            tails.setdefault(test, {})[q] = round(cv, 4)
        if opts["write"]:
            stored = {
                "comment": (
                    "loadgen's run-to-run variation of each throughput test: the largest "
                    "coefficient of variation of bytes/s between the passes of "
                    f"{', '.join(sorted(documents))} (manage.py run_to_run), over their data "
                    "patterns. The winner rule's margin for a single full-length loadgen "
                    "result (docs/methodology.md). `percentiles`: likewise of the rate each "
                    "latency percentile stands for (its reciprocal), by test and percentile, "
                    "where every pass had the I/Os the percentile needs, and never below "
                    "the histograms' precision (1/256)."
                ),
                "tests": largest,
                "percentiles": tails,
            }
            opts["output"].write_text(json.dumps(stored, indent=2) + "\n")
            self.stdout.write(
                f"wrote {len(largest)} tests' variation and {len(tails)} tests' percentiles' "
                f"to {opts['output']}"
            )
