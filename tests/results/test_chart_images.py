"""Every chart of the compare, leaderboard and value pages at its own address: as SVG (its
text holding the numbers the page's table shows), as PNG, and as a page another site may
frame; cached as its page is."""

import json
import re
import struct
import xml.etree.ElementTree as ET
from html.parser import HTMLParser

import pytest
from django.core.cache import cache
from django.urls import reverse

from benchsite import response_cache
from benchsite.response_cache import CACHE_STATUS_HEADER
from benchsite.settings.base import cache_settings
from results import chart_images
from results.services import run_ingest
from results.synthetic import measured_document
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
