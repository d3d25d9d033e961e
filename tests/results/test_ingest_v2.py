"""Ingesting schema_version 2 documents: which latency a figure is (issue to completion, with
its completion part beside it), jobs, interrupted runs and their partial results, the write
saturation; and version 1 documents as they always were, their measured latency marked as
the completion part it was."""

import copy
import json

import pytest

from results import documents
from results.models import LatencyKind, Result, Run, SaturationSeries
from results.services import run_ingest
from tests.results.schema_slots import maximal_measured_v2
from tests.results.test_ingest import ROOT, only, rejected

pytestmark = pytest.mark.django_db

LATENCY = {"mean": 150000.5, "stddev": 900.0, "min": 60000, "max": 4000000}
CLAT = {"mean": 140000.5, "stddev": 880.0, "min": 50000, "max": 3990000}


def completion_part(latency: dict) -> dict:
    """A clat_ns beside a latency_ns: each figure 10 us less (none below 0), in the same order."""
    clat = {name: max(latency[name] - 10000, 0) for name in ("mean", "min", "max")}
    clat["stddev"] = latency["stddev"]
    clat["percentiles"] = {p: max(v - 10000, 0) for p, v in latency["percentiles"].items()}
    return clat


def version_2(document: dict) -> dict:
    """The measured document as loadgen writes version 2 of it."""
    doc = copy.deepcopy(document)
    doc["schema_version"] = 2
    doc["parameters"].update(jobs=1, precondition="fill")
    for entry in doc["results"]:
        entry["jobs"] = 1
        entry["clat_ns"] = completion_part(entry["latency_ns"])
    return doc


def saturation(**changes) -> dict:
    entry = {
        "test": "write-saturation-128k-qd32",
        "pattern": "incompressible",
        "block_size": 131072,
        "queue_depth": 32,
        "interval_ns": 1_000_000_000,
        "duration_ns": 7_500_000_000,
        "bytes_written": 4_505_000_000,
        "mean_bytes_per_second": 600666666.7,
        "initial_bytes_per_second": 1e9,
        "threshold_fraction": 0.7,
        "exhausted": True,
        "exhausted_at_s": 3,
        "bytes_before_exhausted": 3_150_000_000,
        "bytes_per_second_before": 1.05e9,
        "bytes_per_second_after": 301111111.1,
        # 7.5 s: three fast seconds, four slow ones, and a last half second.
        "bytes_per_interval": [10**9, 11 * 10**8, 105 * 10**7] + [3 * 10**8] * 4 + [155 * 10**6],
    }
    entry.update(changes)
    return entry


def test_version_2_latency_is_issue_to_completion_with_clat_beside(document):
    doc = version_2(document)
    run = run_ingest(document=json.dumps(doc), submitter=None).run
    assert (run.schema_version, run.complete) == (2, True)
    first = doc["results"][0]
    stored = run.results.get(test__identifier=first["test"], pattern=first["pattern"])
    assert stored.latency_kind == LatencyKind.TOTAL
    assert stored.latency_mean_ns == first["latency_ns"]["mean"]
    assert stored.clat_mean_ns == first["clat_ns"]["mean"]
    assert stored.clat_percentiles_ns == first["clat_ns"]["percentiles"]
    assert (stored.jobs, stored.partial) == (1, False)
    assert stored.deviations == []


def test_version_1_measured_latency_is_the_completion_part(document):
    run = run_ingest(document=json.dumps(document), submitter=None).run
    stored = run.results.first()
    assert stored.latency_kind == LatencyKind.COMPLETION
    assert stored.clat_mean_ns is None
    assert "latency: completion only (fio's clat)" in stored.deviations


@pytest.mark.parametrize("name", ["2011-crucial-c300.json", "2011-crucial-m4-256gb.json"])
def test_published_latency_is_what_the_article_reports(name):
    run = run_ingest(document=(ROOT / "demo/runs" / name).read_bytes(), submitter=None).run
    kinds = set(run.results.exclude(latency_kind="").values_list("latency_kind", flat=True))
    assert kinds == {LatencyKind.TOTAL}


def test_version_1_document_cannot_carry_version_2_members(document):
    document["results"][0]["clat_ns"] = CLAT
    assert only(rejected(document)) == (
        "/results/0/clat_ns",
        documents.NOT_IN_VERSION.format(field="clat_ns", version=1),
    )


