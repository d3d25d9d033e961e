"""The response-time curves (suite curve-2026, issue 46 items 3 and 4) end to end: loadgen
documents of the three curves (4KB random read, write and 70/30 at QD32, unpaced then paced at
10 to 100% of that maximum) and of the read sweep, through ingest to the compare page's section
(the curve drawn for every drive, its knee, the queue depth at 95% of peak, every drive's
percentiles at the same loads with the evidence rule and the winner rule on the tail), its
exports, its chart image and the API's compare body; and a real quick run of the suite."""

import csv
import io
import json
from pathlib import Path

import pytest
from django.urls import reverse

from results import curves, sweeps
from results.kinds import curve
from results.models import Result
from results.selectors.compare import compare
from results.synthetic import measured_document
from results.units import latency
from tests.results.helpers import ingest

pytestmark = pytest.mark.django_db

CATALOG = json.loads(sweeps.CATALOG.read_text())
(SUITE,) = [s for s in CATALOG["suites"] if s["name"] == "curve-2026"]
TESTS = {t["id"]: t for t in CATALOG["tests"]}
READ = "randread-4k-qd32-curve"
SECONDS = 60
LOADS = (10, 25, 50, 75, 90, 100)
REAL = Path(__file__).with_name("curve") / "loadgen-quick-curve-file.json"

# p99 in µs at each load: Fast's doubles its 10% value at 75% (its knee), Steady's at 100%.
FAST_P99 = dict(zip(LOADS, (100, 110, 150, 250, 400, 900), strict=True))
STEADY_P99 = dict(zip(LOADS, (120, 125, 130, 150, 200, 260), strict=True))
# IOPS of the read sweep at each depth: Fast reaches 95% of its peak at QD64, Steady at QD16.
FAST_SWEEP = dict(
    zip((1, 2, 4, 8, 16, 32, 64, 128), (10, 20, 40, 80, 150, 190, 200, 201), strict=True)
)
STEADY_SWEEP = dict(
    zip((1, 2, 4, 8, 16, 32, 64, 128), (8, 16, 30, 60, 96, 99, 100, 100), strict=True)
)


def _entry(test: dict, iops: float, p99_us: float | None = None, load: int | None = None) -> dict:
    """A result of `test` at `iops`: paced at `load`% with its p99 `p99_us` (its latency
    from each I/O's due time), else unpaced at its queue depth (Little's law: its mean the
    depth over the rate)."""
    io_count = int(iops * SECONDS)
    if p99_us is None:
        mean = test["queue_depth"] / iops * 1e9
        p99 = 3 * mean
    else:
        p99 = p99_us * 1e3
        mean = p99 / 3
    entry = {
        "test": test["id"],
        "pattern": "incompressible",
        "block_size": 4096,
        "queue_depth": test["queue_depth"],
        "span_bytes": 8 * 2**30,
        "duration_ns": SECONDS * 10**9,
        "io_count": io_count,
        "bytes": io_count * 4096,
        "bytes_per_second": iops * 4096,
        "iops": iops,
        "latency_ns": {
            "mean": mean,
            "min": int(mean / 10),
            "max": int(p99 * 5),
            "percentiles": {
                "50": int(mean),
                "99": int(p99),
                "99.9": int(p99 * 2),
                "99.99": int(p99 * 3),
            },
        },
    }
    if load is not None:
        entry.update(rate_iops=round(iops), load_percent=load)
    return entry


def curve_document(*, seed: int, model: str, maximum: float, p99: dict, sweep: dict) -> dict:
    """A loadgen run of curve-2026's read curve (its maximum `maximum` IOPS, its p99 at each
    load `p99`) and of the read sweep (IOPS by depth, in thousands)."""
    document = measured_document(seed=seed, model=model)
    document["schema_version"] = 5
    document["consistency"] = []
    results = [_entry(TESTS[READ], maximum)]
    for load in LOADS:
        point = TESTS[f"{READ}-load{load}"]
        results.append(_entry(point, maximum * load / 100, p99[load], load))
    for depth, kiops in sweep.items():
        results.append(_entry(TESTS[f"randread-4k-qd{depth}-sweep"], kiops * 1000))
    document["results"] = results
    document["parameters"]["tests"] = [r["test"] for r in results]
    return document


@pytest.fixture
def pair():
    # Steady's 10% load is 1,000 IOPS: 60,000 I/Os, too few for its p99.99.
    fast = curve_document(seed=1, model="Fast", maximum=200_000, p99=FAST_P99, sweep=FAST_SWEEP)
    steady = curve_document(
        seed=2, model="Steady", maximum=10_000, p99=STEADY_P99, sweep=STEADY_SWEEP
    )
    return ingest(fast), ingest(steady)


def _urls(a, b, name):
    return reverse(name, args=[a.drive.slug, b.drive.slug])


