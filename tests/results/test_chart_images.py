"""Every chart of the compare, leaderboard and value pages at its own address: as SVG (its
text holding the numbers the page's table shows), as PNG, and as a page another site may
frame; cached as its page is."""

import inspect
import itertools
import json
import re
import struct
import xml.etree.ElementTree as ET
from collections.abc import Callable
from html.parser import HTMLParser
from io import StringIO
from pathlib import Path

import pytest
from django.core.cache import cache
from django.core.management import call_command
from django.http import Http404, HttpResponse
from django.test import RequestFactory
from django.urls import reverse

from benchsite import response_cache
from benchsite.response_cache import CACHE_STATUS_HEADER
from benchsite.settings.base import cache_settings
from drives.models import Drive
from results import chart_images, charts
from results.chart_images import features
from results.chart_images.text import plain
from results.models import Test
from results.services import run_ingest
from results.synthetic import measured_document
from results.views import compare, leaderboards, value
from results.views.chart_images import Chart
from tests.factories import PriceFactory
from tests.results.helpers import HOSTILE, ingest, measured
from tests.results.test_sweeps import workloads_document

pytestmark = pytest.mark.django_db

SVG = "{http://www.w3.org/2000/svg}"
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
NUMBER = re.compile(r"\d[\d,]*(?:\.\d+)?")


@pytest.fixture
def pair():
    a = measured(manufacturer="Acme", model="Fast One", seed=1).drive
    b = measured(manufacturer="Bolt", model="Slow Two", seed=2).drive
    PriceFactory(drive=a, amount="120.00")
    PriceFactory(drive=b, amount="90.00")
    return a, b


class Tables(HTMLParser):
    """A page's tables as text: [table][row][cell], and its chart links."""

    def __init__(self, html: str) -> None:
        super().__init__()
        self.tables, self.links, self._cell = [], [], None
        self.feed(html)

    def handle_starttag(self, tag, attrs):
        if tag == "table":
            self.tables.append([])
        elif tag == "tr" and self.tables:
            self.tables[-1].append([])
        elif tag in ("td", "th") and self.tables:
            self._cell = []
        elif tag == "a" and "/chart/" in (href := dict(attrs).get("href") or ""):
            self.links.append(href.replace("&amp;", "&"))

    def handle_endtag(self, tag):
        if tag in ("td", "th") and self._cell is not None:
            self.tables[-1][-1].append(" ".join("".join(self._cell).split()))
            self._cell = None

    def handle_data(self, data):
        if self._cell is not None:
            self._cell.append(data)


def svg_texts(svg: bytes) -> tuple[ET.Element, list[str]]:
    root = ET.fromstring(svg)
    assert root.tag == f"{SVG}svg"
    return root, ["".join(t.itertext()) for t in root.iter(f"{SVG}text")]


def by_class(root: ET.Element, name: str) -> list[str]:
    return [" ".join(t.itertext()) for t in root.iter() if t.get("class") == name]


def mbps_in(cell: str) -> str:
    return NUMBER.search(cell.split("MB/s")[0])[0]


def png_size(png: bytes) -> tuple[int, int]:
    assert png[:8] == PNG_SIGNATURE and png[12:16] == b"IHDR"
    return struct.unpack(">II", png[16:24])


def check_image(client, url: str, title: str, units: str, permalink: str) -> list[str]:
    """The chart's SVG and PNG: the title, the unit and the page's permalink in the SVG's
    text, the PNG as large as the SVG says. Returns the SVG's texts."""
    response = client.get(url)
    assert response.status_code == 200 and response["Content-Type"] == "image/svg+xml"
    root, texts = svg_texts(response.content)
    assert title in by_class(root, "title")[0]
    assert units in texts
    assert f"Bench — http://testserver{permalink}" in texts
    png = client.get(url.replace(".svg", ".png", 1))
    assert png.status_code == 200 and png["Content-Type"] == "image/png"
    assert png_size(png.content) == (int(root.get("width")), int(root.get("height")))
    return texts


