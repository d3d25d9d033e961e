"""page_url is reverse() at the cost of a join: for every named URL of the site whose
arguments are slugs it gives what reverse() gives, and anything else goes to reverse();
page_urls(name) is page_url(name, slug) for many slugs."""

import pytest
from django.core.signals import request_finished, request_started
from django.db import close_old_connections
from django.urls import NoReverseMatch, get_resolver, reverse, set_script_prefix
from hypothesis import given, settings
from hypothesis import strategies as st

from core.links import page_url, page_urls

SLUG = st.from_regex(r"[-a-zA-Z0-9_]{1,40}", fullmatch=True)


def _named_urls() -> list[tuple[str, int]]:
    """The site's URL names (not the admin's) with how many arguments each takes (a name
    of URLs of two to four drives, each count)."""
    found = set()
    resolver = get_resolver()
    for namespace in ("bench", "drives", "api"):
        sub = resolver.namespace_dict[namespace][1]
        for name, possibilities in sub.reverse_dict.lists():
            if isinstance(name, str):
                for possibility in possibilities:
                    found.add((f"{namespace}:{name}", len(possibility[0][0][1])))
    return sorted(found)


URLS = _named_urls()


def test_the_site_has_slug_urls_to_check():
    assert ("bench:drive", 1) in URLS and ("bench:compare", 2) in URLS
    assert ("bench:compare", 4) in URLS and ("api:compare", 3) in URLS


@settings(max_examples=50, deadline=None, derandomize=True, database=None)
@given(data=st.data())
def test_page_url_is_reverse(data):
    name, count = data.draw(st.sampled_from(URLS))
    slugs = [data.draw(SLUG) for _ in range(count)]
    try:
        expected = reverse(name, args=slugs)
    except NoReverseMatch:  # a converter narrower than a slug (e.g. an int pk)
        with pytest.raises(NoReverseMatch):
            page_url(name, *slugs)
        if count == 1:
            with pytest.raises(NoReverseMatch):
                page_urls(name)(slugs[0])
        return
    assert page_url(name, *slugs) == expected
    assert page_url(name, *slugs) == expected  # remembered
    if count == 1:
        assert page_urls(name)(slugs[0]) == expected


@settings(max_examples=80, deadline=None, derandomize=True, database=None)
@given(data=st.data())
def test_page_url_of_whole_numbers_is_reverse(data):
    """Ints (a run's page: an int converter; a slug converter takes their digits too), the
    placeholder's own digits among them; a negative one or a bool goes through reverse()."""
    name, count = data.draw(st.sampled_from(URLS))
    numbers = [
        data.draw(st.one_of(st.integers(0, 10**12), st.just(9071053890), st.just(-1)))
        for _ in range(count)
    ]
    if count and data.draw(st.booleans()):
        numbers[0] = data.draw(st.booleans())
    try:
        expected = reverse(name, args=numbers)
    except NoReverseMatch:
        with pytest.raises(NoReverseMatch):
            page_url(name, *numbers)
        return
    assert page_url(name, *numbers) == expected
    assert page_url(name, *numbers) == expected  # remembered


def test_a_run_page_is_linked_without_reverse(monkeypatch):
    """Once its parts are known, a run's link (an int) is a join: reverse() is not called."""
    expected = reverse("bench:run", args=[12])
    page_url("bench:run", 1)
    monkeypatch.setattr("core.links.reverse", None)  # called: a TypeError
    assert page_url("bench:run", 12) == expected
    assert page_url("bench:run", 9071053890) == reverse("bench:run", args=[9071053890])


@pytest.mark.parametrize("arg", ["a b", "ü", "a/b", "", "a?b", "placeholder0"])
def test_arguments_that_are_not_slugs_go_through_reverse(arg):
    try:
        expected = reverse("bench:drive", args=[arg])
    except NoReverseMatch:
        with pytest.raises(NoReverseMatch):
            page_url("bench:drive", arg)
    else:
        assert page_url("bench:drive", arg) == expected
        assert page_urls("bench:drive")(arg) == expected


@pytest.fixture
def no_connection_housekeeping():
    """As Django's test client does: a request made here must not close (or, closed, look at)
    the database connection this process keeps for the tests that use it: these tests read
    no database."""
    for signal in (request_started, request_finished):
        signal.disconnect(close_old_connections)
    yield
    for signal in (request_started, request_finished):
        signal.connect(close_old_connections)


def test_a_script_prefix_is_kept(no_connection_housekeeping):
    # Outside a request: a test client response an earlier test left unclosed never sent
    # request_finished, which would leave that request's prefix in force.
    request_finished.send(sender=None)
    try:
        set_script_prefix("/site/")
        assert page_url("bench:drive", "x") == "/site/drives/x/"
        assert page_urls("bench:drive")("x") == "/site/drives/x/"
        assert page_url("bench:compare", "a", "Slug-1_Placeholder") == (
            "/site/bench/compare/a/Slug-1_Placeholder/"
        )
    finally:
        set_script_prefix("/")
    assert page_url("bench:drive", "x") == "/drives/x/"
    assert page_urls("bench:drive")("x") == "/drives/x/"


def test_links_of_a_request_carry_its_script_prefix_and_no_other(
    rf, settings, no_connection_housekeeping
):
    """The prefix a request is served under (SCRIPT_NAME) is read once when it starts and
    forgotten when it ends: links in each request carry their own, and links made between
    requests follow set_script_prefix again."""
    import sys
    import types

    from django.core.handlers.wsgi import WSGIHandler
    from django.http import HttpResponse
    from django.urls import path

    seen = []

    def view(request):
        seen.append((page_url("bench:drive", "x"), page_urls("bench:drive")("y")))
        return HttpResponse("ok")

    urls = types.ModuleType("links_test_urls")
    urls.urlpatterns = [path("links/", view), *get_resolver("benchsite.urls").url_patterns]
    sys.modules[urls.__name__] = urls
    settings.ROOT_URLCONF = urls.__name__
    handler = WSGIHandler()
    try:
        for script in ("/mounted", "", "/other/place"):
            environ = rf.get("/links/").environ | {"SCRIPT_NAME": script}
            handler(environ, lambda status, headers: None).close()  # as the server does
            set_script_prefix("/elsewhere/")
            assert page_url("bench:drive", "x") == "/elsewhere/drives/x/"  # between requests
    finally:
        set_script_prefix("/")
        del sys.modules[urls.__name__]
    assert seen == [
        ("/mounted/drives/x/", "/mounted/drives/y/"),
        ("/drives/x/", "/drives/y/"),
        ("/other/place/drives/x/", "/other/place/drives/y/"),
    ]
