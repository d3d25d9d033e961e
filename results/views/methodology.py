"""docs/methodology.md as a page of the site (rendered by results.methodology)."""

from django.http import HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_safe

from core.links import page_url
from results.methodology import methodology
from results.models import Test
from results.views.common import HtmxHttpRequest


@require_safe
def methodology_page(request: HtmxHttpRequest) -> HttpResponse:
    return render(request, "bench/methodology.html", {"doc": methodology()})


def test_links(test: Test) -> dict:
    """Where the methodology describes a test: its row in the tests table and the section
    on how its figures are computed ("" for what it does not describe)."""
    doc, url = methodology(), page_url("bench:methodology")
    row, section = doc.test_anchor(test.identifier), doc.kind_anchor(test.kind)
    return {
        "row": f"{url}#{row}" if row else "",
        "section": f"{url}#{section}" if section else "",
        "page": url,
    }
