"""No page is wider than the window: at desktop (1280 px) and phone (390 px) widths, every
kind of page of the demo (compare with throughput, latency-only and published sides, of two,
three and four drives, a drive,
a run, each kind of ranking, the value view, the catalog, the tests) fits without scrolling
sideways; wide tables scroll inside their own box."""

import pytest
from django.core.management import call_command

from drives.models import Drive
from results.models import Run
from tests.browser.conftest import DESKTOP, PHONE
from tests.browser.test_walk import shoot

pytestmark = pytest.mark.django_db(transaction=True)

# The widths of what reaches beyond the window, by element (tag#id.class), at most five.
OVERFLOW = """() => {
  const width = document.documentElement.clientWidth;
  const wide = [...document.querySelectorAll('body *')]
    .filter(e => e.getBoundingClientRect().right > width + 1)
    .filter(e => !e.closest('.scroll'))
    .map(e => `${e.tagName.toLowerCase()}#${e.id}.${[...e.classList].join('.')}`);
  return {scroll: document.documentElement.scrollWidth, width, wide: wide.slice(0, 5)};
}"""


@pytest.fixture
def pages(test_catalog):
    call_command("load_demo", verbosity=0)
    run = Run.objects.filter(tool_name="loadgen").order_by("pk").first()
    slugs = set(Drive.objects.values_list("slug", flat=True))
    pairs = [
        ("red-hat-virtio-blk-virtual-disk", "linux-zram-compressed-ram-disk"),
        ("crucial-m4-256gb", "crucial-c300"),
        ("intel-x25-m", "ocz-vertex"),
    ]
    assert {s for pair in pairs for s in pair} <= slugs
    many = [pairs[0][0], pairs[1][0], pairs[2][0], pairs[0][1]]  # measured, latency-only, published
    return [
        *(f"/bench/compare/{a}/{b}/" for a, b in pairs),
        "/bench/compare/" + "/".join(many[:3]) + "/",
        "/bench/compare/" + "/".join(many) + "/",
        "/drives/red-hat-virtio-blk-virtual-disk/",
        f"/bench/runs/{run.pk}/",
        "/bench/tests/randwrite-4k-qd3-8g/",
        "/bench/tests/consistency-4k-qd32/",
        "/bench/value/",
        "/bench/tests/",
        "/",
    ]


@pytest.mark.parametrize("size", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_no_page_scrolls_sideways(page, live_server, pages, size):
    page.set_viewport_size(size)
    wide = {}
    for path in pages:
        page.goto(live_server.url + path)
        page.wait_for_load_state("networkidle")
        shoot(page, "layout" + path.replace("/", "-").rstrip("-"), size)
        found = page.evaluate(OVERFLOW)
        if found["scroll"] > found["width"] + 1:
            wide[path] = found
    assert wide == {}


# Tables beside a chart that scroll inside their box at this width: (the first header, the
# width it needs, the width it has).
SCROLLED_TABLES = """() => [...document.querySelectorAll('.chart-and-table > table')]
  .filter(t => t.scrollWidth > t.clientWidth + 1)
  .map(t => [t.querySelector('th') && t.querySelector('th').textContent, t.scrollWidth,
             t.clientWidth])"""


def test_compare_tables_fit_beside_their_charts_on_a_desktop(page, live_server, pages):
    """At 1280 px every column of the compare page's numbers, the winner's included, shows
    without scrolling."""
    page.set_viewport_size(DESKTOP)
    for path in (p for p in pages if p.startswith("/bench/compare/")):
        page.goto(live_server.url + path)
        page.wait_for_load_state("networkidle")
        assert page.evaluate(SCROLLED_TABLES) == [], path


# Text of a chart drawn beyond the chart's own box (cut off on screen): bar labels, ticks.
CLIPPED_TEXT = """() => [...document.querySelectorAll('.chart')].flatMap(chart => {
  const box = chart.getBoundingClientRect();
  return [...chart.querySelectorAll('svg text')]
    .filter(t => t.textContent.trim())
    .filter(t => { const r = t.getBoundingClientRect();
                   return r.width && (r.right > box.right + 1 || r.left < box.left - 1); })
    .map(t => chart.id + ': ' + t.textContent);
})"""


@pytest.mark.parametrize("size", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_no_chart_text_is_cut_off(page, live_server, pages, size):
    page.set_viewport_size(size)
    clipped = {}
    for path in pages:
        page.goto(live_server.url + path)
        page.wait_for_load_state("networkidle")
        if found := page.evaluate(CLIPPED_TEXT):
            clipped[path] = found[:5]
    assert clipped == {}
