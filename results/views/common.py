"""What every results page needs: the request type, query-string parsing, the 400 page."""

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django_htmx.middleware import HtmxDetails

from results.filters import highlight_slugs

MAX_PAGE = 10_000


class HtmxHttpRequest(HttpRequest):
    htmx: HtmxDetails


def positive_int(value: str | None, *, default: int | None = None, maximum: int = 2**31 - 1):
    """A positive integer from the query string, or `default` for anything else."""
    if value is None or not value.isascii() or not value.isdigit():
        return default
    number = int(value)
    return number if 1 <= number <= maximum else default


def choice(value: str | None, choices: tuple[str, ...]) -> str:
    """`value` when it is one of `choices`, else the first choice."""
    return value if value in choices else choices[0]


def highlighted(request: HttpRequest) -> tuple[str, ...]:
    return highlight_slugs(request.GET.getlist("highlight"))


def bad_request(request: HttpRequest, errors) -> HttpResponse:
    """The page for a query string a form cannot accept: what was wrong, status 400."""
    return render(request, "bench/bad_request.html", {"errors": errors}, status=400)


def partial(request: HtmxHttpRequest, template: str, fragment: str) -> str:
    """The named fragment for an htmx request (not a boosted one), else the whole page."""
    if request.htmx and not request.htmx.boosted and not request.htmx.history_restore_request:
        return f"{template}#{fragment}"
    return template


def saturation_columns(named) -> list[dict]:
    """The columns of a write-saturation table (templates/bench/_saturation.html) from
    (heading, css class, series or None) triples: each with the seconds it recorded."""
    return [
        {
            "heading": heading,
            "css": css,
            "series": series,
            "seconds": len(series.bytes_per_interval) * series.interval_ns / 1e9
            if series is not None
            else None,
        }
        for heading, css, series in named
    ]
