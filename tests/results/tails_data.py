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
