"""Per-test leaderboards and the index of tests."""

from collections.abc import Callable
from dataclasses import dataclass
from urllib.parse import urlencode

from django.http import Http404, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_safe

from core.filters import filter_context
from results import charts, sweeps
from results.filters import ENTRIES, LeaderboardFilter, MethodFilter, QueueDepthFilter
from results.selectors.rankings import Metric, leaderboard, leaderboard_choices, suites_with_tests
from results.selectors.steady_ranking import METHODS, consistency_test, steady_ranking
from results.views.chart_images import Chart
from results.views.common import (
    HtmxHttpRequest,
    bad_request,
    choice,
    highlight_list,
    highlighted,
    page_number,
    partial,
    whole_number,
)
from results.views.methodology import test_links

PAGE_SIZE = 25
MAX_SPARE_PERCENT = 90  # a consistency series' spare area (its check constraint)
METRICS = tuple(m for m, _ in Metric.CHOICES)


@require_safe
def test_index(request: HtmxHttpRequest) -> HttpResponse:
    suites = suites_with_tests()
    for suite in suites:
        for test in suite.tests.all():  # the prefetched tests the template lists
            test.methodology = test_links(test)
    return render(request, "bench/tests.html", {"suites": suites})


def _sweep_links(test, request: HtmxHttpRequest) -> list[tuple[int, str, bool]]:
    """A sweep's depths, each with the link that ranks it (the query kept but the page);
    empty for a test that is no sweep's."""
    if not test.family:
        return []
    query = request.GET.copy()
    query.pop("page", None)
    links = []
    for depth in sweeps.families()[test.family]:
        query["qd"] = str(depth)
        links.append((depth, f"?{query.urlencode()}", depth == test.queue_depth))
    return links


@dataclass(frozen=True, slots=True)
class BoardRead:
    """What a leaderboard page reads for its query: the test ranked and its ranking."""

    test: object
    controllers: list
    filters: LeaderboardFilter
    metric: str
    page: int
    highlight: tuple[str, ...]
    board: object


def _board(request: HtmxHttpRequest, test_id: str) -> BoardRead | HttpResponse | None:
    """The leaderboard of `test_id` for the request's query (its page and its chart's
    image read it alike); None for a test ranked by steady state (`_steady`); or the page
    saying what in the query is wrong."""
    filters = LeaderboardFilter(request.GET, queryset=ENTRIES)
    valid = filters.is_valid()
    errors = filters.errors if not valid else {}
    try:
        ranked = sweeps.member(
            test_id, QueueDepthFilter.depth(filters.form.cleaned_data.get("qd")) if valid else None
        )
    except sweeps.SweepDepthError as error:
        ranked, errors = sweeps.member(test_id, None), {"qd": [str(error)]}
    test, controllers = leaderboard_choices(ranked)
    if test is None:
        return None
    if errors:
        return bad_request(request, errors)
    metric = choice(request.GET, "metric", METRICS)
    page = page_number(request.GET)
    highlight = highlighted(request)
    board = leaderboard(
        test=test,
        filters=filters,
        metric=metric,
        page=page,
        page_size=PAGE_SIZE,
        highlight=highlight,
    )
    return BoardRead(test, controllers, filters, metric, page, highlight, board)


@require_safe
def leaderboard_page(request: HtmxHttpRequest, test_id: str) -> HttpResponse:
    read = _board(request, test_id)
    if read is None:
        return steady_page(request, test_id)
    if isinstance(read, HttpResponse):
        return read
    test, board, page = read.test, read.board, read.page
    context = {
        **_pager(request, page, board.has_next),
        "test": test,
        "methodology": test_links(test),
        "board": board,
        "rows": board.rows + board.elsewhere,
        "first_rank": board.rows[0].rank if board.rows else None,
        "last_rank": board.rows[-1].rank if board.rows else None,
        "metric": read.metric,
        "metrics": Metric.CHOICES,
        "figure": charts.leaderboard_bars(board),
        "highlight": highlight_list(
            request, read.highlight, (r.entry.drive for r in board.rows + board.elsewhere)
        ),
        **filter_context(LeaderboardFilter, read.filters.form.cleaned_data, read.controllers),
        "sweep": _sweep_links(test, request),
        "sweep_name": sweeps.sweep_label(test.name) if test.family else "",
    }
    if not test.family:  # one depth: nothing to choose
        context["filter_fields"] = [f for f in context["filter_fields"] if f.name != "qd"]
    return render(request, partial(request, "bench/leaderboard.html", "board"), context)


def _pager(request: HtmxHttpRequest, page: int, has_next: bool) -> dict[str, str]:
    """A ranking page's links to the page before and after it and to the first, its query
    kept ("" where there is none)."""
    query = request.GET.copy()
    query.pop("page", None)
    base = query.urlencode()
    return {
        "previous_url": f"?{base}&{urlencode({'page': page - 1})}" if page > 1 else "",
        "next_url": f"?{base}&{urlencode({'page': page + 1})}" if has_next else "",
        "first_page_url": f"?{base}" if page > 1 else "",
    }


def _steady(request: HtmxHttpRequest, test_id: str):
    """A consistency test's ranking for the request's query (404 for a test that is none):
    the drives by steady-state IOPS at one spare-area level (`spare`), full-length or quick
    series (`method`, as the other rankings' filter)."""
    test = consistency_test(test_id)
    if test is None:
        raise Http404("No such test")
    ranking = steady_ranking(
        test=test,
        spare_area=whole_number(request.GET, "spare", minimum=0, maximum=MAX_SPARE_PERCENT),
        method=choice(request.GET, "method", METHODS),
        page=page_number(request.GET),
        page_size=PAGE_SIZE,
        highlight=highlighted(request),
    )
    return test, ranking


def steady_page(request: HtmxHttpRequest, test_id: str) -> HttpResponse:
    """A consistency test's ranking page (`_steady`)."""
    test, ranking = _steady(request, test_id)
    context = {
        **_pager(request, ranking.page, ranking.has_next),
        "test": test,
        "methodology": test_links(test),
        "ranking": ranking,
        "figure": charts.steady_bars(ranking),
        "spare_choices": [(level, f"{level}% of the target unused") for level in ranking.levels],
        "method_choices": MethodFilter.CHOICES,
    }
    return render(request, "bench/steady_ranking.html", context)


def ranking_charts(
    request: HtmxHttpRequest, test_id: str
) -> dict[str, Callable[[], Chart]] | HttpResponse:
    """The leaderboard's chart for results/views/chart_images.py: its ranking ("ranking"),
    read and drawn as the page does."""
    read = _board(request, test_id)
    if isinstance(read, HttpResponse):
        return read
    if read is None:
        test, ranking = _steady(request, test_id)
        title = f"{test.name}: steady-state IOPS, ranks {_ranks(ranking.rows)}"
        return {"ranking": lambda: Chart(title, charts.steady_bars(ranking))}
    board = read.board
    name = sweeps.sweep_label(read.test.name) if read.test.family else read.test.name
    if read.test.family:
        name += f" at QD{read.test.queue_depth}"
    title = f"{name}: leaderboard, ranks {_ranks(board.rows)}"
    return {"ranking": lambda: Chart(title, charts.leaderboard_bars(board))}


def _ranks(rows) -> str:
    return f"{rows[0].rank}–{rows[-1].rank}" if rows else "none"
