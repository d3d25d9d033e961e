"""Value: price per GB, per 1,000 IOPS, and the price-against-performance frontier."""

from collections.abc import Callable

from django.http import HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_safe

from core.filters import filter_context
from results import charts
from results.filters import ValueFilter, value_query
from results.selectors.value import value_choices, value_frontier
from results.views.chart_images import Chart
from results.views.common import (
    HtmxHttpRequest,
    bad_request,
    highlight_list,
    highlighted,
    partial,
)


def _value(request: HtmxHttpRequest):
    """The value view for the request's query (its page and its chart's image read it
    alike), or the page saying what in the query is wrong."""
    choices = value_choices()
    filters, options = value_query(request.GET, choices.tests)
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
        priced=choices.priced,
    )
    return view, test, options, chosen, choices.controllers, highlight


@require_safe
def value_page(request: HtmxHttpRequest) -> HttpResponse:
    read = _value(request)
    if isinstance(read, HttpResponse):
        return read
    view, test, options, chosen, controllers, highlight = read
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


def value_charts(request: HtmxHttpRequest) -> dict[str, Callable[[], Chart]] | HttpResponse:
    """The value page's chart for results/views/chart_images.py: price against IOPS
    ("frontier"), read and drawn as the page does."""
    read = _value(request)
    if isinstance(read, HttpResponse):
        return read
    view, test = read[0], read[1]
    when = f"prices as of {view.as_of.isoformat()}" if view.as_of else "latest prices"
    title = f"Value: price against IOPS, {test.name} ({when})"
    return {"frontier": lambda: Chart(title, charts.value_scatter(view))}
