from django.core.paginator import Paginator
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET
from django_htmx.middleware import HtmxDetails

from drives.models import Drive
from drives.selectors import drive_detail, drive_list
from results.selectors import drive_results

PAGE_SIZE = 50


class HtmxHttpRequest(HttpRequest):
    htmx: HtmxDetails


@require_GET
def home(request: HtmxHttpRequest) -> HttpResponse:
    search = request.GET.get("q", "").strip()[:100]
    kind = request.GET.get("kind", "")
    interface = request.GET.get("interface", "")
    if kind not in Drive.Kind.values:
        kind = ""
    if interface not in Drive.Interface.values:
        interface = ""
    page = Paginator(drive_list(search=search, kind=kind, interface=interface), PAGE_SIZE).get_page(
        request.GET.get("page")
    )
    context = {
        "page": page,
        "search": search,
        "kind": kind,
        "interface": interface,
        "kinds": Drive.Kind.choices,
        "interfaces": Drive.Interface.choices,
    }
    template = "drives/home.html#drive-table" if request.htmx else "drives/home.html"
    return render(request, template, context)


@require_GET
def detail(request: HtmxHttpRequest, slug: str) -> HttpResponse:
    try:
        drive = drive_detail(slug=slug)
    except Drive.DoesNotExist as exc:
        raise Http404("No such drive") from exc
    return render(
        request, "drives/detail.html", {"drive": drive, "results": drive_results(drive=drive)}
    )
