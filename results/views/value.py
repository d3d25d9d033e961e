"""Value: price per GB, per 1,000 IOPS, and the price-against-performance frontier."""

from django.http import HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_safe

from results import charts
from results.filters import ValueFilter
from results.models import Test
from results.selectors.common import VALUE_DEFAULT_TEST, entries
from results.selectors.value import value_choices, value_frontier
from results.views.common import (
    HtmxHttpRequest,
    bad_request,
    highlight_list,
    highlighted,
    partial,
)
from results.views.leaderboards import filter_context


@require_safe
def value_page(request: HtmxHttpRequest) -> HttpResponse:
    tests, controllers = value_choices()
    filters = ValueFilter(request.GET, queryset=entries(), tests=tests)
    if not filters.is_valid():
        return bad_request(request, filters.errors)
    cleaned = filters.form.cleaned_data
    wanted = cleaned.get("test") or VALUE_DEFAULT_TEST
    test = next((t for t in filters.tests if t.identifier == wanted), None)
    if test is None:
        test = Test.objects.get(identifier=wanted)
    highlight = highlighted(request)
    view = value_frontier(
        test=test,
        filters=filters,
        as_of=cleaned.get("as_of"),
        highlight=highlight,
        worst_case=not cleaned.get("pattern"),
    )
    context = {
        "view": view,
        "test": test,
        "tests": filters.test_choices,
        "figure": charts.value_scatter(view),
        "highlight": highlight_list(
            request, highlight, (p.drive for p in view.points if p.highlighted)
        ),
        **filter_context(filters, controllers),
    }
    return render(request, partial(request, "bench/value.html", "value"), context)
