"""Whole responses of the public pages and API reads, cached for every worker.

A reader who is not signed in gets the same compare page, leaderboard, value table or API list
as every other such reader, so the response itself is kept in the shared cache, under the
version of the scopes it depends on (core.versions; benchsite/urls.py names each read's
scopes from its URL, before the view runs): a write that touches one of them (an ingest, a
withdrawal, an edit in the admin) makes the kept response stale once its transaction
commits, before the writing request returns, and leaves the others kept: an upload for one
drive leaves every other drive's pages and the rankings of other tests cached. A hit costs
the version (one prepared statement, on the database the page's own reads would go to) and
skips the session, CSRF, auth and view layers; a worker keeps the pages it served most
recently whole in its own memory, and reads them from the shared cache (compressed) when it
does not. A miss costs the page, the version and one write.

Only what cannot differ between readers is kept:
- GET and HEAD requests under BENCH_RESPONSE_CACHE_PATHS, from clients without a session
  (nobody signed in), without the replica stickiness cookie (their own write must show, read
  from the primary) and without an Authorization header;
- 200 responses that set no cookie, did not render a CSRF token, are not streamed and do
  not say they are one reader's (`Cache-Control: private` or `no-store`: a held run's page
  opened by its key, results/views/runs.py).
The key is the path with its query string and the request headers that change the response
(Accept, for CSV; the htmx headers, for partials). Conditional requests are answered from the
kept response (304 when its ETag or Last-Modified matches).

BENCH_RESPONSE_CACHE switches it on (production); the benchmarks measure both ways.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass

import lz4.frame
from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.urls import Resolver404, resolve
from django.utils.cache import get_conditional_response
from django.utils.http import parse_http_date_safe

from benchsite import cache, replicas
from benchsite.etags import set_response_etag
from core.code_version import code_version

KEY_HEADERS = ("HTTP_ACCEPT", "HTTP_HX_REQUEST", "HTTP_HX_TARGET", "HTTP_HX_TRIGGER")
CACHE_STATUS_HEADER = "X-Bench-Cache"  # hit or miss: what the benchmarks and tests read


def cacheable_request(request: HttpRequest) -> bool:
    if request.method not in ("GET", "HEAD"):
        return False
    if not request.path.startswith(tuple(settings.BENCH_RESPONSE_CACHE_PATHS)):
        return False
    cookies = request.COOKIES
    if settings.SESSION_COOKIE_NAME in cookies or replicas.STICKY_COOKIE in cookies:
        return False
    return "HTTP_AUTHORIZATION" not in request.META


# Cache-Control directives that keep a response from every shared cache, this one included.
NOT_SHARED = frozenset({"private", "no-store"})


def cacheable_response(request: HttpRequest, response: HttpResponse) -> bool:
    directives = {
        part.split("=", 1)[0].strip().lower()
        for part in response.get("Cache-Control", "").split(",")
    }
    return (
        response.status_code == 200
        and not response.streaming
        and not response.cookies
        and not request.META.get("CSRF_COOKIE_NEEDS_UPDATE")
        and not directives & NOT_SHARED
    )


def response_key(request: HttpRequest) -> str:
    # The scheme and host too: API responses hold absolute links (pagination, a run's url),
    # built from the address the client used. The code's digest too: a release never
    # serves a page the previous one made (its markup may differ), which would otherwise
    # last until its scopes move or it expires.
    headers = [request.META.get(name, "") for name in KEY_HEADERS]
    where = f"{request.scheme}://{request.get_host()}"
    parts = (where, request.get_full_path(), headers, code_version())
    return cache.entry_key("response.lz4", parts)


def request_scopes(request: HttpRequest) -> list[str]:
    """The scopes a read depends on, as benchsite/urls.py declares them for its URL name
    (every write, ANY, for a read it does not name)."""
    from benchsite.urls import response_scopes  # the site's URLs import every view

    try:
        match = resolve(request.path_info)
    except Resolver404:
        return cache.page_scopes(None)
    scopes = response_scopes.get(match.view_name)
    return cache.page_scopes(None if scopes is None else scopes(request.GET, **match.kwargs))


def _conditional(request: HttpRequest, response: HttpResponse) -> HttpResponse:
    last_modified = response.get("Last-Modified")
    return get_conditional_response(
        request,
        etag=response.get("ETag"),
        last_modified=parse_http_date_safe(last_modified) if last_modified else None,
        response=response,
    )


@dataclass(frozen=True, slots=True)
class Kept:
    """A response as kept: the scopes it depends on and their version when it was made."""

    scopes: list[str]
    version: cache.Version
    status: int
    headers: dict[str, str]
    content: bytes


class _Recent:
    """This process's most recently served kept responses, checked against the version of
    their scopes before each use: a hit then reads only the version, not a page of tens of
    kilobytes from the shared cache (which stays the one every worker fills)."""

    def __init__(self, size: int) -> None:
        self.size = size
        self.entries: OrderedDict[str, Kept] = OrderedDict()

    def get(self, key: str) -> Kept | None:
        return self.entries.get(key)

    def keep(self, key: str, kept: Kept) -> None:
        self.entries[key] = kept
        self.entries.move_to_end(key)
        while len(self.entries) > self.size:
            self.entries.popitem(last=False)


RECENT_RESPONSES = 128
_recent = _Recent(RECENT_RESPONSES)


def _store_when_sent(response: HttpResponse, key: str, kept: Kept) -> None:
    """Put the response in the shared cache once it has been sent (when the server closes
    it): a miss then keeps its reader waiting for the page, not for the write too. The
    content is compressed with LZ4 (a page of 90 KB in 0.07 ms, to half its size; zlib took
    0.6 ms for a third, more than the write it saved)."""
    close = response.close

    def close_then_store() -> None:
        close()
        shared = (kept.status, kept.headers, lz4.frame.compress(kept.content))
        cache.store(key, kept.version, shared)

    response.close = close_then_store


class ResponseCacheMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if not settings.BENCH_RESPONSE_CACHE or not cacheable_request(request):
            return self.get_response(request)
        key = response_key(request)
        # The version alone when this worker holds the page, else the kept page too.
        kept = _recent.get(key)
        scopes = kept.scopes if kept is not None else request_scopes(request)
        version = cache.current_version(scopes)
        if version is None:  # this transaction has written, or the database failed
            return self.get_response(request)
        if kept is None or kept.version != version:
            found = cache.lookup(key, version)
            if found is None:  # no shared cache: serve uncached
                return self.get_response(request)
            hit, shared = found
            kept = None
            if hit:
                status, headers, content = shared
                kept = Kept(scopes, version, status, headers, lz4.frame.decompress(content))
        if kept is not None:
            _recent.keep(key, kept)
            response = HttpResponse(kept.content, status=kept.status, headers=kept.headers)
            response[CACHE_STATUS_HEADER] = "hit"
            return _conditional(request, response)
        response = self.get_response(request)
        if cacheable_response(request, response):
            # The ETag is kept too, so that a hit is not hashed again.
            if not response.has_header("ETag"):
                set_response_etag(response)
            headers = {k: v for k, v in response.items() if k != CACHE_STATUS_HEADER}
            kept = Kept(scopes, version, response.status_code, headers, response.content)
            _recent.keep(key, kept)
            _store_when_sent(response, key, kept)
            response[CACHE_STATUS_HEADER] = "miss"
        return response
