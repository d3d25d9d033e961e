"""No page is wider than the window: at desktop (1280 px) and phone (390 px) widths, every
page of every kind (tests/pages.py: every route's pages of the demo, with every run, drive
and ranking, a dump's page, the upload form signed in, the 400 and 404 pages) fits without
scrolling sideways, the document's scrollWidth within the window; wide tables scroll inside
their own box. On each, no text of a chart is drawn beyond the chart's box, and no control
(a link, a button, a chart's own buttons) lies over a chart's legend."""

import pytest
from django.conf import settings as site_settings
from django.test import Client

from results.dumps import dump_publish
from tests.browser.conftest import DESKTOP, PHONE
from tests.browser.test_walk import shoot, until
from tests.pages import demo_pages, every_page, load, reviewer

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

# Text of a chart drawn beyond the chart's own box (cut off on screen): bar labels, ticks,
# a point's label.
CLIPPED_TEXT = """() => [...document.querySelectorAll('.chart')].flatMap(chart => {
  const box = chart.getBoundingClientRect();
  return [...chart.querySelectorAll('svg text')]
    .filter(t => t.textContent.trim())
    .filter(t => { const r = t.getBoundingClientRect();
                   return r.width && (r.right > box.right + 1 || r.left < box.left - 1); })
    .map(t => chart.id + ': ' + t.textContent);
})"""

# Controls over a chart's legend: any link, button or field of the page, or a chart's own
# buttons (Plotly's updatemenus), whose box meets the box of a legend's entries.
OVER_LEGEND = """() => {
  const meet = (a, b) => a.width && b.width && a.left < b.right - 1 && b.left < a.right - 1
                         && a.top < b.bottom - 1 && b.top < a.bottom - 1;
  const legends = [...document.querySelectorAll('.chart .legend .traces')]
    .map(e => [e.closest('.chart').id, e.getBoundingClientRect()]);
  const controls = [...document.querySelectorAll(
      'a, button, input, select, .updatemenu-button, .updatemenu-header')]
    .filter(c => !c.closest('.legend'));
  return legends.flatMap(([id, box]) => controls
    .filter(c => meet(c.getBoundingClientRect(), box))
    .map(c => id + ': ' + (c.textContent || c.getAttribute('class') || c.tagName).trim()));
}"""


@pytest.fixture
def pages(test_catalog, tmp_path, settings):
    """Every page of the demo, and the page of a dump of it."""
    load()
    settings.BENCH_DUMP_DIR = tmp_path / "dumps"
    dump = dump_publish(store=settings.BENCH_DUMP_DIR)
    return demo_pages(dump=dump.name)


def signed_in(page, live_server) -> None:
    """The browser signed in as a reviewer (the upload form), by the session's cookie."""
    client = Client()
    client.force_login(reviewer())
    name = site_settings.SESSION_COOKIE_NAME
    page.context.add_cookies(
        [{"name": name, "value": client.cookies[name].value, "url": live_server.url}]
    )


# Every chart of the page drawn (static/js/bench.js marks each).
DRAWN = "[...document.querySelectorAll('[data-figure]')].every(e => e.dataset.drawn)"


def visit(page, url: str) -> None:
    """Load a page and wait until its charts are drawn. An error page's own status is what
    it is for: the console's report of it is not a problem of the page."""
    before = len(page.problems)
    response = page.goto(url, wait_until="load")
    until(page, DRAWN)
    said = f"status of {response.status}" if response.status >= 400 else None
    page.problems[before:] = [
        f"{url}: {p}" for p in page.problems[before:] if not said or said not in p
    ]


