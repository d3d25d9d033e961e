"""Links on pages: which stored URLs a page may turn into links (no Django there: the
result-document checks in results/documents.py use the same rule as the templates), and
links to the site's own pages, built fast."""

import re
import threading
from collections.abc import Callable

from django.core.signals import request_finished, request_started
from django.urls import NoReverseMatch, get_script_prefix, reverse

# http or https, then no white space or control character anywhere: a browser cannot read
# such a string as any other scheme (javascript:, data:, vbscript:...).
HTTP_URL = re.compile(r"https?://[^\s\x00-\x1f\x7f]+", re.IGNORECASE)


def is_http_url(url: str) -> bool:
    return HTTP_URL.fullmatch(url) is not None


def safe_http_url(url: str) -> str:
    """The URL when it is a plain http(s) URL, else "". Templates render stored URLs only
    through this (Citation.safe_url, Price.safe_source_url)."""
    return url if url and is_http_url(url) else ""


# A slug needs no quoting in a path. The placeholders hold every kind of slug character:
# a URL whose converter accepts them is one whose arguments are slugs (slug, str).
SLUG = re.compile(r"[-a-zA-Z0-9_]{1,255}")
_PLACEHOLDER = "Slug-{}_Placeholder"
# A URL of whole numbers (an int converter: a run's page) is split at digits alone.
_NUMBER_PLACEHOLDER = "9071{}5389"
_patterns: dict[tuple[str, str, int, bool], list[str] | None] = {}


class _Request(threading.local):
    prefix = ""  # the script prefix of the request this thread serves; "" between requests


_request = _Request()


def _request_started(**kwargs) -> None:
    # Django's handler has set the request's prefix by now.
    _request.prefix = get_script_prefix()


def _request_finished(**kwargs) -> None:
    _request.prefix = ""


request_started.connect(_request_started, dispatch_uid="core.links.request_started")
request_finished.connect(_request_finished, dispatch_uid="core.links.request_finished")


def _script_prefix() -> str:
    """get_script_prefix(), read once a request: Django keeps it in an asgiref Local, which
    costs as much to read as the rest of page_url; a page builds dozens of links."""
    return _request.prefix or get_script_prefix()


def page_url(name: str, *slugs: str | int) -> str:
    """reverse(name, args=slugs) for URLs whose arguments are slugs, or whole numbers (ints),
    at the cost of a join: the URL is reversed once with placeholders and remembered as the
    text around them (reverse() costs tens of microseconds, and a page of 50 drives links
    each drive and its parts). Other arguments, and URLs whose converters are narrower than
    a slug (a format suffix), go through reverse() itself."""
    numbers = bool(slugs) and all(type(s) is int and s >= 0 for s in slugs)
    parts = _parts(name, _script_prefix(), len(slugs), numbers)
    if parts is None or not (
        numbers or all(isinstance(s, str) and SLUG.fullmatch(s) for s in slugs)
    ):
        return reverse(name, args=slugs)
    url = parts[0]
    for slug, text in zip(slugs, parts[1:], strict=True):
        url += str(slug) + text
    return url


def page_urls(name: str) -> Callable[[str], str]:
    """page_url(name, slug) for the many slugs of one list (a scatter or ranking of hundreds
    of drives): the URL's parts are looked up once, so use the function within one
    request."""
    parts = _parts(name, _script_prefix(), 1, False)
    if parts is None:
        return lambda slug: reverse(name, args=[slug])
    head, tail = parts

    def url(slug: str) -> str:
        if isinstance(slug, str) and SLUG.fullmatch(slug):
            return head + slug + tail
        return reverse(name, args=[slug])

    return url


def _parts(name: str, prefix: str, count: int, numbers: bool) -> list[str] | None:
    key = (name, prefix, count, numbers)
    parts = _patterns.get(key, ())
    if parts == ():
        placeholder = _NUMBER_PLACEHOLDER if numbers else _PLACEHOLDER
        parts = _patterns[key] = _split(name, count, placeholder)
    return parts


def _split(name: str, count: int, placeholder: str) -> list[str] | None:
    """The URL's text around its arguments, or None when it takes no such arguments."""
    try:
        url = reverse(name, args=[placeholder.format(i) for i in range(count)])
    except NoReverseMatch:
        return None
    parts = [url]
    for i in range(count):
        parts[-1:] = parts[-1].split(placeholder.format(i), 1)
    return parts if len(parts) == count + 1 else None
