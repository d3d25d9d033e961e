"""Controller and NAND-type pages: their drives with key results."""

from django.http import Http404, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_safe

from drives.models import Controller, Drive, NandType
from results.selectors.drive_pages import controller_by_slug, drive_group, nand_by_slug
from results.views.common import HtmxHttpRequest, page_number, partial


def _group(request: HtmxHttpRequest, *, kind: str, subject, drives) -> HttpResponse:
    page = page_number(request.GET)
    group = drive_group(drives=drives, title=str(subject), page=page)
    context = {"group": group, "kind": kind, "subject": subject}
    return render(request, partial(request, "bench/group.html", "group_table"), context)


@require_safe
def controller_page(request: HtmxHttpRequest, slug: str) -> HttpResponse:
    try:
        controller = controller_by_slug(slug)
    except Controller.DoesNotExist as exc:
        raise Http404("No such controller") from exc
    return _group(
        request,
        kind="controller",
        subject=controller,
        drives=Drive.objects.filter(controller=controller),
    )


@require_safe
def nand_page(request: HtmxHttpRequest, slug: str) -> HttpResponse:
    try:
        nand = nand_by_slug(slug)
    except NandType.DoesNotExist as exc:
        raise Http404("No such NAND type") from exc
    return _group(request, kind="NAND", subject=nand, drives=Drive.objects.filter(nand=nand))