@pytest.mark.parametrize("size", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_every_page_fits_its_window(page, live_server, pages, size):
    page.set_viewport_size(size)
    signed_in(page, live_server)
    wide, clipped, covered = {}, {}, {}
    try:
        for path in every_page(pages):
            visit(page, live_server.url + path)
            shoot(page, "layout" + path.replace("/", "-").rstrip("-"), size)
            found = page.evaluate(OVERFLOW)
            if found["scroll"] > found["width"]:
                wide[path] = found
            if texts := page.evaluate(CLIPPED_TEXT):
                clipped[path] = texts[:5]
            if controls := page.evaluate(OVER_LEGEND):
                covered[path] = controls[:5]
    finally:
        page.context.clear_cookies()

    def listed(found: dict) -> str:
        return "\n".join(f"{path}: {what}" for path, what in found.items())

    assert wide == {}, listed(wide)
    assert clipped == {}, listed(clipped)
    assert covered == {}, listed(covered)


def test_the_checks_find_what_they_are_for(page, live_server, test_catalog):
    """A table, a word and a chart's label too wide for a phone, and a button over a
    legend, on a page of their own: each check finds its own."""
    page.set_viewport_size(PHONE)
    page.set_content("""<main><table><tr><td>""" + "x" * 200 + """</td></tr></table></main>""")
    assert page.evaluate(OVERFLOW)["scroll"] > PHONE["width"]
    page.set_content(
        """<main><div class="scroll" style="overflow-x: auto"><table><tr><td>"""
        + "x" * 200
        + """</td></tr></table></div></main>"""
    )
    assert page.evaluate(OVERFLOW)["scroll"] <= PHONE["width"]
    page.set_content(
        """<div class="chart" id="c" style="width:100px"><svg width="300" height="50">
        <text x="60" y="20">a label past the edge</text></svg>
        <div class="legend"><div class="traces"
          style="position:absolute;top:100px;left:0;width:100px;height:20px"></div></div>
        </div><a href="#" style="position:absolute;top:105px;left:10px">over</a>"""
    )
    assert page.evaluate(CLIPPED_TEXT) == ["c: a label past the edge"]
    assert page.evaluate(OVER_LEGEND) == ["c: over"]


# Tables beside a chart that scroll inside their box at this width: (the first header, the
# width it needs, the width it has).
SCROLLED_TABLES = """() => [...document.querySelectorAll('.chart-and-table > table')]
  .filter(t => t.scrollWidth > t.clientWidth + 1)
  .map(t => [t.querySelector('th') && t.querySelector('th').textContent, t.scrollWidth,
             t.clientWidth])"""


def test_compare_tables_fit_beside_their_charts_on_a_desktop(page, live_server, test_catalog):
    """At 1280 px every column of the compare page's numbers, the winner's included, shows
    without scrolling."""
    load()
    page.set_viewport_size(DESKTOP)
    for path in demo_pages()["bench:compare"]:
        visit(page, live_server.url + path)
        assert page.evaluate(SCROLLED_TABLES) == [], path


@pytest.mark.parametrize("size", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_long_words_wrap(page, live_server, test_catalog, size):
    """A name that is one long word (a model number, a part number) wraps where it is text
    and scrolls where it is a table's cell: the pages that show it fit the window."""
    from tests.results.helpers import measured

    word = "Ultrawide" + "X" * 150
    a = measured(manufacturer="Acme", model=word, seed=1)
    b = measured(manufacturer="Bolt" + "Y" * 120, model="Two", seed=2).drive
    page.set_viewport_size(size)
    wide = {}
    for path in (
        "/",
        f"/drives/{a.drive.slug}/",
        f"/bench/runs/{a.pk}/",
        f"/bench/compare/{a.drive.slug}/{b.slug}/",
        f"/bench/tests/randwrite-4k-qd3-8g/?highlight={a.drive.slug}",
        "/bench/tests/consistency-4k-qd32/",
    ):
        visit(page, live_server.url + path)
        found = page.evaluate(OVERFLOW)
        if found["scroll"] > found["width"]:
            wide[path] = found
    assert wide == {}, "\n".join(f"{path}: {found}" for path, found in wide.items())
