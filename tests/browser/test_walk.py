"""A reader's walk through the pages in real Chromium, at desktop and phone widths."""

import json
import os
import re
import time
from pathlib import Path

import pytest
from django.core.management import call_command
from django.urls import reverse

from drives.models import Drive
from results import charts
from tests.browser.conftest import DESKTOP, PHONE
from tests.factories import PriceFactory
from tests.results.helpers import measured, repeated

pytestmark = pytest.mark.django_db(transaction=True)

DEMO = Path(__file__).resolve().parents[2] / "demo" / "measured"
SCREENSHOTS = os.environ.get("BENCH_SCREENSHOTS")  # a folder: keep the walk's pages there


@pytest.fixture
def catalog(test_catalog):
    call_command("load_demo", verbosity=0)
    a = measured(manufacturer="Acme", model="Fast One", seed=1).drive
    b = measured(manufacturer="Bolt", model="Slow Two", seed=2).drive
    PriceFactory(drive=a, amount="120.00")
    PriceFactory(drive=b, amount="90.00")
    return a, b


def demo_drive(name: str) -> Drive:
    """The drive of a demo/measured document: its model and capacity (zram is two sizes)."""
    drive = json.loads((DEMO / name).read_text())["drive"]
    return Drive.objects.get(model=drive["model"], capacity_bytes=drive["capacity_bytes"])


def traces(page, element_id: str) -> int:
    return page.evaluate(
        "id => document.querySelectorAll('#' + id + ' .cartesianlayer .trace').length", element_id
    )


def until(page, expression: str, seconds: float = 15) -> None:
    """Wait until a JavaScript expression is true, polled from here: wait_for_function polls
    with eval inside the page, which the site's CSP refuses."""
    deadline = time.monotonic() + seconds
    while not page.evaluate(expression):
        assert time.monotonic() < deadline, f"still false after {seconds} s: {expression}"
        time.sleep(0.05)


def pick(page, side: str, text: str, choose: str) -> None:
    """Type part of a name in a picker, then choose a match with the arrow keys and Enter."""
    field = page.locator(f"#pick-{side}")
    field.fill("")
    field.press_sequentially(text, delay=30)
    page.locator(f"#options-{side} .option-list a", has_text=choose).wait_for()
    until(page, f"document.getElementById('pick-{side}').ariaExpanded === 'true'")
    field.press("ArrowDown")
    for _ in range(10):
        if page.evaluate("document.activeElement.textContent").startswith(choose):
            break
        page.keyboard.press("ArrowDown")
    page.keyboard.press("Enter")


# The tick labels of a chart that reach beyond its left edge (cut off on screen).
CLIPPED_NAMES = """id => {
  const left = document.getElementById(id).getBoundingClientRect().left;
  return [...document.querySelectorAll('#' + id + ' .ytick text')]
    .filter(t => t.getBoundingClientRect().left < left - 1).map(t => t.textContent);
}"""


def shoot(page, name: str, size: dict) -> None:
    if SCREENSHOTS:
        Path(SCREENSHOTS).mkdir(parents=True, exist_ok=True)
        page.screenshot(
            path=f"{SCREENSHOTS}/{name}-{size['width']}.png", full_page=True, caret="initial"
        )


