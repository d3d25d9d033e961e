"""A query parameter a page reads is either text it takes as it is (a search, a drive's slug)
or a value it must recognise (a choice, a number), and one it cannot take is a 400 that names
it, as a filter form's is: never a silent fallback to the default (core.query). A parameter
the query leaves out takes its default.

Generated over every view: each page of the demo (tests/pages.py) and what its charts, exports
and feeds answer is requested while every parameter the view reads from its query is
recorded; then each (view, parameter) is requested again with a value no view takes."""

from collections import defaultdict

import pytest
from django.http import QueryDict
from django.test import Client
from django.urls import resolve

from core.query import MAX_PAGE, choice_message
from results.views.leaderboards import METRICS
from tests.pages import PAIRS, demo_pages, load, reviewer

pytestmark = pytest.mark.django_db

# Parameters whose value is text the view takes as it is: a search's words, a picker's text
# or the slug it shows, the drives to highlight (one not found is said to be absent), a
# held run's key, the path a picker's links lead to, where signing in goes next.
FREE_TEXT = {
    "q",
    "mark",
    "highlight",
    *"abcd",
    *(f"cur_{side}" for side in "abcd"),
    "key",
    "at",
    "next",
    # A controller's slug, as the API's filter takes it: one not in the catalog keeps no drive.
    "controller",
}
NONSENSE = "no-such-value"

# What pages' charts, exports, feeds and pickers answer, reading their page's query.
DATA = {
    "bench:compare_chart": [f"/bench/compare/{PAIRS[0][0]}/{PAIRS[0][1]}/chart/consistency-0.svg"],
    "bench:compare_csv": [f"/bench/compare/{PAIRS[0][0]}/{PAIRS[0][1]}/compare.csv"],
    "bench:compare_markdown": [f"/bench/compare/{PAIRS[0][0]}/{PAIRS[0][1]}/compare.md"],
    "bench:leaderboard_chart": ["/bench/tests/randwrite-4k-qd3-8g/chart/ranking.svg"],
    "bench:value_chart": ["/bench/value/chart/frontier.svg"],
    "bench:runs_feed": ["/bench/runs/feed/"],
    "bench:pick": ["/bench/compare/pick/?side=b&b=intel", "/bench/compare/pick/?side=mark&mark=x"],
}


@pytest.fixture
def reads(monkeypatch):
    """The names every QueryDict is asked for while it is on (a list the test reads)."""
    asked: list[str] = []
    for method in ("get", "getlist", "__getitem__", "__contains__"):
        original = getattr(QueryDict, method)

        def spy(self, key, *args, _original=original, **kwargs):
            asked.append(key)
            return _original(self, key, *args, **kwargs)

        monkeypatch.setattr(QueryDict, method, spy)
    return asked


def with_value(path: str, name: str, value: str) -> str:
    base, _, query = path.partition("?")
    params = QueryDict(query, mutable=True)
    params[name] = value
    return f"{base}?{params.urlencode()}"


def test_every_parameter_a_view_reads_refuses_a_value_it_cannot_take(client: Client, reads):
    load()
    client.force_login(reviewer())
    where: dict[tuple[str, str], str] = {}  # (view, parameter): a path of the view reading it
    for route, paths in {**demo_pages(), **DATA}.items():
        for path in paths:
            reads.clear()
            if client.get(path).status_code != 200:
                continue  # a ranking to come (issue 48), the dump page without a dump
            for name in set(reads) - FREE_TEXT:
                where.setdefault((route, name), path)
    # The spy sees what each view reads: the parameters of core.query and of filter forms.
    for expected in [
        ("bench:compare", "wsat_x"),
        ("bench:compare", "scale"),
        ("bench:compare_chart", "run_a"),
        ("bench:drive", "wsat_x"),
        ("bench:leaderboard", "metric"),
        ("bench:leaderboard", "spare"),
        ("bench:leaderboard", "pattern"),
        ("bench:pick", "side"),
        ("drives:home", "page"),
        ("drives:home", "kind"),
    ]:
        assert expected in where, expected
    taken = defaultdict(list)
    for (route, name), path in sorted(where.items()):
        response = client.get(with_value(path, name, NONSENSE))
        body = response.content.decode(errors="replace")
        if response.status_code != 400 or f"<code>{name}</code>" not in body:
            taken[route].append((name, response.status_code))
        elif "Traceback" in body:
            taken[route].append((name, "a traceback"))
    assert dict(taken) == {}, "\n".join(f"{k}: {v}" for k, v in taken.items())


# Whole numbers a page reads itself: a page, a run; a spare-area level (0 is one).
NUMBERS = [
    ("/", "page", 1, MAX_PAGE),
    ("/bench/tests/randwrite-4k-qd3-8g/", "page", 1, MAX_PAGE),
    ("/bench/tests/consistency-4k-qd32/", "page", 1, MAX_PAGE),
    ("/bench/tests/consistency-4k-qd32/", "spare", 0, 90),
    (f"/bench/compare/{PAIRS[0][0]}/{PAIRS[0][1]}/", "run_a", 1, 2**31 - 1),
    (f"/bench/compare/{PAIRS[0][0]}/{PAIRS[0][1]}/", "run_b", 1, 2**31 - 1),
]


@pytest.mark.parametrize(("path", "name", "low", "high"), NUMBERS)
def test_a_number_out_of_its_bounds_is_a_400_saying_them(client, path, name, low, high):
    assert client.get(path, {name: str(low)}).status_code in (200, 404)
    for value in (str(low - 1), str(high + 1), "1.5", "1e400", " 1", "١"):
        response = client.get(path, {name: value})
        assert response.status_code == 400, (name, value)
        assert f"must be a whole number from {low:,} to {high:,}" in response.content.decode()


def test_a_parameter_left_out_or_empty_takes_its_default(client):
    load()
    path = f"/bench/compare/{PAIRS[0][0]}/{PAIRS[0][1]}/"
    for query in ({}, {"scale": ""}, {"view": ""}, {"wsat_x": ""}, {"run_a": ""}):
        html = client.get(path, query).content.decode()
        assert 'aria-current="true" data-scale="log"' in html, query
    for path, name in (("/", "page"), ("/bench/tests/consistency-4k-qd32/", "spare")):
        assert client.get(path, {name: ""}).status_code == 200


def test_the_400_of_a_parameter_is_the_problems_alone_to_htmx(client):
    url = "/bench/tests/randwrite-4k-qd3-8g/"
    response = client.get(url, {"metric": "speed"}, HTTP_HX_REQUEST="true")
    html = response.content.decode()
    assert response.status_code == 400 and "<html" not in html
    assert f"<code>metric</code>: {choice_message(METRICS)}" in html


def test_the_route_of_every_address_named_here_exists():
    for paths in DATA.values():
        for path in paths:
            resolve(path.partition("?")[0])
