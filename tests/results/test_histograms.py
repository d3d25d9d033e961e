"""results.histograms: loadgen's log-linear buckets, their encoding in a version 5 document,
exact merges, and percentiles within the stated precision of the samples' own."""

import json
import math
from pathlib import Path

import pytest
from django.conf import settings
from hypothesis import given
from hypothesis import strategies as st

from results import histograms
from results.histograms import Histogram, HistogramError

SAMPLE = Path(settings.BASE_DIR) / "results/schema/samples/measured-loadgen-quick-v5.json"
LOADGEN_PERCENTILES = (1, 5, 10, 25, 50, 75, 90, 95, 99, 99.9, 99.99)


def nearest_rank(values: list[int], p: float) -> int:
    """The exact percentile of the samples: the smallest with p% of them at or below it."""
    ordered = sorted(values)
    rank = min(max(math.ceil(p / 100.0 * len(ordered)), 1), len(ordered))
    return ordered[rank - 1]


# Latencies as devices give them: a narrow mode, a wide spread, a long tail; small values
# (counted exactly) and values far up the 64-bit range.
latencies = st.one_of(
    st.integers(0, 300),
    st.integers(20_000, 200_000),
    st.floats(8, 23).map(lambda e: int(math.exp(e))),
    st.integers(0, 2**63 - 1),
)
samples = st.lists(latencies, min_size=1, max_size=400)
points = st.one_of(st.sampled_from(LOADGEN_PERCENTILES), st.floats(0.001, 100))


@given(value=st.integers(0, 2**64 - 1))
def test_a_value_lies_in_its_bucket_which_is_at_most_a_128th_of_it_wide(value):
    index = histograms.bucket_index(value)
    low, width = histograms.bucket_range(index)
    assert low <= value < low + width
    assert index < histograms.bucket_count()
    assert width == 1 or width * 2**histograms.SUB_BUCKET_BITS <= low
    midpoint = histograms.bucket_midpoint(index)
    assert abs(midpoint - value) <= value * histograms.RELATIVE_PRECISION


@given(a=samples, b=samples)
def test_a_merge_is_the_histogram_of_every_sample(a, b):
    decoded = [histograms.decode(Histogram.of_samples(s).encode()) for s in (a, b)]
    merged = histograms.merge(decoded)
    assert merged.counts == Histogram.of_samples(a + b).counts
    assert merged.total == len(a) + len(b)


@given(a=samples, b=samples, p=points)
def test_a_merges_percentile_is_within_the_precision_of_the_samples_own(a, b, p):
    """Merging two encoded histograms, then reading a percentile, gives the percentile of
    the two runs' samples together within RELATIVE_PRECISION (min and max as the
    documents give them beside each histogram)."""
    parts = []
    for run in (a, b):
        encoded = json.loads(json.dumps(Histogram.of_samples(run).encode()))
        parts.append(histograms.decode(encoded, {"min": min(run), "max": max(run)}))
    got = histograms.merge(parts).percentile(p)
    exact = nearest_rank(a + b, p)
    assert abs(got - exact) <= exact * histograms.RELATIVE_PRECISION, (got, exact)


@given(values=samples)
def test_the_encoding_round_trips_and_keeps_short_gaps_inside_a_run(values):
    h = Histogram.of_samples(values)
    encoded = h.encode()
    assert histograms.decode(encoded).counts == h.counts
    firsts = sorted(int(k) for k in encoded["buckets"])
    for first, after in zip(firsts, firsts[1:], strict=False):
        end = first + len(encoded["buckets"][str(first)]) - 1
        assert after - end > histograms.RUN_GAP + 1  # closer runs would have been one
    assert all(run[0] and run[-1] for run in encoded["buckets"].values())


def test_a_merge_knows_min_and_max_only_when_every_part_does():
    known = Histogram.of_samples([1000, 2000])
    unknown = histograms.decode(Histogram.of_samples([500]).encode())
    assert (histograms.merge([known, known]).min, histograms.merge([known]).max) == (1000, 2000)
    merged = histograms.merge([known, unknown])
    assert merged.min is None and merged.max is None
    assert merged.percentile(1) == 500  # its bucket's midpoint: exact below 256 x 2


def test_loadgens_document_percentiles_are_the_decoders():
    """Every percentile loadgen wrote in the committed version 5 sample (a real run) is
    what the decoder reads from the histogram beside it, and the histogram holds io_count."""
    document = json.loads(SAMPLE.read_text())
    assert document["schema_version"] == 5
    checked = 0
    for result in document["results"]:
        for owner in [result, *(result[s] for s in ("read", "write") if s in result)]:
            latency = owner["latency_ns"]
            h = histograms.decode(latency["histogram"], latency)
            assert h.total == owner["io_count"]
            stated = latency["percentiles"]
            assert histograms.percentiles(h, map(float, stated)) == stated
            checked += 1
    assert checked >= 7  # five results, a mixed one's reads and writes


@pytest.mark.parametrize(
    "encoded, message",
    [
        ([], histograms.NOT_A_HISTOGRAM),
        (
            {"sub_bucket_bits": 6, "unit": "ns", "buckets": {"0": [1]}},
            histograms.OTHER_SCHEME.format(given=6, unit="ns", bits=7, expected="ns"),
        ),
        (
            {"sub_bucket_bits": 7, "unit": "us", "buckets": {"0": [1]}},
            histograms.OTHER_SCHEME.format(given=7, unit="us", bits=7, expected="ns"),
        ),
        ({"sub_bucket_bits": 7, "unit": "ns", "buckets": {"x": [1]}}, "bucket run 'x'"),
        ({"sub_bucket_bits": 7, "unit": "ns", "buckets": {"3": []}}, "bucket run '3'"),
        ({"sub_bucket_bits": 7, "unit": "ns", "buckets": {"3": [-1]}}, "bucket run '3'"),
        ({"sub_bucket_bits": 7, "unit": "ns", "buckets": {"3": [1.5]}}, "bucket run '3'"),
        (
            {"sub_bucket_bits": 7, "unit": "ns", "buckets": {"7423": [1, 1]}},
            histograms.BEYOND_LAST.format(key="7423", end=7424, last=7423),
        ),
        (
            {"sub_bucket_bits": 7, "unit": "ns", "buckets": {"3": [1, 2], "4": [1]}},
            histograms.OVERLAP.format(index=4),
        ),
    ],
)
def test_what_the_encoding_does_not_allow_is_refused_with_its_reason(encoded, message):
    with pytest.raises(HistogramError) as raised:
        histograms.decode(encoded)
    assert str(raised.value).startswith(message)


@pytest.mark.parametrize("p", [0, -1, 100.5, float("nan"), "50"])
def test_a_percentile_outside_0_to_100_is_refused(p):
    with pytest.raises(HistogramError):
        Histogram.of_samples([1, 2, 3]).percentile(p)


def test_an_empty_histogram_has_no_percentile():
    assert Histogram().percentile(50) is None
