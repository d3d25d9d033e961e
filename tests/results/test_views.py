import csv
import io
import json
import re
from urllib.parse import unquote

import pytest
from django.http import QueryDict
from django.urls import reverse
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from drives.models import Drive
from results.models import ConsistencySeries, Test
from results.synthetic import measured_document
from tests.factories import ControllerFactory, DriveFactory, NandTypeFactory, PriceFactory
from tests.results.helpers import ingest, measured, published

pytestmark = pytest.mark.django_db


@pytest.fixture
def pair():
    """Two measured drives with full data, priced."""
    a = measured(manufacturer="Acme", model="Fast One", seed=1).drive
    b = measured(manufacturer="Bolt", model="Slow Two", seed=2).drive
    PriceFactory(drive=a, amount="120.00")
    PriceFactory(drive=b, amount="90.00")
    return a, b


def compare_url(a, b, **query):
    url = reverse("bench:compare", args=[a.slug, b.slug])
    return url + ("?" + "&".join(f"{k}={v}" for k, v in query.items()) if query else "")


def figures(html: str) -> dict[str, dict]:
    """Every chart's figure on a page, by element id."""
    found = re.findall(
        r"id=\"([^\"]+)\" role=\"img\" aria-label=\"[^\"]*\" data-figure='([^']*)'", html
    )
    return {element: json.loads(data) for element, data in found}


def test_compare_page_shows_every_section(client, pair):
    a, b = pair
    response = client.get(compare_url(a, b))
    html = response.content.decode()
    assert response.status_code == 200 and "<html" in html
    for text in (
        "Acme Fast One",
        "Bolt Slow Two",
        "4KB random read",
        "higher is better",
        "Latency",
        "p99.9",
        "Performance consistency",
        "25% spare area",
        "$120.00",
        "$/GB",
        "$ per 1,000 IOPS",
        "Where the numbers come from",
    ):
        assert text in html, text
    charts = figures(html)
    bars = charts["bars-0"]
    assert [t["name"] for t in bars["data"]] == ["A: Acme Fast One 256GB", "B: Bolt Slow Two 256GB"]
    assert bars["data"][1]["marker"]["pattern"]["shape"] == "/"  # B differs by pattern too
    overlay = charts["consistency-0"]
    assert len(overlay["data"]) == 2 and len(overlay["data"][0]["y"]) == 2000
    assert overlay["data"][0]["dx"] == 1 and "x" not in overlay["data"][0]  # compact
    assert overlay["layout"]["yaxis"]["type"] == "log"
    assert overlay["data"][0]["marker"]["symbol"] != overlay["data"][1]["marker"]["symbol"]


def test_compare_state_lives_in_the_url(client, pair):
    a, b = pair
    html = client.get(compare_url(a, b, scale="linear", view="steady")).content.decode()
    overlay = figures(html)["consistency-25"]
    assert overlay["layout"]["yaxis"]["type"] == "linear"
    # Zoomed to the steady-state windows the PTS rule found (results.steady_state).
    windows = ConsistencySeries.objects.filter(run__drive__in=pair, spare_area_percent=25)
    assert overlay["layout"]["xaxis"]["range"] == [
        min(w.steady_state_start_s for w in windows),
        max(w.steady_state_end_s for w in windows),
    ]
    # The toggles mark the state shown as the current one of their links.
    current = re.findall(r'class="toggle on" (aria-current="true")', html)
    assert len(current) == 2 and html.count('aria-current="true"') == 2
    swap = reverse("bench:compare", args=[b.slug, a.slug]) + "?scale=linear&amp;view=steady"
    assert f'href="{swap}"' in html
    run = a.runs.get()
    published(
        manufacturer="Acme",
        model="Fast One",
        results=[{"test": "randread-4k-qd3", "pattern": "unspecified", "bytes_per_second": 1e8}],
    )
    html = client.get(compare_url(a, b, run_a=run.pk)).content.decode()
    assert f'<option value="{run.pk}" selected>' in html


def test_compare_htmx_returns_the_fragment(client, pair):
    a, b = pair
    response = client.get(compare_url(a, b), HTTP_HX_REQUEST="true")
    html = response.content.decode()
    assert response.status_code == 200 and "<html" not in html and "bars-0" in html


@pytest.mark.parametrize(
    "query",
    ["scale=cubic", "view=x", "wsat_x=<b>", "run_a=abc", "run_a=-1", "run_b=99999999999999999999"],
)
def test_compare_bad_query_values_are_a_400_naming_them(client, pair, query):
    """A value the page cannot take is said, not replaced by the default (core.query)."""
    a, b = pair
    response = client.get(compare_url(a, b) + "?" + query)
    assert response.status_code == 400
    assert f"<code>{query.partition('=')[0]}</code>: must be" in response.content.decode()


