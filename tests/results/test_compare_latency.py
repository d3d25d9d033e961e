"""The head to head's latency: the lower mean latency named by the winner rule (on the rates
the latencies stand for, so the same margin as the throughput's), or why it is not tested
(published figures, latencies of two kinds); and a test where neither drive has a rate
draws no empty bar chart but says why."""

import re

import pytest
from django.urls import reverse

from results.selectors.compare import LATENCY_KINDS_DIFFER, compare
from results.synthetic import measured_document
from tests.results.helpers import ingest, measured, published

pytestmark = pytest.mark.django_db
TEST = "randwrite-4k-qd3-8g"


def latency_only(model: str, mean_ns: int):
    return published(
        manufacturer="Maker",
        model=model,
        results=[{"test": TEST, "pattern": "compressible", "latency_ns": {"mean": mean_ns}}],
    ).drive


def text(html: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html))


def test_latency_only_drives_have_no_empty_chart_and_an_untested_latency(client):
    a, b = latency_only("Lat A", 60_000), latency_only("Lat B", 70_000)
    html = client.get(reverse("bench:compare", args=[a.slug, b.slug])).content.decode()
    article = html.split('<article class="test">')[1].split("</article>")[0]
    assert "data-figure" not in article  # no bars on an empty axis
    assert "Neither drive has a throughput figure in this test" in text(article)
    latency = html.split('id="latency"')[1].split("</section>")[0]
    assert "difference not tested" in text(latency)


def scaled(model: str, seed: int, scale: float):
    """A measured run of three passes (schema version 2) whose rates are `scale` times and
    whose mean latencies are 1/`scale` times the synthetic document's, as Little's law has it
    at the same queue depths."""
    document = measured_document(seed=seed, manufacturer="Maker", model=model)
    document["schema_version"] = 2
    document["parameters"]["repeat"] = 3
    results = []
    for n in (1, 2, 3):
        for r in document["results"]:
            r = {**r, "repeat": n, "latency_ns": dict(r["latency_ns"])}
            step = 1 + 0.02 * (n - 2)
            seconds = r["duration_ns"] / 1e9
            r["io_count"] = int(r["io_count"] * scale * step)
            r["bytes"] = r["io_count"] * r["block_size"]
            r["bytes_per_second"] = r["bytes"] / seconds
            r["iops"] = r["io_count"] / seconds
            r["latency_ns"]["mean"] = r["latency_ns"]["mean"] / (scale * step)
            results.append(r)
    document["results"] = results
    return ingest(document).drive


def test_the_lower_latency_wins_beyond_the_margin_and_ties_within_it(client):
    fast, slow, close = scaled("Fast", 1, 1.0), scaled("Slow", 2, 0.4), scaled("Close", 3, 1.01)
    pairs = [p for t in compare([fast.slug, slow.slug]).tests for p in t.rows]
    assert pairs and all(p.latency_verdicts[1].winner == "a" for p in pairs)
    for p in pairs:
        ratio = p.figures[1].result.latency_mean_ns / p.figures[0].result.latency_mean_ns
        assert p.latency_verdicts[1].difference_percent == pytest.approx((ratio - 1) * 100)
    html = client.get(reverse("bench:compare", args=[fast.slug, slow.slug])).content.decode()
    assert "A lower" in text(html.split('id="latency"')[1])
    ties = {
        p.latency_verdicts[1].winner for t in compare([fast.slug, close.slug]).tests for p in t.rows
    }
    assert ties == {"tie"}


def test_latencies_of_two_kinds_are_not_compared():
    completion = measured(model="Completion only")  # schema version 1: fio's clat
    total = scaled("Issue to completion", 4, 1.0)
    verdicts = [
        p.latency_verdicts[1]
        for t in compare([completion.drive.slug, total.slug]).tests
        for p in t.rows
    ]
    assert verdicts and all(
        v.winner == "untested" and v.reason == LATENCY_KINDS_DIFFER for v in verdicts
    )
