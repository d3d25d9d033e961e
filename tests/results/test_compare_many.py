"""Three and four drives head to head (issue 34, item 1): the page, its exports, its errors."""

import csv
import io
import json
import re

import pytest
from django.urls import reverse

from results.charts import COLOUR_A, COLOUR_B, COLOUR_C, COLOUR_D
from results.models import Method
from results.selectors.compare import against_a, best_of, compare
from results.spread import Side as RuleSide
from results.spread import Spread, verdict
from results.synthetic import measured_document
from tests.factories import PriceFactory
from tests.results.helpers import faster, ingest, measured

pytestmark = pytest.mark.django_db

NAMES = ("Acme Fast One", "Bolt Slow Two", "Cask Mid Three", "Dyne Odd Four")


@pytest.fixture
def four():
    """Four measured drives with full data, priced."""
    drives = []
    for seed, name in enumerate(NAMES, start=1):
        manufacturer, model = name.split(" ", 1)
        drive = measured(manufacturer=manufacturer, model=model, seed=seed).drive
        PriceFactory(drive=drive, amount=f"{100 + seed}.00")
        drives.append(drive)
    return drives


def url(name, drives, **query):
    path = reverse(name, args=[d.slug for d in drives])
    return path + ("?" + "&".join(f"{k}={v}" for k, v in query.items()) if query else "")


def figures(html: str) -> dict[str, dict]:
    found = re.findall(
        r"id=\"([^\"]+)\" role=\"img\" aria-label=\"[^\"]*\" data-figure='([^']*)'", html
    )
    return {element: json.loads(data) for element, data in found}


def test_two_drives_keep_their_permalink_and_page(client, four):
    a, b = four[:2]
    assert url("bench:compare", [a, b]) == f"/bench/compare/{a.slug}/{b.slug}/"
    html = client.get(url("bench:compare", [a, b])).content.decode()
    assert "Swap A and B" in html and "<th>Winner</th>" in html and "make reference" not in html
    assert len(figures(html)["bars-0"]["data"]) == 2
    assert 'id="pick-c"' in html  # a third drive can be added


@pytest.mark.parametrize("count", [3, 4])
def test_three_and_four_drives_side_by_side(client, four, count):
    drives = four[:count]
    keys = "abcd"[:count]
    response = client.get(url("bench:compare", drives))
    html = response.content.decode()
    assert response.status_code == 200
    for name in NAMES[:count]:
        assert name in html
    charts = figures(html)
    # Every test's bars grouped by drive, one colour and pattern a drive.
    bars = charts["bars-0"]["data"]
    assert [t["name"].split(":")[0] for t in bars] == [k.upper() for k in keys]
    assert [t["marker"]["color"] for t in bars] == [COLOUR_A, COLOUR_B, COLOUR_C, COLOUR_D][:count]
    assert len({t["marker"]["pattern"]["shape"] for t in bars}) == count
    # Consistency scatters overlaid, one colour and marker a drive.
    overlay = charts["consistency-0"]["data"]
    assert [t["marker"]["symbol"] for t in overlay] == [
        "circle",
        "diamond",
        "square",
        "triangle-up",
    ][:count]
    # Specs side by side, a column a drive; the table's Best column, each drive against A.
    assert html.count('<span class="key key-c"></span>C: <a') == 1
    assert "<th>Best</th>" in html and "vs A:" in html and "Winner" not in html
    assert "Swap A and B" not in html
    # Each drive but A can be made the reference, each can be removed, and a drive added
    # while fewer than four are compared.
    assert html.count('class="make-reference"') == count - 1
    assert html.count('class="remove-drive"') == count
    assert ('id="pick-d"' in html) == (count == 3)
    slugs = [d.slug for d in drives]
    reordered = "/".join([slugs[1], slugs[0], *slugs[2:]])
    assert f'href="/bench/compare/{reordered}/"' in html
    without_a = "/".join(slugs[1:])
    assert f'href="/bench/compare/{without_a}/"' in html
    # Exports of the same drives.
    assert f"/bench/compare/{'/'.join(slugs)}/compare.csv" in html


def _side(mean: float, cv: float = 0.01) -> RuleSide:
    return RuleSide(Spread(3, mean, mean * 0.99, mean * 1.01, cv), Method.LOADGEN, cv)


