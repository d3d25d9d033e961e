"""The run-to-run spread and the winner rule (results.spread, docs/methodology.md): unit and
property tests of the rule, and the rule end to end through ingest, the leaderboard entry,
the compare page, its exports and the API's compare."""

import csv
import io
import json
import math
import re
import statistics

import pytest
from django.urls import reverse
from hypothesis import given
from hypothesis import strategies as st

from results.models import LeaderboardEntry, Method, Test
from results.selectors.compare import compare
from results.spread import (
    MARGIN_SIGMAS,
    NOT_COMPARED,
    NOT_TESTED_PUBLISHED,
    Side,
    Spread,
    verdict,
)
from tests.results.helpers import measured, published, repeated
from tests.results.test_views import figures

pytestmark = pytest.mark.django_db

rates = st.floats(min_value=1e3, max_value=1e10, allow_nan=False, allow_infinity=False)
cvs = st.one_of(st.none(), st.floats(min_value=0.001, max_value=0.5))
methods = st.sampled_from([m.value for m in Method])


def side(values, method=Method.LOADGEN, method_cv=None) -> Side:
    return Side(Spread.of(values), method, method_cv)


# -- the spread --------------------------------------------------------------------------


@given(st.lists(rates, min_size=1, max_size=12))
def test_a_spread_is_the_mean_range_and_sample_cv_of_its_results(values):
    s = Spread.of(values)
    assert s.n == len(values)
    assert s.low == min(values) and s.high == max(values)
    assert s.low * (1 - 1e-12) <= s.mean <= s.high * (1 + 1e-12)
    if len(values) == 1:
        assert s.cv is None and s.label == "one run" and not s.wide
    else:
        assert s.cv == pytest.approx(statistics.stdev(values) / statistics.mean(values), rel=1e-6)
        assert s.label == f"± {s.cv * 100:.1f}% (n = {len(values)})"
        assert s.wide == (s.cv > 0.035)


# -- the winner rule ---------------------------------------------------------------------


@given(st.lists(rates, min_size=1, max_size=6), st.lists(rates, min_size=1, max_size=6), cvs)
def test_the_rule_is_symmetric(a, b, method_cv):
    forward = verdict(side(a, method_cv=method_cv), side(b, method_cv=method_cv))
    backward = verdict(side(b, method_cv=method_cv), side(a, method_cv=method_cv))
    swap = {"a": "b", "b": "a"}
    assert backward.winner == swap.get(forward.winner, forward.winner)
    assert backward.margin_percent == forward.margin_percent


@given(
    st.lists(rates, min_size=1, max_size=6),
    st.lists(rates, min_size=1, max_size=6),
    cvs,
    methods,
    methods,
)
def test_a_winner_is_the_faster_side_beyond_the_margin_and_never_unmeasured(a, b, cv, ma, mb):
    sa, sb = side(a, ma, cv), side(b, mb, cv)
    v = verdict(sa, sb)
    if sa.comparability != sb.comparability:  # a quick run against any other: no verdict
        assert v.winner == NOT_COMPARED and v.difference_percent is None
        assert v.label == f"not compared: {sa.class_noun} against {sb.class_noun}"
        return
    assert v.difference_percent == pytest.approx(
        (max(sa.spread.mean, sb.spread.mean) / min(sa.spread.mean, sb.spread.mean) - 1) * 100
    )
    if sa.variation is None or sb.variation is None:
        assert v.winner == "untested" and v.margin_percent is None and v.reason
        return
    margin = MARGIN_SIGMAS * math.hypot(
        sa.variation / math.sqrt(sa.spread.n), sb.variation / math.sqrt(sb.spread.n)
    )
    assert v.margin_percent == pytest.approx(margin * 100)
    if v.winner == "tie":
        assert v.difference_percent <= v.margin_percent
        assert v.label == f"tie (within ±{v.margin_percent:.1f}%)"
    else:
        assert v.difference_percent > v.margin_percent
        faster = "a" if sa.spread.mean > sb.spread.mean else "b"
        assert v.winner == faster


