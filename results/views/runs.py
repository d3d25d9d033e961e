"""A run's own page (/bench/runs/<id>/): its provenance, what it measured and where each
result falls among the drive's runs, the command that repeats it, and its document.

A held run's page is its submitter's and staff's (results.permissions): signed in, or by the
key its link carries (?key=). What it shows then is private: `Cache-Control: private,
no-store` (the response cache keeps no such response, benchsite/response_cache.py),
`X-Robots-Tag: noindex` and no Referer carrying the key on."""

import json

from django.http import Http404, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_safe

from results import charts, loadgen
from results.models import Run
from results.permissions import HELD_KEY_PARAMETER
from results.selectors.runs import RunPage, run_page
from results.views.common import HtmxHttpRequest


def _page(request: HtmxHttpRequest, pk: int) -> RunPage:
    key = request.GET.get(HELD_KEY_PARAMETER, "")
    try:
        return run_page(pk=pk, user=request.user, key=key)
    except Run.DoesNotExist as exc:
        raise Http404("No such run") from exc


def _private(page: RunPage, response: HttpResponse) -> HttpResponse:
    """A response that shows what only the run's submitter and staff are told: for them
    alone, never stored, nor indexed, nor named in a Referer."""
    if page.private:
        response["Cache-Control"] = "private, no-store"
        response["X-Robots-Tag"] = "noindex, nofollow"
        response["Referrer-Policy"] = "no-referrer"
    return response


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
        "held_key_parameter": HELD_KEY_PARAMETER,
        "tool_warnings": loadgen.document_warnings(page.document),
    }
    return _private(page, render(request, "bench/run.html", context))


@require_safe
def run_document(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    """The run's result document to download (results.selectors.runs.published_document)."""
    page = _page(request, pk)
    response = HttpResponse(
        json.dumps(page.document, indent=2, ensure_ascii=False) + "\n",
        content_type="application/json; charset=utf-8",
    )
    response["Content-Disposition"] = f'attachment; filename="bench-run-{pk}.json"'
    return _private(page, response)
