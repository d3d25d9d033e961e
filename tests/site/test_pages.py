"""What holds of every page of the site (tests/pages.py lists them, each kind with the demo's
addresses): every route that shows a page is listed, and no page has a table that could widen
it beyond a phone's window: each table sits in a box that scrolls sideways (`.scroll`, or a
chart's table beside it, `.chart-and-table`, which scrolls itself). tests/browser/test_layout.py
measures the pages in Chromium at 390 and 1280 px."""

from html.parser import HTMLParser

import pytest
from django.test import Client

from tests.pages import demo_pages, every_page, load, page_routes, reviewer

pytestmark = pytest.mark.django_db

VOID = {
    "area",
    "base",
    "br",
    "col",
    "embed",
    "hr",
    "img",
    "input",
    "link",
    "meta",
    "source",
    "track",
    "wbr",
}


def test_every_page_route_has_pages():
    """A route added to the site is a kind of page every rule over pages reads: listed in
    tests/pages.py (or in its NOT_PAGES, for one that answers no page)."""
    listed = set(demo_pages(dump="2026-05-01"))
    assert page_routes() - listed == set()
    assert listed - page_routes() == set()  # no name of a route that is gone


class Tables(HTMLParser):
    """The tables of a page not in a box that scrolls sideways."""

    def __init__(self) -> None:
        super().__init__()
        self.open: list[tuple[str, set[str]]] = []
        self.loose: list[str] = []

    def handle_starttag(self, tag, attrs):
        classes = set((dict(attrs).get("class") or "").split())
        if tag == "table":
            parent = self.open[-1][1] if self.open else set()
            scrolls = any("scroll" in c for _, c in self.open) or "chart-and-table" in parent
            if not scrolls:
                self.loose.append(
                    f"table.{'.'.join(sorted(classes))} in "
                    + " > ".join(t + "".join(f".{c}" for c in sorted(c)) for t, c in self.open[-3:])
                )
        if tag not in VOID:
            self.open.append((tag, classes))

    def handle_endtag(self, tag):
        for i in range(len(self.open) - 1, -1, -1):
            if self.open[i][0] == tag:
                del self.open[i:]
                return


def test_the_check_finds_a_table_that_would_widen_its_page():
    loose, boxed = Tables(), Tables()
    loose.feed("<main><section><table><tr><td>1</td></tr></table></section></main>")
    boxed.feed(
        '<main><div class="scroll"><table></table></div>'
        '<div class="chart-and-table"><div></div><table></table></div></main>'
    )
    assert len(loose.loose) == 1 and boxed.loose == []


def test_every_table_scrolls_in_its_own_box(client: Client):
    load()
    client.force_login(reviewer())
    loose = {}
    for path in every_page(demo_pages()):
        response = client.get(path)
        if "text/html" not in response.get("Content-Type", ""):
            continue
        tables = Tables()
        tables.feed(response.content.decode())
        if tables.loose:
            loose[path] = tables.loose[:3]
    assert loose == {}
