"""Ingesting schema_version 5 documents: each latency summary's histogram (its I/Os, in the
buckets results.histograms reads), and a paced result's rate_iops and load_percent, kept in
the stored document; versions 1 to 4 refuse those members."""

import copy
import json

import pytest

from results import documents, histograms, plausibility
from results.services import run_ingest
from tests.results.schema_slots import (
    _histogram,
    maximal_measured,
    maximal_measured_v2,
    maximal_measured_v3,
    maximal_measured_v4,
    maximal_measured_v5,
)
from tests.results.test_ingest import rejected

pytestmark = pytest.mark.django_db

EARLIER = [
    (1, maximal_measured),
    (2, maximal_measured_v2),
    (3, maximal_measured_v3),
    (4, maximal_measured_v4),
]


def test_histograms_and_a_paced_rate_are_kept_in_the_stored_document():
    document = maximal_measured_v5()
    run = run_ingest(document=json.dumps(document), submitter=None).run
    assert run.schema_version == 5
    stored = json.loads(run.document)
    first = stored["results"][0]
    assert (first["rate_iops"], first["load_percent"]) == (9000, 90)
    latency = first["latency_ns"]
    merged = histograms.merge(
        histograms.decode(r["latency_ns"]["histogram"], r["latency_ns"]) for r in stored["results"]
    )
    assert merged.total == sum(r["io_count"] for r in stored["results"])
    assert histograms.decode(latency["histogram"], latency).total == first["io_count"]


@pytest.mark.parametrize("version, make", EARLIER)
@pytest.mark.parametrize(
    "where",
    [("latency_ns", "histogram"), ("clat_ns", "histogram"), ("rate_iops",), ("load_percent",)],
)
def test_earlier_versions_cannot_carry_version_5_members(version, make, where):
    document = make()
    entry = document["results"][0]
    v5 = maximal_measured_v5()["results"][0]
    if where[0] in documents.LATENCY_KINDS:
        entry.setdefault(where[0], copy.deepcopy(v5[where[0]]))[where[1]] = v5[where[0]][where[1]]
    else:
        entry["rate_iops"] = v5["rate_iops"]  # load_percent goes with it
        entry[where[0]] = v5[where[0]]
    problems = {(p.pointer, p.message) for p in rejected(document)}
    assert (
        documents.pointer("results", 0, *where),
        documents.NOT_IN_VERSION.format(field=where[-1], version=version),
    ) in problems


def test_a_histogram_that_does_not_hold_its_io_count_is_refused():
    document = maximal_measured_v5()
    entry = document["results"][0]
    buckets = entry["latency_ns"]["histogram"]["buckets"]
    first = min(buckets, key=int)
    buckets[first][0] += 1
    held = entry["io_count"] + 1
    assert [(p.pointer, p.message) for p in rejected(document)] == [
        (
            "/results/0/latency_ns/histogram",
            plausibility.HISTOGRAM_COUNT.format(held=held, count=entry["io_count"]),
        )
    ]


def test_a_histogram_the_decoder_cannot_read_is_refused_with_its_reason():
    document = maximal_measured_v5()
    buckets = document["results"][0]["latency_ns"]["histogram"]["buckets"]
    first = min(buckets, key=int)
    buckets[str(int(first) + 1)] = [1]  # inside the first run
    assert [(p.pointer, p.message) for p in rejected(document)] == [
        (
            "/results/0/latency_ns/histogram",
            histograms.OVERLAP.format(index=int(first) + 1),
        )
    ]


def test_a_bucket_index_is_a_decimal_number():
    document = maximal_measured_v5()
    document["results"][0]["latency_ns"]["histogram"]["buckets"]["0x10"] = [1]
    pointers = {p.pointer for p in rejected(document)}
    assert "/results/0/latency_ns/histogram/buckets" in pointers


def test_a_paced_result_is_not_held_to_littles_law():
    """A paced result's rate is its schedule's: at a tenth of the load its queue holds a
    tenth of the I/Os Little's law asks of an unpaced one, which the model refuses."""
    document = maximal_measured_v5()
    entry = document["results"][0]
    for key in ("read", "write", "rwmixread", "iops_stddev", "iops_min"):
        entry.pop(key, None)
    seconds = entry["duration_ns"] / 1e9
    depth = entry.get("queue_depth", 3) * entry.get("jobs", 1)
    in_flight = 0.05 * depth  # half of plausibility.LITTLE_LOW
    entry["io_count"] = round(in_flight * 1e9 / entry["latency_ns"]["mean"] * seconds)
    entry["bytes"] = entry["io_count"] * entry["block_size"]
    entry["iops"] = entry["io_count"] / seconds
    entry["bytes_per_second"] = entry["bytes"] / seconds
    for kind in documents.LATENCY_KINDS:
        entry[kind]["histogram"] = _histogram(entry[kind], entry["io_count"])
    catalog = json.loads(documents.TEST_CATALOG.read_text())
    specs = {
        t["id"]: documents.TestSpec(
            t["id"], t["kind"], t["block_size"], t["queue_depth"], t["duration_s"]
        )
        for t in catalog["tests"]
    }

    def littles_law(doc):
        return [
            p
            for p in plausibility.figure_problems(doc, specs, None)
            if p.pointer == "/results/0/latency_ns/mean"
        ]

    unpaced = copy.deepcopy(document)
    for key in ("rate_iops", "load_percent"):
        unpaced["results"][0].pop(key)
    assert littles_law(unpaced), "the unpaced copy must break Little's law"
    assert littles_law(document) == []
