"""The steady state the SNIA PTS rule detects, drawn in real Chromium: on the compare page's
consistency scatter each steady series' window is shaded in its drive's colour from the start
the rule found to the window's end, the legend says what the rule found, and the "steady
state" view zooms the axis to the detected windows (not to a fixed second)."""

from pathlib import Path

import pytest
from django.core.management import call_command

from results.models import ConsistencySeries
from results.selectors.common import series_is_quick
from tests.browser.test_walk import demo_drive, until

pytestmark = pytest.mark.django_db(transaction=True)

DEMO = Path(__file__).resolve().parents[2] / "demo" / "measured"


@pytest.fixture
def demo_drives(test_catalog):
    call_command("load_demo", verbosity=0)
    return [demo_drive(name) for name in ("consistency-file.json", "consistency-zram.json")]


def test_the_detected_window_is_shaded_and_the_steady_view_zooms_to_it(
    page, live_server, demo_drives
):
    file, zram = demo_drives
    page.goto(f"{live_server.url}/bench/compare/{file.slug}/{zram.slug}/#consistency")
    levels = sorted(
        ConsistencySeries.objects.filter(run__drive__in=demo_drives)
        .values_list("spare_area_percent", flat=True)
        .distinct()
    )
    assert levels, "the demo has consistency series"
    steady_seen = 0
    for level in levels:
        chart = f"consistency-{level}"
        page.locator(f"#{chart} .cartesianlayer .trace").first.wait_for()
        series = ConsistencySeries.objects.filter(
            run__drive__in=demo_drives, spare_area_percent=level
        )
        steady = sorted((s.steady_state_start_s, s.steady_state_end_s) for s in series if s.steady)
        steady_seen += len(steady)
        shapes = page.evaluate(f"document.getElementById('{chart}').layout.shapes || []")
        assert sorted((s["x0"], s["x1"]) for s in shapes) == steady
        # drawn, not only declared: one shaded rectangle per steady window
        drawn = page.evaluate(f"document.querySelectorAll('#{chart} .shapelayer path').length")
        assert drawn == len(steady)
        legend = page.evaluate(
            f"[...document.querySelectorAll('#{chart} .legendtext tspan.line')]"
            ".map(t => t.textContent)"
        )
        for s in series:
            assert s.steady_label.split(" (")[0] in legend, legend
        # the table beside the chart says the same
        box = page.locator(f"#{chart}").locator(
            "xpath=ancestor::div[contains(@class, 'chart-and-table')][1]"
        )
        table = box.locator("table").inner_text()
        for s in series:
            assert s.steady_label in table
    assert steady_seen, "at least one demo series is steady (the rule found a window)"

    # The steady-state view: the x axis spans the detected windows, from the earliest start
    # of a full-length series to the latest window's end, not a fixed t = 1,400 s.
    page.locator("#consistency .toggles a", has_text="steady state").click()
    until(page, "location.search.includes('view=steady')")
    for level in levels:
        chart = f"consistency-{level}"
        series = [
            s
            for s in ConsistencySeries.objects.filter(
                run__drive__in=demo_drives, spare_area_percent=level
            )
            if not series_is_quick(s)
        ]
        if not series:
            continue
        start = min(s.steady_state_start_s for s in series)
        end = max(s.steady_state_end_s or s.points * s.interval_ns // 10**9 for s in series)
        page.locator(f"#{chart} .cartesianlayer .trace").first.wait_for()
        until(
            page,
            f"(document.getElementById('{chart}').layout.xaxis.range || [])[0] === {start}",
        )
        shown = page.evaluate(f"document.getElementById('{chart}').layout.xaxis.range")
        assert shown == [start, end]
        ticks = page.evaluate(
            f"[...document.querySelectorAll('#{chart} .xtick text')]"
            ".map(t => Number(t.textContent.replace(/[^0-9.]/g, '')))"
        )
        assert ticks and all(start <= t <= end for t in ticks), ticks
