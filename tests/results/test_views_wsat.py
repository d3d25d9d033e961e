"""WSAT (SNIA PTS write saturation) on the drive page and the compare page: IOPS per round
against the time or the total bytes written (?wsat_x=, and the page's links that switch it in
place, htmx pushing the address; a value it does not know is a 400), the half-rate point
marked and labelled, its numbers beside the chart; the 128KB saturation of the same run kept
apart; the run page says what stopped it."""

import csv
import io
import json
import re

import pytest
from django.urls import reverse

from results.synthetic import measured_document
from tests.results.helpers import ingest
from tests.results.test_ingest_v2 import saturation, version_2

pytestmark = pytest.mark.django_db

FIGURE = re.compile(r"""id="([^"]+)" role="img" aria-label="[^"]*" data-figure='([^']*)'""")
MINUTE = 60_000_000_000
# IOPS 4,883, 4,069, 2,848, 2,035 (below half of 4,883 from 180 s), 1,628
ROUNDS = [1_200_000_000, 1_000_000_000, 700_000_000, 500_000_000, 400_000_000]


def wsat(**changes) -> dict:
    entry = {
        "mean_bytes_per_second": sum(ROUNDS) / 300,  # 3,092 IOPS
        "test": "wsat-4k-qd32",
        "pattern": "incompressible",
        "span_bytes": 950_000_000,
        "block_size": 4096,
        "queue_depth": 32,
        "interval_ns": MINUTE,
        "duration_ns": 5 * MINUTE,
        "discard_method": "blkdiscard",
        "bytes_written": sum(ROUNDS),
        "exhausted": False,
        "target_bytes": 3_800_000_000,
        "time_cap_ns": 86_400_000_000_000,
        "stopped_by": "bytes",
        "halved_at_s": 180.0,
        "bytes_before_halved": sum(ROUNDS[:3]),
        "bytes_per_interval": ROUNDS,
    }
    entry.update(changes)
    if "mean_bytes_per_second" not in changes:  # what it wrote over how long it took
        entry["mean_bytes_per_second"] = entry["bytes_written"] / (entry["duration_ns"] / 1e9)
    return {k: v for k, v in entry.items() if v is not None}


def with_wsat(*, manufacturer, model, seed, plain=False, **changes):
    doc = version_2(measured_document(seed=seed, manufacturer=manufacturer, model=model))
    doc["schema_version"] = 4
    doc["saturation"] = [wsat(**changes)]
    if plain:  # the 128KB sequential saturation in the same run
        doc["saturation"].append({k: v for k, v in saturation().items() if v is not None})
    return ingest(doc)


def figures(html: str) -> dict[str, dict]:
    return {element: json.loads(data) for element, data in FIGURE.findall(html)}


def test_drive_page_draws_iops_per_round_against_time_and_marks_the_half_rate(client):
    run = with_wsat(manufacturer="Acme", model="Purged One", seed=1, plain=True)
    html = client.get(reverse("bench:drive", args=[run.drive.slug])).content.decode()
    found = figures(html)
    assert {"saturation", "wsat"} <= set(found)  # the 128KB write and WSAT, apart
    figure = found["wsat"]
    line, mark, text = figure["data"]
    assert line["y"] == [4882.8, 4069.0, 2848.3, 2034.5, 1627.6]
    assert line["x"] == [60, 120, 180, 240, 300]  # seconds at each round's end
    assert [c[1] for c in line["customdata"]] == [1.2, 2.2, 2.9, 3.4, 3.8]  # GB written
    assert mark["x"] == [240] and mark["y"] == [2034.5]  # the round from 180 s
    # Labelled short, to fit beside the moment on a phone, where its line draws no round: a
    # moment late in the run, left of its dotted line below half the first round's IOPS
    # (every round before it ran at that or more); the whole sentence in the circled round's
    # hover and in the table.
    assert text["text"] == ["half rate from 180 s"] and text["textposition"] == "bottom left"
    assert text["x"] == [180] and text["y"] == [2441.4] and text["showlegend"] is False
    assert mark["hovertext"] == ["below half the first round's IOPS from 180 s, after 2.9 GB"]
    (shape,) = figure["layout"]["shapes"]
    assert shape["x0"] == shape["x1"] == 180.0
    assert figure["layout"]["xaxis"]["title"]["text"] == "seconds from the start"
    # The switch is the page's, beside the chart (never over its legend): a link to each axis.
    assert "updatemenus" not in figure["layout"]
    url = reverse("bench:drive", args=[run.drive.slug])
    switch = html[html.index('class="toggles wsat-axis"') :]
    assert f'href="{url}" hx-get="{url}" hx-target="#wsat-part"' in switch
    assert f'href="{url}?wsat_x=bytes"' in switch and 'hx-push-url="true"' in switch
    assert 'aria-current="true" data-wsat-x="time"' in switch
    table = html[html.index('id="write-saturation-wsat"') :]
    for text in ("4,883", "from 180 s, after 2.9 GB", "3.8 GB of 3.8 GB", "four times the"):
        assert text in table, text
    assert f'href="#run-{run.pk}"' in table