def test_interrupted_run_keeps_its_partial_results_out_of_rankings(document):
    doc = version_2(document)
    doc["status"] = "incomplete"
    doc["results"][-1]["partial"] = True  # the test it was in when interrupted
    run = run_ingest(document=json.dumps(doc), submitter=None).run
    assert run.complete is False
    partial = run.results.get(partial=True)
    assert "partial: the run was interrupted" in partial.deviations
    assert partial not in Result.objects.rankable()
    assert Result.objects.rankable().filter(run=run).count() == len(doc["results"]) - 1
    # Interrupted in its last consistency level instead: that series is the partial one.
    doc["results"][-1].pop("partial")
    doc["consistency"][-1]["partial"] = True
    run = run_ingest(document=json.dumps(doc), submitter=None).run
    assert run.consistency_series.get(partial=True).spare_area_percent == 25
    assert not run.results.filter(partial=True).exists()


def test_an_interrupted_run_holds_one_partial_entry(document):
    doc = version_2(document)
    doc["status"] = "incomplete"
    doc["results"][-1]["partial"] = True
    doc["consistency"][-1]["partial"] = True
    (problem,) = rejected(doc)
    assert problem.pointer == f"/consistency/{len(doc['consistency']) - 1}/partial"
    assert problem.message == documents.ONE_PARTIAL.format(
        first=f"/results/{len(doc['results']) - 1}"
    )


def test_complete_run_has_no_partial_result(document):
    doc = version_2(document)
    doc["results"][0]["partial"] = True
    assert only(rejected(doc)) == ("/results/0/partial", documents.PARTIAL_IN_COMPLETE)


def test_version_1_run_must_be_complete(document):
    assert only(rejected(dict(document, status="incomplete"))) == (
        "/status",
        documents.NOT_COMPLETE_V1,
    )


def test_failed_run_is_refused_in_version_2(document):
    doc = version_2(document)
    doc.update(status="failed", failure={"message": "ENOSPC"})
    assert only(rejected(doc)) == ("/status", documents.NOT_COMPLETE.format(status="failed"))


def test_write_saturation_is_stored(document):
    doc = version_2(document)
    doc["saturation"] = [saturation()]
    run = run_ingest(document=json.dumps(doc), submitter=None).run
    stored = SaturationSeries.objects.get(run=run)
    assert stored.bytes_per_interval == doc["saturation"][0]["bytes_per_interval"]
    assert (stored.exhausted, stored.exhausted_at_s) == (True, 3)
    assert stored.bytes_before_exhausted == 3_150_000_000
    assert stored.test.identifier == "write-saturation-128k-qd32"


def test_write_saturation_checks(document):
    doc = version_2(document)
    doc["saturation"] = [saturation(exhausted=False)]
    problems = rejected(doc)
    assert all(p.pointer == "/saturation/0" for p in problems), problems
    doc["saturation"] = [saturation(queue_depth=1)]
    pointer, message = only(rejected(doc))
    assert pointer == "/saturation/0/queue_depth"
    doc["saturation"] = [saturation(test="consistency-4k-qd32")]
    assert only(rejected(doc)) == (
        "/saturation/0/test",
        documents.WRONG_SECTION.format(
            test="consistency-4k-qd32", kind="consistency", section="consistency"
        ),
    )


def test_several_jobs_are_noted(document):
    doc = version_2(document)
    doc["parameters"]["jobs"] = 2
    for entry in doc["results"]:
        entry["jobs"] = 2
    run = run_ingest(document=json.dumps(doc), submitter=None).run
    stored = run.results.first()
    assert stored.jobs == 2
    assert f"2 jobs of QD{stored.queue_depth}" in stored.deviations


def test_run_model_records_the_version(document):
    run_ingest(document=json.dumps(version_2(document)), submitter=None)
    assert Run.objects.get().schema_version == 2


def test_drive_page_shows_the_write_saturation(document, client):
    from django.urls import reverse

    doc = version_2(document)
    doc["saturation"] = [saturation()]
    run = run_ingest(document=json.dumps(doc), submitter=None).run
    html = client.get(reverse("bench:drive", args=[run.drive.slug])).content.decode()
    assert "Write saturation" in html
    assert (
        "1,000.0" in html and "1,050.0" in html and "301.1" in html
    )  # MB/s: initial, before, after
    assert "3 s" in html


def test_each_side_of_a_mixed_result_is_held_to_the_units_check():
    doc = maximal_measured_v2()
    (index, entry), *_ = [(i, e) for i, e in enumerate(doc["results"]) if "rwmixread" in e]
    entry["write"]["bytes_per_second"] = entry["write"]["iops"] * 4096 * 1.5
    pointer, message = only(rejected(doc))
    assert pointer == f"/results/{index}/write/bytes_per_second"
    assert message.startswith("bytes_per_second ")
