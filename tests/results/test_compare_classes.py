"""One comparability rule (issue 43, item 6): the compare page, its exports, its chart images
and the API call a winner only between figures the rankings order together
(results.spread.Comparability); across classes they all say "not compared: <A's class>
against <B's class>", and no drive is the best across classes."""

import copy
import csv
import io
import itertools
import json
from datetime import datetime, timedelta

import pytest
from django.conf import settings as conf
from django.urls import reverse

from results.models import Method
from results.selectors.compare import NO_BEST_ACROSS, compare
from results.spread import NOT_COMPARED
from tests.results.helpers import ingest, repeated

pytestmark = pytest.mark.django_db

QUICK_SAMPLE = conf.BASE_DIR / "results" / "schema" / "samples" / "measured-loadgen-quick.json"
TEST, NAME, PATTERN = "randread-4k-qd3", "4KB random read", "compressible"
BLOCK = 4096

# Every way a figure is obtained (a Method), and for imports and published figures two tools:
# figures of different tools are ranked together, so they are compared too.
KINDS = (
    (Method.LOADGEN, "loadgen"),
    (Method.QUICK, "loadgen"),
    (Method.QUICK, "fio"),
    (Method.IMPORT, "fio"),
    (Method.IMPORT, "vdbench"),
    (Method.PUBLISHED, "Iometer"),
    (Method.PUBLISHED, "CrystalDiskMark"),
)
NOUNS = {
    Method.LOADGEN: "full-length run",
    Method.QUICK: "quick run",
    Method.IMPORT: "full-length run",
    Method.PUBLISHED: "published figure",
}


def run_of(method: str, tool: str, *, model: str, bps: float, passes: int = 1):
    """A run of one drive ("Maker <model>") whose only figure, in TEST and PATTERN, was
    obtained by `method` with `tool`, at about `bps` bytes/s (`passes` passes 1% apart)."""
    drive = {"manufacturer": "Maker", "model": model, "interface": "other"}
    if method == Method.PUBLISHED:
        return ingest(
            {
                "schema_version": 1,
                "status": "complete",
                "source": {
                    "kind": "published",
                    "citation": {"publisher": "Site", "title": model, "published_on": "2011-04-01"},
                },
                "tool": {"name": tool},
                "drive": drive,
                "results": [{"test": TEST, "pattern": PATTERN, "bytes_per_second": bps}],
            }
        )
    document = json.loads(QUICK_SAMPLE.read_text())
    document.pop("consistency")
    document.pop("trim")
    document["drive"] = drive
    document["tool"] = {"name": tool, "version": "1.0"}
    seconds = 2 if method == Method.QUICK else 200  # the test's 180 s, or a quick pass
    document["parameters"]["quick"] = method == Method.QUICK
    (template,) = [r for r in document["results"] if (r["test"], r["pattern"]) == (TEST, PATTERN)]
    results = []
    for n in range(1, passes + 1):
        r = copy.deepcopy(template)
        for figure in ("iops_stddev", "iops_min", "latency_ns", "clat_ns"):  # of another rate
            r.pop(figure, None)
        io_count = int(bps * (1 + 0.01 * (n - 1)) * seconds / BLOCK)
        r.update(
            duration_ns=seconds * 10**9,
            io_count=io_count,
            bytes=io_count * BLOCK,
            iops=io_count / seconds,
            bytes_per_second=io_count * BLOCK / seconds,
            # Little's law: the queue kept full at this rate.
            latency_ns={"mean": template["queue_depth"] * seconds / io_count * 1e9},
        )
        if passes > 1:
            r["repeat"] = n
        results.append(r)
    document["results"] = results
    started = datetime.fromisoformat(document["started_at"])
    document["finished_at"] = (started + timedelta(seconds=seconds * passes + 60)).isoformat()
    if passes > 1:
        document["schema_version"] = 2
        document["parameters"]["repeat"] = passes
    return ingest(document)


def ranked_together(client, a, b) -> bool:
    """The rankings order the two drives' figures in one ranking (?method=full or quick)."""
    for method in ("full", "quick"):
        rows = client.get(f"/api/v1/tests/{TEST}/leaderboard/", {"method": method}).json()
        ranked = {r["drive"] for r in rows["rows"] if r["pattern"] == PATTERN}
        if {a.slug, b.slug} <= ranked:
            return True
    return False