def test_compare_charts_as_images_hold_the_tables_numbers(client, pair):
    a, b = pair
    page_url = reverse("bench:compare", args=[a.slug, b.slug]) + "?scale=linear"
    page = Tables(client.get(page_url).content.decode())
    base = reverse("bench:compare", args=[a.slug, b.slug]) + "chart/"
    test = "randread-4k-qd3"
    for suffix in (".svg", ".png", "/embed/"):
        assert f"{base}{test}{suffix}?scale=linear" in page.links
    assert f"{base}consistency-0.svg?scale=linear" in page.links

    svg_url = f"{base}{test}.svg?scale=linear"
    response = client.get(svg_url)
    root, _ = svg_texts(response.content)
    check_image(
        client,
        svg_url,
        f"{a} vs {b}: 4KB random read",
        "MB/s (higher is better)",
        page_url,
    )
    # The test's table: Data, A, B, Winner; each side's MB/s is a bar's text.
    table = next(t for t in page.tables if t[0][:3] == ["Data", "A", "B"])
    expected = sorted(mbps_in(cell) for row in table[1:] if len(row) == 4 for cell in row[1:3])
    drawn = sorted(mbps_in(text) for text in by_class(root, "bar-text"))
    assert drawn == expected and len(drawn) == 4

    # A consistency chart: the scale the query chose, the drives in the legend.
    consistency = client.get(f"{base}consistency-0.svg?scale=linear").content.decode()
    assert "Acme Fast One" in consistency and "IOPS" in consistency


def test_a_leaderboards_chart_holds_its_tables_numbers(client, pair):
    a, _ = pair
    page_url = reverse("bench:leaderboard", args=["randwrite-4k-qd3-8g"]) + f"?highlight={a.slug}"
    page = Tables(client.get(page_url).content.decode())
    svg_url = page_url.replace("?", "chart/ranking.svg?")
    assert svg_url in page.links
    texts = check_image(client, svg_url, "leaderboard", "MB/s (higher is better)", page_url)
    table = next(t for t in page.tables if t[0][:2] == ["#", "Drive"])
    column = table[0].index("MB/s")
    expected = sorted(mbps_in(row[column]) for row in table[1:])
    drawn = sorted(mbps_in(t) for t in texts if t.endswith("MB/s") and t != "MB/s")
    assert drawn == expected and len(drawn) == 4  # two drives, two data patterns


def test_the_value_chart_holds_its_tables_numbers(client, pair):
    page_url = reverse("bench:value")
    page = Tables(client.get(page_url).content.decode())
    svg_url = f"{page_url}chart/frontier.svg"
    assert svg_url in page.links
    check_image(client, svg_url, "Value: price against IOPS", "IOPS (higher is better)", page_url)
    svg = client.get(svg_url).content
    root = ET.fromstring(svg)
    titles = " ".join("".join(t.itertext()) for t in root.iter(f"{SVG}title"))
    frontier = next(t for t in page.tables if t[0][:3] == ["Drive", "Price", "IOPS"])
    assert len(frontier) > 1
    for row in frontier[1:]:
        price, iops = row[1].split()[0], NUMBER.match(row[2])[0]
        assert f"{price}, {iops} IOPS" in titles  # each point's price and IOPS


def test_the_value_charts_image_names_its_points(client, test_catalog):
    """An image has no hover: the frontier's drives (a single point is the frontier) and the
    highlighted ones are named beside their points, inside the image."""
    a = measured(manufacturer="Acme", model="Lone One", seed=1).drive
    PriceFactory(drive=a, amount="1000.00")
    url = f"{reverse('bench:value')}chart/frontier.svg"
    root, _ = svg_texts(client.get(url).content)
    assert by_class(root, "point-text") == [str(a)]
    b = measured(manufacturer="Bolt", model="Dear Two", seed=2).drive
    PriceFactory(drive=b, amount="5000.00")
    root, _ = svg_texts(client.get(url, {"highlight": b.slug}).content)
    named = by_class(root, "point-text")
    assert str(b) in named and len(named) == len(set(named))  # each drive named once
    width = float(root.get("width"))
    for text in root.iter(f"{SVG}text"):
        if text.get("class") == "point-text":  # on the side of its point with room
            x, end = float(text.get("x")), text.get("text-anchor")
            assert (end == "start" and x < width / 2) or (end == "end" and x > width / 2)


