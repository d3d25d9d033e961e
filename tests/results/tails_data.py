"""Documents whose results carry latency histograms of known samples (schema version 5): a
run of several passes of one test, each pass's histogram counted from its own samples, so
that a test can hold a group's merged tail to the histogram of every sample together."""

import copy
import json
import math
import random
from pathlib import Path

from django.conf import settings

from results import histograms

SAMPLE = Path(settings.BASE_DIR) / "results/schema/samples/measured-loadgen-quick-v5.json"
TEST = "randread-4k-qd1-lat"


def samples(seed: int, n: int) -> list[int]:
    """n latencies (ns) around 30 µs with a long tail: a few I/Os 10 to 100 times slower."""
    rng = random.Random(seed)
    values = []
    for _ in range(n):
        v = rng.lognormvariate(math.log(30_000), 0.25)
        if rng.random() < 0.002:
            v *= rng.uniform(10, 100)
        values.append(int(v))
    return values


def pass_entry(entry: dict, values: list[int], repeat: int, histogram: bool = True) -> dict:
    """The sample's entry of TEST as a pass measuring `values`: its counts and rates from
    their number, its latency summary (and, with `histogram`, its histogram) from them."""
    r = copy.deepcopy(entry)
    r.pop("clat_ns", None)
    for within in ("iops_min", "iops_stddev"):
        r.pop(within, None)
    # At queue depth 1 the I/Os follow each other: the run lasts their latencies' sum.
    r["duration_ns"] = sum(values)
    seconds = r["duration_ns"] / 1e9
    r["repeat"] = repeat
    r["io_count"] = len(values)
    r["bytes"] = len(values) * r["block_size"]
    r["iops"] = len(values) / seconds
    r["bytes_per_second"] = r["bytes"] / seconds
    h = histograms.Histogram.of_samples(values)
    mean = sum(values) / len(values)
    r["latency_ns"] = {
        "mean": mean,
        "stddev": math.sqrt(sum((v - mean) ** 2 for v in values) / len(values)),
        "min": min(values),
        "max": max(values),
        "percentiles": histograms.percentiles(h, map(float, histograms.PERCENTILE_KEYS)),
    }
    if histogram:
        r["latency_ns"]["histogram"] = h.encode()
    return r


def run_document(
    passes: list[list[int]], *, model: str = "Tail", without_histogram: tuple[int, ...] = ()
) -> dict:
    """A run of len(passes) passes of TEST, pass n measuring passes[n - 1] (the passes in
    `without_histogram`, 1-based, carry none)."""
    document = json.loads(SAMPLE.read_text())
    entry = next(e for e in document["results"] if e["test"] == TEST)
    document["results"] = [
        pass_entry(entry, values, n, histogram=n not in without_histogram)
        for n, values in enumerate(passes, start=1)
    ]
    document["parameters"] = {**document["parameters"], "tests": [TEST], "repeat": len(passes)}
    document["drive"] = {**document["drive"], "model": model}
    return document


MIXED_TEST = "randrw70-4k-qd32-8g"


def _summary(values: list[int]) -> dict:
    """A latency summary of `values` as loadgen writes it, with its histogram."""
    h = histograms.Histogram.of_samples(values)
    mean = sum(values) / len(values)
    summary = {
        "mean": mean,
        "stddev": math.sqrt(sum((v - mean) ** 2 for v in values) / len(values)),
        "min": min(values),
        "max": max(values),
        "percentiles": histograms.percentiles(h, map(float, histograms.PERCENTILE_KEYS)),
    }
    summary["histogram"] = h.encode()
    return summary


def mixed_pass_entry(entry: dict, reads: list[int], writes: list[int], repeat: int) -> dict:
    """The sample's mixed entry (MIXED_TEST, 70/30 at QD32) as a pass measuring `reads` and
    `writes`: the whole's summary and histogram of both together, each direction's of its
    own, counts and rates from their numbers (at QD32, the run lasts the latencies' sum over
    32: Little's law, or twice the slowest I/O where that is longer)."""
    r = copy.deepcopy(entry)
    for within in ("clat_ns", "iops_min", "iops_stddev"):
        r.pop(within, None)
    both = reads + writes
    # (no shorter than its slowest I/O: fewer in flight then, on average)
    r["duration_ns"] = max(sum(both) // r["queue_depth"], 2 * max(both))
    seconds = r["duration_ns"] / 1e9
    r["repeat"] = repeat
    for at, values in ((r, both), (r["read"], reads), (r["write"], writes)):
        at.pop("clat_ns", None)
        at["io_count"] = len(values)
        at["bytes"] = len(values) * r["block_size"]
        at["iops"] = len(values) / seconds
        at["bytes_per_second"] = at["bytes"] / seconds
        at["latency_ns"] = _summary(values)
    return r


def mixed_document(passes: list[tuple[list[int], list[int]]], *, model: str = "Mixed") -> dict:
    """A run of len(passes) passes of MIXED_TEST, pass n measuring passes[n - 1]'s reads and
    writes."""
    document = json.loads(SAMPLE.read_text())
    entry = next(e for e in document["results"] if e["test"] == MIXED_TEST)
    document["results"] = [
        mixed_pass_entry(entry, reads, writes, n) for n, (reads, writes) in enumerate(passes, 1)
    ]
    document["parameters"] = {
        **document["parameters"],
        "tests": [MIXED_TEST],
        "repeat": len(passes),
    }
    document["drive"] = {**document["drive"], "model": model}
    return document