def throughput(html: str) -> str:
    return html.split('id="throughput"', 1)[1].split('id="latency"', 1)[0]


def csv_rows(client, drives) -> list[list[str]]:
    text = client.get(reverse("bench:compare_csv", args=[d.slug for d in drives])).content
    rows = list(csv.reader(io.StringIO(text.decode())))
    return [rows[0]] + [
        r for r in rows[1:] if r[:3] == ["throughput", NAME, PATTERN] and r[4].startswith("MB/s")
    ]


def markdown_row(client, drives) -> str:
    text = client.get(reverse("bench:compare_markdown", args=[d.slug for d in drives]))
    (row,) = [
        line
        for line in text.content.decode().splitlines()
        if line.startswith(f"| throughput | {NAME} | {PATTERN} | mean | MB/s")
    ]
    return row


def api_pattern(client, drives) -> dict:
    body = client.get("/api/v1/compare/" + "".join(f"{d.slug}/" for d in drives)).json()
    (test,) = [t for t in body["tests"] if t["test"] == TEST]
    (pattern,) = [p for p in test["patterns"] if p["pattern"] == PATTERN]
    return pattern


@pytest.mark.parametrize(
    ("kind_a", "kind_b"),
    list(itertools.product(KINDS, repeat=2)),
    ids=lambda kind: "-".join(kind),
)
def test_every_pair_of_classes_is_compared_exactly_when_ranked_together(client, kind_a, kind_b):
    (method_a, tool_a), (method_b, tool_b) = kind_a, kind_b
    a = run_of(method_a, tool_a, model="Side A", bps=40e6).drive
    b = run_of(method_b, tool_b, model="Side B", bps=80e6).drive
    together = ranked_together(client, a, b)
    # The rankings' classes, as the methodology states them: quick runs alone.
    assert together == ((method_a == Method.QUICK) == (method_b == Method.QUICK))

    (pair,) = [p for t in compare([a.slug, b.slug]).tests for p in t.rows]
    v = pair.verdicts[1]
    label = f"not compared: {NOUNS[method_a]} against {NOUNS[method_b]}"
    page = throughput(client.get(reverse("bench:compare", args=[a.slug, b.slug])).content.decode())
    exported = csv_rows(client, [a, b])[1]
    api = api_pattern(client, [a, b])
    if together:
        assert v.winner != NOT_COMPARED and "not compared" not in v.label
        assert "not compared" not in page and "not compared" not in exported[9]
        assert api["winner"] != NOT_COMPARED and api["difference_percent"] is not None
        return
    # Never a winner, nor a difference: the same verdict on the page, in both exports and
    # in the API.
    assert (v.winner, v.difference_percent, v.label) == (NOT_COMPARED, None, label)
    assert f'<small class="verdict-not_compared">{label}</small>' in page
    assert "beyond ±" not in page and "tie (within" not in page
    assert exported[9:] == [label, ""]
    assert f"| {label} |  |" in markdown_row(client, [a, b])
    assert api["winner"] == NOT_COMPARED and api["difference_percent"] is None
    assert api["verdict"] == {
        "winner": NOT_COMPARED,
        "difference_percent": None,
        "margin_percent": None,
        "label": label,
    }
    assert api["verdicts"] == {"b": api["verdict"]} and api["best"] is None
    assert {api["a"]["comparability"], api["b"]["comparability"]} == {"full", "quick"}


def test_the_issues_quick_passes_against_a_full_length_group(client):
    """Three 2-second quick passes against a full-length group: the page declared "A +98.3%
    beyond ±33.9%"."""
    quick = run_of(Method.QUICK, "loadgen", model="Quick", bps=80e6, passes=3).drive
    full = repeated("Acme", "Full Length", seed=1, scale=1.0).drive
    label = "not compared: quick run against full-length run"
    slugs = [quick.slug, full.slug]

    html = client.get(reverse("bench:compare", args=slugs)).content.decode()
    article = throughput(html).split(f"/bench/tests/{TEST}/", 1)[1].split("</article>", 1)[0]
    assert label in article and "beyond ±" not in article
    assert '<strong class="side-a">' not in article and '<strong class="side-b">' not in article
    header, row = csv_rows(client, [quick, full])
    assert header[9:] == ["winner", "difference (%)"] and row[9:] == [label, ""]
    assert f"| {label} |  |" in markdown_row(client, [quick, full])
    api = api_pattern(client, [quick, full])
    assert (api["winner"], api["verdict"]["label"]) == (NOT_COMPARED, label)
    assert (api["a"]["comparability"], api["b"]["comparability"]) == ("quick", "full")
    # The chart's bars name each figure's class; its image carries the verdict.
    svg = client.get(reverse("bench:compare", args=slugs) + f"chart/{TEST}.svg")
    assert svg.status_code == 200
    image = svg.content.decode()
    assert "(quick run)" in image and "(full-length run)" in image
    assert "against A: not compared: quick run against full-length run" in image
    # The latency of the same figures is not compared either.
    latency = html.split('id="latency"', 1)[1].split("</table>", 1)[0]
    assert label in latency and "beyond ±" not in latency
    # Swapped, each side keeps its class.
    swapped = api_pattern(client, [full, quick])
    assert swapped["verdict"]["label"] == "not compared: full-length run against quick run"


