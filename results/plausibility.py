"""What a throughput figure may be, judged against the drive it is for (a document's own
checks, results.documents, judge it against its test alone).

- A rate above the line rate of the drive's interface is one no drive can have: the
  document is refused, with the figure's pointer (line_rate_problems).
- A rate ten times or more away from the drive's other results in the same test is
  plausible but suspect (MB/s typed where bytes/s belong, a cache measured instead of the
  drive): the run is stored but held for staff review, out of rankings and off the drive's
  latest figures until approved (hold_reasons).

A virtual disk's interface is not a wire, so its rates are not bounded by one."""

from __future__ import annotations

import statistics
from typing import Any

from drives.models import Drive
from results import units
from results.documents import DocumentProblem
from results.models import Result, Run, Test

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