def test_the_embed_view_may_be_framed_and_only_it(client, pair):
    a, b = pair
    page_url = reverse("bench:compare", args=[a.slug, b.slug])
    embed = client.get(f"{page_url}chart/randread-4k-qd3/embed/")
    html = embed.content.decode()
    assert embed.status_code == 200
    assert 'class="chart"' in html and "data-figure=" in html
    table = next(t for t in Tables(html).tables)
    assert len(table) == 5  # a heading, then A and B in each data pattern
    assert "frame-ancestors *" in embed["Content-Security-Policy"]
    assert "X-Frame-Options" not in embed
    for other in (page_url, reverse("bench:value"), f"{page_url}chart/randread-4k-qd3.svg"):
        policy = client.get(other)["Content-Security-Policy"]
        assert "frame-ancestors 'none'" in policy


def test_unknown_charts_and_drives_are_404(client, pair):
    a, b = pair
    base = reverse("bench:compare", args=[a.slug, b.slug]) + "chart/"
    assert client.get(f"{base}nope.svg").status_code == 404
    assert client.get(f"{base}nope/embed/").status_code == 404
    assert client.get(f"{base}randread-4k-qd3.gif").status_code == 404
    assert (
        client.get(f"/bench/compare/{a.slug}/nobody/chart/randread-4k-qd3.svg").status_code == 404
    )
    ranking = reverse("bench:leaderboard", args=["randwrite-4k-qd3-8g"])
    assert client.get(f"{ranking}chart/frontier.svg").status_code == 404
    assert client.get(f"{ranking}chart/ranking.svg?qd=7").status_code == 400
    assert client.get("/bench/value/chart/ranking.png").status_code == 404


@pytest.fixture
def kept(settings):
    settings.CACHES = cache_settings("")
    settings.BENCH_RESPONSE_CACHE = True
    cache.clear()
    response_cache._recent.entries.clear()
    yield
    cache.clear()
    response_cache._recent.entries.clear()


@pytest.mark.django_db(transaction=True)
def test_images_are_kept_by_their_pages_scope(client, kept, test_catalog):
    a = measured(manufacturer="Acme", model="Fast One", seed=1).drive
    b = measured(manufacturer="Bolt", model="Slow Two", seed=2).drive
    measured(manufacturer="Cool", model="Other Three", seed=3)
    url = reverse("bench:compare", args=[a.slug, b.slug]) + "chart/randread-4k-qd3.svg"
    first = client.get(url)
    assert first[CACHE_STATUS_HEADER] == "miss" and first.has_header("ETag")
    again = client.get(url, HTTP_IF_NONE_MATCH=first["ETag"])
    assert again.status_code == 304
    # Another drive's run leaves it kept; a new run of A's redraws it.
    measured(manufacturer="Cool", model="Other Three", seed=4)
    assert client.get(url)[CACHE_STATUS_HEADER] == "hit"
    document = measured_document(seed=9, manufacturer="Acme", model="Fast One")
    run_ingest(document=json.dumps(document), submitter=None)
    after = client.get(url, HTTP_IF_NONE_MATCH=first["ETag"])
    assert after.status_code == 200 and after[CACHE_STATUS_HEADER] == "miss"
    assert after.content != first.content