def test_compare_unknown_drive_is_404(client, pair):
    a, _ = pair
    assert client.get(reverse("bench:compare", args=[a.slug, "nope"])).status_code == 404
    assert client.get(reverse("bench:compare_csv", args=["nope", a.slug])).status_code == 404


def test_compare_one_sided_tests_say_not_tested(client):
    a = measured(manufacturer="Acme", model="Fast One").drive
    b = published(
        manufacturer="Old",
        model="Disk",
        results=[{"test": "seqwrite-2m-qd1", "pattern": "unspecified", "bytes_per_second": 9e7}],
    ).drive
    html = client.get(compare_url(a, b)).content.decode()
    assert html.count("not tested") >= 10
    assert "derived" in html  # B's IOPS follow from its MB/s


def test_a_published_figure_without_a_pattern_is_compared_with_each_measured_one(client):
    """An article's figure that states no data pattern is set against each pattern the
    measured drive has, labelled as such, with the winner rule's verdict (the article's
    run-to-run variation is unknown: not tested): on the page, its charts, exports."""
    Test.objects.filter(identifier="randwrite-4k-qd3-8g").update(run_to_run_cv=0.05)
    a = measured(manufacturer="Acme", model="Fast One").drive
    b = published(
        manufacturer="Old",
        model="Disk",
        results=[
            {"test": "randwrite-4k-qd3-8g", "pattern": "unspecified", "bytes_per_second": 9e6}
        ],
    ).drive
    html = client.get(compare_url(a, b)).content.decode()
    article = html.split('id="throughput"', 1)[1].split("/randwrite-4k-qd3-8g/", 1)[1]
    article = article.split("</article>", 1)[0]
    table = article.split("<table", 1)[1]
    assert table.count("data pattern not stated") == 2
    assert '<span class="missing">not tested' not in table
    untested = "difference not tested: B&#39;s run-to-run variation is unknown"
    assert table.count(untested) == 2 and 'class="side-a">A</strong>' not in table
    bars = figures(html)[re.search(r'id="(bars-\d+)"', article).group(1)]
    assert bars["data"][1]["y"] == ["compressible", "incompressible"]
    assert all("data pattern not stated" in t for t in bars["data"][1]["hovertext"])
    exported = client.get(reverse("bench:compare_csv", args=[a.slug, b.slug])).content.decode()
    name = Test.objects.get(identifier="randwrite-4k-qd3-8g").name
    rows = [r for r in csv.reader(io.StringIO(exported)) if r[1] == name]
    mbs = [r for r in rows if r[4].startswith("MB/s")]
    assert [r[2] for r in mbs] == ["compressible", "incompressible"]
    # B's value, then its notes; then the winner.
    assert all(float(r[7]) > 0 and r[8] == "data pattern not stated" for r in mbs)
    assert all(r[9] == "difference not tested: B's run-to-run variation is unknown" for r in mbs)


def test_exports(client, pair):
    a, b = pair
    response = client.get(reverse("bench:compare_csv", args=[a.slug, b.slug]))
    assert response["Content-Type"].startswith("text/csv")
    rows = list(csv.reader(io.StringIO(response.content.decode())))
    assert rows[0] == [
        "section",
        "test",
        "data pattern",
        "measure",
        "unit",
        "A: Acme Fast One 256GB",
        "A: notes",
        "B: Bolt Slow Two 256GB",
        "B: notes",
        "winner",
        "difference (%)",
    ]
    assert any(r[0] == "consistency" for r in rows) and any(r[0] == "latency" for r in rows)
    # Every latency figure the page's table shows, and every specification.
    measures = {r[3] for r in rows if r[0] == "latency"}
    assert measures == {"mean", "p50", "p99", "p99.9", "p99.99", "max", "I/Os measured"}
    # Each column holds one thing: the data pattern its own column, in every section.
    patterns = {r[0]: set() for r in rows[1:]}
    for r in rows[1:]:
        patterns[r[0]].add(r[2])
    assert patterns["throughput"] == patterns["latency"] == {"compressible", "incompressible"}
    assert patterns["consistency"] == patterns["specs"] == {""}
    assert {r[1] for r in rows if r[0] in ("throughput", "latency")} <= set(
        Test.objects.values_list("name", flat=True)
    )
    specs = {r[3]: r[5:9:2] for r in rows if r[0] == "specs"}
    assert {"manufacturer", "controller", "NAND", "firmware tested", "capacity"} <= set(specs)
    assert specs["capacity"] == [str(a.capacity_bytes), str(b.capacity_bytes)]
    # In the CSV a price is a plain number (its day in the notes beside it).
    assert specs["latest price"][0] == "120.00" and specs["price per GB"][1] == "0.35"
    md = client.get(reverse("bench:compare_markdown", args=[a.slug, b.slug])).content.decode()
    assert md.splitlines()[2].startswith("| section | test | data pattern | measure |")
    assert all(line.startswith("|") for line in md.splitlines()[2:])
    # Nothing in these names needs escaping: a row of the table for each of the CSV's, its
    # numbers as the page writes them (251.7, 1.50 ms, $0.35), not escaped ("251\.7").
    table = [line[2:-2].split(" | ") for line in md.splitlines()[2:]]
    del table[1]  # the delimiter row
    assert table[0] == [h for h in rows[0] if not h.endswith(": notes")]
    assert [r[:5] for r in table[1:]] == [r[:5] for r in rows[1:]]
    assert "| $0.35 |" in md and "\\." not in md
    # The pasted link opens the same state: the runs chosen, the scale and view.
    run = a.runs.get()
    md = client.get(
        reverse("bench:compare_markdown", args=[a.slug, b.slug]),
        {"run_a": run.pk, "scale": "linear", "view": "steady"},
    ).content.decode()
    link = unquote(md.splitlines()[0].rsplit("(", 1)[1].rstrip(")"))
    assert link.endswith(f"{compare_url(a, b)}?run_a={run.pk}&scale=linear&view=steady")
    assert client.get(md.splitlines()[0].rsplit("(", 1)[1].rstrip(")")).status_code == 200