def test_the_catalog_declares_three_curves_of_six_loads():
    assert set(curves.curves()) == {
        "randread-4k-qd32-curve",
        "randwrite-4k-qd32-8g-curve",
        "randrw70-4k-qd32-8g-curve",
    }
    for name, tests in curves.curves().items():
        assert tuple(tests) == (0, *LOADS) and tests[0] == name
        assert all(t in SUITE["tests"] for t in tests.values())
    assert curves.sweep_of("randread-4k-qd32-curve") == "randread-4k-sweep"
    assert curves.sweep_of("randwrite-4k-qd32-8g-curve") == "randwrite-4k-8g-sweep"
    assert curves.sweep_of("randrw70-4k-qd32-8g-curve") == ""


def test_the_knee_and_the_depth_at_peak():
    assert curves.knee(FAST_P99.items()) == 75
    assert curves.knee(STEADY_P99.items()) == 100
    # exactly twice is not beyond it; no 10% value, no knee
    assert curves.knee([(10, 100), (25, 200), (50, 201)]) == 50
    assert curves.knee([(25, 100), (50, 1000)]) is None
    assert curves.knee([(10, 100), (50, None), (75, 150)]) is None
    assert curves.depth_at_peak(FAST_SWEEP.items()) == 64
    assert curves.depth_at_peak(STEADY_SWEEP.items()) == 16
    assert curves.depth_at_peak([(1, None)]) is None


def test_curve_tests_are_not_in_the_throughput_section(client, pair):
    a, b = pair
    html = client.get(_urls(a, b, "bench:compare")).content.decode()
    # every test of these documents is a curve's or a sweep's: no throughput section
    assert '<section id="throughput">' not in html
    assert '<section id="curves">' in html
    assert 'href="#curves">Response time</a>' in html


def test_the_page_shows_the_curve_the_knee_and_the_tails_at_equal_load(client, pair):
    a, b = pair
    html = client.get(_urls(a, b, "bench:compare")).content.decode()
    section = html[html.index('<section id="curves">') :]
    section = section[: section.index("</section>")]
    assert "4KB random read QD32 (response-time curve)" in section
    assert 'class="num knee knee-a">75%<' in section
    assert 'class="num knee knee-b">100%<' in section
    assert 'class="num depth depth-a">QD64<' in section
    assert 'class="num depth depth-b">QD16<' in section
    for load in LOADS:
        assert latency(FAST_P99[load] * 1e3) in section and latency(STEADY_P99[load] * 1e3)
    # Steady's 10% load: 60,000 I/Os support its p99.9, not its p99.99
    row = section[section.index('<tr class="load-10 side-b">') :]
    row = row[: row.index("</tr>")]
    assert latency(STEADY_P99[10] * 2e3) in row and "needs 100,000 I/Os" in row
    # the tail judged with the variation run-to-run.json's `percentiles` holds for these
    # points (the demo's two passes of curve-file, on a virtio disk whose tail varied up to
    # 141% between them): the drives' differences lie within the margin
    assert "tie (within ±" in section and "lower</td>" not in section


def test_the_chart_marks_each_drives_knee(client, pair):
    a, b = pair
    svg = client.get(
        _urls(a, b, "bench:compare") + "chart/randread-4k-qd32-curve-incompressible.svg"
    )
    assert svg.status_code == 200, svg.content[:300]
    text = svg.content.decode()
    assert "A knee (75%)" in text and "B knee (100%)" in text


def test_the_exports_carry_the_curve(client, pair):
    a, b = pair
    rows = list(
        csv.reader(io.StringIO(client.get(_urls(a, b, "bench:compare_csv")).content.decode()))
    )
    found = {r[3]: r for r in rows if r[0] == "curve"}
    assert float(found["at 50% load: p99"][5]) == FAST_P99[50]
    assert float(found["at 50% load: p99"][7]) == STEADY_P99[50]
    assert float(found["at 50% load: achieved"][5]) == 100_000
    assert found["at 10% load: p99.99"][7] == "" and found["at 10% load: p99.99"][8] == (
        "needs 100,000 I/Os"
    )
    assert found["at 50% load: p99"][-2].startswith("tie (within ±")
    knee = found[f"knee: {TEXT_KNEE}"]
    assert (knee[5], knee[7]) == ("75", "100")
    depth = next(r for k, r in found.items() if k.startswith("the lowest queue depth"))
    assert (depth[5], depth[7]) == ("64", "16")
    markdown = client.get(_urls(a, b, "bench:compare_markdown")).content.decode()
    assert "at 50% load: p99" in markdown and "needs 100,000 I/Os" in markdown


TEXT_KNEE = "the lowest load whose p99 exceeds 2x its 10% load's"


