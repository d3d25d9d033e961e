"""The WSAT chart's axis switch in Chromium, on the drive page and the compare page, at phone
and desktop widths: the links beside the chart switch it in place and put the choice in the
address (?wsat_x=, the documented permalink), which a reload keeps and the back button
restores; the compare page's other links keep it; the switch covers none of the legend and
the half-rate label is drawn inside the chart, over none of the rounds of a line (neither a
round's marker nor the line between two)."""

import re

import pytest

from results.models import SaturationSeries
from tests.browser.conftest import DESKTOP, PHONE
from tests.browser.test_layout import CLIPPED_TEXT, OVER_LEGEND, visit
from tests.browser.test_walk import until
from tests.pages import load

pytestmark = pytest.mark.django_db(transaction=True)

TIME, BYTES = "seconds from the start", "GB written (total)"

# The WSAT charts' texts (the half-rate labels) that lie over a line's rounds: a marker, or a
# point of the line between two markers (sampled along it).
LABEL_OVER_LINE = """() => [...document.querySelectorAll('.chart')]
  .filter(chart => chart.id.startsWith('wsat')).flatMap(chart => {
    const centre = e => { const r = e.getBoundingClientRect();
                          return [r.left + r.width / 2, r.top + r.height / 2]; };
    const lines = [...chart.querySelectorAll('.scatterlayer .trace')]
      .filter(t => (t.querySelector('.js-line')?.getAttribute('d') || '').length > 1)
      .map(t => [...t.querySelectorAll('.points .point')].map(centre));
    const marks = [...chart.querySelectorAll('.scatterlayer .points .point')].map(centre);
    const along = lines.flatMap(line => line.slice(1).flatMap((b, i) => {
      const a = line[i];
      return [...Array(24).keys()].map(k => [a[0] + (b[0] - a[0]) * k / 24,
                                             a[1] + (b[1] - a[1]) * k / 24]);
    }));
    return [...chart.querySelectorAll('.scatterlayer .textpoint')].filter(t => {
      const r = t.getBoundingClientRect();
      return r.width && [...marks, ...along].some(([x, y]) =>
        x > r.left + 1 && x < r.right - 1 && y > r.top + 1 && y < r.bottom - 1);
    }).map(t => chart.id + ': ' + t.textContent);
  })"""


@pytest.fixture
def wsat_pages(test_catalog):
    """The demo's drive with a WSAT run, its page and its comparison with another drive."""
    load()
    series = SaturationSeries.objects.filter(test__identifier="wsat-4k-qd32")
    drive = series.values_list("run__drive__slug", flat=True).first()
    other = (
        SaturationSeries.objects.exclude(run__drive__slug=drive)
        .values_list("run__drive__slug", flat=True)
        .first()
    )
    assert drive and other
    return {"drive": f"/drives/{drive}/", "compare": f"/bench/compare/{drive}/{other}/"}


def current(page) -> list[str]:
    return page.evaluate(
        "[...document.querySelectorAll('[data-wsat-x][aria-current=true]')]"
        ".map(e => e.dataset.wsatX)"
    )


def shows(page, axis_title: str, choice: str) -> None:
    until(
        page,
        "(() => { const t = [...document.querySelectorAll('.chart')]"
        ".filter(c => c.id.startsWith('wsat')).map(c => c.querySelector('.xtitle'));"
        f" return t.length && t.every(e => e && e.textContent === {axis_title!r})"
        " && [...document.querySelectorAll('[data-figure]')].every(e => e.dataset.drawn)"
        f" && [...document.querySelectorAll('[data-wsat-x][aria-current=true]')]"
        f".every(e => e.dataset.wsatX === {choice!r}); }})()",
    )


def address(page) -> str:
    return page.evaluate("location.pathname + location.search")


@pytest.mark.parametrize("size", [DESKTOP, PHONE], ids=["desktop", "phone"])
@pytest.mark.parametrize("kind", ["drive", "compare"])
def test_the_switch_puts_the_axis_in_the_address(page, live_server, wsat_pages, kind, size):
    path = wsat_pages[kind]
    page.set_viewport_size(size)
    visit(page, live_server.url + path)
    shows(page, TIME, "time")
    assert current(page) == ["time"] * len(current(page)) and current(page)
    assert page.evaluate(OVER_LEGEND) == [] and page.evaluate(CLIPPED_TEXT) == []
    assert page.evaluate(LABEL_OVER_LINE) == []

    page.locator("[data-wsat-x=bytes]").first.click()
    shows(page, BYTES, "bytes")
    until(page, "location.search === '?wsat_x=bytes'")
    assert address(page) == f"{path}?wsat_x=bytes"
    assert page.evaluate(OVER_LEGEND) == [] and page.evaluate(CLIPPED_TEXT) == []
    assert page.evaluate(LABEL_OVER_LINE) == []
    if kind == "compare":  # the page's other links and its images keep the choice
        hrefs = page.evaluate(
            "[...document.querySelectorAll('a.toggle:not([data-wsat-x]), .chart-links a')]"
            ".map(a => a.getAttribute('href'))"
        )
        assert hrefs and all("wsat_x=bytes" in h for h in hrefs), hrefs

    page.reload(wait_until="load")
    shows(page, BYTES, "bytes")  # the address is the permalink of the choice

    page.locator("[data-wsat-x=time]").first.click()
    shows(page, TIME, "time")
    until(page, "location.search === ''")
    assert address(page) == path

    page.go_back()
    shows(page, BYTES, "bytes")
    assert re.search(r"\?wsat_x=bytes$", address(page))


def test_the_label_check_finds_a_label_over_a_line(page, test_catalog):
    """LABEL_OVER_LINE finds a label over the line between two rounds, and over a round's
    marker, and leaves one beside them alone."""
    line = """<div class="chart" id="wsat-x"><svg width="300" height="200">
      <g class="scatterlayer"><g class="trace">
        <path class="js-line" d="M10,10L290,190"/>
        <g class="points"><path class="point" d="M8,8h4v4h-4z"/>
          <path class="point" d="M288,188h4v4h-4z"/></g>
        <g class="text"><g class="textpoint"><text x="X" y="Y">half rate</text></g></g>
      </g></g></svg></div>"""
    for x, y, over in ((130, 110, True), (0, 18, True), (200, 40, False)):
        page.set_content(line.replace('x="X" y="Y"', f'x="{x}" y="{y}"'))
        assert bool(page.evaluate(LABEL_OVER_LINE)) is over, (x, y)
