"""A drive's page: specs, firmware, every run with its provenance, prices, compare with."""

from django.http import Http404, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_safe

from drives.models import Drive
from results import charts
from results.kinds.saturation import saturation_columns, wsat_columns
from results.selectors.drive_pages import drive_page
from results.views.common import HtmxHttpRequest, wsat_axis, wsat_links, wsat_switch


@require_safe
def drive_detail(request: HtmxHttpRequest, slug: str) -> HttpResponse:
    try:
        page = drive_page(slug=slug)
    except Drive.DoesNotExist as exc:
        raise Http404("No such drive") from exc
    axis = wsat_axis(request)
    context = {
        "drive": page.drive,
        "page": page,
        "price_figure": charts.price_history(page.prices) if page.prices else None,
        "saturation": _saturation([w for w in page.saturation if not w.is_wsat]),
        "wsat": _wsat([w for w in page.saturation if w.is_wsat], axis),
        # The switch swaps the WSAT part of the page it asks for into this one's.
        "wsat_switch": wsat_switch(axis, wsat_links(request), "#wsat-part", "#wsat-part"),
        "standing_figure": charts.run_standings(page.run_groups)
        if any(g.n > 1 for g in page.run_groups)
        else None,
    }
    return render(request, "bench/drive.html", context)


def _saturation(series: list) -> dict | None:
    """Every write-saturation series of the drive in one chart, a column of numbers each."""
    if not series:
        return None
    named = [(f"#{w.run_id} · {w.get_pattern_display()}", "", w) for w in series]
    return {
        "id": "saturation",
        "figure": charts.saturation([(f"run {name}", w) for name, _, w in named]),
        "columns": saturation_columns(named),
        "run_links": True,
    }


def _wsat(series: list, axis: str) -> dict | None:
    """Every WSAT series of the drive in one chart (IOPS per round against time or bytes
    written, ?wsat_x=), a column of numbers each."""
    if not series:
        return None
    named = [(f"#{w.run_id} · {w.get_pattern_display()}", "", w) for w in series]
    return {
        "id": "wsat",
        "figure": charts.wsat([(f"run {name}", w) for name, _, w in named], axis),
        "columns": wsat_columns(named),
        "run_links": True,
    }
