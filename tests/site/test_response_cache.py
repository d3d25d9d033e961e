"""Whole-response caching of anonymous reads (benchsite/response_cache.py), against the
database cache and a real redis-server: what is kept, for whom, and that a write makes it
stale before the writing call returns."""

import json

import pytest
from django.core.cache import cache
from django.http import HttpResponse
from django.middleware.csrf import get_token
from django.test import RequestFactory
from django.urls import URLPattern, URLResolver, get_resolver

from benchsite import response_cache
from benchsite.response_cache import CACHE_STATUS_HEADER, ResponseCacheMiddleware, request_scopes
from benchsite.settings.base import cache_settings
from benchsite.urls import response_scopes
from core.versions import ANY, CATALOG, DRIVES, VALUE, drive_scope, ranking_scope
from drives.models import Drive
from results.services import run_ingest, run_withdraw

committed = pytest.mark.django_db(transaction=True)


@pytest.fixture(params=["database", "redis"])
def backend(request, settings):
    redis_url = request.getfixturevalue("redis_url") if request.param == "redis" else ""
    settings.CACHES = cache_settings(redis_url)
    settings.BENCH_RESPONSE_CACHE = True
    cache.clear()
    forget_recent()
    yield request.param
    cache.clear()
    forget_recent()


def forget_recent() -> None:
    """This process's copies of kept responses, which stay current as long as the versions
    do (they outlive the shared cache's entries)."""
    response_cache._recent.entries.clear()


@pytest.fixture
def run(document):
    return run_ingest(document=json.dumps(document), submitter=None).run


def drive_path(run) -> str:
    return f"/drives/{Drive.objects.get(pk=run.drive_id).slug}/"


def status(response) -> str | None:
    return response.headers.get(CACHE_STATUS_HEADER)


@committed
def test_a_page_is_computed_once_then_served_from_the_cache(
    backend, run, client, django_assert_max_num_queries
):
    path = drive_path(run)
    first = client.get(path)
    assert first.status_code == 200 and status(first) == "miss"
    # A hit reads the version of the page's scopes, in one statement (the page itself is
    # this worker's copy).
    with django_assert_max_num_queries(1):
        second = client.get(path)
    assert status(second) == "hit"
    assert second.content == first.content
    assert second["Content-Type"] == first["Content-Type"]
    assert client.head(path).status_code == 200


@committed
def test_a_withdrawal_is_gone_from_the_page_when_it_returns(backend, run, client):
    marker = f"run-{run.pk}".encode()
    page = client.get(drive_path(run))
    assert marker in page.content
    assert status(client.get(drive_path(run))) == "hit"
    run_withdraw(run=run, reason="wrong drive named")
    after = client.get(drive_path(run))
    assert status(after) == "miss"
    assert marker not in after.content


@committed
def test_an_ingest_shows_at_once(backend, run, client, document):
    page = client.get("/bench/tests/")
    assert status(client.get("/bench/tests/")) == "hit"
    other = {**document, "drive": {**document["drive"], "model": "Another Model 240GB"}}
    run_ingest(document=json.dumps(other), submitter=None)
    again = client.get("/bench/tests/")
    assert status(again) == "miss" and again.status_code == page.status_code


@committed
@pytest.mark.parametrize(
    "how",
    [
        {"HTTP_COOKIE": "sessionid=abc"},
        {"HTTP_COOKIE": "bench_primary=1"},
        {"HTTP_AUTHORIZATION": "Token abc"},
    ],
    ids=["signed-in session", "own write still replicating", "API token"],
)
def test_readers_who_may_see_something_else_are_never_served_from_it(backend, run, client, how):
    client.get(drive_path(run))
    assert status(client.get(drive_path(run))) == "hit"
    assert status(client.get(drive_path(run), **how)) is None


@committed
def test_partials_and_full_pages_are_kept_apart(backend, run, client):
    full = client.get(drive_path(run))
    partial = client.get(drive_path(run), HTTP_HX_REQUEST="true")
    assert status(partial) == "miss"
    assert status(client.get(drive_path(run))) == "hit"
    assert client.get(drive_path(run)).content == full.content


@committed
def test_each_address_the_site_answers_at_keeps_its_own_responses(backend, run, client, settings):
    """API responses hold absolute links built from the address the client used (pagination,
    a run's url): a response kept for one host or scheme is never served for another."""
    settings.ALLOWED_HOSTS = ["bench.example.org", "mirror.example.net"]
    path = "/api/v1/runs/"
    seen = {}
    for host, secure in [
        ("bench.example.org", False),
        ("bench.example.org", True),
        ("mirror.example.net", False),
    ]:
        response = client.get(path, HTTP_HOST=host, secure=secure)
        assert status(response) == "miss", (host, secure)
        url = response.json()["results"][0]["url"]
        assert url.startswith(f"{'https' if secure else 'http'}://{host}/")
        seen[(host, secure)] = response.content
        again = client.get(path, HTTP_HOST=host, secure=secure)
        assert status(again) == "hit" and again.content == response.content
    assert len(set(seen.values())) == 3