def test_several_runs_a_side_tie_within_their_combined_variation():
    # 3 runs each, ±5% CV: the margin is 2 × sqrt(2 × 0.05² / 3) = 8.2%.
    a = side([95.0, 100.0, 105.0])
    b = side([100.0, 104.0, 108.0])
    v = verdict(a, b)
    assert v.winner == "tie" and v.difference_percent == pytest.approx(4.0)
    assert v.label.startswith("tie (within ±")
    # Far apart, the same spreads: a real difference.
    v = verdict(side([95.0, 100.0, 105.0]), side([130.0, 135.0, 140.0]))
    assert v.winner == "b" and v.label == f"B +{v.difference_percent:.1f}%"


def test_one_loadgen_result_a_side_uses_the_tests_measured_variation():
    # CV 2%: margin 2 × sqrt(2) × 2% = 5.66%.
    assert verdict(side([100.0], method_cv=0.02), side([105.0], method_cv=0.02)).winner == "tie"
    assert verdict(side([100.0], method_cv=0.02), side([106.0], method_cv=0.02)).winner == "b"
    # Not measured: not tested.
    v = verdict(side([100.0]), side([200.0]))
    assert v.winner == "untested" and v.reason.endswith("run-to-run variation is unknown")


def test_a_few_runs_never_claim_less_variation_than_the_method_has():
    # Three identical runs (CV 0) still vary by the method's 3%.
    a, b = side([100.0] * 3, method_cv=0.03), side([104.0] * 3, method_cv=0.03)
    assert a.variation == 0.03
    assert verdict(a, b).winner == "tie"


def test_published_figures_one_each_are_not_tested():
    v = verdict(side([100.0], Method.PUBLISHED, 0.02), side([300.0], Method.PUBLISHED, 0.02))
    assert v.winner == "untested" and v.label == NOT_TESTED_PUBLISHED


def test_mixed_methods_use_what_each_side_knows():
    # A quick run against a full-length one is not compared, however many runs it has.
    v = verdict(side([100.0], method_cv=0.02), side([150.0], Method.QUICK, 0.02))
    assert v.winner == NOT_COMPARED and v.label == "not compared: full-length run against quick run"
    v = verdict(side([100.0], method_cv=0.02), side([150.0, 151.0, 149.0], Method.QUICK, 0.02))
    assert v.winner == NOT_COMPARED
    # A quick run's single figure has no known variation, even where the test's is measured.
    v = verdict(side([100.0], Method.QUICK, 0.02), side([150.0], Method.QUICK, 0.02))
    assert v.winner == "untested" and "both sides'" in v.reason
    # Several quick runs carry their own.
    v = verdict(side([100.0, 101.0, 99.0], Method.QUICK), side([150.0, 151.0, 149.0], Method.QUICK))
    assert v.winner == "b"
    # A published figure against a loadgen run: the article's variation is unknown.
    v = verdict(side([100.0], Method.PUBLISHED), side([150.0], method_cv=0.02))
    assert v.winner == "untested" and "A's" in v.reason


def test_a_missing_side_has_no_verdict():
    assert verdict(None, side([1.0])).winner == ""
    assert verdict(side([1.0]), None).label == ""


# -- end to end --------------------------------------------------------------------------


@pytest.fixture
def repeated_pair():
    a = repeated("Acme", "Steady", seed=1, scale=1.0).drive
    b = repeated("Bolt", "Close", seed=1, scale=1.01).drive  # 1% apart: within the spread
    return a, b