def trim_run(seed: int, model: str, clean: float):
    document = measured_document(seed=seed, manufacturer="Trim", model=model)
    document["trim"] = [
        {
            "test": "trim-validation",
            "pattern": "incompressible",
            "span_bytes": 2**30,
            "torture_seconds": 60.5,
            "discard_method": "blkdiscard",
            "clean_bytes_per_second": clean,
            "after_torture_bytes_per_second": clean / 4,
            "after_trim_bytes_per_second": clean * 0.97,
        }
    ]
    return ingest(document).drive


def test_trim_charts_hold_their_tables_numbers(client):
    a, b = trim_run(1, "One", 4e8), trim_run(2, "Two", 2.5e8)
    page_url = reverse("bench:compare", args=[a.slug, b.slug])
    page = Tables(client.get(page_url).content.decode())
    svg_url = f"{page_url}chart/trim-trim-validation-incompressible.svg"
    assert svg_url in page.links
    texts = check_image(client, svg_url, "TRIM validation", "MB/s (higher is better)", page_url)
    table = next(t for t in page.tables if t[1][:1] == ["clean"])
    expected = sorted(NUMBER.search(cell)[0] for row in table[1:] for cell in row[1:3])
    root = ET.fromstring(client.get(svg_url).content)
    assert sorted(by_class(root, "bar-text")) == expected and len(expected) == 6
    assert texts.count("after TRIM") == 1  # a category on the axis


def test_sweep_charts_hold_their_tables_numbers(client):
    a = ingest(workloads_document(seed=1, model="Deep", ceiling=80_000, reads=7000, writes=3000))
    b = ingest(workloads_document(seed=2, model="Flat", ceiling=20_000, reads=3500, writes=1500))
    page_url = reverse("bench:compare", args=[a.drive.slug, b.drive.slug])
    page = Tables(client.get(page_url).content.decode())
    sweeps = [link for link in page.links if link.endswith("-iops.svg")]
    assert sweeps and all(link.replace("-iops.", "-demand.") in page.links for link in sweeps)
    svg_url = sweeps[0]
    check_image(client, svg_url, "IOPS against queue depth", "IOPS (higher is better)", page_url)
    root = ET.fromstring(client.get(svg_url).content)
    points = {"".join(t.itertext()) for t in root.iter(f"{SVG}title")}
    table = next(t for t in page.tables if t[0][:2] == ["Queue depth", "Data"])
    for row in table[1:]:
        for cell in (row[2], row[4]):
            if NUMBER.match(cell):
                assert f"{row[0]}: {NUMBER.match(cell)[0]} IOPS" in points
    demand = svg_url.replace("-iops.", "-demand.")
    check_image(client, demand, "latency against IOPS", "latency, µs (lower is better)", page_url)


def test_names_with_markup_are_text_in_the_images(client):
    a = measured(manufacturer=HOSTILE[0], model=HOSTILE[1], seed=1).drive
    b = measured(manufacturer=HOSTILE[1], model=HOSTILE[0], seed=2).drive
    base = reverse("bench:compare", args=[a.slug, b.slug]) + "chart/"
    for chart in ("randread-4k-qd3", "consistency-0"):
        root, _ = svg_texts(client.get(f"{base}{chart}.svg").content)
        assert not [e for e in root.iter() if e.tag in (f"{SVG}script", f"{SVG}image")]
        assert HOSTILE[0] in " ".join(by_class(root, "title"))
        assert any(HOSTILE[0] in text for text in by_class(root, "legend-text"))
        embed = client.get(f"{base}{chart}/embed/").content.decode()
        assert HOSTILE[0] not in embed and "&lt;script&gt;" in embed


def test_the_pages_query_chooses_the_images_figure(client, pair):
    a, b = pair
    base = reverse("bench:compare", args=[a.slug, b.slug]) + "chart/consistency-0.svg"
    log, linear = (client.get(base + query).content for query in ("", "?scale=linear"))
    assert log != linear
    ticks = {
        q: by_class(ET.fromstring(svg), "tick") for q, svg in (("log", log), ("linear", linear))
    }
    assert "40k" in ticks["linear"] and "40k" not in ticks["log"]  # linear: 0 to 40K at least


