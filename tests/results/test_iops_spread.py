"""The spread of a result's IOPS second by second within its run (iops_stddev, and iops_min
the slowest second), end to end: from fio's output and a loadgen document through ingest to
the compare page beside each throughput figure, its exports, the ranking by the slowest
second (?metric=iops_min) and the API."""

import csv
import io
import json

import pytest
from django.urls import reverse
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from results.importers.fio import fio_document
from results.models import LeaderboardEntry, Result
from results.synthetic import measured_document
from tests.results.helpers import ingest
from tests.results.test_importers_fio import DRIVE, load

pytestmark = pytest.mark.django_db

TEST = "randwrite-4k-qd3-8g"


def with_spread(seed: int, model: str, spreads: dict[str, tuple[float, float]]):
    """A measured run whose results of TEST carry (stddev, slowest second) by pattern."""
    document = measured_document(seed=seed, model=model)
    for entry in document["results"]:
        if entry["test"] == TEST and entry["pattern"] in spreads:
            entry["iops_stddev"], entry["iops_min"] = spreads[entry["pattern"]]
    return ingest(document)


@pytest.fixture
def pair():
    a = with_spread(1, "Steady", {"incompressible": (120.5, 27000.0)})
    b = with_spread(2, "Jumpy", {"incompressible": (4100.25, 200.0)})
    return a, b


def test_ingest_stores_the_spread_and_the_ranking_copies_it(pair):
    a, _ = pair
    result = Result.objects.get(run=a, test__identifier=TEST, pattern="incompressible")
    assert (result.iops_stddev, result.iops_min) == (120.5, 27000.0)
    entry = LeaderboardEntry.objects.get(
        drive=a.drive, test__identifier=TEST, pattern="incompressible"
    )
    assert (entry.iops_stddev, entry.iops_min) == (120.5, 27000.0)
    other = Result.objects.get(run=a, test__identifier=TEST, pattern="compressible")
    assert (other.iops_stddev, other.iops_min) == (None, None)


def test_the_compare_page_shows_it_beside_the_throughput(client, pair):
    a, b = pair
    page = client.get(reverse("bench:compare", args=[a.drive.slug, b.drive.slug])).content
    text = page.decode()
    assert "±120, slowest second 27,000" in text
    assert "±4,100, slowest second 200" in text


def test_the_exports_carry_it(client, pair):
    a, b = pair
    url = reverse("bench:compare_csv", args=[a.drive.slug, b.drive.slug])
    rows = list(csv.reader(io.StringIO(client.get(url).content.decode())))
    # Each drive's value, then its notes: (unit, A, B).
    spread = {(r[1], r[2]): [r[4], r[5], r[7]] for r in rows if r[3].startswith("IOPS per second")}
    slowest = {
        (r[1], r[2]): [r[4], r[5], r[7]] for r in rows if r[3] == "IOPS of the slowest second"
    }
    name = next(r[1] for r in rows if r[3].startswith("IOPS per second"))
    # One pattern has it, in one test; in the CSV as plain numbers, in Markdown as the page
    # writes them.
    assert [[u, float(a), float(b)] for u, a, b in spread.values()] == [["IOPS", 120.5, 4100.25]]
    assert [[u, float(a), float(b)] for u, a, b in slowest.values()] == [
        ["IOPS (higher is better)", 27000, 200]
    ]
    assert name.startswith("4KB random write")
    markdown = client.get(
        reverse("bench:compare_markdown", args=[a.drive.slug, b.drive.slug])
    ).content.decode()
    assert "| IOPS of the slowest second | IOPS (higher is better) | 27,000 | 200 |" in markdown


def test_the_ranking_by_the_slowest_second(client, pair):
    a, b = pair
    url = reverse("bench:leaderboard", args=[TEST])
    page = client.get(url, {"metric": "iops_min"}).content.decode()
    steady, jumpy = page.index(str(a.drive)), page.index(str(b.drive))
    assert steady < jumpy and "slowest second 27,000" in page
    body = client.get(f"/api/v1/tests/{TEST}/leaderboard/", {"metric": "iops_min"}).json()
    ranked = [(e["drive"], e["iops_min"], e["iops_stddev"]) for e in body["rows"]]
    assert ranked == [(a.drive.slug, 27000.0, 120.5), (b.drive.slug, 200.0, 4100.25)]


def test_the_api_lists_and_compares_it(client, pair):
    a, b = pair
    listed = client.get("/api/v1/results/", {"run": a.pk, "test": TEST}).json()["results"]
    assert {r["pattern"]: (r["iops_stddev"], r["iops_min"]) for r in listed} == {
        "incompressible": (120.5, 27000.0),
        "compressible": (None, None),
    }
    body = client.get(f"/api/v1/compare/{a.drive.slug}/{b.drive.slug}/").json()
    test = next(t for t in body["tests"] if t["test"] == TEST)
    pattern = next(p for p in test["patterns"] if p["pattern"] == "incompressible")
    assert (pattern["a"]["iops_stddev"], pattern["b"]["iops_min"]) == (120.5, 200.0)


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    samples=st.integers(0, 10**6),
    stddev=st.floats(0, 1e7, allow_nan=False),
    slowest=st.integers(0, 10**7),
)
def test_fio_spread_is_imported_from_two_samples_up(samples, stddev, slowest):
    tree = load("fio-3.33-standard.json")
    side = tree["jobs"][0]["read"]
    side.update(iops_samples=samples, iops_stddev=stddev, iops_min=slowest)
    result = fio_document(fio_json=json.dumps(tree), drive=DRIVE).document["results"][0]
    if samples >= 2:
        assert (result["iops_stddev"], result["iops_min"]) == (stddev, slowest)
    else:  # fio writes 0 for both below two samples: no spread, not a spread of 0
        assert "iops_stddev" not in result and "iops_min" not in result


def test_a_fio_without_samples_has_no_spread():
    tree = load("fio-3.33-standard.json")
    for field in ("iops_samples", "iops_stddev", "iops_min"):
        tree["jobs"][0]["read"].pop(field)
    result = fio_document(fio_json=json.dumps(tree), drive=DRIVE).document["results"][0]
    assert "iops_stddev" not in result
