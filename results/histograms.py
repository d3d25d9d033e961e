"""Latency histograms as result documents carry them (schema version 5): decoded, merged and
read for any percentile. Pure Python, no Django: the ingest's checks, the site's merges of a
group's runs and loadgen's benchmarks all read histograms through this module.

The scheme is loadgen's (loadgen/src/histogram.h), log-linear with `sub_bucket_bits` b (7): a
value v (an integer number of nanoseconds) below 2^(b+1) has its own bucket, index v; above,
with e = floor(log2 v) - b, its bucket is e x 2^b + (v >> e), which holds the 2^e values from
(v >> e) << e. A bucket is at most 2^-b of its lowest value wide, so its midpoint is within
2^-(b+1) of any value in it (RELATIVE_PRECISION, 1/256 for b = 7).

The encoding (results/schema/README.md, "Latency histograms"): `buckets` maps the index of
the first bucket of a run of consecutive buckets (as a decimal string) to the counts of that
bucket and the following ones, 0 for an empty one inside a run.

A percentile is read as loadgen reads it: the nearest-rank rule (the smallest value with at
least p% of the I/Os at or below it), reported as the midpoint of its bucket, clamped to the
exact minimum and maximum when they are known. The percentile of a merge is then within
RELATIVE_PRECISION of the nearest-rank percentile of all the merged samples together.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

# The percentiles loadgen writes (loadgen/src/histogram.c), in order, keyed as documents key
# them; a group's merged tail is read at the same ones (results.tails).
PERCENTILE_KEYS = ("1", "5", "10", "25", "50", "75", "90", "95", "99", "99.9", "99.99")
SUB_BUCKET_BITS = 7
UNIT = "ns"
RELATIVE_PRECISION = 1 / 2 ** (SUB_BUCKET_BITS + 1)
# Empty buckets a run holds as zeros rather than starting a run of its own (loadgen's
# HIST_RUN_GAP): a zero costs 2 bytes of JSON, a new run's key about 10.
RUN_GAP = 4

NOT_A_HISTOGRAM = "a histogram is an object with sub_bucket_bits, unit and buckets"
OTHER_SCHEME = "sub_bucket_bits {given} and unit {unit!r}: only {bits} and {expected!r} are read"
BAD_RUN = "bucket run {key!r}: a run is a decimal first index and a list of counts >= 0"
BEYOND_LAST = "bucket run {key!r} ends at bucket {end}, beyond the last ({last})"
OVERLAP = "bucket runs overlap at bucket {index}"
BAD_PERCENTILE = "a percentile is above 0 and at most 100, not {p!r}"
SCHEMES_DIFFER = "histograms of {a} and {b} sub-bucket bits cannot be merged"


class HistogramError(ValueError):
    """An encoded histogram that does not follow the encoding."""


def bucket_count(sub_bucket_bits: int = SUB_BUCKET_BITS) -> int:
    """Buckets of the scheme: values up to 2^64 - 1."""
    sub = 1 << sub_bucket_bits
    return (64 - sub_bucket_bits) * sub + sub


def bucket_index(value: int, sub_bucket_bits: int = SUB_BUCKET_BITS) -> int:
    """The bucket a value (>= 0) is counted in."""
    if value < 2 << sub_bucket_bits:
        return value
    shift = value.bit_length() - 1 - sub_bucket_bits
    return (shift << sub_bucket_bits) + (value >> shift)


def bucket_range(index: int, sub_bucket_bits: int = SUB_BUCKET_BITS) -> tuple[int, int]:
    """The lowest value of a bucket and its width (the values low .. low + width - 1)."""
    sub = 1 << sub_bucket_bits
    if index < 2 * sub:
        return index, 1
    shift = index // sub - 1
    return (index - shift * sub) << shift, 1 << shift


def bucket_midpoint(index: int, sub_bucket_bits: int = SUB_BUCKET_BITS) -> int:
    """The value a bucket reports (loadgen's: low + (width - 1) / 2, rounded down)."""
    low, width = bucket_range(index, sub_bucket_bits)
    return low + (width - 1) // 2


@dataclass
class Histogram:
    """Counts by bucket index (none 0), with the exact minimum and maximum when known
    (from the latency summary beside an encoded histogram, or from the samples)."""

    counts: dict[int, int] = field(default_factory=dict)
    sub_bucket_bits: int = SUB_BUCKET_BITS
    min: int | None = None
    max: int | None = None

    @property
    def total(self) -> int:
        return sum(self.counts.values())

    @classmethod
    def of_samples(cls, samples: Iterable[int], sub_bucket_bits: int = SUB_BUCKET_BITS):
        """The histogram loadgen would count of these values."""
        h = cls(sub_bucket_bits=sub_bucket_bits)
        for v in samples:
            i = bucket_index(v, sub_bucket_bits)
            h.counts[i] = h.counts.get(i, 0) + 1
            h.min = v if h.min is None else min(h.min, v)
            h.max = v if h.max is None else max(h.max, v)
        return h

    def percentile(self, p: float) -> int | None:
        """The value at percentile p (0 < p <= 100) by the nearest-rank rule: its bucket's
        midpoint, clamped to [min, max] where known. None when empty."""
        if not (isinstance(p, int | float) and 0 < p <= 100):
            raise HistogramError(BAD_PERCENTILE.format(p=p))
        total = self.total
        if total == 0:
            return None
        # loadgen's rank: ceil(p / 100 x count), in doubles, at least 1, at most count.
        rank = min(max(math.ceil(p / 100.0 * float(total)), 1), total)
        seen = 0
        for index in sorted(self.counts):
            seen += self.counts[index]
            if seen >= rank:
                value = bucket_midpoint(index, self.sub_bucket_bits)
                if self.min is not None:
                    value = max(value, self.min)
                if self.max is not None:
                    value = min(value, self.max)
                return value
        raise AssertionError("unreachable: the ranks end at the total")

    def encode(self) -> dict[str, Any]:
        """The document's form: runs of consecutive buckets keyed by their first index."""
        buckets: dict[str, list[int]] = {}
        run: list[int] = []
        previous = None
        for index in sorted(i for i, c in self.counts.items() if c):
            if previous is not None and index - previous <= RUN_GAP + 1:
                run.extend([0] * (index - previous - 1))
            else:
                run = buckets.setdefault(str(index), [])
            run.append(self.counts[index])
            previous = index
        return {"sub_bucket_bits": self.sub_bucket_bits, "unit": UNIT, "buckets": buckets}


def decode(encoded: Mapping[str, Any], latency: Mapping[str, Any] | None = None) -> Histogram:
    """The histogram of a document's `histogram` member; `latency`, the summary that holds
    it (its exact min and max bound the percentiles, as loadgen's do). Raises
    HistogramError for what the encoding does not allow."""
    if not isinstance(encoded, Mapping) or not isinstance(encoded.get("buckets"), Mapping):
        raise HistogramError(NOT_A_HISTOGRAM)
    bits, unit = encoded.get("sub_bucket_bits"), encoded.get("unit")
    if bits != SUB_BUCKET_BITS or unit != UNIT:
        raise HistogramError(
            OTHER_SCHEME.format(given=bits, unit=unit, bits=SUB_BUCKET_BITS, expected=UNIT)
        )
    last = bucket_count(bits) - 1
    counts: dict[int, int] = {}
    covered: list[tuple[int, int]] = []  # each run's first and last bucket
    for key, run in encoded["buckets"].items():
        valid = isinstance(key, str) and key.isdigit() and isinstance(run, list) and run
        if not valid or not all(type(c) is int and c >= 0 for c in run):
            raise HistogramError(BAD_RUN.format(key=key))
        first = int(key)
        if first + len(run) - 1 > last:
            raise HistogramError(BEYOND_LAST.format(key=key, end=first + len(run) - 1, last=last))
        end = first + len(run) - 1
        for low, high in covered:
            if first <= high and low <= end:
                raise HistogramError(OVERLAP.format(index=max(first, low)))
        covered.append((first, end))
        for offset, count in enumerate(run):
            if count:
                counts[first + offset] = count
    h = Histogram(counts, bits)
    if latency is not None:
        h.min, h.max = latency.get("min"), latency.get("max")
    return h


def merge(histograms: Iterable[Histogram]) -> Histogram:
    """One histogram of every I/O of several (runs, repeats, directions): exact, since they
    share their buckets. Its min and max are known when every part's is."""
    parts = list(histograms)
    merged = Histogram(sub_bucket_bits=parts[0].sub_bucket_bits if parts else SUB_BUCKET_BITS)
    for h in parts:
        if h.sub_bucket_bits != merged.sub_bucket_bits:
            raise HistogramError(
                SCHEMES_DIFFER.format(a=merged.sub_bucket_bits, b=h.sub_bucket_bits)
            )
        for index, count in h.counts.items():
            merged.counts[index] = merged.counts.get(index, 0) + count
    if parts and all(h.min is not None for h in parts):
        merged.min = min(h.min for h in parts if h.min is not None)
    if parts and all(h.max is not None for h in parts):
        merged.max = max(h.max for h in parts if h.max is not None)
    return merged


def percentiles(h: Histogram, points: Iterable[float]) -> dict[str, int | None]:
    """Several percentiles at once, keyed as documents key them ("99.9")."""
    return {f"{p:g}": h.percentile(p) for p in points}