@committed
def test_a_release_never_serves_what_the_previous_one_kept(backend, run, client, monkeypatch):
    """A page is kept under the digest of the code that made it (core.code_version): the
    next release makes it again rather than serve the previous one's markup."""
    path = drive_path(run)
    assert status(client.get(path)) == "miss"
    assert status(client.get(path)) == "hit"
    forget_recent()
    monkeypatch.setattr(response_cache, "code_version", lambda: "the next release")
    assert status(client.get(path)) == "miss"
    assert status(client.get(path)) == "hit"


@pytest.mark.django_db
def test_errors_and_pages_outside_the_paths_are_not_kept(backend, client):
    for _ in range(2):
        missing = client.get("/drives/no-such-drive/")
        assert missing.status_code == 404 and status(missing) is None
        assert status(client.get("/")) is None


def middleware_answer(view, request):
    return ResponseCacheMiddleware(view)(request)


@pytest.mark.django_db
def test_responses_with_cookies_or_a_csrf_token_are_not_kept(backend):
    factory = RequestFactory()

    def with_token(request):
        return HttpResponse(f"form {get_token(request)}")

    def with_cookie(request):
        response = HttpResponse("hello")
        response.set_cookie("seen", "1")
        return response

    for view in (with_token, with_cookie):
        for _ in range(2):
            answer = middleware_answer(view, factory.get("/bench/form/"))
            assert status(answer) is None


@pytest.mark.django_db
def test_conditional_requests_get_304_from_the_kept_response(backend):
    factory = RequestFactory()

    def view(request):
        return HttpResponse("[1, 2]", headers={"ETag": '"v1"'})

    assert status(middleware_answer(view, factory.get("/api/v1/things/"))) == "miss"
    answer = middleware_answer(view, factory.get("/api/v1/things/", HTTP_IF_NONE_MATCH='"v1"'))
    assert answer.status_code == 304
    other = middleware_answer(view, factory.get("/api/v1/things/", HTTP_IF_NONE_MATCH='"v0"'))
    assert other.status_code == 200 and other.content == b"[1, 2]"


@pytest.mark.django_db
def test_an_unreachable_cache_serves_pages_uncached(settings, workdir, client):
    settings.CACHES = cache_settings(f"unix://{workdir}/no-redis-here.sock")
    settings.BENCH_RESPONSE_CACHE = True
    for _ in range(2):
        page = client.get("/bench/tests/")
        assert page.status_code == 200 and status(page) is None


def view_names(patterns, namespace: str = "") -> set[str]:
    names = set()
    for pattern in patterns:
        if isinstance(pattern, URLResolver):
            inner = f"{namespace}{pattern.namespace}:" if pattern.namespace else namespace
            names |= view_names(pattern.url_patterns, inner)
        elif isinstance(pattern, URLPattern) and pattern.name:
            names.add(f"{namespace}{pattern.name}")
    return names


@pytest.mark.parametrize("urlconf", ["benchsite.urls", "loadtests.urls"])
def test_a_read_depends_on_the_scopes_its_url_declares(settings, urlconf):
    """Whichever URL configuration serves the site (the load benchmarks add trivial views
    to it): the scopes come from the URL's arguments and query, before any view runs."""
    settings.ROOT_URLCONF = urlconf
    assert set(response_scopes) <= view_names(get_resolver(urlconf).url_patterns)
    get = RequestFactory().get
    pair = sorted([CATALOG, drive_scope("a-1"), drive_scope("b-2")])
    expected = {
        "/drives/a-1/": [CATALOG, drive_scope("a-1")],
        "/bench/compare/a-1/b-2/?scale=linear": pair,
        "/bench/compare/a-1/b-2/compare.csv": pair,
        "/api/v1/compare/a-1/b-2/": pair,
        "/bench/tests/randread-4k-qd3/?highlight=h-1&highlight=%3Cbad%3E": sorted(
            [CATALOG, ranking_scope("randread-4k-qd3"), drive_scope("h-1")]
        ),
        "/api/v1/tests/randread-4k-qd3/leaderboard/": [CATALOG, ranking_scope("randread-4k-qd3")],
        "/bench/value/?test=randread-4k-qd3": [CATALOG, VALUE],
        "/api/v1/value/?highlight=h-1": sorted([CATALOG, VALUE, drive_scope("h-1")]),
        "/api/v1/drives/?format=csv": [CATALOG, DRIVES],
        "/api/v1/drives/a-1/": [CATALOG, DRIVES],
        "/api/v1/runs/": [ANY],
        "/bench/tests/": [ANY],
        "/no/such/page/": [ANY],
    }
    assert {path: request_scopes(get(path)) for path in expected} == expected