def test_the_api_gives_each_drives_percentiles_at_each_load(client, pair):
    a, b = pair
    body = client.get(f"/api/v1/compare/{a.drive.slug}/{b.drive.slug}/").json()
    assert all(not t["test"].endswith(("-curve", "0")) for t in body["tests"] if "curve" in t)
    (curve,) = body["curves"]
    assert (curve["curve"], curve["pattern"], curve["sweep"]) == (
        READ,
        "incompressible",
        "randread-4k-sweep",
    )
    assert curve["knee_percent"] == {"a": 75, "b": 100}
    assert curve["depth_at_peak"] == {"a": 64, "b": 16}
    assert curve["maximum_iops"] == {"a": 200_000, "b": 10_000}
    loads = {row["load_percent"]: row for row in curve["loads"]}
    assert list(loads) == list(LOADS)
    low = loads[10]
    assert low["a"]["percentiles_ns"]["99"] == FAST_P99[10] * 1000
    assert low["b"]["needs_ios"] == {"99.99": 100_000}
    assert low["verdicts"]["99"]["b"]["winner"] == "tie"
    assert low["verdicts"]["99"]["b"]["margin_percent"] > 20  # the stored variation's
    assert set(low["verdicts"]) == {"99", "99.9", "99.99"}
    assert low["best"] == {"99": None, "99.9": None, "99.99": None}


def test_the_tail_is_judged_where_its_variation_is_known(pair):
    """With a percentile's run-to-run variation measured, the winner rule judges it."""
    a, b = pair
    c = compare([a.drive.slug, b.drive.slug])
    measured = {f"{READ}-load{load}": {"99": 0.05} for load in LOADS}
    (part,) = curve.parts(c, measured)
    rows = {row.load: row for row in part.rows}
    assert rows[10].verdicts["99"][1].winner == "a"  # 100 µs against 120: beyond the margin
    assert rows[100].verdicts["99"][1].winner == "b"  # 900 µs against 260
    assert rows[10].verdicts["99.9"][1].winner == "untested"


def test_a_real_quick_run_of_the_suite_is_ingested_and_drawn(client):
    """A document of `loadgen run --suite curve-2026 --quick` on a file: every curve's
    maximum and points stored with their histograms, drawn on the compare page."""
    document = json.loads(REAL.read_text())
    document["drive"].update(manufacturer="Bench", model="Quick file")  # --drive left out
    run = ingest(document)
    stored = Result.objects.filter(run=run).select_related("test")
    assert sorted(r.test.identifier for r in stored) == sorted(SUITE["tests"])
    for r in stored:
        paced = next(e for e in document["results"] if e["test"] == r.test.identifier)
        assert r.test.load_percent == paced.get("load_percent")
        assert r.latency_histogram is not None
    html = client.get(reverse("bench:compare", args=[run.drive.slug, run.drive.slug]))
    section = html.content.decode()
    assert section.count('<article class="test curve"') == 3


def test_a_knee_is_not_known_without_a_low_load_p99(client, pair):
    """A drive whose 10% load had too few I/Os for its p99 (90 I/Os: 1.5 IOPS for 60 s) has
    no knee to mark: "not known", not "none"."""
    a, _ = pair
    slow = ingest(curve_document(seed=3, model="Slow", maximum=15, p99=STEADY_P99, sweep={}))
    html = client.get(reverse("bench:compare", args=[a.drive.slug, slow.drive.slug]))
    section = html.content.decode()
    assert 'class="num knee knee-b">not known (no p99 at 10%)<' in section
    assert 'class="num depth depth-b">no sweep<' in section


def _repeated(document: dict, passes: int = 3, step: float = 0.02) -> dict:
    """`document` run with `--repeat passes`: pass k's latencies `step` x (k - 1) longer and
    its rates as much lower, each result saying its pass."""
    results = []
    for k in range(1, passes + 1):
        factor = 1 + step * (k - 1)
        for entry in document["results"]:
            one = json.loads(json.dumps(entry))
            one["repeat"] = k
            one["bytes_per_second"] /= factor
            one["iops"] /= factor
            one["io_count"] = int(one["iops"] * SECONDS)
            one["bytes"] = one["io_count"] * 4096
            latency_ns = one["latency_ns"]
            latency_ns["mean"] *= factor
            latency_ns["percentiles"] = {
                q: int(ns * factor) for q, ns in latency_ns["percentiles"].items()
            }
            latency_ns["max"] = int(latency_ns["max"] * factor)
            if "rate_iops" in one:
                one["rate_iops"] = round(one["iops"])
            results.append(one)
    document["results"] = results
    document["parameters"]["repeat"] = passes
    return document


