"""What a throughput figure may be, judged against the drive it is for (a document's own
checks, results.documents, judge it against its test alone).

- A rate above the line rate of the drive's interface is one no drive can have: the
  document is refused, with the figure's pointer (line_rate_problems).
- A rate ten times or more away from the drive's other results in the same test is
  plausible but suspect (MB/s typed where bytes/s belong, a cache measured instead of the
  drive): the run is stored but held for staff review, out of rankings and off the drive's
  latest figures until approved (hold_reasons).
- A reviewer's run far outside the distribution of the drive's runs, where the drive has
  MIN_RUNS runs or more of the test obtained the same way, is held likewise
  (outside_distribution): a wrong drive named, a thermally throttled or worn unit, a
  broken bench.

A virtual disk's interface is not a wire, so its rates are not bounded by one."""

from __future__ import annotations

import statistics
from typing import Any

from drives.models import Drive
from results import units
from results.documents import DocumentProblem
from results.models import Result, Run, Test
from results.selectors.runs import run_groups
from results.spread import quantiles

# Bytes a second a link carries (after its line code), the most a drive on it can move:
# PATA at UDMA 6, SATA at 8b/10b, and for NVMe the widest link a drive can have (PCIe 6.0
# x16), since the document does not say its generation and lanes.
LINE_RATES = {
    "pata": 133_000_000,
    "sata-1.5g": 150_000_000,
    "sata-3g": 300_000_000,
    "sata-6g": 600_000_000,
    "pcie-nvme": 121_000_000_000,
}
ABOVE_LINE_RATE = (
    "{rate:.10g} MB/s is above what {interface} carries ({limit:g} MB/s at most): is the "
    "interface right, and the unit (bytes/s)?"
)
HOLD_FACTOR = 10
FAR_FROM_OTHERS = (
    "{test}, {pattern}: {iops} IOPS is {factor:.0f}x {direction} the drive's other results "
    "in this test (median {median} IOPS over {count})"
)


def _rate(entry: dict[str, Any], block_size: int) -> tuple[float | None, str]:
    """A result's rate in I/Os a second, and the field that gives it."""
    if entry.get("iops") is not None:
        return entry["iops"], "iops"
    if entry.get("bytes_per_second") is not None:
        return entry["bytes_per_second"] / block_size, "bytes_per_second"
    return None, ""


def line_rate_problems(
    document: dict[str, Any], tests: dict[str, Test], drive: Drive
) -> list[DocumentProblem]:
    """The results whose rate is above the line rate of the drive's interface (the
    document's, else the catalog drive's), unless the drive is a virtual disk."""
    spec = document["drive"]
    interface = spec.get("interface") or drive.interface
    limit = LINE_RATES.get(interface)
    if limit is None or (spec.get("kind") or drive.kind) == Drive.Kind.VIRTUAL:
        return []
    problems = []
    for i, entry in enumerate(document.get("results", [])):
        block_size = tests[entry["test"]].block_size
        rate, field = _rate(entry, block_size)
        if rate is not None and rate * block_size > limit:
            problems.append(
                DocumentProblem(
                    f"/results/{i}/{field}",
                    ABOVE_LINE_RATE.format(
                        rate=rate * block_size / 1e6,
                        interface=interface,
                        limit=limit / 1e6,
                    ),
                )
            )
    return problems


def hold_reasons(document: dict[str, Any], tests: dict[str, Test], drive: Drive) -> list[str]:
    """Why a run of these results should be held: each complete result HOLD_FACTOR times or
    more above or below the median of the drive's published complete results in the same
    test (none for a drive without any)."""
    entries = [e for e in document.get("results", []) if not e.get("partial")]
    if not entries:
        return []
    others: dict[int, list[float]] = {}
    rows = Result.objects.filter(
        run__drive=drive,
        run__status=Run.Status.PUBLISHED,
        partial=False,
        test__in=[tests[e["test"]] for e in entries],
    ).values_list("test_id", "test__block_size", "iops", "bytes_per_second")
    for test_id, block_size, iops, bps in rows:
        rate, _ = _rate({"iops": iops, "bytes_per_second": bps}, block_size)
        if rate:
            others.setdefault(test_id, []).append(rate)
    reasons = []
    for entry in entries:
        test = tests[entry["test"]]
        rate, _ = _rate(entry, test.block_size)
        if rate is None or test.pk not in others:
            continue
        median = statistics.median(others[test.pk])
        factor = rate / median if rate >= median else (median / rate if rate else float("inf"))
        if factor >= HOLD_FACTOR:
            reasons.append(
                FAR_FROM_OTHERS.format(
                    test=test.identifier,
                    pattern=entry["pattern"],
                    iops=units.iops(rate),
                    factor=factor,
                    direction="above" if rate > median else "below",
                    median=units.iops(median),
                    count=len(others[test.pk]),
                )
            )
    return reasons


MIN_RUNS = 5  # the drive's other runs a distribution needs before it judges a run
FAR_OUT = 3  # interquartile ranges beyond a quartile: Tukey's "far out"
# The least spread a distribution is taken to have, as a share of its median: runs that
# agree to the percent do not make a run 5% slower far out.
MIN_SPREAD = 0.05
OUTSIDE_RUNS = (
    "{test}, {pattern}: {rate} MB/s is far outside this drive's {count} other runs "
    "(their middle half {q1}–{q3} MB/s; held beyond {low}–{high} MB/s)"
)


def outside_distribution(run: Run) -> list[str]:
    """Why `run` (stored with its results, not yet ranked) lies far outside its drive's
    published runs: for each test, pattern and method (results.selectors.runs.RunGroup)
    with MIN_RUNS other runs or more, its rate FAR_OUT interquartile ranges (at least
    MIN_SPREAD of the median) below the lower quartile or above the upper one."""
    reasons = []
    for group in run_groups(drive_id=run.drive_id, run_id=run.pk):
        rate = group.rates.get(run.pk)
        others = [v for r, v in group.rates.items() if r != run.pk]
        if rate is None or len(others) < MIN_RUNS:
            continue
        _, q1, median, q3, _ = quantiles(others)
        spread = max(q3 - q1, MIN_SPREAD * median)
        low, high = q1 - FAR_OUT * spread, q3 + FAR_OUT * spread
        if not low <= rate <= high:
            reasons.append(
                OUTSIDE_RUNS.format(
                    test=group.test_name,
                    pattern=group.pattern,
                    rate=units.mbps(rate),
                    count=len(others),
                    q1=units.mbps(q1),
                    q3=units.mbps(q3),
                    low=units.mbps(max(low, 0)),
                    high=units.mbps(high),
                )
            )
    return reasons