def test_an_entry_is_the_mean_of_its_passes_with_their_spread(repeated_pair):
    a, _ = repeated_pair
    entry = LeaderboardEntry.objects.get(
        drive=a, test__identifier="randread-4k-qd3", pattern="compressible"
    )
    passes = list(
        entry.run.results.filter(test=entry.test, pattern="compressible").values_list(
            "bytes_per_second", flat=True
        )
    )
    assert len(passes) == 3 and entry.runs == 3 and entry.method == Method.LOADGEN
    assert entry.bytes_per_second == pytest.approx(statistics.mean(passes))
    assert (entry.low_bps, entry.high_bps) == (min(passes), max(passes))
    assert entry.cv == pytest.approx(statistics.stdev(passes) / statistics.mean(passes))
    assert entry.result.repeat == 3  # the latest pass stands for the group's other figures


def test_the_entry_groups_runs_of_one_method_and_never_mixes_methods():
    run = measured(manufacturer="Acme", model="Steady", seed=1)
    measured(
        manufacturer="Acme",
        model="Steady",
        seed=2,
        started_at="2026-11-22T10:00:00Z",
        finished_at="2026-11-22T11:30:00Z",
    )
    published(
        manufacturer="Acme",
        model="Steady",
        results=[{"test": "randread-4k-qd3", "pattern": "compressible", "bytes_per_second": 1e6}],
    )
    entry = LeaderboardEntry.objects.get(
        drive=run.drive, test__identifier="randread-4k-qd3", pattern="compressible"
    )
    # Two full-length loadgen runs are one group; the published figure is not in it.
    assert entry.runs == 2 and entry.method == Method.LOADGEN
    assert entry.low_bps > 1e6


def test_the_compare_page_says_tie_within_the_spread_and_a_winner_beyond_it(client, repeated_pair):
    a, b = repeated_pair
    html = client.get(reverse("bench:compare", args=[a.slug, b.slug])).content.decode()
    assert "(n = 3)" in html and "tie (within ±" in html
    c = compare([a.slug, b.slug])
    assert {p.verdicts[1].winner for t in c.tests for p in t.rows} == {"tie"}
    far = repeated("Cirrus", "Fast", seed=1, scale=1.5).drive
    c = compare([a.slug, far.slug])
    assert {p.verdicts[1].winner for t in c.tests for p in t.rows} == {"b"}
    html = client.get(reverse("bench:compare", args=[a.slug, far.slug])).content.decode()
    throughput = html.split('id="throughput"', 1)[1].split('id="latency"', 1)[0]
    assert "beyond ±" in throughput and "tie (within" not in throughput


def test_a_chosen_run_groups_its_own_passes(repeated_pair):
    a, b = repeated_pair
    run = a.runs.get()
    c = compare([a.slug, b.slug], [run.pk])
    figures = c.sides[0].results[("randread-4k-qd3", "compressible")]
    assert figures.spread.n == 3 and figures.method == Method.LOADGEN
    passes = [
        r.bytes_per_second
        for r in run.results.filter(test__identifier="randread-4k-qd3", pattern="compressible")
    ]
    assert figures.bytes_per_second == pytest.approx(statistics.mean(passes))


def test_exports_and_api_carry_the_same_verdict(client, repeated_pair):
    a, b = repeated_pair
    c = compare([a.slug, b.slug])
    labels = [p.verdicts[1].label for t in c.tests for p in t.rows]
    exported = client.get(reverse("bench:compare_csv", args=[a.slug, b.slug])).content.decode()
    rows = [r for r in csv.reader(io.StringIO(exported)) if r[0] == "throughput"]
    # Each drive's value and notes (A: 5, 6; B: 7, 8), then the winner.
    assert [r[9] for r in rows if r[4].startswith("MB/s")] == labels
    spreads = [r for r in rows if r[3].startswith("run-to-run spread")]
    assert spreads and all(
        float(r[5]) > 0 and r[6] == "n = 3" and float(r[7]) > 0 and r[8] == "n = 3" for r in spreads
    )
    body = client.get(f"/api/v1/compare/{a.slug}/{b.slug}/").json()
    api = [p for t in body["tests"] for p in t["patterns"]]
    assert [p["verdict"]["label"] for p in api] == labels
    first = api[0]
    assert first["a"]["spread"]["n"] == 3 and first["a"]["method"] == "loadgen"
    assert first["verdict"]["winner"] == "tie" and first["verdict"]["margin_percent"] > 0


