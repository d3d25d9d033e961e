"""Catalog-only pages: the drive list with its filters. Pages that show results live in
results/views/."""

from django.core.paginator import Page, Paginator
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_safe
from django_htmx.middleware import HtmxDetails

from core.filters import filter_context
from core.query import page_number
from drives.filters import DriveFilter
from drives.models import Drive
from drives.selectors import catalog_page

PAGE_SIZE = 50


class HtmxHttpRequest(HttpRequest):
    htmx: HtmxDetails


def _page(filters: DriveFilter | None, wanted: int) -> tuple[Page, list[tuple[str, str]]]:
    """The page of the drives `filters` keeps (all without) that `wanted` asks for (the last
    for one beyond it), its rows read with the count, and the controllers the filter form
    offers (catalog_page)."""
    read = catalog_page(filters=filters, offset=(wanted - 1) * PAGE_SIZE, limit=PAGE_SIZE)
    paginator = Paginator(range(read.total), PAGE_SIZE)
    if wanted > paginator.num_pages:
        wanted = paginator.num_pages
        read = catalog_page(filters=filters, offset=(wanted - 1) * PAGE_SIZE, limit=PAGE_SIZE)
        paginator = Paginator(range(read.total), PAGE_SIZE)
    page = paginator.get_page(wanted)
    page.object_list = read.rows
    return page, read.controllers


def partial(request: HtmxHttpRequest, template: str, fragment: str) -> str:
    """The named fragment for an htmx request (not a boosted one), else the whole page."""
    if request.htmx and not request.htmx.boosted and not request.htmx.history_restore_request:
        return f"{template}#{fragment}"
    return template


def bad_request(request: HtmxHttpRequest, errors) -> HttpResponse:
    """The page for a query string a form cannot accept: what was wrong, status 400. To an
    htmx request (a filter changed) only the list of problems, which takes the place of the
    results it swaps (base.html lets htmx swap a 400)."""
    template = partial(request, "bench/bad_request.html", "problems")
    return render(request, template, {"errors": errors}, status=400)


@require_safe
def home(request: HtmxHttpRequest) -> HttpResponse:
    filters = DriveFilter(request.GET, queryset=Drive.objects.all())
    if not filters.is_valid():
        return bad_request(request, filters.errors)
    page, controllers = _page(filters, page_number(request.GET))
    form = filter_context(DriveFilter, filters.form.cleaned_data, controllers)
    query = request.GET.copy()
    query.pop("page", None)
    context = {
        "page": page,
        "query": query.urlencode(),
        **form,
    }
    htmx_partial = request.htmx and not request.htmx.history_restore_request
    return render(
        request, "drives/home.html#drive_table" if htmx_partial else "drives/home.html", context
    )
