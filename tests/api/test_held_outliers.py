"""A reviewer's run far outside the distribution of its drive's runs is held for review
(results.plausibility.outside_distribution): only once the drive has MIN_RUNS runs of the
test, and only far out (Tukey's fences, three interquartile ranges, never narrower than
MIN_SPREAD of the median); a run within them is published as before."""

import json

import pytest

from results import plausibility
from results.models import Run
from results.services import run_ingest
from results.synthetic import measured_document
from tests.api.conftest import post_document

pytestmark = pytest.mark.django_db


def scaled(seed: int, factor: float) -> dict:
    """A run of the drive (Maker Model X) with every throughput figure times `factor`, its
    counts with them and its latencies over it (Little's law holds)."""
    document = measured_document(seed=seed)
    for result in document["results"]:
        result["bytes_per_second"] *= factor
        result["iops"] *= factor
        result["io_count"] = round(result["io_count"] * factor)
        result["bytes"] = result["io_count"] * result["block_size"]
        result["iops"] = result["io_count"] / 180
        result["bytes_per_second"] = result["iops"] * result["block_size"]
        latency = result["latency_ns"]
        for name in ("mean", "stddev"):
            latency[name] /= factor
        for name in ("min", "max"):
            latency[name] = int(latency[name] / factor)
        latency["percentiles"] = {p: int(v / factor) for p, v in latency["percentiles"].items()}
    return document


def others(count: int) -> None:
    for seed in range(1, count + 1):
        run_ingest(document=json.dumps(scaled(seed, 1.0)).encode(), submitter=None)


@pytest.mark.parametrize(
    "count, factor, held",
    [
        (plausibility.MIN_RUNS, 0.4, True),  # a throttled unit: every figure 60% down
        (plausibility.MIN_RUNS, 2.5, True),
        (plausibility.MIN_RUNS, 0.9, False),  # within the fences
        (plausibility.MIN_RUNS, 1.0, False),
        (plausibility.MIN_RUNS - 1, 0.4, False),  # too few runs to judge by
    ],
)
def test_a_run_far_outside_the_drives_runs_is_held(api, count, factor, held):
    others(count)
    response = post_document(api, scaled(100, factor))
    assert response.status_code == 201, response.content
    run = response.json()["run"]
    assert (run["status"] == "held") is held
    if held:
        reasons = run["held_reasons"]
        assert any(
            "far outside this drive's" in r and f"{count} reviewed runs" in r for r in reasons
        )
        assert Run.objects.get(pk=run["id"]).status == Run.Status.HELD


def test_imports_are_not_judged(db):
    others(plausibility.MIN_RUNS)
    run = run_ingest(document=json.dumps(scaled(100, 0.4)).encode(), submitter=None).run
    assert run.status == Run.Status.PUBLISHED
