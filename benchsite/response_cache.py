"""Whole responses of the public pages and API reads, cached for every worker.

A reader who is not signed in gets the same compare page, leaderboard, value table or API list
as every other such reader, so the response itself is kept in the shared cache, under the
catalog version of benchsite/cache.py: any write to the catalog (an ingest, a withdrawal, an
edit in the admin) makes every kept response stale once its transaction commits, before the
writing request returns. A hit costs one cache round trip and skips the session, CSRF, auth
and view layers (a worker keeps the pages it served most recently, compressed in the shared
cache and whole in its own memory, and then reads only the catalog version); a miss costs
the page plus that read and one write.

Only what cannot differ between readers is kept:
- GET and HEAD requests under BENCH_RESPONSE_CACHE_PATHS, from clients without a session
  (nobody signed in), without the replica stickiness cookie (their own write must show, read
  from the primary) and without an Authorization header;
- 200 responses that set no cookie, did not render a CSRF token and are not streamed.
The key is the path with its query string and the request headers that change the response
(Accept, for CSV; the htmx headers, for partials). Conditional requests are answered from the
kept response (304 when its ETag or Last-Modified matches).

BENCH_RESPONSE_CACHE switches it on (production); the benchmarks measure both ways.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable

import lz4.frame
from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.utils.cache import get_conditional_response
from django.utils.http import parse_http_date_safe

from benchsite import cache, replicas
from benchsite.etags import set_response_etag

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


def cacheable_response(request: HttpRequest, response: HttpResponse) -> bool:
    return (
        response.status_code == 200
        and not response.streaming
        and not response.cookies
        and not request.META.get("CSRF_COOKIE_NEEDS_UPDATE")
    )


def response_key(request: HttpRequest) -> str:
    # The scheme and host too: API responses hold absolute links (pagination, a run's url),
    # built from the address the client used.
    headers = [request.META.get(name, "") for name in KEY_HEADERS]
    where = f"{request.scheme}://{request.get_host()}"
    return cache.entry_key("response.lz4", (where, request.get_full_path(), headers))


def _conditional(request: HttpRequest, response: HttpResponse) -> HttpResponse:
    last_modified = response.get("Last-Modified")
    return get_conditional_response(
        request,
        etag=response.get("ETag"),
        last_modified=parse_http_date_safe(last_modified) if last_modified else None,
        response=response,
    )


class _Recent:
    """This process's most recently served kept responses, checked against the catalog
    version before each use: a hit then reads only the version from the shared cache, not a
    page of tens of kilobytes (the shared cache stays the one that says what is current)."""

    def __init__(self, size: int) -> None:
        self.size = size
        self.entries: OrderedDict[str, tuple] = OrderedDict()

    def get(self, key: str) -> tuple | None:
        return self.entries.get(key)

    def keep(self, key: str, kept: tuple) -> None:
        self.entries[key] = kept
        self.entries.move_to_end(key)
        while len(self.entries) > self.size:
            self.entries.popitem(last=False)


RECENT_RESPONSES = 128
_recent = _Recent(RECENT_RESPONSES)


def _store_when_sent(response: HttpResponse, key: str, kept: tuple) -> None:
    """Put the response in the shared cache once it has been sent (when the server closes
    it): a miss then keeps its reader waiting for the page and one cache read, not for the
    write too. The content is compressed with LZ4 (a page of 90 KB in 0.07 ms, to half its
    size; zlib took 0.6 ms for a third, more than the write it saved)."""
    close = response.close

    def close_then_store() -> None:
        close()
        version, status, headers = kept
        cache.store(key, version, (status, headers, lz4.frame.compress(response.content)))

    response.close = close_then_store


class ResponseCacheMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if not settings.BENCH_RESPONSE_CACHE or not cacheable_request(request):
            return self.get_response(request)
        key = response_key(request)
        # One cache round trip: the catalog version alone when this worker holds the page,
        # else the kept page with the version.
        kept = _recent.get(key)
        if kept is not None:
            version = cache.current_version()
            if version != kept[0]:
                kept = None
        if kept is None:
            hit, shared, version = cache.lookup(key)
            kept = (version, *shared[:2], lz4.frame.decompress(shared[2])) if hit else None
        if kept is not None:
            _recent.keep(key, kept)
            _, status, headers, content = kept
            response = HttpResponse(content, status=status, headers=headers)
            response[CACHE_STATUS_HEADER] = "hit"
            return _conditional(request, response)
        if version is None:  # no cache: serve uncached
            return self.get_response(request)
        with replicas.reads_including(version[1]):
            response = self.get_response(request)
        if cacheable_response(request, response):
            # The ETag is kept too, so that a hit is not hashed again.
            if not response.has_header("ETag"):
                set_response_etag(response)
            headers = {k: v for k, v in response.items() if k != CACHE_STATUS_HEADER}
            _recent.keep(key, (version, response.status_code, headers, response.content))
            _store_when_sent(response, key, (version, response.status_code, headers))
            response[CACHE_STATUS_HEADER] = "miss"
        return response