@pytest.fixture
def mixed():
    """A: full length, three passes; B: full length, far slower; C: quick, fastest of all;
    D: a published figure."""
    a = run_of(Method.LOADGEN, "loadgen", model="Full A", bps=100e6, passes=3).drive
    b = run_of(Method.LOADGEN, "loadgen", model="Full B", bps=40e6, passes=3).drive
    c = run_of(Method.QUICK, "loadgen", model="Quick C", bps=400e6, passes=3).drive
    d = run_of(Method.PUBLISHED, "Iometer", model="Article D", bps=90e6).drive
    return a, b, c, d


@pytest.mark.parametrize("count", [3, 4])
def test_three_and_four_drives_judge_each_against_a_within_its_class_and_no_best_across(
    client, mixed, count
):
    drives = mixed[:count]
    slugs = [d.slug for d in drives]
    (pair,) = [p for t in compare(slugs).tests for p in t.rows]
    b_against_a, c_against_a = pair.verdicts[1:3]
    assert b_against_a.winner == "a"  # A beats B in its own class, beyond the margin
    not_compared = "not compared: full-length run against quick run"
    assert (c_against_a.winner, c_against_a.label) == (NOT_COMPARED, not_compared)
    if count == 4:
        assert pair.verdicts[3].winner == "untested"  # a published figure: no variation
    # C is faster than every other, but is not compared with them: no best.
    assert pair.best == "" and pair.no_best_reason == NO_BEST_ACROSS

    page = throughput(client.get(reverse("bench:compare", args=slugs)).content.decode())
    assert f"vs A: {not_compared}" in page and NO_BEST_ACROSS in page
    assert "best-mark" not in page
    header, row = csv_rows(client, drives)
    assert header[5 + 2 * count :] == ["best", *(f"{k} against A" for k in "BCD"[: count - 1])]
    assert row[5 + 2 * count] == NO_BEST_ACROSS
    assert row[5 + 2 * count + 2] == not_compared
    assert f"| {not_compared} |" in markdown_row(client, drives)
    api = api_pattern(client, drives)
    assert api["best"] is None
    assert api["verdicts"]["b"]["winner"] == "a"
    assert api["verdicts"]["c"] == {
        "winner": NOT_COMPARED,
        "difference_percent": None,
        "margin_percent": None,
        "label": not_compared,
    }


def test_a_quick_reference_is_compared_with_no_full_length_drive(client, mixed):
    a, b, c, d = mixed
    slugs = [c.slug, a.slug, b.slug, d.slug]  # the quick run made the reference
    api = api_pattern(client, [c, a, b, d])
    assert {key: v["label"] for key, v in api["verdicts"].items()} == {
        "b": "not compared: quick run against full-length run",
        "c": "not compared: quick run against full-length run",
        "d": "not compared: quick run against published figure",
    }
    assert api["best"] is None
    page = throughput(client.get(reverse("bench:compare", args=slugs)).content.decode())
    assert "beyond ±" not in page and "best-mark" not in page


def test_a_best_within_one_class_is_still_marked(client, mixed):
    a, b, _, d = mixed
    strong = run_of(Method.LOADGEN, "loadgen", model="Full E", bps=300e6, passes=3).drive
    api = api_pattern(client, [a, b, strong])
    assert api["best"] == "c" and api["verdicts"]["c"]["winner"] == "c"
    # A published figure is ranked with them, so it is compared, but not tested: no best.
    assert api_pattern(client, [a, b, strong, d])["best"] is None