@pytest.mark.django_db(databases=[])
def test_the_renderer_draws_every_feature_charts_py_uses():
    """Marks, axes and shapes of results/charts.py's figures that the pages above may not
    all reach: open and filled symbols, step and dashed lines, vertical error bars,
    per-bar colours and stripes, a log axis with its own ticks, a shape line."""
    figure = {
        "data": [
            {
                "type": "scatter",
                "mode": "lines+markers",
                "name": "steps",
                "x": [1, 2, 4, 8],
                "y": [10, 20, 15, 30],
                "line": {"shape": "hv", "color": "#009E73", "dash": "dashdot"},
                "marker": {"symbol": "triangle-up-open", "size": 9, "color": "#009E73"},
                "error_y": {"array": [1, 2, 0, 3], "arrayminus": [1, 1, 0, 2]},
                "text": ["a", "b", "c", "d"],
            },
            {
                "type": "scatter",
                "mode": "markers",
                "name": "each<br>its own",
                "x": [3, 5],
                "y": [12, 25],
                "marker": {
                    "symbol": ["square", "diamond-open"],
                    "size": [8, 12],
                    "color": ["#D55E00", "#9AA3AD"],
                },
                "text": ["x", "y"],
            },
        ],
        "layout": {
            "height": 300,
            "xaxis": {
                "title": {"text": "queue depth"},
                "type": "log",
                "tickvals": [1, 2, 4, 8],
                "ticktext": ["1", "2", "4", "8"],
            },
            "yaxis": {"title": {"text": "IOPS (higher is better)"}, "rangemode": "tozero"},
            "shapes": [
                {
                    "type": "line",
                    "xref": "x",
                    "yref": "paper",
                    "x0": 4,
                    "x1": 4,
                    "y0": 0,
                    "y1": 1,
                    "line": {"dash": "dot"},
                }
            ],
        },
    }
    svg = chart_images.render_svg(figure, chart_images.ImageText("All of it", "Bench — here"))
    root, texts = svg_texts(svg.encode())
    assert {"1", "2", "4", "8", "queue depth", "each", "its own", "Bench — here"} <= set(texts)
    paths = [e for e in root.iter(f"{SVG}path")]
    assert any("stroke-dasharray" in e.attrib for e in paths)
    assert len([e for e in root.iter(f"{SVG}title")]) == 1 + 4 + 2  # the image's, each point's
    bars = {
        "data": [
            {
                "type": "bar",
                "orientation": "h",
                "y": ["#1 a", "#2 b"],
                "x": [5, 3],
                "text": ["5 IOPS", "3 IOPS"],
                "marker": {"color": ["#D55E00", "#0072B2"], "pattern": {"shape": ["", "/"]}},
            }
        ],
        "layout": {"showlegend": False, "yaxis": {"autorange": "reversed"}, "xaxis": {}},
    }
    root, texts = svg_texts(
        chart_images.render_svg(bars, chart_images.ImageText("t", "s")).encode()
    )
    fills = [e.get("fill") for e in root.iter(f"{SVG}rect") if e.get("class") == "bar"]
    assert fills[0] == "#D55E00" and fills[1].startswith("url(#")
    ticks = [
        (e.text, float(e.get("y"))) for e in root.iter(f"{SVG}text") if e.get("class") == "tick"
    ]
    named = dict(t for t in ticks if t[0].startswith("#"))
    assert named["#1 a"] < named["#2 b"]  # reversed: the first at the top
    png = chart_images.render_png(chart_images.render_svg(bars, chart_images.ImageText("t", "s")))
    assert png_size(png) == (int(root.get("width")), int(root.get("height")))


