"""Value: price per GB, per 1,000 IOPS, and the price-against-performance frontier."""

from django.http import HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_safe

from results import charts
from results.filters import ValueFilter, value_query
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
    filters, options = value_query(request.GET, tests)
    errors = {**filters.errors, **options.errors}
    if errors:
        return bad_request(request, errors)
    chosen = {**filters.form.cleaned_data, **options.cleaned_data}
    test = options.chosen_test()
    highlight = highlighted(request)
    view = value_frontier(
        test=test,
        filters=filters,
        as_of=chosen["as_of"],
        highlight=highlight,
        worst_case=not chosen.get("pattern"),
    )
    context = {
        "view": view,
        "test": test,
        "tests": options.fields["test"].choices,
        "figure": charts.value_scatter(view),
        "highlight": highlight_list(
            request, highlight, (p.drive for p in view.points if p.highlighted)
        ),
        **filter_context(ValueFilter, chosen, controllers),
    }
    return render(request, partial(request, "bench/value.html", "value"), context)