@pytest.mark.parametrize("size", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_a_reader_compares_two_drives_and_browses_rankings(page, live_server, catalog, size):
    a, b = catalog
    page.set_viewport_size(size)
    page.goto(f"{live_server.url}/bench/compare/")

    pick(page, "a", "fast on", "Acme Fast One")
    page.wait_for_url(re.compile(r"/bench/compare/\?a=acme-fast-one"))
    pick(page, "b", "slow", "Bolt Slow Two")
    page.wait_for_url(f"**/bench/compare/{a.slug}/{b.slug}/")
    page.locator("#consistency-25 .cartesianlayer .trace").first.wait_for()

    # Both bars of every test, and both drives' consistency scatter.
    bar_charts = page.evaluate(
        "[...document.querySelectorAll('#throughput [data-figure]')].map(e => e.id)"
    )
    assert len(bar_charts) == 5
    for chart in bar_charts:
        assert traces(page, chart) == 2, chart
        bars = page.evaluate(
            "id => document.querySelectorAll('#' + id + ' .barlayer .point path').length", chart
        )
        assert bars == 4, chart  # two data patterns, A and B
    for level in (0, 25):
        assert traces(page, f"consistency-{level}") == 2
        points = page.evaluate(
            "id => document.querySelectorAll('#' + id + ' .scatterlayer .point').length",
            f"consistency-{level}",
        )
        assert points > 3000
    y_axis = "document.getElementById('consistency-0')?.layout?.yaxis?.type"
    assert page.evaluate(y_axis) == "log"
    shoot(page, "compare", size)

    page.get_by_role("link", name="linear", exact=True).click()
    page.wait_for_url(re.compile(r"scale=linear"))
    page.wait_for_function(f"() => {y_axis} === 'linear'")

    page.get_by_role("link", name="⇄ Swap A and B").click()
    page.wait_for_url(re.compile(rf"/bench/compare/{b.slug}/{a.slug}/\?scale=linear"))
    page.wait_for_function(f"() => {y_axis} === 'linear'")
    assert page.locator("h1 .side-a").inner_text() == str(b)

    # Back and forward through the states htmx pushed: each page comes back with live charts
    # (a Plotly figure on the element, not a picture of one), under the site's CSP.
    side_a = "document.querySelector('h1 .side-a').textContent"
    page.go_back()
    page.wait_for_url(re.compile(rf"/bench/compare/{a.slug}/{b.slug}/\?scale=linear"))
    until(page, f"{side_a} === {json.dumps(str(a))} && {y_axis} === 'linear'")
    page.go_forward()
    page.wait_for_url(re.compile(rf"/bench/compare/{b.slug}/{a.slug}/\?scale=linear"))
    until(page, f"{side_a} === {json.dumps(str(b))} && {y_axis} === 'linear'")

    page.reload()
    page.locator("#consistency-0 .cartesianlayer .trace").first.wait_for()
    assert page.evaluate(y_axis) == "linear"
    assert page.locator("h1 .side-a").inner_text() == str(b)
    assert page.locator("#pick-a").input_value() == str(b)

    # A leaderboard, filtered without a page reload.
    page.goto(f"{live_server.url}/bench/tests/randwrite-4k-qd3-8g/")
    page.locator("#leaderboard-chart .cartesianlayer .trace").first.wait_for()
    rows = page.locator("#leaderboard-table tbody tr")
    before = rows.count()
    # Every drive's name on the chart is inside it, whole or shortened, at any width.
    assert page.evaluate(CLIPPED_NAMES, "leaderboard-chart") == []
    page.evaluate("window.marker = 1")  # survives only if the page is not reloaded
    page.select_option("select[name=pattern]", "incompressible")
    page.wait_for_url(re.compile(r"pattern=incompressible"))
    page.wait_for_function(
        f"document.querySelectorAll('#leaderboard-table tbody tr').length < {before}"
    )
    assert page.evaluate("window.marker") == 1
    assert "incompressible" in rows.first.inner_text()
    board = "document.querySelectorAll('#leaderboard-table tbody tr').length"
    live = "!!document.getElementById('leaderboard-chart')?.layout"
    page.go_back()
    until(page, f"{board} === {before} && {live}")
    page.go_forward()
    page.wait_for_url(re.compile(r"pattern=incompressible"))
    until(page, f"{board} < {before} && {live}")
    page.locator("#leaderboard-table th button", has_text="MB/s").click()
    assert page.locator("#leaderboard-table th[aria-sort]").count() == 1
    # A column sorted either way keeps the rows without a figure (—) last.
    latencies = (
        "[...document.querySelectorAll('#leaderboard-table tbody tr')]"
        ".map(r => r.cells[5].dataset.value)"
    )
    for _ in ("ascending", "descending"):
        page.locator("#leaderboard-table th button", has_text="Mean latency").click()
        values = page.evaluate(latencies)
        assert "" in values and values.index("") == len(values) - values.count("")
    page.locator("#leaderboard-table th button", has_text="MB/s").click()

    # Highlight a drive from the filter form, picked as in the compare pickers: the filters
    # stay, the page is not reloaded, the drive's row and bar are marked; then drop it.
    marked = "document.querySelectorAll('#leaderboard-table tr.highlighted').length"
    assert page.evaluate(marked) == 0
    pick(page, "mark", "slow", "Bolt Slow Two")
    page.wait_for_url(re.compile(rf"pattern=incompressible.*highlight={b.slug}"))
    until(page, f"{marked} === 1 && {live}")
    chip = page.locator(".chip", has_text=str(b))
    assert chip.count() == 1 and page.evaluate("window.marker") == 1
    # The page itself, swapped whole: not nested in the board, the picker's list gone.
    assert page.locator("h1").count() == 1 and page.locator(".option-list").count() == 0
    shoot(page, "leaderboard", size)
    chip.get_by_role("link").click()
    page.wait_for_url(lambda url: "highlight=" not in url and "pattern=incompressible" in url)
    until(page, f"{marked} === 0 && {live}")
    assert page.locator(".chip").count() == 0 and page.locator("h1").count() == 1

    # A value the filters cannot take: what is wrong shows where the ranking was; fixed, the
    # ranking is back. Never a stale ranking with no word.
    page.fill("input[name=q]", "x" * 300)
    page.locator("#board .bad-request").wait_for()
    assert "q" in page.locator("#board code").all_inner_texts()
    page.fill("input[name=q]", "")
    until(page, f"{board} > 0 && {live}")
    # The browser logs the 400 asked for here as a failed load; anything else still fails.
    logged = "console: Failed to load resource: the server responded with a status of 400"
    assert any(p.startswith(logged) for p in page.problems)
    page.problems[:] = [p for p in page.problems if not p.startswith(logged)]

    # The value view and its frontier.
    page.goto(f"{live_server.url}/bench/value/")
    page.locator("#value-chart .cartesianlayer .trace").first.wait_for()
    names = page.evaluate("document.getElementById('value-chart').data.map(t => t.name)")
    assert "value frontier" in names
    assert page.locator("text=The frontier").count() == 1
    assert page.locator("section:has(h2:text('The frontier')) tbody tr").count() >= 1
    shoot(page, "value", size)


def test_markup_in_a_name_stays_text_in_charts(page, live_server, catalog):
    hostile = measured(manufacturer="<b>Bold</b>", model="<img src=x onerror=alert(1)>", seed=3)
    a = catalog[0]
    page.goto(f"{live_server.url}/bench/compare/{a.slug}/{hostile.drive.slug}/")
    page.locator("#bars-0 .cartesianlayer .trace").first.wait_for()
    legend = page.evaluate(
        "[...document.querySelectorAll('#bars-0 .legendtext')].map(e => e.textContent)"
    )
    assert any("<b>Bold</b>" in text for text in legend), legend
    assert page.locator("#bars-0 img").count() == 0
    assert Drive.objects.filter(manufacturer__name="<b>Bold</b>").exists()


def test_write_saturation_of_the_demo_drives_is_drawn_overlaid(page, live_server, catalog):
    file, zram = (demo_drive(name) for name in ("saturation-file.json", "saturation-zram.json"))
    page.goto(f"{live_server.url}/bench/compare/{file.slug}/{zram.slug}/")
    page.locator("#saturation-incompressible .cartesianlayer .trace").first.wait_for()
    assert traces(page, "saturation-incompressible") == 2
    names = page.evaluate(
        "document.getElementById('saturation-incompressible').data.map(t => t.name)"
    )
    assert names == [str(file), str(zram)]
    lines = page.evaluate(
        "document.querySelectorAll('#saturation-incompressible .scatterlayer path.js-line').length"
    )
    assert lines == 2
    assert "did not run out" in page.locator("#saturation table").inner_text()


def test_spread_whiskers_and_the_tie_label_are_drawn(page, live_server, test_catalog):
    """Two drives of three passes each, 1% apart: every bar has its whisker over the run's
    range, and the verdict is a tie within the runs' variation."""
    a = repeated("Acme", "Steady", seed=1, scale=1.0).drive
    b = repeated("Bolt", "Close", seed=1, scale=1.01).drive
    page.goto(f"{live_server.url}/bench/compare/{a.slug}/{b.slug}/")
    page.locator("#throughput .cartesianlayer .trace").first.wait_for()
    charts = page.evaluate(
        "[...document.querySelectorAll('#throughput [data-figure]')].map(e => e.id)"
    )
    assert charts
    for chart in charts:
        whiskers = page.evaluate(
            "id => [...document.querySelectorAll('#' + id + ' .errorbar path.xerror')]"
            ".filter(p => p.getBoundingClientRect().width > 2).length",
            chart,
        )
        assert whiskers == 4, chart  # two patterns, A and B, each drawn with its range
    ties = page.locator("#throughput .verdict-tie")
    assert ties.count() == 2 * len(charts)
    assert ties.first.is_visible() and ties.first.inner_text().startswith("tie (within ±")
    assert page.locator("#throughput .run-spread", has_text="(n = 3)").count() == 4 * len(charts)


def _legend(side: str, drive) -> str:
    """A legend entry as charts._legend_name cuts it: a phone's line at most."""
    text = f"{side}: {drive}"
    if len(text) > charts.LEGEND_CHARACTERS:
        text = text[: charts.LEGEND_CHARACTERS - 1].rstrip() + "…"
    return text


def test_the_queue_depth_sweeps_of_the_demo_drives_are_drawn_for_both(page, live_server, catalog):
    file, zram = (demo_drive(name) for name in ("workloads-file.json", "workloads-zram.json"))
    page.goto(f"{live_server.url}/bench/compare/{file.slug}/{zram.slug}/#sweeps")
    for chart in ("sweep-0-iops", "sweep-0-demand", "sweep-1-iops", "sweep-1-demand"):
        page.locator(f"#{chart} .cartesianlayer .trace").first.wait_for()
    names = page.evaluate("document.getElementById('sweep-0-iops').data.map(t => t.name)")
    assert names == [
        f"{_legend(side, drive)}<br>{pattern}"
        for side, drive in (("A", file), ("B", zram))
        for pattern in ("compressible", "incompressible")
    ], names
    assert traces(page, "sweep-0-iops") == 4
    ticks = page.evaluate(
        "[...document.querySelectorAll('#sweep-0-iops .xtick text')].map(t => t.textContent)"
    )
    assert ticks == ["1", "2", "4", "8", "16", "32", "64", "128"], ticks
    # each line a point at every depth, on screen
    points = page.evaluate(
        "[...document.querySelectorAll('#sweep-0-iops .scatterlayer .trace')]"
        ".map(t => t.querySelectorAll('path.point').length)"
    )
    assert points == [8, 8, 8, 8], points
    assert traces(page, "sweep-0-demand") == 8  # mean and p99 of each line
    shoot(page, "compare-sweeps", DESKTOP)
    # the sweep's ranking, at another depth chosen in its form
    page.locator("#sweep-0 h3 a").click()
    page.locator("#sweep-depths").wait_for()
    assert "QD32" in page.locator("#sweep-depths strong").inner_text()
    # The demo's zram points are full length (demo/measure), the file's shortened runs (6 s
    # of 60): ranked among quick runs.
    assert str(zram) in page.locator("#leaderboard-table tbody").inner_text()
    page.select_option("select[name=method]", "quick")
    page.locator("#leaderboard-table tbody tr").first.wait_for()
    page.select_option("select[name=qd]", "4")
    until(page, "document.querySelector('#sweep-depths strong').textContent === 'QD4'")
    assert "qd=4" in page.url and "method=quick" in page.url
    ranked = page.locator("#leaderboard-table tbody").inner_text()
    assert str(file) in ranked and str(zram) not in ranked
    shoot(page, "sweep-leaderboard", DESKTOP)


def test_the_wsat_chart_switches_its_axis_in_place(page, live_server, test_catalog):
    """WSAT's switch (the links beside the chart) redraws it against the bytes written and
    back to the time without a reload; the half-rate point stays marked and labelled on
    either axis. tests/browser/test_wsat_switch.py follows the address."""
    from tests.results.test_views_wsat import with_wsat

    drive = with_wsat(manufacturer="Acme", model="Purged One", seed=1).drive
    page.goto(live_server.url + reverse("bench:drive", args=[drive.slug]))
    page.locator("#wsat .cartesianlayer .trace").first.wait_for()
    title = "document.querySelector('#wsat .xtitle')?.textContent"  # none while swapped
    assert page.evaluate(title) == "seconds from the start"
    mark = "document.getElementById('wsat').data[1]"
    assert page.evaluate(f"{mark}.x") == [240]
    label = "document.querySelector('#wsat .scatterlayer .textpoint').textContent"
    assert page.evaluate(label) == "half rate from 180 s"
    assert page.locator("#wsat .shapelayer path").count() == 1
    page.evaluate("window.reloaded = false")
    page.locator("[data-wsat-x=bytes]").click()
    until(page, f"{title} === 'GB written (total)'")
    assert page.evaluate("document.getElementById('wsat').data[0].x") == [1.2, 2.2, 2.9, 3.4, 3.8]
    assert page.evaluate(f"{mark}.x") == [3.4]
    assert page.evaluate(label) == "half rate after 2.9 GB"
    assert page.evaluate("document.getElementById('wsat').layout.shapes[0].x0") == 2.9
    assert page.locator("#wsat .shapelayer path").count() == 1
    assert page.evaluate("window.reloaded") is False  # the same page: no reload
    page.locator("[data-wsat-x=time]").click()
    until(page, f"{title} === 'seconds from the start'")
    assert page.evaluate(f"{mark}.x") == [240]
