"""The compare page's drives added and removed in real Chromium, without a page reload."""

import re

import pytest

from tests.browser.conftest import DESKTOP
from tests.browser.test_walk import catalog, pick, traces, until  # noqa: F401
from tests.factories import PriceFactory
from tests.results.helpers import measured

pytestmark = pytest.mark.django_db(transaction=True)

# Set on the page once: still there after a change only if the page was not reloaded.
MARK = "window.benchNotReloaded"


def test_the_picker_adds_a_third_drive_and_it_is_removed_without_a_reload(
    page,
    live_server,
    catalog,  # noqa: F811
):
    a, b = catalog
    c = measured(manufacturer="Cask", model="Mid Three", seed=3).drive
    PriceFactory(drive=c, amount="100.00")
    page.set_viewport_size(DESKTOP)
    page.goto(f"{live_server.url}/bench/compare/{a.slug}/{b.slug}/")
    page.locator("#bars-0 .cartesianlayer .trace").first.wait_for()
    assert traces(page, "bars-0") == 2
    page.evaluate(f"{MARK} = true")

    pick(page, "c", "mid thr", "Cask Mid Three")
    page.wait_for_url(f"**/bench/compare/{a.slug}/{b.slug}/{c.slug}/")
    until(page, "document.querySelectorAll('#bars-0 .cartesianlayer .trace').length === 3")
    assert page.evaluate(MARK) is True  # swapped in place by htmx
    assert page.locator("h1 .side-c").inner_text() == str(c)
    assert page.locator("#pick-d").count() == 1  # a fourth may be added
    until(page, "document.querySelectorAll('#consistency-0 .cartesianlayer .trace').length === 3")

    # C made the reference: first, the others after it in their order.
    page.locator("#drives li", has_text=str(c)).get_by_role("link", name="make reference").click()
    page.wait_for_url(f"**/bench/compare/{c.slug}/{a.slug}/{b.slug}/")
    until(page, f"document.querySelector('h1 .side-a').textContent === {str(c)!r}")
    assert page.evaluate(MARK) is True

    # And removed again: two drives, as before.
    page.get_by_role("link", name=f"Remove {c}").click()
    page.wait_for_url(re.compile(rf"/bench/compare/{a.slug}/{b.slug}/$"))
    until(page, "document.querySelectorAll('#bars-0 .cartesianlayer .trace').length === 2")
    assert page.evaluate(MARK) is True
    assert page.locator("#drives").count() == 0
    assert page.get_by_role("link", name="⇄ Swap A and B").count() == 1