def test_wsat_x_bytes_is_the_permalink_of_the_bytes_axis(client):
    run = with_wsat(manufacturer="Acme", model="Purged One", seed=1)
    url = reverse("bench:drive", args=[run.drive.slug])
    figure = figures(client.get(url, {"wsat_x": "bytes"}).content.decode())["wsat"]
    line, mark, text = figure["data"]
    assert line["x"] == [1.2, 2.2, 2.9, 3.4, 3.8] and mark["x"] == [3.4]
    assert text["text"] == ["half rate after 2.9 GB"] and text["x"] == [2.9]
    assert figure["layout"]["xaxis"]["title"]["text"] == "GB written (total)"
    assert figure["layout"]["shapes"][0]["x0"] == 2.9
    html = client.get(url, {"wsat_x": "bytes"}).content.decode()
    assert 'aria-current="true" data-wsat-x="bytes"' in html
    # No query, or an empty one, is the time axis; any other value is a 400 saying why (a
    # permalink that shows what it says, or says it cannot), never the time axis unsaid.
    for query in ({}, {"wsat_x": ""}):
        axis = figures(client.get(url, query).content.decode())["wsat"]["layout"]["xaxis"]
        assert axis["title"]["text"] == "seconds from the start"
    for value in ("<b>", "nonsense", "Bytes", "time "):
        response = client.get(url, {"wsat_x": value})
        assert response.status_code == 400, value
        problems = response.content.decode()
        assert "<code>wsat_x</code>: must be time or bytes" in problems
        assert "<b>" not in problems and "Traceback" not in problems


def test_a_rate_that_never_halves_has_no_mark(client):
    run = with_wsat(
        manufacturer="Acme",
        model="Steady",
        seed=1,
        halved_at_s=None,
        bytes_before_halved=None,
        stopped_by="time",
        bytes_per_interval=[10**9] * 3,
        bytes_written=3 * 10**9,
        duration_ns=3 * MINUTE,
    )
    html = client.get(reverse("bench:drive", args=[run.drive.slug])).content.decode()
    figure = figures(html)["wsat"]
    assert len(figure["data"]) == 1 and figure["layout"]["shapes"] == []
    assert "never below half the first round" in html and "time cap reached" in html


def test_compare_page_overlays_both_drives_wsat(client):
    a = with_wsat(manufacturer="Acme", model="Purged One", seed=1, plain=True).drive
    b = with_wsat(
        manufacturer="Bolt",
        model="Purged Two",
        seed=2,
        halved_at_s=None,
        bytes_before_halved=None,
        bytes_per_interval=[950_000_000] * 4,  # to its target, four times the span
        bytes_written=3_800_000_000,
        duration_ns=4 * MINUTE,
    ).drive
    html = client.get(reverse("bench:compare", args=[a.slug, b.slug])).content.decode()
    assert 'href="#wsat"' in html
    found = figures(html)
    assert "saturation-incompressible" in found  # A's 128KB write is its own section
    figure = found["wsat-incompressible"]
    lines = [t for t in figure["data"] if t["mode"] == "lines+markers"]
    assert [t["name"] for t in lines] == [str(a), str(b)]
    marks = [t for t in figure["data"] if t["mode"] == "markers"]
    texts = [t for t in figure["data"] if t["mode"] == "text"]
    assert len(marks) == len(texts) == 1 and len(figure["layout"]["shapes"]) == 1
    section = html[html.index('id="wsat"') :]
    assert "from 180 s" in section and "never below half" in section
    bytes_figure = figures(
        client.get(
            reverse("bench:compare", args=[a.slug, b.slug]), {"wsat_x": "bytes"}
        ).content.decode()
    )["wsat-incompressible"]
    assert bytes_figure["layout"]["xaxis"]["title"]["text"] == "GB written (total)"
    assert bytes_figure["data"][0]["x"] == [1.2, 2.2, 2.9, 3.4, 3.8]