def test_the_measured_variation_comes_from_the_catalog():
    from results.documents import TEST_VARIATION

    measured_cvs = json.loads(TEST_VARIATION.read_text())["tests"]
    assert measured_cvs  # loadgen's throughput tests, measured
    for test in Test.objects.filter(kind=Test.Kind.THROUGHPUT, produced_by="loadgen"):
        assert test.run_to_run_cv == measured_cvs.get(test.identifier)
        # two passes' CV is at most sqrt(2); the demo's virtio disk read 0.97 between its
        # passes of the read curve's maximum
        assert test.run_to_run_cv is None or 0 < test.run_to_run_cv < 1.5


def test_run_to_run_reads_each_tests_cv_between_passes(tmp_path):
    from results.management.commands.run_to_run import variation

    document = {
        "results": [
            {"test": "randread-4k-qd3", "pattern": "compressible", "bytes_per_second": v}
            for v in (100.0, 110.0, 90.0)
        ]
        + [{"test": "seqread-128k-qd1", "pattern": "compressible", "bytes_per_second": 5.0}]
    }
    found = variation({"doc.json": document})
    assert list(found) == ["randread-4k-qd3"]  # a single pass has no variation
    spread = found["randread-4k-qd3"][("doc.json", "compressible")]
    assert spread.n == 3 and spread.cv == pytest.approx(0.1)


def test_bars_carry_whiskers_over_each_groups_range(client, repeated_pair):
    a, b = repeated_pair
    html = client.get(reverse("bench:compare", args=[a.slug, b.slug])).content.decode()
    c = compare([a.slug, b.slug])
    pair = next(t for t in c.tests if t.test.identifier == "randread-4k-qd3")
    article = html.split("/randread-4k-qd3/", 1)[1].split("</article>", 1)[0]
    bars = figures(html)[re.search(r'id="(bars-\d+)"', article).group(1)]
    for i, trace in enumerate(bars["data"]):
        spreads = [p.figures[i].spread for p in pair.rows]
        whiskers = trace["error_x"]
        assert whiskers["array"] == [round((s.high - s.mean) / 1e6, 2) for s in spreads]
        assert whiskers["arrayminus"] == [round((s.mean - s.low) / 1e6, 2) for s in spreads]
        assert all(w > 0 for w in whiskers["array"])
        assert all(text.endswith("(n = 3)") for text in trace["hovertext"])
    board = client.get(reverse("bench:leaderboard", args=["randread-4k-qd3"])).content.decode()
    (chart,) = [f for f in figures(board).values() if f["data"][0].get("orientation") == "h"]
    assert all(w > 0 for w in chart["data"][0]["error_x"]["array"])
    assert board.count("(n = 3)") >= 4  # each drive's two patterns, in the table


def test_the_drive_page_lists_each_pass_under_its_groups_spread(client):
    drive = repeated("Acme", "Wobbly", seed=1, scale=1.0).drive
    html = client.get(drive.get_absolute_url()).content.decode()
    table = html.split("<h2>Results</h2>", 1)[1].split("</table>", 1)[0]
    groups = LeaderboardEntry.objects.filter(drive=drive).count()
    assert table.count('class="run-spread') == groups  # once per test and pattern
    assert table.count("pass 1</small>") == table.count("pass 3</small>") == groups
    # Passes 2% apart (CV 2%): within the 3.5% at which runs are said to disagree.
    assert "runs disagree" not in table
    wobbly = repeated("Bolt", "Wild", seed=1, scale=1.0, passes=3, step=0.1).drive
    html = client.get(wobbly.get_absolute_url()).content.decode()
    assert html.count("runs disagree") == groups