@pytest.mark.parametrize(
    ("means", "best"),
    [
        ((100, 200, 400), 2),  # C beats A and B
        ((100, 200, 201), None),  # B and C within the margin of each other: no best
        ((400, 100, None, 200), 0),  # A best; a drive not tested does not count
        ((100, None), None),  # one figure: nothing to beat
    ],
)
def test_the_best_beats_every_other_by_a_real_difference(means, best):
    assert best_of([None if m is None else _side(m) for m in means]) == best


def test_verdicts_are_each_drive_against_a():
    v = against_a(verdict(_side(100), _side(300)), "c")
    assert v.winner == "c" and v.label.startswith("C +200.0%")
    assert against_a(verdict(_side(300), _side(100)), "d").winner == "a"


def test_the_best_is_marked_on_the_page(client, four):
    # A fifth drive five times as fast as the others in every test: the best of each.
    document = measured_document(seed=5, manufacturer="Eon", model="Quick Five")
    for result in document["results"]:
        faster(result, 5)
    fast = ingest(document).drive
    c = compare([four[0].slug, four[1].slug, fast.slug])
    assert all(p.best == "c" for pair in c.tests for p in pair.rows)
    assert all(p.verdicts[2].winner == "c" for pair in c.tests for p in pair.rows)
    html = client.get(url("bench:compare", [four[0], four[1], fast])).content.decode()
    rows = sum(len(pair.rows) for pair in c.tests)
    assert html.count("C best</strong>") == rows
    assert html.count('<td class="num best">') == rows
    # Four drives of like speed: no best, and the table says so.
    html = client.get(url("bench:compare", four)).content.decode()
    assert "C best" not in html and "none beats every other" in html


def test_runs_chosen_per_drive_in_the_query(client, four):
    runs = [d.runs.get().pk for d in four]
    query = {f"run_{k}": r for k, r in zip("abcd", runs, strict=True)}
    html = client.get(url("bench:compare", four, **query)).content.decode()
    for key, run in query.items():
        assert f"{key}={run}" in html  # kept in the page's links
    # Making C the reference carries each drive's run with it.
    slugs = [d.slug for d in four]
    made = f"/bench/compare/{slugs[2]}/{slugs[0]}/{slugs[1]}/{slugs[3]}/"
    link = f"{made}?run_a={runs[2]}&amp;run_b={runs[0]}&amp;run_c={runs[1]}&amp;run_d={runs[3]}"
    assert link in html


@pytest.mark.parametrize("view", ["bench:compare", "bench:compare_csv", "bench:compare_markdown"])
def test_a_drive_named_twice_among_three_or_four_is_400(client, four, view):
    a, b, c = four[:3]
    response = client.get(url(view, [a, b, a]))
    assert response.status_code == 400
    html = response.content.decode()
    assert "named twice" in html
    if view == "bench:compare":
        # The page links to the same drives, each named once.
        assert f'href="/bench/compare/{a.slug}/{b.slug}/"' in html
    assert client.get(url(view, [a, b, c, c])).status_code == 400
    # Two drives may be the same drive, as before.
    assert client.get(url(view, [a, a])).status_code == 200


@pytest.mark.parametrize("position", [0, 2, 3])
def test_an_unknown_drive_is_404(client, four, position):
    slugs = [d.slug for d in four]
    slugs[position] = "no-such-drive"
    assert client.get(reverse("bench:compare", args=slugs)).status_code == 404
    assert client.get(reverse("bench:compare_csv", args=slugs)).status_code == 404


def test_more_than_four_drives_is_not_a_page(client, four):
    slugs = [d.slug for d in four]
    assert client.get("/bench/compare/" + "/".join([*slugs, slugs[0]]) + "/").status_code == 404