def test_every_price_is_written_in_dollars_with_separators_and_rounded_half_up(client, pair):
    """$1,500.00 for a 2.4 TB drive: $0.625 per GB, written $0.63 (half a cent up), on
    every page, chart and export that shows a price."""
    a, _ = pair
    big = ingest(measured_document(seed=5, model="Big One", capacity_bytes=2400 * 10**9)).drive
    PriceFactory(drive=big, amount="1500.00", observed_on="2014-01-01")
    pages = {
        "catalog": reverse("drives:home"),
        "compare": compare_url(big, a),
        "drive": big.get_absolute_url(),
        "value": reverse("bench:value"),
    }
    for name, url in pages.items():
        html = client.get(url).content.decode()
        assert "$1,500.00" in html, name
        assert "$1500" not in html and "1500.00" not in html, name
        assert "$0.63" in html and "$0.62" not in html, name
    value = client.get(pages["value"]).content.decode()
    hovers = [
        t for trace in figures(value)["value-chart"]["data"] for t in trace.get("hovertext", [])
    ]
    assert any(t.endswith(" IOPS") and "<br>$1,500.00, " in t for t in hovers), hovers
    (history,) = figures(client.get(pages["drive"]).content.decode())["price-chart"]["data"]
    assert history["text"][0].startswith("$1,500.00 on 2014-01-01<br>")
    exported = client.get(reverse("bench:compare_csv", args=[big.slug, a.slug])).content.decode()
    specs = {r[3]: r[5:7] for r in csv.reader(io.StringIO(exported)) if r[0] == "specs"}
    # The CSV writes prices as data, to the cent as the page rounds them; the Markdown as the
    # page writes them.
    assert specs["latest price"] == ["1500.00", "2014-01-01"]
    assert specs["price per GB"] == ["0.63", ""]
    assert re.fullmatch(
        r"\d+\.\d\d", specs["price per 1,000 IOPS (4KB random write, worst case)"][0]
    )
    markdown = client.get(reverse("bench:compare_markdown", args=[big.slug, a.slug])).content
    assert "| $1,500.00 (2014-01-01) |" in markdown.decode() and "| $0.63 |" in markdown.decode()


def test_compare_start_without_javascript(client, pair):
    a, b = pair
    start = reverse("bench:compare_start")
    assert client.get(start).status_code == 200
    response = client.get(start, {"a": "fast one", "b": b.slug})
    assert response.status_code == 302 and response["Location"] == compare_url(a, b)
    response = client.get(start, {"a": "acme fast", "b": "o"})  # B is ambiguous
    html = response.content.decode()
    assert response.status_code == 200 and "Bolt Slow Two" in html and "Acme Fast One" in html
    assert client.get(start, {"a": "x" * 500}).status_code == 200


