"""loadgen for reviewers (/bench/loadgen/): the release the site expects, its files with
their sizes and SHA-256 to download, the three lines a reviewer runs (install it, the
token, `loadgen run ... --upload`), and which loadgen each suite version needs
(results/loadgen.py). Its files at /bench/loadgen/<version>/<file>.

Behind nginx the files are served from disk by nginx itself (deploy/nginx.conf), as the
open-data dumps are; these views serve them where nothing stands in front of Django. A
release never changes: its files are cached for good, with their SHA-256 as their ETag.
The page reads the release folder, not the database, so no response of it is kept (a
release built after it would not show)."""

from __future__ import annotations

from django.http import FileResponse, Http404, HttpResponse
from django.shortcuts import render
from django.utils.http import quote_etag
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_safe

from results import loadgen
from results.views.common import HtmxHttpRequest
from results.views.data import IMMUTABLE

MEDIA_TYPES = {
    ".sha256": "text/plain; charset=utf-8",
    ".json": "application/json",
}


@require_safe
@never_cache
def loadgen_page(request: HtmxHttpRequest) -> HttpResponse:
    release = loadgen.current_release()
    suites = list(loadgen.suite_needs())
    latest = {s.name: s for s in suites}  # each suite's newest version (the catalog's order)
    context = {
        "expected": loadgen.expected_version(),
        "release": release,
        "deb": release.file("deb") if release else None,
        "source": release.file("source") if release else None,
        "suites": suites,
        "example_suite": latest.get("desktop-2011") or suites[-1],
        "site": request.build_absolute_uri("/").rstrip("/"),
        "absolute": request.build_absolute_uri,
    }
    return render(request, "bench/loadgen.html", context)


@require_safe
def loadgen_file(request: HtmxHttpRequest, version: str, file: str) -> FileResponse:
    path = loadgen.release_file_path(version, file)
    if path is None:
        raise Http404("No such release file")
    release = loadgen.release_of(version)
    described = next((f for f in release.files if f.name == file), None) if release else None
    media_type = described.media_type if described else MEDIA_TYPES[path.suffix]
    response = FileResponse(path.open("rb"), content_type=media_type)
    if described is not None:
        response["Content-Disposition"] = f'attachment; filename="{file}"'
        response["ETag"] = quote_etag(described.sha256)
    response["Cache-Control"] = IMMUTABLE
    response["X-Content-Type-Options"] = "nosniff"
    return response


class ReleaseVersionConverter:
    """A release's version in a URL: MAJOR.MINOR.PATCH (loadgen/release.py)."""

    regex = r"[0-9]{1,6}\.[0-9]{1,6}\.[0-9]{1,6}"

    def to_python(self, value: str) -> str:
        return value

    def to_url(self, value: str) -> str:
        return value
