"""The response-time curve on the compare page in Chromium, at phone and desktop widths: each
drive's curve drawn (p99 and p50 at the IOPS it achieved), each drive's knee marked on the
chart where the table says it is, and the drives' tails side by side at the same loads, the
page no wider than its window and no chart's text clipped or under its legend."""

import pytest
from django.urls import reverse

from tests.browser.conftest import DESKTOP, PHONE
from tests.browser.test_layout import CLIPPED_TEXT, OVER_LEGEND, OVERFLOW, visit
from tests.results.helpers import ingest
from tests.results.test_curve import (
    FAST_P99,
    FAST_SWEEP,
    STEADY_P99,
    STEADY_SWEEP,
    curve_document,
)

pytestmark = pytest.mark.django_db(transaction=True)

# Each trace of the curve's chart as Plotly drew it: its name, its points' count and texts.
TRACES = """() => {
  const chart = document.querySelector('#curves .chart');
  return chart._fullData.map(t => ({name: t.name, mode: t.mode, n: t.x.length,
                                    text: [].concat(t.text || [])}));
}"""
KNEE_LABELS = """() => [...document.querySelectorAll('#curves .chart .textpoint')]
  .filter(t => t.getBoundingClientRect().width > 0).map(t => t.textContent)"""


@pytest.fixture
def compared(test_catalog):
    fast = curve_document(seed=1, model="Fast", maximum=200_000, p99=FAST_P99, sweep=FAST_SWEEP)
    steady = curve_document(
        seed=2, model="Steady", maximum=10_000, p99=STEADY_P99, sweep=STEADY_SWEEP
    )
    a, b = ingest(fast), ingest(steady)
    return reverse("bench:compare", args=[a.drive.slug, b.drive.slug])


@pytest.mark.parametrize("size", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_the_curve_its_knees_and_the_tails_at_equal_load(page, live_server, compared, size):
    page.set_viewport_size(size)
    visit(page, live_server.url + compared)
    traces = page.evaluate(TRACES)
    lines = [t for t in traces if t["mode"] == "lines+markers"]
    # A's and B's p99 and p50, six loads each
    assert len(lines) == 4 and all(t["n"] == 6 for t in lines), traces
    assert {t["name"].split(":")[0] for t in lines} == {"A", "B"}
    knees = [t for t in traces if t["mode"] == "markers+text"]
    assert sorted(t["text"][0] for t in knees) == ["A knee (75%)", "B knee (100%)"]
    # drawn and readable: each knee's label is on the chart
    assert sorted(page.evaluate(KNEE_LABELS)) == ["A knee (75%)", "B knee (100%)"]
    assert page.locator("#curves td.knee-a").inner_text() == "75%"
    assert page.locator("#curves td.knee-b").inner_text() == "100%"
    assert page.locator("#curves td.depth-a").inner_text() == "QD64"
    # the tails side by side at 10% load: B's p99.99 needs more I/Os than it had
    low_b = page.locator("#curves tr.load-10.side-b").inner_text()
    assert "needs 100,000 I/Os" in low_b
    # the tail at 10% load judged with the stored run-to-run variation (run-to-run.json): p99
    # and p99.9 ties within its margin, p99.99, which B's I/Os do not support, not at all
    texts = page.locator("#curves tr.load-10.verdicts td.verdict").all_inner_texts()
    assert [t.split(" (within")[0] for t in texts] == ["", "tie", "tie", ""], texts
    found = page.evaluate(OVERFLOW)
    assert found["scroll"] <= found["width"], found
    assert page.evaluate(CLIPPED_TEXT) == [] and page.evaluate(OVER_LEGEND) == []
