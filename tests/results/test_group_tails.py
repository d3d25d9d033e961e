"""A group's tail (results.tails): the leaderboard refresh merges the histograms of a
group's results and writes the group's percentiles and I/O count on its entry; a group whose
results do not all carry one has none, and says so."""

import math

import pytest

from results import histograms
from results.models import LeaderboardEntry
from results.tails import RANKED_IOS
from tests.results.helpers import ingest
from tests.results.tails_data import TEST, run_document, samples

pytestmark = pytest.mark.django_db


def _entry(run) -> LeaderboardEntry:
    return LeaderboardEntry.objects.get(drive=run.drive, test__identifier=TEST)


@pytest.mark.parametrize("sizes", [(4_000, 3_500), (4_000, 3_500, 5_000), (9_000,)])
def test_the_entrys_percentiles_are_those_of_every_sample_together(sizes):
    passes = [samples(seed, n) for seed, n in enumerate(sizes, start=1)]
    run = ingest(run_document(passes))
    entry = _entry(run)
    together = histograms.Histogram.of_samples(v for values in passes for v in values)
    assert entry.runs == len(sizes)
    assert entry.histograms == len(sizes)
    assert entry.tail == "merged"
    assert entry.latency_io_count == sum(sizes) == together.total
    assert entry.latency_percentiles_ns == {
        q: together.percentile(float(q)) for q in histograms.PERCENTILE_KEYS
    }
    assert entry.latency_max_ns == max(max(values) for values in passes)
    # Within the histogram's precision of the samples' nearest-rank percentile (the rank as
    # loadgen reckons it, in doubles).
    ordered = sorted(v for values in passes for v in values)
    for q, value in entry.latency_percentiles_ns.items():
        exact = ordered[min(max(math.ceil(float(q) / 100 * len(ordered)), 1), len(ordered)) - 1]
        assert abs(value - exact) <= exact * histograms.RELATIVE_PRECISION + 1
    # The p99.9 is ranked only where the group's I/Os support it.
    supported = sum(sizes) >= RANKED_IOS
    assert entry.latency_p999_ns == (entry.latency_percentiles_ns["99.9"] if supported else None)


def test_a_group_not_every_result_of_which_has_a_histogram_has_no_tail():
    passes = [samples(seed, 4_000) for seed in (1, 2, 3)]
    run = ingest(run_document(passes, without_histogram=(2,)))
    entry = _entry(run)
    assert (entry.runs, entry.histograms, entry.tail) == (3, 2, "unmerged")
    assert entry.latency_percentiles_ns is None
    assert entry.latency_io_count is None
    assert entry.latency_p999_ns is None


def test_a_result_alone_without_a_histogram_keeps_its_own_percentiles():
    values = samples(7, 12_000)
    run = ingest(run_document([values], without_histogram=(1,)))
    entry = _entry(run)
    result = entry.result
    assert (entry.runs, entry.histograms, entry.tail) == (1, 0, "result")
    assert entry.latency_percentiles_ns == result.latency_percentiles_ns
    assert entry.latency_io_count == result.io_count == 12_000
    assert entry.latency_p999_ns == result.latency_percentiles_ns["99.9"]


def test_a_refresh_that_changes_nothing_writes_nothing():
    from results.services import leaderboard_refresh

    passes = [samples(seed, 3_000) for seed in (1, 2)]
    run = ingest(run_document(passes))
    assert leaderboard_refresh(drive_ids=[run.drive_id]) == 0
    assert leaderboard_refresh(drive_ids=None) == 0