def test_patterns_and_dashes_tell_every_compared_drive_apart():
    """A to D: no pattern, stripes, dots, crosses (charts.SIDE_STYLES), each its own
    <pattern>; every dash charts.py gives a line is drawn dashed but "solid"."""
    shapes = [style[2] for style in charts.SIDE_STYLES]
    bars = {
        "data": [
            {
                "type": "bar",
                "orientation": "h",
                "y": ["a", "b", "c", "d"],
                "x": [4, 3, 2, 1],
                "marker": {"color": "#0072B2", "pattern": {"shape": shapes}},
            }
        ],
        "layout": {"showlegend": False},
    }
    root, _ = svg_texts(chart_images.render_svg(bars, chart_images.ImageText("t", "s")).encode())
    fills = [e.get("fill") for e in root.iter(f"{SVG}rect") if e.get("class") == "bar"]
    assert fills[0] == "#0072B2" and len(set(fills)) == 4
    patterns = {e.get("id"): e for e in root.iter(f"{SVG}pattern")}
    assert sorted(patterns) == sorted(f[len("url(#") : -1] for f in fills[1:])
    assert any(e.tag == f"{SVG}circle" for e in patterns[fills[2][5:-1]])  # the dots
    for dash in {style[4] for style in charts.SIDE_STYLES}:
        line = {"type": "scatter", "mode": "lines", "x": [1, 2], "y": [1, 2]}
        figure = {"data": [dict(line, line={"dash": dash})], "layout": {}}
        root, _ = svg_texts(chart_images.render_svg(figure, chart_images.ImageText("t", "s")))
        drawn = [e for e in root.iter(f"{SVG}path") if e.get("class") == "line"]
        assert ("stroke-dasharray" in drawn[0].attrib) == (dash != "solid"), dash


@pytest.mark.django_db(databases=[])
def test_a_figure_key_the_images_do_not_draw_is_named():
    figure = {
        "data": [
            {"type": "scatter", "x": [1], "y": [2], "fill": "tozeroy"},
            {"type": "scatter", "x": [1], "y": [2], "marker": {"symbol": ["circle", "star"]}},
            {"type": "pie", "values": [1]},
        ],
        "layout": {"xaxis": {"type": "date"}, "yaxis": {"type": "log"}, "hovermode": "x"},
    }
    assert chart_images.unknown_features(figure) == [
        "layout.axis.type = 'date'",
        "pie.type",
        "pie.values",
        "scatter.fill",
        "scatter.marker.symbol = 'star'",
    ]


def _said_by_the_renderer(key: str) -> bool:
    """The last part of a declared key is a string the renderer's code reads."""
    code = " ".join(
        path.read_text()
        for path in Path(chart_images.__file__).parent.glob("*.py")
        if path.name not in ("features.py", "__init__.py")
    )
    last = key.rsplit(".", 1)[-1]
    return f'"{last}"' in code or f"'{last}'" in code


@pytest.mark.django_db(databases=[])
def test_every_key_declared_drawn_is_read_by_the_renderer():
    unread = [key for key in sorted(features.DRAWN) if not _said_by_the_renderer(key)]
    assert not unread, unread
    assert not features.DRAWN & (features.LEFT_OUT.keys() | features.ASSUMED.keys())
    assert not features.LEFT_OUT.keys() & features.ASSUMED.keys()
    assert set(features.VALUES) <= features.DRAWN


# Every function of results/charts.py that builds a figure: a chart image's, or one of the
# pages that have no chart images (PAGE_ONLY). A new one is one or the other, or the test
# below fails.
FIGURE_FUNCTIONS = sorted(
    name
    for name, function in inspect.getmembers(charts, inspect.isfunction)
    if function.__module__ == charts.__name__
    and not name.startswith("_")
    and inspect.signature(function).return_annotation in ("dict", dict)
)
PAGE_ONLY = {
    "price_history": "the drive page's (a date axis, which the images do not draw)",
    "run_standings": "the drive and run pages' (box traces, which the images do not draw)",
}


