"""Queue-depth sweeps and the mixed 70/30 workload, end to end: a loadgen document of the
workloads-2026 suite through ingest to the compare page (IOPS against queue depth and the
demand-intensity curve for both drives), its exports and API, a sweep's leaderboard at a
chosen depth (?qd=, page and API, with its cache scope), and the mixed test's reads and
writes kept apart from ingest to the page, the ranking, the exports and the API."""

import csv
import io
import json
from urllib.parse import urlencode

import pytest
from django.http import QueryDict
from django.urls import reverse
from hypothesis import given, settings
from hypothesis import strategies as st

from benchsite.urls import response_scopes
from core.versions import ranking_scope
from results import charts, sweeps
from results.models import LeaderboardEntry, Result, Test
from results.selectors.compare import compare
from results.synthetic import measured_document
from tests.results.helpers import ingest

pytestmark = pytest.mark.django_db

CATALOG = json.loads(sweeps.CATALOG.read_text())
MIXED = "randrw70-4k-qd32-8g"
READ_SWEEP, WRITE_SWEEP = "randread-4k-sweep", "randwrite-4k-8g-sweep"


def _result(test: dict, pattern: str, iops: float, seconds: int = 60) -> dict:
    io_count = int(iops * seconds)
    mean = test["queue_depth"] / iops * 1e9  # Little's law: the queue always full
    return {
        "test": test["id"],
        "pattern": pattern,
        "block_size": test["block_size"],
        "queue_depth": test["queue_depth"],
        "span_bytes": test["span_bytes"] or 64 * 2**30,
        "duration_ns": seconds * 10**9,
        "io_count": io_count,
        "bytes": io_count * test["block_size"],
        "bytes_per_second": io_count * test["block_size"] / seconds,
        "iops": io_count / seconds,
        "latency_ns": {
            "mean": mean,
            "min": int(mean / 4),
            "max": int(mean * 30),
            "percentiles": {"50": int(mean), "99": int(mean * 3)},
        },
    }


def _direction(iops: float, seconds: int, mean: float) -> dict:
    io_count = int(iops * seconds)
    return {
        "io_count": io_count,
        "bytes": io_count * 4096,
        "bytes_per_second": io_count * 4096 / seconds,
        "iops": io_count / seconds,
        "latency_ns": {"mean": mean, "max": int(mean * 20), "percentiles": {"99": int(mean * 2)}},
    }


def workloads_document(*, seed: int, model: str, ceiling: float, reads: float, writes: float):
    """A loadgen run of workloads-2026 (QD1 to QD128): each sweep's IOPS rising with the
    depth to `ceiling`, and the mixed test with `reads` and `writes` IOPS apart."""
    document = measured_document(seed=seed, model=model)
    document["schema_version"] = 2
    document["parameters"]["suite"] = {"name": "workloads-2026", "version": 1}
    document["consistency"] = []
    results = []
    for test in CATALOG["tests"]:
        if test.get("family") or test["id"] == MIXED:
            for pattern in ("compressible", "incompressible"):
                if test.get("family"):
                    iops = min(ceiling, 5000.0 * test["queue_depth"])
                    results.append(_result(test, pattern, iops))
                    continue
                entry = _result(test, pattern, reads + writes, seconds=180)
                entry["rwmixread"] = 70
                entry["read"] = _direction(reads, 180, 32 / (reads + writes) * 0.8e9)
                entry["write"] = _direction(writes, 180, 32 / (reads + writes) * 1.5e9)
                entry["io_count"] = entry["read"]["io_count"] + entry["write"]["io_count"]
                entry["bytes"] = entry["io_count"] * 4096
                entry["iops"] = entry["io_count"] / 180
                entry["bytes_per_second"] = entry["bytes"] / 180
                results.append(entry)
    document["results"] = results
    return document


@pytest.fixture
def pair():
    a = ingest(workloads_document(seed=1, model="Deep", ceiling=80_000, reads=7000, writes=3000))
    b = ingest(workloads_document(seed=2, model="Flat", ceiling=20_000, reads=3500, writes=1500))
    return a, b


# -- the catalog ----------------------------------------------------------------------------