def test_run_page_says_what_stopped_it_and_where_it_halved(client):
    run = with_wsat(manufacturer="Acme", model="Purged One", seed=1, plain=True, stopped_by="bytes")
    html = client.get(reverse("bench:run", args=[run.pk])).content.decode()
    section = html[html.index("<h3>Write saturation</h3>") :]
    assert "below half the first round&#39;s IOPS from 180 s" in section or (
        "below half the first round's IOPS from 180 s" in section
    )
    assert "four times the capacity written" in section


def test_the_exports_carry_the_wsat(client):
    a = with_wsat(manufacturer="Acme", model="Purged One", seed=1).drive
    b = ingest(version_2(measured_document(seed=2, manufacturer="Bolt", model="Without"))).drive
    text = client.get(reverse("bench:compare_csv", args=[a.slug, b.slug])).content.decode()
    rows = [r for r in csv.reader(io.StringIO(text)) if r[0] == "WSAT"]
    # A's plain value (then its notes), B's cell.
    assert [[*r[2:5], r[5], r[7]] for r in rows] == [
        ["incompressible", "mean", "IOPS (higher is better)", rows[0][5], "not tested"],
        ["incompressible", "below half of it from", "seconds", "180.0", "not tested"],
        ["incompressible", "written before", "GB", "2.9", "not tested"],
        ["incompressible", "written in all", "GB", rows[3][5], "not tested"],
        ["incompressible", "stopped by", "", "four times the capacity written", "not tested"],
    ]
    assert round(float(rows[0][5])) == 3092 and round(float(rows[3][5]), 1) == 3.8


def test_the_catalog_pages_list_wsat(client):
    with_wsat(manufacturer="Acme", model="Purged One", seed=1)
    tests = client.get(reverse("bench:tests")).content.decode()
    assert "wsat-2026" in tests and "wsat-4k-qd32" in tests
    # Each saturation test has its ranking page, the 128KB write's as WSAT's (a defect of
    # the 404 they were, fixed: tests/results/test_kind_rankings.py).
    for test in ("write-saturation-128k-qd32", "wsat-4k-qd32"):
        assert client.get(reverse("bench:leaderboard", args=[test])).status_code == 200


def test_the_compare_api_carries_the_wsat(client):
    a = with_wsat(manufacturer="Acme", model="Purged One", seed=1).drive
    b = ingest(version_2(measured_document(seed=2, manufacturer="Bolt", model="Without"))).drive
    body = client.get(f"/api/v1/compare/{a.slug}/{b.slug}/", {"points": "true"}).json()
    (entry,) = body["wsat"]
    assert entry["pattern"] == "incompressible" and entry["b"] is None
    assert entry["a"]["stopped_by"] == "bytes" and entry["a"]["halved_at_s"] == 180.0
    assert entry["a"]["bytes_before_halved"] == 2_900_000_000
    assert entry["a"]["bytes_per_interval"] == ROUNDS
    assert body["saturation"] == []  # the 128KB write is not WSAT's


def test_the_saturation_charts_are_images_too(client):
    """The compare page's 128KB saturation and WSAT charts at their own addresses, on the axis
    the page's ?wsat_x= chose: SVG and PNG of the same figure, and the page to embed."""
    from tests.results.test_chart_images import check_image, svg_texts

    a = with_wsat(manufacturer="Acme", model="Purged One", seed=1, plain=True).drive
    b = with_wsat(manufacturer="Bolt", model="Purged Two", seed=2).drive
    page_url = reverse("bench:compare", args=[a.slug, b.slug])
    for query, axis in (("", "seconds from the start"), ("?wsat_x=bytes", "GB written (total)")):
        html = client.get(page_url + query).content.decode()
        for chart in ("saturation-incompressible", "wsat-incompressible"):
            assert f"{page_url}chart/{chart}.svg{query}" in html
        texts = check_image(
            client,
            f"{page_url}chart/wsat-incompressible.svg{query}",
            "WSAT",
            "IOPS (higher is better)",
            page_url + query,
        )
        assert axis in texts
        # A's half-rate point is labelled in the image as on the page
        label = figures(html)["wsat-incompressible"]["data"]
        marks = [t for t in label if t["mode"] == "text"]
        assert marks and all(text in texts for t in marks for text in t["text"]), (marks, texts)
        embed = client.get(f"{page_url}chart/wsat-incompressible/embed/{query}")
        assert embed.status_code == 200 and str(a) in embed.content.decode()
    _, texts = svg_texts(client.get(f"{page_url}chart/saturation-incompressible.svg").content)
    assert "MB/s (higher is better)" in texts and str(a) in " ".join(texts)