@settings(
    max_examples=40,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(
    st.dictionaries(
        st.sampled_from(["side", "a", "b", "cur_a", "cur_b", "target"]),
        st.text(st.characters(codec="utf-8"), max_size=300),
    )
)
@example({"side": "a", "a": "\x00"})
@example({"side": "b", "b": "Acme\x00", "cur_a": "\x00", "target": "compare"})
def test_picker_and_pickers_form_answer_any_query_string(client, pair, query):
    """Any text in any parameter of the picker, or of the pickers' plain form: a list, "no
    match" or the comparison, or the 400 of a side or target it does not know; never a 5xx."""
    known = query.get("side", "a") in ("a", "b", "c", "d", "mark", "") and query.get(
        "target", "page"
    ) in ("page", "compare", "")
    assert client.get(reverse("bench:pick"), query).status_code == (200 if known else 400)
    assert client.get(reverse("bench:compare_start"), query).status_code in (200, 302)


def test_picker_lists_matches_as_links_to_the_comparison(client, pair):
    a, b = pair
    html = client.get(
        reverse("bench:pick"), {"side": "b", "b": "slow", "cur_a": a.slug, "target": "compare"}
    ).content.decode()
    assert f'href="{compare_url(a, b)}"' in html and 'hx-target="#compare-page"' in html
    # A listbox of options, each option the link itself (an option's content is not read as
    # a link by assistive technology).
    assert 'role="listbox"' in html and html.count('<li role="none"><a role="option"') == 1
    html = client.get(reverse("bench:pick"), {"side": "a", "a": "256GB"}).content.decode()
    assert "Acme Fast One" in html and "Bolt Slow Two" in html
    html = client.get(reverse("bench:pick"), {"side": "a", "a": "zzz"}).content.decode()
    assert "No drive matches" in html
    response = client.get(reverse("bench:pick"), {"side": "q"})
    assert response.status_code == 400 and "<code>side</code>" in response.content.decode()


def test_test_index_lists_suites(client):
    html = client.get(reverse("bench:tests")).content.decode()
    assert "desktop-2011" in html
    assert reverse("bench:leaderboard", args=["randread-4k-qd3"]) in html


def test_leaderboard_page_filters_pages_and_highlights(client, pair):
    a, b = pair
    url = reverse("bench:leaderboard", args=["randwrite-4k-qd3-8g"])
    html = client.get(url).content.decode()
    assert "Acme Fast One" in html and "Bolt Slow Two" in html
    chart = figures(html)["leaderboard-chart"]
    assert len(chart["data"][0]["y"]) == 4  # two drives, two patterns
    html = client.get(url, {"pattern": "incompressible", "q": "bolt"}).content.decode()
    assert "Bolt Slow Two" in html and "Acme Fast One" not in html
    response = client.get(url, {"highlight": b.slug}, HTTP_HX_REQUEST="true")
    fragment = response.content.decode()
    assert "<html" not in fragment and 'class="highlighted"' in fragment
    html = client.get(url, {"page": "999", "pattern": "incompressible"}).content.decode()
    assert "No drive ranks on this page" in html
    assert 'href="?pattern=incompressible"' in html  # the first page, filters kept
    html = client.get(url, {"q": "no such drive"}).content.decode()
    assert "No drive has a result" in html


@pytest.mark.parametrize(
    "query",
    [{"kind": "floppy"}, {"capacity_min": "lots"}, {"pattern": "zip"}, {"source": "rumour"}],
)
def test_leaderboard_bad_filters_are_400(client, pair, query):
    url = reverse("bench:leaderboard", args=["randwrite-4k-qd3-8g"])
    response = client.get(url, query)
    assert response.status_code == 400
    assert next(iter(query)) in response.content.decode()


RANKING_PARAMETERS = [
    "q",
    "kind",
    "interface",
    "controller",
    "cell_type",
    "capacity_min",
    "capacity_max",
    "pattern",
    "source",
    "metric",
    "page",
    "highlight",
    "mark",
    "test",
    "as_of",
]
RANKING_URLS = [
    "/bench/tests/randwrite-4k-qd3-8g/",
    "/bench/value/",
    "/api/v1/tests/randwrite-4k-qd3-8g/leaderboard/",
    "/api/v1/value/",
]


@settings(
    max_examples=30,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(
    st.lists(
        st.tuples(
            st.sampled_from(RANKING_PARAMETERS), st.text(st.characters(codec="utf-8"), max_size=40)
        ),
        max_size=6,
    )
)
@example([("highlight", "\x00")])
@example([("highlight", "not a slug"), ("highlight", "acme-fast-one"), ("controller", "\x00")])
@example([("q", "\x00"), ("as_of", "\x00")])
def test_rankings_answer_any_query_string_with_a_page_or_a_400(client, pair, query):
    """Any text in any parameter (repeated too) of a leaderboard or value view, page or API:
    the view, or a 400 saying what is wrong; never a 5xx."""
    for url in RANKING_URLS:
        response = client.get(url, query)
        assert response.status_code in (200, 400), (url, query, response.status_code)


HIGHLIGHT_VIEWS = ["/bench/tests/randwrite-4k-qd3-8g/", "/bench/value/"]


def highlighted_in(html: str) -> list[str]:
    """The drives the filter form lists as highlighted (by slug, from its hidden fields)."""
    return re.findall(r'<input type="hidden" name="highlight" value="([^"]+)">', html)


@pytest.mark.parametrize("url", HIGHLIGHT_VIEWS)
def test_the_filter_form_lists_highlighted_drives_with_a_link_to_drop_each(client, pair, url):
    a, b = pair
    html = client.get(url, [("highlight", a.slug), ("highlight", b.slug), ("pattern", "")])
    html = html.content.decode()
    assert highlighted_in(html) == [a.slug, b.slug]
    chips = re.findall(r'<span class="chip highlighted-drive">(.*?) <a href="([^"]+)"', html)
    assert [name for name, _ in chips] == [str(a), str(b)]
    for (_, link), kept in zip(chips, ([b.slug], [a.slug]), strict=True):
        query = QueryDict(link.replace("&amp;", "&").removeprefix("?"))
        assert query.getlist("highlight") == kept and "pattern" in query
    # A highlighted drive the filters leave out of the view is listed all the same.
    html = client.get(url, [("highlight", a.slug), ("highlight", b.slug), ("q", "acme")])
    chips = re.findall(r'<span class="chip highlighted-drive">(.*?) <a', html.content.decode())
    assert chips == [str(a), str(b)]


def absent_highlights(html: str) -> list[str]:
    """The drives a view says are highlighted but left out, by name."""
    found = re.search(r'<p class="absent-highlights">(.*?)</p>', html, re.S)
    return re.findall(r'<a href="[^"]+">(.*?)</a>', found.group(1)) if found else []


@pytest.mark.parametrize("url", HIGHLIGHT_VIEWS)
@pytest.mark.parametrize("htmx", [False, True])
def test_a_view_says_which_highlighted_drives_its_filters_leave_out(client, pair, url, htmx):
    """In the part a filter redraws (the whole page or its htmx fragment), every highlighted
    drive the filters keep out of the view is named, and no drive the view shows."""
    a, b = pair
    headers = {"HTTP_HX_REQUEST": "true"} if htmx else {}
    highlight = [("highlight", a.slug), ("highlight", b.slug), ("pattern", "")]
    for query, left_out in [
        ([], []),
        ([("q", "acme")], [str(b)]),
        ([("q", "bolt")], [str(a)]),
        ([("q", "nothing like either")], [str(a), str(b)]),
        ([("capacity_min", "100000")], [str(a), str(b)]),
    ]:
        response = client.get(url, highlight + query, **headers)
        assert response.status_code == 200
        html = response.content.decode()
        assert absent_highlights(html) == left_out, query
        if left_out:
            assert "with these filters" in html


@pytest.mark.parametrize("url", HIGHLIGHT_VIEWS)
def test_the_highlight_box_names_a_drive_by_slug_name_or_an_only_match(client, pair, url):
    """Without JavaScript the box is submitted as typed: a slug, the drive's name, or a search
    only one drive matches highlights that drive; text naming none or several, nothing."""
    a, b = pair
    for text, expected in [
        (b.slug, [b.slug]),
        (str(b), [b.slug]),
        ("slow tw", [b.slug]),
        (str(a).upper(), [a.slug]),
        ("256GB", []),  # both drives
        ("nothing like it", []),
    ]:
        html = client.get(url, {"mark": text, "highlight": a.slug}).content.decode()
        assert highlighted_in(html) == list(dict.fromkeys([a.slug, *expected])), text
        assert 'name="mark" placeholder' in html  # the box comes back empty


LEADERBOARD = "/bench/tests/randwrite-4k-qd3-8g/"


@pytest.mark.parametrize(
    ("at", "path"),
    [
        (LEADERBOARD, LEADERBOARD),
        ("/bench/value/", "/bench/value/"),
        ("", ""),
        ("//evil.example/bench/value/", ""),
        ("https://evil.example/bench/value/", ""),
        ("/bench/compare/acme-fast-one-256gb/bolt-slow-two-256gb/", ""),
        ("/bench/tests/nope\x00/", ""),
    ],
)
def test_the_highlight_picker_links_keep_the_filters_and_add_the_drive(client, pair, at, path):
    """Its links lead to the ranking or value view it was typed in (its path, `at`), or to
    the same page (a query string alone) for any other path: never elsewhere."""
    a, b = pair
    form = {"side": "mark", "mark": "slow", "pattern": "incompressible", "page": "3", "at": at}
    html = client.get(reverse("bench:pick"), {**form, "highlight": a.slug}).content.decode()
    assert 'hx-boost="true"' in html
    (link,) = re.findall(r'<a role="option" href="([^"]+)"', html)
    target, query = link.replace("&amp;", "&").split("?", 1)
    assert target == path
    query = QueryDict(query)
    assert query.getlist("highlight") == [b.slug, a.slug]
    assert query.dict() | {"highlight": None} == {"pattern": "incompressible", "highlight": None}


@settings(max_examples=60, deadline=None, derandomize=True, database=None)
@given(
    st.lists(st.tuples(st.sampled_from([*RANKING_PARAMETERS, "side", "at"]), st.text(max_size=12))),
    st.lists(st.from_regex(r"[a-z0-9]+(-[a-z0-9]+){0,3}", fullmatch=True), max_size=8),
)
def test_highlight_links_keep_every_filter_and_name_exactly_the_drives(pairs, slugs):
    """The links that add or drop a highlighted drive, for any query: every other parameter
    kept as it was (repeats and order too), the first page, an empty box, and the highlighted
    drives exactly those given."""
    from results.views.common import with_highlights

    query = QueryDict(mutable=True)
    for name, value in pairs:
        query.appendlist(name, value)
    link = QueryDict(with_highlights(query, tuple(slugs)).removeprefix("?"))
    dropped = {"page", "mark", "side", "target", "at", "highlight"}
    assert link.getlist("highlight") == slugs
    assert not any(name in link for name in ("page", "mark", "side", "target", "at"))
    assert {k: link.getlist(k) for k in link if k not in dropped} == {
        k: query.getlist(k) for k in query if k not in dropped
    }


@pytest.mark.parametrize(
    "url",
    ["/bench/tests/randwrite-4k-qd3-8g/", "/bench/value/", "/"],
    ids=["board", "value", "catalog"],
)
@pytest.mark.parametrize("query", [{"capacity_min": "-5"}, {"kind": "floppy"}, {"q": "x" * 300}])
def test_a_bad_filter_answers_htmx_with_the_problems_in_place_of_the_results(
    client, pair, url, query
):
    """A filter changed through htmx to a value the form refuses: a 400 holding only what is
    wrong (htmx swaps it where the results were, base.html's responseHandling); the same
    address loaded as a page, the whole 400 page."""
    fragment = client.get(url, query, HTTP_HX_REQUEST="true")
    assert fragment.status_code == 400
    html = fragment.content.decode()
    assert "<html" not in html and 'class="bad-request" role="alert"' in html
    assert next(iter(query)) in html
    page = client.get(url, query)
    assert page.status_code == 400 and "<html" in page.content.decode()
    boosted = client.get(url, query, HTTP_HX_REQUEST="true", HTTP_HX_BOOSTED="true")
    assert "<html" in boosted.content.decode()


def test_leaderboard_bad_values_and_404(client, pair):
    url = reverse("bench:leaderboard", args=["randwrite-4k-qd3-8g"])
    response = client.get(url, {"page": "x", "metric": "speed"})
    assert response.status_code == 400  # said, not replaced by the defaults (core.query)
    assert "<code>metric</code>" in response.content.decode()
    assert client.get(url, {"metric": "latency"}).status_code == 200
    assert client.get(reverse("bench:leaderboard", args=["nope"])).status_code == 404
    # A TRIM validation is ranked by its own figure (tests/results/test_kind_rankings.py).
    assert client.get(reverse("bench:leaderboard", args=["trim-validation"])).status_code == 200


def test_value_page(client, pair):
    a, b = pair
    url = reverse("bench:value")
    html = client.get(url).content.decode()
    assert "The frontier" in html and "Cheapest per GB" in html
    scatter = figures(html)["value-chart"]
    assert {t["name"] for t in scatter["data"]} >= {"value frontier", "other drives"}
    fragment = client.get(url, {"kind": "ssd"}, HTTP_HX_REQUEST="true").content.decode()
    assert "<html" not in fragment and "value-chart" in fragment
    html = client.get(url, {"as_of": "2000-01-01"}).content.decode()
    assert "No drive has both a price" in html
    assert client.get(url, {"as_of": "yesterday"}).status_code == 400
    assert client.get(url, {"test": "seqread-128k-qd1"}).status_code == 400


def test_the_value_pages_per_gb_table_says_why_it_is_empty(client):
    """Drives priced, but none with a capacity stated: the table says so, not a header
    over nothing."""
    drive = published(
        manufacturer="Old",
        model="Unsized",
        results=[{"test": "randwrite-4k-qd3-8g", "pattern": "unspecified", "iops": 9000}],
    ).drive
    assert drive.capacity_bytes is None
    PriceFactory(drive=drive, amount="99.00")
    html = client.get(reverse("bench:value")).content.decode()
    assert "Old Unsized" in html.split("<h2>The frontier</h2>", 1)[1]
    per_gb = html.split("<h2>Cheapest per GB</h2>", 1)[1].split("</section>", 1)[0]
    assert "<table" not in per_gb
    assert "No drive priced here states its capacity" in per_gb


def test_drive_page(client, pair):
    a, _ = pair
    controller = ControllerFactory()
    nand = NandTypeFactory()
    Drive.objects.filter(pk=a.pk).update(controller=controller, nand=nand)
    PriceFactory(drive=a, amount="110.00", observed_on="2014-01-01", source_url="javascript:x")
    html = client.get(a.get_absolute_url()).content.decode()
    assert "Compare with" in html and "Provenance" in html and "loadgen 0.1.0" in html
    assert "2,000 s" in html  # seconds of each consistency series
    assert "price-chart" in html and "javascript:x" not in html
    assert reverse("bench:controller", args=[controller.slug]) in html
    assert client.get(reverse("bench:drive", args=["nope"])).status_code == 404


def test_drive_page_flags_quick_runs_and_synthetic_drives(client, settings):
    run = measured(model="Quick")
    document = json.loads(run.document)
    assert document  # a full-length run: no quick flag
    assert "quick run" not in client.get(run.drive.get_absolute_url()).content.decode()
    synthetic = DriveFactory(synthetic=True)
    assert client.get(synthetic.get_absolute_url()).status_code == 404
    settings.BENCH_SHOW_SYNTHETIC = True
    html = client.get(synthetic.get_absolute_url()).content.decode()
    assert "Synthetic drive" in html


def test_citations_link_only_http_urls(client):
    safe = published(
        manufacturer="C",
        model="Safe",
        url="https://example.org/review",
        results=[{"test": "randread-4k-qd3", "pattern": "unspecified", "bytes_per_second": 1e8}],
    )
    html = client.get(safe.drive.get_absolute_url()).content.decode()
    assert 'href="https://example.org/review"' in html


def test_controller_and_nand_pages(client, pair):
    a, b = pair
    controller = ControllerFactory(model="SF-9999")
    Drive.objects.filter(pk=a.pk).update(controller=controller)
    html = client.get(reverse("bench:controller", args=[controller.slug])).content.decode()
    assert "Acme Fast One" in html and "Bolt Slow Two" not in html
    assert "4KB random read" in html
    fragment = client.get(
        reverse("bench:controller", args=[controller.slug]), {"page": "2"}, HTTP_HX_REQUEST="true"
    ).content.decode()
    assert "<html" not in fragment
    assert "No drive on page 2" in fragment and 'href="?page=1"' in fragment
    nand = NandTypeFactory()
    html = client.get(reverse("bench:nand", args=[nand.slug])).content.decode()
    assert "No drive in the catalog uses it" in html
    assert client.get(reverse("bench:controller", args=["nope"])).status_code == 404
    assert client.get(reverse("bench:nand", args=["nope"])).status_code == 404


def test_quick_runs_are_flagged_wherever_they_appear(client):
    from django.conf import settings as conf

    from results.services import run_ingest

    sample = conf.BASE_DIR / "results" / "schema" / "samples" / "measured-loadgen-quick.json"
    run = run_ingest(document=sample.read_bytes(), submitter=None).run
    PriceFactory(drive=run.drive, amount="50.00")
    other = measured(manufacturer="Full", model="Length").drive
    controller, nand = ControllerFactory(model="Q-1"), NandTypeFactory()
    Drive.objects.filter(pk=run.drive_id).update(controller=controller, nand=nand)
    pages = [
        run.drive.get_absolute_url(),
        compare_url(run.drive, other),
        # Rankings and value views show quick runs only when asked, alone.
        reverse("bench:leaderboard", args=["randwrite-4k-qd3-8g"]) + "?method=quick",
        reverse("bench:value") + "?method=quick",
        reverse("bench:controller", args=[controller.slug]),
        reverse("bench:nand", args=[nand.slug]),
    ]
    for url in pages:
        assert "quick run" in client.get(url).content.decode(), url


def test_derived_figures_are_labelled_wherever_they_appear(client):
    """A figure that follows from the other through the block size says so: in the value
    view's tables and scatter (IOPS from MB/s), on controller and NAND pages (MB/s from IOPS)."""
    controller = ControllerFactory(model="D-1")
    rates = published(
        manufacturer="Rates",
        model="Only",
        results=[
            {"test": "randwrite-4k-qd3-8g", "pattern": "unspecified", "bytes_per_second": 4e7}
        ],
    ).drive
    counts = published(
        manufacturer="Counts",
        model="Only",
        results=[{"test": "randread-4k-qd3", "pattern": "unspecified", "iops": 20000}],
    ).drive
    PriceFactory(drive=rates, amount="50.00")
    Drive.objects.filter(pk__in=[rates.pk, counts.pk]).update(controller=controller)
    html = client.get(reverse("bench:value"), {"test": "randwrite-4k-qd3-8g"}).content.decode()
    for table in ("The frontier", "Cheapest per 1,000 IOPS"):
        section = html.split(f"<h2>{table}</h2>")[1].split("</table>")[0]
        row = next(r for r in section.split("<tr") if "Rates Only" in r)
        assert "derived" in row, table
    scatter = figures(html)["value-chart"]
    hovers = [t for trace in scatter["data"] for t in trace.get("hovertext", [])]
    assert any("IOPS derived from MB/s" in t for t in hovers)
    group = client.get(reverse("bench:controller", args=[controller.slug])).content.decode()
    row = next(r for r in group.split("<tr") if "Counts Only" in r)
    assert "derived" in row and "81.9" in row  # 20,000 × 4,096 bytes/s


def test_every_page_answers_head_as_it_answers_get(client, pair):
    """Link checkers and `curl -I` ask with HEAD: the same status as GET, without a body."""
    a, b = pair
    controller = ControllerFactory(model="H-1")
    Drive.objects.filter(pk=a.pk).update(controller=controller)
    pages = [
        "/",
        "/?q=acme",
        a.get_absolute_url(),
        compare_url(a, b),
        reverse("bench:compare_csv", args=[a.slug, b.slug]),
        reverse("bench:compare_markdown", args=[a.slug, b.slug]),
        reverse("bench:compare_start"),
        reverse("bench:pick") + "?side=a&a=acme",
        reverse("bench:tests"),
        reverse("bench:methodology"),
        # Rankings and value views show quick runs only when asked, alone.
        reverse("bench:leaderboard", args=["randwrite-4k-qd3-8g"]) + "?method=quick",
        reverse("bench:value") + "?method=quick",
        reverse("bench:controller", args=[controller.slug]),
        "/healthz",
        "/drives/no-such-drive/",
        reverse("bench:value") + "?as_of=2025-02-30",
    ]
    for url in pages:
        get, head = client.get(url), client.head(url)
        assert head.status_code == get.status_code, url
        assert head.content == b"", url
    assert client.post(reverse("bench:value")).status_code == 405


@settings(max_examples=40, deadline=None, derandomize=True, database=None)
@given(
    st.lists(st.integers(0, 400_000), min_size=1, max_size=60),
    st.lists(st.integers(0, 400_000), min_size=1, max_size=60),
    st.booleans(),
    st.booleans(),
)
def test_consistency_charts_show_every_second(points_a, points_b, quick_a, quick_b):
    """Whatever the IOPS: the linear view's axis reaches the highest second (40K at least,
    as the seeds draw it); the log view, which has no zero, names the seconds at 0 it cannot
    draw; the steady-state zoom starts where a full-length series is steady, not at a quick
    run's first seconds."""
    from types import SimpleNamespace

    from core.db import JsonText
    from results import charts

    def side(points, quick, start):
        series = SimpleNamespace(
            interval_ns=10**9,
            points=len(points),
            stalls=points.count(0),  # as the selector counts them (test_selectors)
            steady_state_start_s=start,
            steady_state_end_s=start + 300,
            steady=None,
            quick=quick,
            iops_json=JsonText(json.dumps(points)),
        )
        return SimpleNamespace(consistency={0: series})

    a, b = side(points_a, quick_a, 3), side(points_b, quick_b, 1400)
    c = SimpleNamespace(a=a, b=b, sides=[a, b])
    linear = charts.consistency(0, c.sides, ["A", "B"], scale="linear", view="full")
    axis = linear["layout"]["yaxis"]
    assert "range" not in axis and axis.get("autorange", True) is True
    assert axis["autorangeoptions"]["include"] == [0, charts.LINEAR_CEILING]
    log = charts.consistency(0, c.sides, ["A", "B"], scale="log", view="steady")
    for trace, points in zip(log["data"], (points_a, points_b), strict=True):
        stalled = points.count(0)
        assert (f"{stalled:,} s at 0 IOPS" in trace["name"]) == bool(stalled)
    full = [s for s, q in ((3, quick_a), (1400, quick_b)) if not q]
    assert log["layout"]["xaxis"]["range"][0] == min(full or [3, 1400])
