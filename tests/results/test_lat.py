"""SNIA PTS's latency test (LAT), suite lat-2026, end to end: a loadgen document of its nine
QD1 tests (0.5, 4 and 8 KiB by 100/0, 65/35 and 0/100 reads/writes) through ingest to the
compare page's latency table (mean and maximum), its exports, the API's compare body and
results list, and each test's ranking by mean latency (page and API). The tests are
throughput tests of the catalog: nothing of this is code of their own."""

import csv
import io
import json

import pytest
from django.urls import reverse

from results import sweeps
from results.models import LeaderboardEntry, Result, Test
from results.synthetic import measured_document
from results.units import latency
from tests.results.helpers import ingest

pytestmark = pytest.mark.django_db

CATALOG = json.loads(sweeps.CATALOG.read_text())
(SUITE,) = [s for s in CATALOG["suites"] if s["name"] == "lat-2026"]
TESTS = [next(t for t in CATALOG["tests"] if t["id"] == i) for i in SUITE["tests"]]
MIXED = "randrw65-4k-qd1-lat"
SECONDS = 60


def _summary(mean: float, spike: float) -> dict:
    return {
        "mean": mean,
        "min": int(mean / 2),
        "max": int(mean * spike),
        "percentiles": {"50": int(mean), "99": int(mean * 3)},
    }


def _figures(io_count: int, block_size: int, mean: float, spike: float) -> dict:
    return {
        "io_count": io_count,
        "bytes": io_count * block_size,
        "bytes_per_second": io_count * block_size / SECONDS,
        "iops": io_count / SECONDS,
        "latency_ns": _summary(mean, spike),
    }


def _result(test: dict, pattern: str, read_us: float, write_us: float, spike: float) -> dict:
    """One LAT result at QD1: one I/O in flight, so IOPS = 1 / mean latency (Little's law);
    a 65/35 test's reads and writes apart, its mean theirs weighted by their I/Os."""
    bs = test["block_size"]
    entry = {
        "test": test["id"],
        "pattern": pattern,
        "block_size": bs,
        "queue_depth": 1,
        "span_bytes": 200 * 10**9,
        "duration_ns": SECONDS * 10**9,
    }
    if test["operation"] != "mixed":
        mean = (read_us if test["operation"] == "read" else write_us) * 1e3
        return entry | _figures(int(SECONDS * 1e9 / mean), bs, mean, spike)
    share = test["rwmixread"] / 100
    mean = (share * read_us + (1 - share) * write_us) * 1e3
    io_count = int(SECONDS * 1e9 / mean)
    reads = round(io_count * share)
    read = _figures(reads, bs, read_us * 1e3, spike)
    write = _figures(io_count - reads, bs, write_us * 1e3, spike)
    mean = (reads * read_us + (io_count - reads) * write_us) * 1e3 / io_count
    whole = _figures(io_count, bs, mean, spike)
    sides = (read["latency_ns"], write["latency_ns"])
    whole["latency_ns"]["min"] = min(s["min"] for s in sides)
    whole["latency_ns"]["max"] = max(s["max"] for s in sides)
    return entry | whole | {"rwmixread": 65, "read": read, "write": write}


def lat_document(*, seed: int, model: str, read_us: float, write_us: float, spike: float):
    """A loadgen run of lat-2026: every test's reads taking `read_us` µs and its writes
    `write_us` µs on average, its longest I/O `spike` times its mean."""
    document = measured_document(seed=seed, model=model)
    document["schema_version"] = 2
    document["parameters"]["suite"] = {"name": "lat-2026", "version": 1}
    document["parameters"]["tests"] = SUITE["tests"]
    document["consistency"] = []
    document["results"] = [
        _result(test, pattern, read_us, write_us, spike)
        for test in TESTS
        for pattern in ("compressible", "incompressible")
    ]
    return document


@pytest.fixture
def pair():
    # Fast has the lower mean latency, Steady the lower maximum.
    fast = lat_document(seed=1, model="Fast", read_us=80, write_us=20, spike=400)
    steady = lat_document(seed=2, model="Steady", read_us=100, write_us=40, spike=50)
    return ingest(fast), ingest(steady)


def test_ingest_stores_every_test_with_its_mean_and_maximum(pair):
    a, _ = pair
    stored = Result.objects.filter(run=a, test__identifier__in=SUITE["tests"])
    assert stored.count() == 9 * 2
    for r in stored:
        assert r.queue_depth == 1 and r.latency_kind == "lat"
        # a 65/35 test's longest I/O is a read's
        reads_mean = 80e3 if r.test.operation != "write" else r.latency_mean_ns
        assert r.latency_max_ns == int(reads_mean * 400)
        # QD1: IOPS × mean latency = 1 s
        assert r.iops * r.latency_mean_ns / 1e9 == pytest.approx(1, rel=0.01)
    mixed = stored.get(test__identifier=MIXED, pattern="compressible")
    assert set(mixed.directions) == {"read", "write"}
    assert (mixed.read_latency_mean_ns, mixed.write_latency_mean_ns) == (80e3, 20e3)
    assert mixed.read_latency_max_ns == 80e3 * 400
    assert mixed.read_iops / mixed.iops == pytest.approx(0.65, abs=0.001)


