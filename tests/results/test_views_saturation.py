"""Write saturation on the drive page and the compare page: MB/s over time drawn as lines,
the cache-out point marked, its numbers in a table beside the chart, names kept as text."""

import csv
import io
import json
import re

import pytest
from django.urls import reverse

from results.synthetic import measured_document
from tests.results.helpers import HOSTILE, ingest
from tests.results.test_ingest_v2 import saturation, version_2
from tests.results.test_views_escaping import assert_text_only

pytestmark = pytest.mark.django_db

FIGURE = re.compile(r"""id="([^"]+)" role="img" aria-label="[^"]*" data-figure='([^']*)'""")


def with_saturation(*, manufacturer, model, seed, **entry):
    doc = version_2(measured_document(seed=seed, manufacturer=manufacturer, model=model))
    doc["saturation"] = [{k: v for k, v in saturation(**entry).items() if v is not None}]
    return ingest(doc)


def figures(html: str) -> dict[str, dict]:
    return {element: json.loads(data) for element, data in FIGURE.findall(html)}


def test_drive_page_draws_the_rate_and_marks_where_the_cache_ran_out(client):
    run = with_saturation(manufacturer="Acme", model="Cache One", seed=1)
    html = client.get(reverse("bench:drive", args=[run.drive.slug])).content.decode()
    figure = figures(html)["saturation"]
    line, point = figure["data"]
    assert (line["type"], line["mode"], line["dx"]) == ("scatter", "lines", 1.0)
    # The last half second's 155 MB at its rate.
    assert line["y"] == [1000.0, 1100.0, 1050.0, 300.0, 300.0, 300.0, 300.0, 310.0]
    assert point["x"] == [3] and point["y"] == [301.11]
    assert "after 3.1 GB" in point["text"][0]
    (shape,) = figure["layout"]["shapes"]
    assert (shape["x0"], shape["x1"], shape["yref"]) == (3, 3, "paper")
    table = html[html.index('id="write-saturation"') :]
    for number in ("1,000.0", "3 s", "3.1 GB", "1,050.0", "301.1", "600.7", "4.5 GB"):
        assert number in table, number
    assert f'href="#run-{run.pk}"' in table


def test_a_cache_that_never_ran_out_has_no_mark(client):
    run = with_saturation(
        manufacturer="Acme",
        model="Steady",
        seed=1,
        exhausted=False,
        exhausted_at_s=None,
        bytes_before_exhausted=None,
        bytes_per_second_before=None,
        bytes_per_second_after=None,
        bytes_per_interval=[10**9] * 4,
        bytes_written=4 * 10**9,
        duration_ns=4 * 10**9,
        mean_bytes_per_second=1e9,
    )
    html = client.get(reverse("bench:drive", args=[run.drive.slug])).content.decode()
    figure = figures(html)["saturation"]
    assert len(figure["data"]) == 1 and figure["layout"]["shapes"] == []
    assert "did not run out" in html


def test_compare_page_overlays_both_drives(client):
    a = with_saturation(manufacturer="Acme", model="Cache One", seed=1).drive
    b = with_saturation(
        manufacturer="Bolt", model="Cache Two", seed=2, bytes_per_second_after=2.5e8
    ).drive
    html = client.get(reverse("bench:compare", args=[a.slug, b.slug])).content.decode()
    assert 'href="#saturation"' in html
    figure = figures(html)["saturation-incompressible"]
    lines = [t for t in figure["data"] if t["mode"] == "lines"]
    assert [t["name"] for t in lines] == [str(a), str(b)]
    assert lines[0]["line"]["color"] != lines[1]["line"]["color"]
    marks = [t for t in figure["data"] if t["mode"] == "markers"]
    assert [m["y"] for m in marks] == [[301.11], [250.0]]
    assert len(figure["layout"]["shapes"]) == 2
    section = html[html.index('id="saturation"') :]
    assert "301.1" in section and "250.0" in section


def test_compare_with_a_drive_without_it_keeps_the_colours(client):
    a = ingest(version_2(measured_document(seed=1, manufacturer="Acme", model="Without"))).drive
    b = with_saturation(manufacturer="Bolt", model="Cache Two", seed=2).drive
    html = client.get(reverse("bench:compare", args=[a.slug, b.slug])).content.decode()
    (line, _mark) = figures(html)["saturation-incompressible"]["data"]
    assert line["name"] == str(b) and line["line"]["color"] == "#E69F00"
    section = html[html.index('id="saturation"') :]
    assert "not tested" in section


def test_a_long_series_is_drawn_in_at_most_1500_points(client):
    run = with_saturation(
        manufacturer="Acme",
        model="Slow Big",
        seed=1,
        exhausted=False,
        exhausted_at_s=None,
        bytes_before_exhausted=None,
        bytes_per_second_before=None,
        bytes_per_second_after=None,
        bytes_per_interval=[2 * 10**8] * 4000,
        bytes_written=8 * 10**11,
        duration_ns=4000 * 10**9,
        mean_bytes_per_second=2e8,
    )
    html = client.get(reverse("bench:drive", args=[run.drive.slug])).content.decode()
    (line,) = figures(html)["saturation"]["data"]
    assert len(line["y"]) == 1334 and line["dx"] == 3.0 and set(line["y"]) == {200.0}
    assert ">4,000 s<" in html  # the time recorded, not the points drawn


def test_names_with_markup_stay_text(client):
    a = with_saturation(manufacturer=HOSTILE[0], model=HOSTILE[1], seed=1).drive
    b = with_saturation(manufacturer=HOSTILE[1], model=HOSTILE[0], seed=2).drive
    assert_text_only(client.get(reverse("bench:drive", args=[a.slug])).content.decode())
    html = client.get(reverse("bench:compare", args=[a.slug, b.slug])).content.decode()
    assert_text_only(html)
    names = [t["name"] for t in figures(html)["saturation-incompressible"]["data"]]
    assert len(names) == 4 and all("&lt;script&gt;" in n for n in names), names


def test_the_exports_carry_the_write_saturation(client):
    a = with_saturation(manufacturer="Acme", model="Cache One", seed=1).drive
    b = ingest(version_2(measured_document(seed=2, manufacturer="Bolt", model="Without"))).drive
    text = client.get(reverse("bench:compare_csv", args=[a.slug, b.slug])).content.decode()
    rows = [r for r in csv.reader(io.StringIO(text)) if r[0] == "write saturation"]
    assert {r[2] for r in rows} == {"incompressible"}
    # A's plain value (then its notes), B's cell.
    assert [[r[3], r[4], round(float(r[5]), 1), r[7]] for r in rows] == [
        ["mean", "MB/s (higher is better)", 600.7, "not tested"],
        ["cache ran out after", "seconds", 3.0, "not tested"],
        ["written before the fall", "GB", 3.1, "not tested"],
        ["rate before", "MB/s", 1050.0, "not tested"],
        ["rate after", "MB/s", 301.1, "not tested"],
    ]