# -- like with like: the guard line ------------------------------------------------------


def test_the_guard_line_says_what_is_compared_exactly_when_methods_or_benches_differ(client):
    a = measured(manufacturer="Acme", model="Fast One", seed=1).drive
    b = measured(manufacturer="Bolt", model="Slow Two", seed=2).drive
    html = client.get(reverse("bench:compare", args=[a.slug, b.slug])).content.decode()
    assert 'id="guard"' not in html  # both loadgen, full length, on the same bench
    old = published(
        manufacturer="Old",
        model="Disk",
        title="A 2009 review",
        results=[
            {"test": "randwrite-4k-qd3-8g", "pattern": "unspecified", "bytes_per_second": 9e6}
        ],
    ).drive
    html = client.get(reverse("bench:compare", args=[a.slug, old.slug])).content.decode()
    guard = html.split('id="guard"', 1)[1].split("</p>", 1)[0]
    assert "loadgen 0.1.0, full length, on Test CPU" in guard
    assert "published: Site, 2011, Iometer" in guard
    assert html.index('id="guard"') < html.index('id="throughput"')  # near the top
    # Another bench for B: the same method, but not the same machine.
    other = measured(
        manufacturer="Cirrus",
        model="Elsewhere",
        seed=3,
        bench={"cpu": "Other CPU", "os": "Linux 6.1", "chipset": "Test chipset"},
    ).drive
    c = compare([a.slug, other.slug])
    assert c.guard is not None and "Other CPU" in c.guard[1]


def test_a_latency_ranking_orders_one_kind_at_a_time(client):
    from results.selectors.rankings import Metric, leaderboard

    clat = measured(manufacturer="Acme", model="Version One", seed=1).drive  # v1: clat
    lat = repeated("Bolt", "Version Two", seed=2, scale=1.0).drive  # v2: issue to completion
    article = published(
        manufacturer="Old",
        model="Disk",
        results=[
            {
                "test": "randread-4k-qd3",
                "pattern": "unspecified",
                "bytes_per_second": 9e6,
                "latency_ns": {"mean": 100_000},
            }
        ],
    ).drive
    test = Test.objects.get(identifier="randread-4k-qd3")
    ranked = {
        metric: {r.entry.drive.slug for r in leaderboard(test=test, metric=metric).rows}
        for metric in Metric.LATENCIES
    }
    assert ranked == {
        Metric.LATENCY: {lat.slug},
        Metric.LATENCY_CLAT: {clat.slug},
        Metric.LATENCY_PUBLISHED: {article.slug},
    }
    # The page's default latency ranking is loadgen's issue to completion; the API's too.
    html = client.get(reverse("bench:leaderboard", args=[test.identifier]), {"metric": "latency"})
    table = html.content.decode().split('id="leaderboard-table"', 1)[1]
    assert str(lat) in table and str(clat) not in table and str(article) not in table
    body = client.get(f"/api/v1/tests/{test.identifier}/leaderboard/?metric=latency_clat").json()
    assert {r["drive"] for r in body["rows"]} == {clat.slug}


def test_the_committed_run_to_run_file_is_the_commands_answer_for_the_demo(tmp_path):
    """results/schema/run-to-run.json is `manage.py run_to_run demo/measured/corners-file.json
    demo/measured/curve-file.json --write`'s: the throughput tests' CVs and their
    percentiles', the response-time curves' among them."""
    from django.core.management import call_command

    from results.documents import TEST_VARIATION

    written = tmp_path / "run-to-run.json"
    demo = TEST_VARIATION.parents[2] / "demo" / "measured"
    documents = [demo / "corners-file.json", demo / "curve-file.json"]
    call_command("run_to_run", *documents, "--write", "--output", written, stdout=io.StringIO())
    assert written.read_text() == TEST_VARIATION.read_text()
    assert set(json.loads(written.read_text())["percentiles"]) == set(
        json.loads(written.read_text())["tests"]
    )