def test_the_sweeps_are_the_same_test_at_each_depth():
    assert set(sweeps.families()) == {READ_SWEEP, WRITE_SWEEP}
    for family, tests in sweeps.families().items():
        assert list(tests) == [1, 2, 4, 8, 16, 32, 64, 128], family
        rows = [Test.objects.get(identifier=i) for i in tests.values()]
        shapes = {
            (t.kind, t.operation, t.access, t.block_size, t.span_bytes, t.duration_s, t.family)
            for t in rows
        }
        assert shapes == {
            ("throughput", rows[0].operation, "random", 4096, rows[0].span_bytes, 60, family)
        }
    mixed = Test.objects.get(identifier=MIXED)
    assert (mixed.operation, mixed.rwmixread, mixed.queue_depth, mixed.family) == (
        "mixed",
        70,
        32,
        "",
    )
    assert mixed.span_bytes == 8 * 2**30


@given(identifier=st.sampled_from([t["id"] for t in CATALOG["tests"]]))
@settings(max_examples=30, deadline=None)
def test_member_names_the_test_ranked_at_each_depth(identifier):
    family = sweeps.family_of(identifier)
    assert sweeps.member(identifier, None) == identifier
    if not family:
        with pytest.raises(sweeps.SweepDepthError, match="not a queue-depth sweep"):
            sweeps.member(identifier, 8)
        return
    for depth, test in sweeps.families()[family].items():
        assert sweeps.member(identifier, depth) == test
        assert sweeps.member(family, depth) == test
    with pytest.raises(sweeps.SweepDepthError, match="no test at queue depth 3"):
        sweeps.member(identifier, 3)
    assert sweeps.member(family, None) == sweeps.families()[family][sweeps.DEFAULT_DEPTH]


# -- ingest ---------------------------------------------------------------------------------


def test_ingest_stores_one_result_per_depth_and_the_mixed_halves(pair):
    a, _ = pair
    for family, tests in sweeps.families().items():
        stored = Result.objects.filter(run=a, test__family=family, pattern="incompressible")
        assert sorted(r.queue_depth for r in stored) == list(tests), family
    mixed = Result.objects.get(run=a, test__identifier=MIXED, pattern="compressible")
    assert round(mixed.read_iops) == 7000 and round(mixed.write_iops) == 3000
    assert mixed.read_iops + mixed.write_iops == pytest.approx(mixed.iops, rel=1e-6)
    assert mixed.read_latency_mean_ns < mixed.write_latency_mean_ns
    assert set(mixed.directions) == {"read", "write"}
    assert mixed.directions["read"]["latency_percentiles_ns"] == {"99": int(32 / 10000 * 1.6e9)}
    entry = LeaderboardEntry.objects.get(
        drive=a.drive, test__identifier=MIXED, pattern="compressible"
    )
    assert (round(entry.read_iops), round(entry.write_iops)) == (7000, 3000)
    plain = Result.objects.get(
        run=a, test__identifier="randread-4k-qd8-sweep", pattern="compressible"
    )
    assert plain.directions == {} and plain.read_iops is None


# -- the compare page, its charts, exports and API ---------------------------------------------


def test_the_comparison_holds_each_sweep_apart_from_the_tests(pair):
    a, b = pair
    c = compare([a.drive.slug, b.drive.slug])
    assert [s.family for s in c.sweeps] == [READ_SWEEP, WRITE_SWEEP]
    assert all(not pair.test.family for pair in c.tests)
    assert MIXED in {pair.test.identifier for pair in c.tests}
    read = c.sweeps[0]
    assert read.name == "4KB random read (queue-depth sweep)"
    assert [p.test.queue_depth for p in read.points] == [1, 2, 4, 8, 16, 32, 64, 128]
    assert read.patterns == ["compressible", "incompressible"]