def test_the_compare_page_shows_each_tests_mean_and_maximum(client, pair):
    a, b = pair
    html = client.get(reverse("bench:compare", args=[a.drive.slug, b.drive.slug])).content.decode()
    table = html[html.index('<section id="latency">') :]
    table = table[: table.index("</section>")]
    for test in TESTS:
        assert test["name"] in table, test["id"]
    # 0.5KB random read: A's mean and max, B's
    for mean, spike in ((80e3, 400), (100e3, 50)):
        assert latency(mean) in table and latency(mean * spike) in table
    # a mixed test's reads and writes apart
    assert 'class="direction direction-read"' in html


def test_the_exports_carry_each_tests_mean_and_maximum(client, pair):
    a, b = pair
    text = client.get(reverse("bench:compare_csv", args=[a.drive.slug, b.drive.slug]))
    rows = list(csv.reader(io.StringIO(text.content.decode())))
    for test in TESTS:
        found = {
            (r[2], r[3]): (float(r[5]), float(r[7]))
            for r in rows
            if r[0] == "latency" and r[1] == test["name"]
        }
        means = {"read": (80, 100), "write": (20, 40)}.get(test["operation"])
        if means is None:  # 65/35: the weighted mean
            means = (0.65 * 80 + 0.35 * 20, 0.65 * 100 + 0.35 * 40)
        for pattern in ("compressible", "incompressible"):
            mean_a, mean_b = found[(pattern, "mean")]
            assert (mean_a, mean_b) == pytest.approx(means, rel=0.01), test["id"]
            if test["operation"] == "mixed":  # its longest I/O is a read's
                mean_a, mean_b = 80, 100
            assert found[(pattern, "max")] == pytest.approx(
                (mean_a * 400, mean_b * 50), rel=0.01
            ), test["id"]
    markdown = client.get(reverse("bench:compare_markdown", args=[a.drive.slug, b.drive.slug]))
    assert all(t["name"] in markdown.content.decode() for t in TESTS)


def test_the_api_gives_each_tests_mean_and_maximum(client, pair):
    a, b = pair
    body = client.get(f"/api/v1/compare/{a.drive.slug}/{b.drive.slug}/").json()
    tests = {t["test"]: t for t in body["tests"]}
    assert set(SUITE["tests"]) <= set(tests)
    read = tests["randread-512-qd1-lat"]["patterns"][0]
    assert (read["a"]["latency"]["mean_ns"], read["a"]["latency"]["max_ns"]) == (80e3, 32_000_000)
    assert (read["b"]["latency"]["mean_ns"], read["b"]["latency"]["max_ns"]) == (100e3, 5_000_000)
    mixed = tests[MIXED]["patterns"][0]["a"]
    assert (mixed["read"]["latency_mean_ns"], mixed["write"]["latency_mean_ns"]) == (80e3, 20e3)
    assert mixed["read"]["latency_max_ns"] == 32_000_000
    listed = client.get("/api/v1/results/", {"test": "randwrite-8k-qd1-lat"}).json()["results"]
    assert sorted(r["latency"]["max_ns"] for r in listed) == [2_000_000] * 2 + [8_000_000] * 2


@pytest.mark.parametrize("identifier", SUITE["tests"])
def test_each_test_ranks_by_mean_latency_lowest_first(client, pair, identifier):
    """?metric=latency ranks the lower mean latency first; at QD1 the default ranking (MB/s)
    orders the drives the same way, IOPS being the reciprocal of the mean latency."""
    assert LeaderboardEntry.objects.filter(test__identifier=identifier).count() == 4
    for metric in ("latency", "throughput"):
        query = {"pattern": "incompressible", "metric": metric}
        html = client.get(reverse("bench:leaderboard", args=[identifier]), query).content.decode()
        assert html.index("Maker Fast") < html.index("Maker Steady"), metric
        if metric == "latency" and identifier.startswith("randread"):
            assert latency(80e3) in html and latency(100e3) in html
        body = client.get(reverse("api:leaderboard", args=[identifier]), query).json()
        assert [r["drive_name"].split()[1] for r in body["rows"]] == ["Fast", "Steady"]
    means = [r["latency_mean_ns"] for r in body["rows"]]
    assert means == sorted(means)
    assert Test.objects.get(identifier=identifier).queue_depth == 1
