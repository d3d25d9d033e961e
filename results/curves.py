"""Response-time curves (issue 46): a family of catalog tests (catalog.json's `curve` and
`load_percent`), one unpaced test, the curve's maximum, and its points paced at fractions of
the IOPS that test reached in the same pass. The compare page draws each curve (achieved IOPS
against p99 and p50), marks its knee, the lowest queue depth of the matching queue-depth sweep
that reaches 95% of its peak, and compares the drives' percentiles at each load. Read from
catalog.json, the file the database's tests are written from (as results.sweeps reads the
sweeps), and the percentiles' run-to-run variation from run-to-run.json."""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Iterable, Mapping

from results.documents import TEST_CATALOG, TEST_VARIATION

LOW_LOAD = 10  # the load whose p99 the knee is reckoned from, in % of the maximum
KNEE_FACTOR = 2  # the knee: the lowest load whose p99 exceeds this many times LOW_LOAD's
PEAK_SHARE = 0.95  # the sweep's depth that reaches this share of its peak IOPS (AnandTech)
# The percentiles compared at each load (the latency table's), the tail those after the median.
PERCENTILES = ("50", "99", "99.9", "99.99")
TAIL = PERCENTILES[1:]


def _catalog() -> list[dict]:
    return json.loads(TEST_CATALOG.read_text())["tests"]


@functools.cache
def curves() -> dict[str, dict[int, str]]:
    """Each curve's tests by load (0: the unpaced maximum, the curve's own id), ascending."""
    found: dict[str, dict[int, str]] = {}
    for test in _catalog():
        if test.get("curve"):
            found.setdefault(test["curve"], {})[test.get("load_percent") or 0] = test["id"]
    return {name: dict(sorted(tests.items())) for name, tests in found.items()}


_SAME = ("kind", "operation", "access", "block_size", "span_bytes", "rwmixread")


@functools.cache
def sweep_of(curve: str) -> str:
    """The queue-depth sweep (results.sweeps) of the curve's workload (the same operation,
    access, block size and span, at every depth); "" where none is."""
    tests = {t["id"]: t for t in _catalog()}
    mine = tests[curve]
    for test in tests.values():
        if test.get("family") and all(test.get(k) == mine.get(k) for k in _SAME):
            return test["family"]
    return ""


@functools.cache
def _variations() -> dict[str, dict[str, float]]:
    return json.loads(TEST_VARIATION.read_text()).get("percentiles", {})


def percentile_variation(
    test: str, percentile: str, measured: Mapping[str, Mapping[str, float]] | None = None
) -> float | None:
    """loadgen's measured run-to-run variation (CV) of a test's latency at a percentile
    (run-to-run.json's `percentiles`, or `measured`); None where it was not measured, which
    leaves a difference at that percentile not tested (results.spread.verdict)."""
    found = _variations() if measured is None else measured
    return found.get(test, {}).get(percentile)


def knee(points: Iterable[tuple[int, int | None]]) -> int | None:
    """The knee of a drive's curve: the lowest load whose p99 exceeds KNEE_FACTOR times its
    p99 at LOW_LOAD. `points`: (load, p99 in ns, None where not shown), loads ascending.
    None where the LOW_LOAD p99 is not known or no load exceeds it so."""
    points = list(points)
    low = next((p99 for load, p99 in points if load == LOW_LOAD), None)
    if not low:
        return None
    return next(
        (
            load
            for load, p99 in points
            if load > LOW_LOAD and p99 is not None and p99 > KNEE_FACTOR * low
        ),
        None,
    )


def depth_at_peak(points: Iterable[tuple[int, float | None]]) -> int | None:
    """The lowest queue depth whose IOPS reach PEAK_SHARE of the highest of the sweep's
    depths: `points` (depth, IOPS, None where not measured). None without any IOPS."""
    measured = sorted((depth, iops) for depth, iops in points if iops)
    if not measured:
        return None
    peak = max(iops for _, iops in measured)
    return next(depth for depth, iops in measured if iops >= PEAK_SHARE * peak)


def curve_label(name: str) -> str:
    """A curve's name from one of its tests': "4KB random read QD32 at 10% of its maximum
    (response-time curve)" is of "4KB random read QD32 (response-time curve)"."""
    return re.sub(r"\s*\b(unpaced, its maximum|at \d+% of its maximum)", "", name)