def test_run_to_run_measures_each_percentiles_variation_where_its_ios_support_it(tmp_path):
    """`run_to_run --write` stores each percentile's run-to-run variation (the CV of the rate
    it stands for) from a document's repeated passes, where every pass has the I/Os it needs;
    with it, the curve section judges the tail: a winner where the difference exceeds the
    margin, not "not tested"."""
    from django.core.management import call_command

    from results.histograms import RELATIVE_PRECISION
    from results.management.commands.run_to_run import percentile_variation
    from results.spread import Spread

    fast = _repeated(
        curve_document(seed=1, model="Fast", maximum=200_000, p99=FAST_P99, sweep=FAST_SWEEP)
    )
    steady = _repeated(
        curve_document(seed=2, model="Steady", maximum=10_000, p99=STEADY_P99, sweep=STEADY_SWEEP)
    )
    a, b = ingest(fast), ingest(steady)  # real documents of repeated runs, as ingest takes them
    paths = []
    for name, document in (("fast.json", fast), ("steady.json", steady)):
        paths.append(tmp_path / name)
        paths[-1].write_text(json.dumps(document))
    stored = tmp_path / "run-to-run.json"

    # Steady alone: its 10% load has 60,000 I/Os a pass, too few for a p99.99 (100,000)
    call_command("run_to_run", paths[1], "--write", "--output", stored, stdout=io.StringIO())
    written = json.loads(stored.read_text())["percentiles"]
    low, next_up = written[f"{READ}-load10"], written[f"{READ}-load25"]
    assert set(low) == {"50", "99", "99.9"} and set(next_up) == set(curves.PERCENTILES)
    passes = [1e9 / (STEADY_P99[10] * 1e3 * (1 + 0.02 * k)) for k in range(3)]
    assert low["99"] == pytest.approx(Spread.of(passes).cv, abs=1e-4)
    assert 0.015 < low["99"] < 0.025  # 2% steps
    assert f"{READ}-load10" not in {
        test for (test, q) in percentile_variation({"steady.json": steady}) if q == "99.99"
    }
    # Passes that agree within the histograms' precision (here exactly) store that precision
    same = _repeated(
        curve_document(seed=2, model="Steady", maximum=10_000, p99=STEADY_P99, sweep={}), step=0
    )
    paths.append(tmp_path / "same.json")
    paths[-1].write_text(json.dumps(same))
    call_command("run_to_run", paths[-1], "--write", "--output", stored, stdout=io.StringIO())
    floor = json.loads(stored.read_text())["percentiles"][f"{READ}-load25"]
    assert floor == dict.fromkeys(curves.PERCENTILES, round(RELATIVE_PRECISION, 4))
    paths.pop()

    # Both: the tail is judged at every load where the percentile's variation is known
    call_command("run_to_run", *paths, "--write", "--output", stored, stdout=io.StringIO())
    measured = json.loads(stored.read_text())["percentiles"]
    assert "99.99" in measured[f"{READ}-load10"]  # Fast's passes support it
    c = compare([a.drive.slug, b.drive.slug])
    (part,) = curve.parts(c, measured)
    rows = {row.load: row for row in part.rows}
    # the latest pass of each: Fast's 104 µs against Steady's 124.8 µs at 10%, 20% apart
    assert rows[10].verdicts["99"][1].winner == "a"
    assert rows[10].verdicts["99"][1].margin_percent < 10
    assert rows[100].verdicts["99"][1].winner == "b"  # 900 µs against 260
    assert rows[50].verdicts["99.9"][1].winner in ("a", "b")
    # Steady's p99.99 at 10% is not shown (needs 100,000 I/Os): not judged
    assert rows[10].verdicts["99.99"][1].winner == ""
    assert not any(v.winner == "untested" for row in part.rows for v in row.verdicts["99"][1:])


def test_the_p999_ranking_states_a_paced_points_load(client, pair):
    """The p99.9 ranking of a curve's point states its load (the queue depth, and the share
    of the measured maximum it was paced at) on its page, in its API body and on every row
    of its CSV; an unpaced test's says it is unpaced."""
    a, b = pair
    for identifier, load, label in (
        (f"{READ}-load50", 50, "queue depth 32, paced at 50% of its measured maximum"),
        (READ, None, "queue depth 32, unpaced"),
    ):
        query = {"metric": "latency_p999"}
        page = client.get(reverse("bench:leaderboard", args=[identifier]), query)
        lead = page.content.decode().split('id="tail-lead">', 1)[1].split("</p>", 1)[0]
        assert f"<strong>{label}</strong>" in lead
        api = f"/api/v1/tests/{identifier}/leaderboard/"
        body = client.get(api, query).json()
        assert (body["queue_depth"], body["load_percent"], body["load"]) == (32, load, label)
        assert {row["drive"] for row in body["rows"]} == {a.drive.slug, b.drive.slug}
        rows = list(csv.DictReader(io.StringIO(client.get(api, {**query, "format": "csv"}).text)))
        assert len(rows) == 2
        assert all(
            (row["load"], row["load_percent"], row["queue_depth"]) == (label, str(load or ""), "32")
            for row in rows
        )