@pytest.fixture
def twice():
    """A drive measured twice: its runs' standings (no demo drive has two alike runs)."""
    measured(manufacturer="Acme", model="Twice", seed=1)
    return measured(manufacturer="Acme", model="Twice", seed=2).drive


@pytest.fixture
def demo(twice):
    call_command("load_demo", stdout=StringIO())


def _demo_charts() -> list[Callable[[], Chart]]:
    """Every chart image of the demo's pages, through the pages' chart sources: every drive
    in a comparison of four (each scale, view and WSAT axis), every test's ranking, the
    value page."""
    factory = RequestFactory()
    slugs = sorted(Drive.objects.values_list("slug", flat=True))
    groups = [slugs[i : i + 4] for i in range(0, len(slugs), 4)]
    groups[-1] = (groups[-1] + slugs)[:4]
    sources = [
        compare.compare_charts(factory.get("/", query), *group)
        for group, query in itertools.product(
            groups, ({}, {"scale": "linear"}, {"view": "steady"}, {"wsat_x": "bytes"})
        )
    ]
    for test in Test.objects.values_list("identifier", flat=True):
        try:
            sources.append(leaderboards.ranking_charts(factory.get("/"), test))
        except Http404:  # a test with no ranking (TRIM, saturation)
            continue
    sources.append(value.value_charts(factory.get("/")))
    return [
        chart
        for source in sources
        if not isinstance(source, HttpResponse)
        for chart in source.values()
    ]


def test_the_renderer_draws_every_figure_of_a_chart_image(demo, monkeypatch):
    """Every figure results/charts.py builds for the demo's chart images: each of its keys
    and values one the images draw (results/chart_images/features.py), and drawn, each
    legend entry in the image's text. Every figure function is one of theirs but the pages'
    that have no images."""
    built: dict[str, list[dict]] = {name: [] for name in FIGURE_FUNCTIONS}

    def keeping(name, build):
        def build_and_keep(*args, **kwargs):
            figure = build(*args, **kwargs)
            built[name].append(figure)
            return figure

        return build_and_keep

    for name in FIGURE_FUNCTIONS:
        monkeypatch.setattr(charts, name, keeping(name, getattr(charts, name)))
    shown = [make() for make in _demo_charts()]
    assert sorted(name for name, figures in built.items() if not figures) == sorted(PAGE_ONLY)

    unknown = {
        f"{name}: {feature}"
        for name, figures in built.items()
        for figure in figures
        for feature in chart_images.unknown_features(chart_images.plain_figure(figure))
    }
    assert not unknown, "\n".join(sorted(unknown))
    for chart in shown:
        root, texts = svg_texts(
            chart_images.render_svg(chart.figure, chart_images.ImageText(chart.title, "s"))
        )
        drawn = " ".join(texts)
        assert " ".join(by_class(root, "title")).split() == chart.title.split()
        for trace in chart_images.plain_figure(chart.figure)["data"]:
            if trace.get("name") and trace.get("showlegend", True):
                first = re.split(r"<br\s*/?>", trace["name"])[0]
                assert plain(first) in drawn, chart.title


def test_the_pages_only_figures_are_on_pages_without_images(client, twice):
    """PAGE_ONLY's figures are drawn on their pages (a drive's with two alike runs)."""
    html = client.get(reverse("bench:drive", args=[twice.slug])).content.decode()
    assert html.count('class="chart"') >= 1 and '"type":"box"' in html


@pytest.mark.django_db(databases=[])
def test_ticks_are_written_as_the_pages_write_them():
    """As Plotly writes an axis with separatethousands (results.charts sets it on every
    axis): separators below 10,000, an SI suffix from there."""
    from results.chart_images.text import tick_label

    cases = {300: "300", 0.5: "0.5", 1000: "1,000", 1500: "1,500", 9999: "9,999"}
    cases |= {10_000: "10k", 40_000: "40k", 2_500_000: "2.5M", -2000: "-2,000"}
    assert {value: tick_label(value) for value in cases} == cases
