"""A run's own page (/bench/runs/<id>/): its provenance, what it measured and where each
result falls among the drive's runs, the command that repeats it, and its document."""

import json

from django.http import Http404, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_safe

from results import charts
from results.models import Run
from results.selectors.runs import RunPage, run_page
from results.views.common import HtmxHttpRequest


def _page(request: HtmxHttpRequest, pk: int) -> RunPage:
    try:
        return run_page(pk=pk, user=request.user)
    except Run.DoesNotExist as exc:
        raise Http404("No such run") from exc


@require_safe
def run_detail(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    page = _page(request, pk)
    context = {
        "page": page,
        "run": page.run,
        "drive": page.run.drive,
        "standing_figure": charts.run_standings(page.standings.values(), page.run.pk)
        if any(g.n > 1 for g in page.standings.values())
        else None,
    }
    return render(request, "bench/run.html", context)


@require_safe
def run_document(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    """The run's result document to download (results.selectors.runs.published_document)."""
    page = _page(request, pk)
    response = HttpResponse(
        json.dumps(page.document, indent=2, ensure_ascii=False) + "\n",
        content_type="application/json; charset=utf-8",
    )
    response["Content-Disposition"] = f'attachment; filename="bench-run-{pk}.json"'
    return response
