"""Catalog-only pages: the drive list with its filters. Pages that show results live in
results/views/."""

from django.core.paginator import Paginator
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET
from django_htmx.middleware import HtmxDetails

from drives.filters import DriveFilter
from drives.models import Drive, NandType
from drives.selectors import drive_list, drive_rows

PAGE_SIZE = 50


class HtmxHttpRequest(HttpRequest):
    htmx: HtmxDetails


@require_GET
def home(request: HtmxHttpRequest) -> HttpResponse:
    filters = DriveFilter(request.GET, queryset=Drive.objects.all())
    if not filters.is_valid():
        return render(request, "bench/bad_request.html", {"errors": filters.errors}, status=400)
    ids = drive_list(drives=filters.qs).values_list("pk", flat=True)
    page = Paginator(ids, PAGE_SIZE).get_page(request.GET.get("page"))
    page.object_list = drive_rows(list(page.object_list))
    query = request.GET.copy()
    query.pop("page", None)
    context = {
        "page": page,
        "form": filters.form.cleaned_data,
        "query": query.urlencode(),
        "kinds": Drive.Kind.choices,
        "interfaces": Drive.Interface.choices,
        "cell_types": NandType.CellType.choices,
    }
    htmx_partial = request.htmx and not request.htmx.history_restore_request
    return render(
        request, "drives/home.html#drive_table" if htmx_partial else "drives/home.html", context
    )