def test_the_charts_draw_both_drives_at_every_depth(pair):
    a, b = pair
    c = compare([a.drive.slug, b.drive.slug])
    sweep = c.sweeps[0]
    figure = charts.sweep_iops(sweep, ["Deep", "Flat"])
    names = [t["name"] for t in figure["data"]]
    assert names == [
        "A: Deep<br>compressible",
        "A: Deep<br>incompressible",
        "B: Flat<br>compressible",
        "B: Flat<br>incompressible",
    ]
    depths = [1, 2, 4, 8, 16, 32, 64, 128]
    for trace, ceiling in zip(figure["data"], (80_000, 80_000, 20_000, 20_000), strict=True):
        assert trace["x"] == depths
        assert trace["y"] == [round(min(ceiling, 5000 * d)) for d in depths]
    assert figure["layout"]["xaxis"]["type"] == "log"
    demand = charts.sweep_demand(sweep, ["Deep", "Flat"])
    # mean and p99 of each line, one legend entry for both
    assert [(t["name"], t["legendgroup"], t["showlegend"]) for t in demand["data"]] == [
        (name, f"line-{n}", which == "mean")
        for n, name in enumerate(names)
        for which in ("mean", "p99")
    ]
    p99 = demand["data"][1]
    assert p99["y"] == [round(d / min(80_000, 5000 * d) * 3e6, 1) for d in depths]
    mean = demand["data"][0]
    assert mean["x"] == figure["data"][0]["y"]  # one point per depth, at its IOPS
    # Little's law: mean latency = depth / IOPS, in µs
    assert mean["y"] == [round(d / min(80_000, 5000 * d) * 1e6, 1) for d in depths]


def test_the_compare_page_draws_the_sweeps_and_the_mixed_halves(client, pair):
    a, b = pair
    html = client.get(reverse("bench:compare", args=[a.drive.slug, b.drive.slug])).content.decode()
    assert 'id="sweeps"' in html and 'href="#sweeps"' in html
    for i in range(2):
        assert f'id="sweep-{i}-iops"' in html and f'id="sweep-{i}-demand"' in html
    assert html.count('<article class="test">') == len(compare([a.drive.slug, b.drive.slug]).tests)
    assert (
        'class="direction direction-read"' in html and 'class="direction direction-write"' in html
    )
    assert "7,000 IOPS" in html and "3,000 IOPS" in html and "1,500 IOPS" in html
    assert reverse("bench:leaderboard", args=[READ_SWEEP]) in html


def test_the_exports_carry_every_depth_and_the_halves(client, pair):
    a, b = pair
    text = client.get(reverse("bench:compare_csv", args=[a.drive.slug, b.drive.slug]))
    rows = list(csv.reader(io.StringIO(text.content.decode())))
    tests = {row[1] for row in rows}
    for family in sweeps.families().values():
        for identifier in family.values():
            assert Test.objects.get(identifier=identifier).name in tests
    halves = [r for r in rows if r[3] in ("reads: mean", "writes: mean")]
    # Each drive's plain value (A: 5, B: 7; their notes beside them).
    assert [(r[2], r[3], float(r[5]), float(r[7])) for r in halves] == [
        (pattern, f"{side}s: mean", a_iops, b_iops)
        for pattern in ("compressible", "incompressible")
        for side, a_iops, b_iops in (("read", 7000, 3500), ("write", 3000, 1500))
    ]


def test_the_api_compare_gives_the_sweep_and_the_halves(client, pair):
    a, b = pair
    body = client.get(f"/api/v1/compare/{a.drive.slug}/{b.drive.slug}/").json()
    assert [s["family"] for s in body["sweeps"]] == [READ_SWEEP, WRITE_SWEEP]
    points = body["sweeps"][1]["points"]
    assert [p["queue_depth"] for p in points] == [1, 2, 4, 8, 16, 32, 64, 128]
    qd16 = points[4]["patterns"][0]
    assert (round(qd16["a"]["iops"]), round(qd16["b"]["iops"])) == (80_000, 20_000)
    assert not any(t["test"].endswith("-sweep") for t in body["tests"])
    mixed = next(t for t in body["tests"] if t["test"] == MIXED)["patterns"][0]
    assert round(mixed["a"]["read"]["iops"]) == 7000
    assert round(mixed["b"]["write"]["iops"]) == 1500
    assert qd16["a"]["read"] is None and qd16["a"]["write"] is None  # not a mixed test
    listed = client.get("/api/v1/results/", {"test": MIXED}).json()["results"]
    assert {round(r["read"]["iops"]) for r in listed} == {7000, 3500}
    assert all(r["write"]["latency_mean_ns"] > r["read"]["latency_mean_ns"] for r in listed)


