"""The WSAT chart's axis switch in Chromium, on the drive page and the compare page, at phone
and desktop widths: the links beside the chart switch it in place and put the choice in the
address (?wsat_x=, the documented permalink), which a reload keeps and the back button
restores; the compare page's other links keep it; the switch covers none of the legend and
the half-rate label is drawn inside the chart."""

import re

import pytest

from results.models import SaturationSeries
from tests.browser.conftest import DESKTOP, PHONE
from tests.browser.test_layout import CLIPPED_TEXT, OVER_LEGEND, visit
from tests.browser.test_walk import until
from tests.pages import load

pytestmark = pytest.mark.django_db(transaction=True)

TIME, BYTES = "seconds from the start", "GB written (total)"


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

    page.locator("[data-wsat-x=bytes]").first.click()
    shows(page, BYTES, "bytes")
    until(page, "location.search === '?wsat_x=bytes'")
    assert address(page) == f"{path}?wsat_x=bytes"
    assert page.evaluate(OVER_LEGEND) == [] and page.evaluate(CLIPPED_TEXT) == []
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
