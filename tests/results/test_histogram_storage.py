"""Each result's latency histograms as its document gives them (schema version 5), stored by
ingest and read by nothing that lists or shows results whole."""

import copy
import json
from pathlib import Path

import pytest
from django.conf import settings

from results import histograms
from results.models import HISTOGRAM_FIELDS, RESULT_FIGURES, Result
from results.selectors.compare import compare
from tests.results.helpers import ingest, measured

pytestmark = pytest.mark.django_db

SAMPLE = Path(settings.BASE_DIR) / "results/schema/samples/measured-loadgen-quick-v5.json"


def _stored(document: dict) -> list[Result]:
    run = ingest(document)
    return list(Result.objects.filter(run=run).order_by("id"))


def test_every_histogram_of_a_document_is_stored_as_it_gives_it():
    document = json.loads(SAMPLE.read_text())
    stored = _stored(document)
    assert len(stored) == len(document["results"])
    mixed = 0
    for entry, result in zip(document["results"], stored, strict=True):
        assert result.test.identifier == entry["test"]
        assert result.latency_histogram == entry["latency_ns"]["histogram"]
        # What it holds is the result's I/Os (the plausibility check ingest made).
        assert histograms.decode(result.latency_histogram).total == result.io_count
        for side in ("read", "write"):
            given = entry.get(side, {}).get("latency_ns", {}).get("histogram")
            assert getattr(result, f"{side}_latency_histogram") == given
            mixed += given is not None
    assert mixed >= 2  # the sample's 70/30 test holds its reads' and writes' apart


def test_a_document_without_histograms_stores_none():
    document = json.loads(SAMPLE.read_text())
    for entry in document["results"]:
        for part in (entry, entry.get("read", {}), entry.get("write", {})):
            part.get("latency_ns", {}).pop("histogram", None)
    for result in _stored(document):
        assert [getattr(result, name) for name in HISTOGRAM_FIELDS] == [None] * 3
    for result in Result.objects.filter(run=measured()):
        assert [getattr(result, name) for name in HISTOGRAM_FIELDS] == [None] * 3


def test_no_list_or_comparison_reads_them_whole(client):
    assert not set(HISTOGRAM_FIELDS) & set(RESULT_FIGURES)
    document = json.loads(SAMPLE.read_text())
    first = ingest(document)
    other = copy.deepcopy(document)
    other["drive"] = {**other["drive"], "model": other["drive"]["model"] + " II"}
    other["drive"].pop("slug", None)
    second = ingest(other)
    comparison = compare([first.drive.slug, second.drive.slug])
    shown = [f for part in comparison.tests for p in part.rows for f in p.figures if f]
    assert shown
    for f in shown:
        assert set(HISTOGRAM_FIELDS) <= f.result.get_deferred_fields()
    body = client.get("/api/v1/results/", {"drive": first.drive.slug}).json()
    assert body["results"]
    assert "histogram" not in json.dumps(body)