# -- a sweep's leaderboard at a chosen depth -------------------------------------------------


@pytest.mark.parametrize(
    "path, qd, ranked",
    [
        (READ_SWEEP, None, "randread-4k-qd32-sweep"),
        (READ_SWEEP, 8, "randread-4k-qd8-sweep"),
        ("randread-4k-qd1-sweep", None, "randread-4k-qd1-sweep"),
        ("randread-4k-qd1-sweep", 128, "randread-4k-qd128-sweep"),
        (WRITE_SWEEP, 2, "randwrite-4k-qd2-8g-sweep"),
    ],
)
def test_the_leaderboard_ranks_the_depth_chosen(client, pair, path, qd, ranked):
    query = {"pattern": "compressible", **({"qd": qd} if qd else {})}
    test = Test.objects.get(identifier=ranked)
    html = client.get(reverse("bench:leaderboard", args=[path]), query).content.decode()
    assert f"Ranked at <strong>QD{test.queue_depth}</strong> ({test.name})" in html
    assert '<select name="qd">' in html
    order = [html.index(model) for model in ("Maker Deep", "Maker Flat")]
    deep_leads = test.queue_depth > 4  # below QD8 both drives make 5,000 IOPS a step
    assert order == sorted(order) or not deep_leads
    body = client.get(reverse("api:leaderboard", args=[path]), query).json()
    assert (body["test"], body["queue_depth"], body["sweep"]) == (
        ranked,
        test.queue_depth,
        test.family,
    )
    expected = {
        "Deep": min(80_000, 5000 * test.queue_depth),
        "Flat": min(20_000, 5000 * test.queue_depth),
    }
    assert {r["drive_name"].split()[1]: round(r["iops"]) for r in body["rows"]} == expected
    scopes = response_scopes["bench:leaderboard"](QueryDict(urlencode(query)), path)
    assert scopes == [ranking_scope(ranked)]


def test_a_depth_that_names_no_test_is_refused(client, pair):
    """A depth no sweep has is refused (400); one the schema lists, of a test that is not a
    sweep's, names no ranking: the API answers 404, as the schema allows the value."""
    cases = [
        ("randread-4k-qd3", {"qd": "8"}, "not a queue-depth sweep", 404),
        (READ_SWEEP, {"qd": "3"}, "Select a valid choice", 400),
        (READ_SWEEP, {"qd": "x"}, "Select a valid choice", 400),
    ]
    for path, query, message, status in cases:
        page = client.get(reverse("bench:leaderboard", args=[path]), query)
        assert page.status_code == 400 and message in page.content.decode(), (path, query)
        api = client.get(reverse("api:leaderboard", args=[path]), query)
        assert api.status_code == status, (path, query)
        assert api.json()["errors"][0]["pointer"] == "/query/qd"
        assert message in api.json()["detail"]
    assert (
        client.get(reverse("bench:leaderboard", args=["no-such-sweep"]), {"qd": 8}).status_code
        == 404
    )


def test_a_test_of_one_depth_offers_no_depth(client, pair):
    html = client.get(reverse("bench:leaderboard", args=[MIXED])).content.decode()
    assert 'name="qd"' not in html and "sweep-depths" not in html
    # the mixed test's ranking shows its reads and writes apart
    assert "read IOPS" in html and "write IOPS" in html
    assert 'data-value="7000.0"' in html or "7,000" in html


def test_the_sweep_page_costs_what_any_leaderboard_does(
    client, pair, django_assert_max_num_queries
):
    with django_assert_max_num_queries(6):
        response = client.get(reverse("bench:leaderboard", args=[READ_SWEEP]), {"qd": 16})
    assert response.status_code == 200
    with django_assert_max_num_queries(6):
        response = client.get(reverse("bench:leaderboard", args=["randread-4k-qd3"]))
    assert response.status_code == 200