def test_exports_have_every_drive(client, four):
    names = [str(d) for d in four]
    response = client.get(url("bench:compare_csv", four))
    assert response.status_code == 200
    assert "-vs-".join(d.slug for d in four) in response["Content-Disposition"]
    rows = list(csv.reader(io.StringIO(response.content.decode())))
    assert rows[0] == [
        "section",
        "test",
        "data pattern",
        "measure",
        "unit",
        *(h for k, n in zip("ABCD", names, strict=True) for h in (f"{k}: {n}", f"{k}: notes")),
        "best",
        "B against A",
        "C against A",
        "D against A",
    ]
    assert all(len(row) == len(rows[0]) for row in rows)
    throughput = [r for r in rows if r[0] == "throughput" and r[4].startswith("MB/s")]
    assert throughput and all(r[5:13:2] and "not tested" not in r[5:13:2] for r in throughput)
    assert all(r[13] in ("A", "B", "C", "D", "none") for r in throughput)
    specs = {r[3]: r[5:13] for r in rows if r[0] == "specs"}
    assert specs["latest price"][4:6] == ["103.00", specs["latest price"][5]]
    md = client.get(url("bench:compare_markdown", four)).content.decode()
    title = md.splitlines()[0]
    assert " vs ".join(names) in title
    table = [line[2:-2].split(" | ") for line in md.splitlines()[2:]]
    del table[1]
    # The Markdown writes each figure as the page does, a row for each of the CSV's.
    assert table[0] == [h for h in rows[0] if not h.endswith(": notes")]
    assert [r[:5] for r in table[1:]] == [r[:5] for r in rows[1:]]
    assert "| latest price | USD | " in md and "$103.00 (" in md
    # Three drives: three columns of figures.
    rows = list(
        csv.reader(io.StringIO(client.get(url("bench:compare_csv", four[:3])).content.decode()))
    )
    assert rows[0][5:] == [
        *(h for k, n in zip("ABC", names, strict=False) for h in (f"{k}: {n}", f"{k}: notes")),
        "best",
        "B against A",
        "C against A",
    ]


def test_the_picker_adds_a_drive_after_the_others(client, four):
    a, b, c = four[:3]
    response = client.get(
        reverse("bench:pick"),
        {"side": "c", "c": "Cask", "cur_a": a.slug, "cur_b": b.slug, "target": "compare"},
    )
    html = response.content.decode()
    added = f"/bench/compare/{a.slug}/{b.slug}/{c.slug}/"
    assert f'href="{added}"' in html and f'hx-get="{added}"' in html
    # Replacing A keeps the third drive.
    d = four[3]
    html = client.get(
        reverse("bench:pick"),
        {"side": "a", "a": "Dyne", "cur_a": a.slug, "cur_b": b.slug, "cur_c": c.slug},
    ).content.decode()
    assert f'href="/bench/compare/{d.slug}/{b.slug}/{c.slug}/"' in html
    # A drive already compared changes places with the one it replaces: C picked as A.
    html = client.get(
        reverse("bench:pick"),
        {"side": "a", "a": "Cask", "cur_a": a.slug, "cur_b": b.slug, "cur_c": c.slug},
    ).content.decode()
    assert f'href="/bench/compare/{c.slug}/{b.slug}/{a.slug}/"' in html
    # A drive added that is already compared: the same drives.
    html = client.get(
        reverse("bench:pick"), {"side": "c", "c": "Acme", "cur_a": a.slug, "cur_b": b.slug}
    ).content.decode()
    assert f'href="/bench/compare/{a.slug}/{b.slug}/"' in html


def test_the_plain_form_lands_on_three_drives(client, four):
    a, b, c = four[:3]
    response = client.get(reverse("bench:compare_start"), {"a": "Acme", "b": "Bolt", "c": "Cask"})
    assert response.status_code == 302
    assert response["Location"] == f"/bench/compare/{a.slug}/{b.slug}/{c.slug}/"
    # The form of a page of three drives (no box for C, its slug kept) keeps C, adds D.
    d = four[3]
    query = {"a": str(a), "b": "Bolt", "cur_c": c.slug, "d": "Dyne"}
    response = client.get(reverse("bench:compare_start"), query)
    assert response["Location"] == f"/bench/compare/{a.slug}/{b.slug}/{c.slug}/{d.slug}/"


def test_the_charts_of_four_drives_are_images_too(client, four):
    page = url("bench:compare", four)
    html = client.get(page).content.decode()
    assert f'href="{page}chart/randread-4k-qd3.svg"' in html
    svg = client.get(f"{page}chart/randread-4k-qd3.svg")
    assert svg.status_code == 200 and svg["Content-Type"].startswith("image/svg+xml")
    text = svg.content.decode()
    for drive in four:
        assert str(drive)[:20] in text
    a, b = four[:2]
    repeated = url("bench:compare", [a, b, a])
    assert client.get(f"{repeated}chart/randread-4k-qd3.svg").status_code == 400
