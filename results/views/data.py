"""The open data (results/dumps.py): /data/, the dumps published with their files, sizes,
rows and checksums, the licence and how to cite them; /data/<dump>/, one dump; and its
files at /data/<dump>/<file>, the newest's also at /data/latest/<file>.

Behind nginx the files are served from disk by nginx itself (deploy/nginx.conf); these
views serve them where nothing stands in front of Django (`make run`, `make serve` on
loopback): a dated dump's files never change, so they are cached for good, with their
SHA-256 as their ETag; the latest's are revalidated."""

from __future__ import annotations

from django.conf import settings
from django.http import FileResponse, Http404, HttpResponse, HttpResponseRedirect
from django.shortcuts import render
from django.urls import reverse
from django.utils.http import quote_etag
from django.views.decorators.http import require_safe

from results.dumps import LATEST, LICENCE, MEDIA_TYPES, DumpName, dump_file_path, dumps_listed
from results.views.common import HtmxHttpRequest

IMMUTABLE = "public, max-age=31536000, immutable"
REVALIDATE = "public, max-age=0, must-revalidate"
# What the page says of the licence: its name and id, and its deed's address (the project's
# constant, never a stored URL, which the templates write only through the safe properties).
LICENCE_SHOWN = {"licence": LICENCE, "licence_deed": LICENCE["url"]}


@require_safe
def data_page(request: HtmxHttpRequest) -> HttpResponse:
    dumps = dumps_listed()
    context = {"dumps": dumps, "latest": dumps[0] if dumps else None, **LICENCE_SHOWN}
    context["keep"] = settings.BENCH_DUMP_KEEP
    return render(request, "bench/data.html", context)


@require_safe
def data_dump(request: HtmxHttpRequest, dump: str) -> HttpResponse:
    """One dump's files (the newest's for `latest`, which is sent on to its own address)."""
    dumps = dumps_listed()
    if dump == LATEST:
        if not dumps:
            raise Http404("No dump has been published yet")
        return HttpResponseRedirect(reverse("bench:data_dump", args=[dumps[0].name]))
    shown = next((d for d in dumps if d.name == dump), None)
    if shown is None:
        raise Http404("No such dump")
    context = {"dumps": [shown], "latest": dumps[0], **LICENCE_SHOWN, "one": True}
    context["keep"] = settings.BENCH_DUMP_KEEP
    return render(request, "bench/data.html", context)


@require_safe
def data_file(request: HtmxHttpRequest, dump: str, file: str) -> FileResponse:
    path = dump_file_path(dump, file)
    if path is None:
        raise Http404("No such file")
    listed = next((d for d in dumps_listed() if d.name == path.parent.name), None)
    described = listed and (listed.file(file) or listed.manifest)
    response = FileResponse(path.open("rb"), content_type=MEDIA_TYPES[path.suffix[1:]])
    if file != "manifest.json":
        response["Content-Disposition"] = f'attachment; filename="bench-{path.parent.name}-{file}"'
    if described is not None and described.name == file:
        response["ETag"] = quote_etag(described.sha256)
    response["Cache-Control"] = REVALIDATE if dump == LATEST else IMMUTABLE
    response["Access-Control-Allow-Origin"] = "*"  # open data: any site's scripts may read it
    if dump == LATEST:
        response["Content-Location"] = reverse("bench:data_file", args=[path.parent.name, file])
    return response


class DumpNameConverter:
    """A dump's name in a URL (results.dumps.DumpName: 2026-05-01, 2026-05-01.2) or
    `latest`."""

    regex = r"latest|[0-9]{4}-[0-9]{2}-[0-9]{2}(?:\.[1-9][0-9]{0,5})?"

    def to_python(self, value: str) -> str:
        if value != LATEST and DumpName.parse(value) is None:
            raise ValueError(value)  # not a date (2026-02-30): no such address
        return value

    def to_url(self, value: str) -> str:
        return value
