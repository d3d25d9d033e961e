"""Per-test leaderboards and the index of tests."""

from collections.abc import Callable
from dataclasses import dataclass
from urllib.parse import urlencode

from django.http import Http404, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_safe

from core.filters import filter_context
from drives.filters import DriveFilter
from drives.models import Drive
from drives.selectors import controllers
from results import charts, sweeps
from results.filters import ENTRIES, LeaderboardFilter, MethodFilter, QueueDepthFilter
from results.kinds import KIND_OF, RANKED_KINDS
from results.selectors.kind_rankings import (
    METHODS,
    chosen_drives,
    kind_ranking,
    ranked_count,
    ranked_test,
)
from results.selectors.rankings import (
    Metric,
    leaderboard,
    leaderboard_choices,
    ranked_drives,
    suites_with_tests,
    too_few_ios,
)
from results.tails import RANKED_IOS
from results.views.chart_images import Chart
from results.views.common import (
    HtmxHttpRequest,
    bad_request,
    choice,
    highlight_list,
    highlighted,
    page_number,
    partial,
)
from results.views.methodology import test_links

PAGE_SIZE = 25
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
    image read it alike); None for a test of another kind (`_ranked`); or the page
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
    test, controllers, index = leaderboard_choices(ranked)
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
        index=index,
    )
    return BoardRead(test, controllers, filters, metric, page, highlight, board)


@require_safe
def leaderboard_page(request: HtmxHttpRequest, test_id: str) -> HttpResponse:
    read = _board(request, test_id)
    if read is None:
        return kind_page(request, test_id)
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
        # A test of one depth has no depth to choose.
        **filter_context(
            LeaderboardFilter,
            read.filters.form.cleaned_data,
            read.controllers,
            omit=() if test.family else ("qd",),
        ),
        "sweep": _sweep_links(test, request),
        "sweep_name": sweeps.sweep_label(test.name) if test.family else "",
    }
    if read.metric == Metric.LATENCY_P999:
        # Ranked only where 10,000 I/Os or more support it: how many that leaves out.
        left_out = too_few_ios(test=test, filters=read.filters)
        context["tail"] = {"needs": RANKED_IOS, "left_out": left_out}
    else:
        context["tail"] = None
    if not context["rows"] and page == 1:
        context.update(
            _quick_instead(
                request,
                read.filters.form.cleaned_data.get("method"),
                lambda query: _ranked_drives(
                    test, LeaderboardFilter(query, queryset=ENTRIES), read.metric
                ),
            )
        )
    return render(request, partial(request, "bench/leaderboard.html", "board"), context)


def _ranked_drives(test, filters: LeaderboardFilter, metric: str) -> int:
    return ranked_drives(test=test, filters=filters, metric=metric) if filters.is_valid() else 0


def _quick_instead(request: HtmxHttpRequest, method: str | None, count) -> dict:
    """What a ranking of full-length runs that ranks no drive says instead: how many drives
    its quick runs rank with the same query (`count(query)`), and the address that ranks
    them; nothing for a ranking of quick runs, or when none has one either."""
    if method == MethodFilter.QUICK:
        return {}
    query = request.GET.copy()
    query.pop("page", None)
    query["method"] = MethodFilter.QUICK
    found = count(query)
    return {"quick_count": found, "quick_url": f"?{query.urlencode()}"} if found else {}


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


@dataclass(frozen=True, slots=True)
class RankedRead:
    """What a ranking page of a test of another kind reads for its query."""

    test: object
    ranking: object  # results.selectors.kind_rankings.KindRanking
    filters: DriveFilter


def _ranked(request: HtmxHttpRequest, test_id: str) -> RankedRead | HttpResponse:
    """The ranking of a test of a kind that is not throughput (results.kinds: the kind's
    `ranked_by`) for the request's query: the drive filters, the kind's choice (a spare-area
    level, a data pattern), full-length or quick runs (`method`, as the other rankings'
    filter); 404 for no such test; or the page saying what in the query is wrong."""
    test = ranked_test(test_id, RANKED_KINDS)
    if test is None:
        raise Http404("No such test")
    by = KIND_OF[test.kind].ranked_by(test)
    filters = DriveFilter(request.GET, queryset=Drive.objects.all())
    if not filters.is_valid():
        return bad_request(request, filters.errors)
    ranking = kind_ranking(
        test=test,
        by=by,
        choice=by.read_choice(request.GET),
        method=choice(request.GET, "method", METHODS),
        drives=chosen_drives(filters),
        page=page_number(request.GET),
        page_size=PAGE_SIZE,
        highlight=highlighted(request),
    )
    return RankedRead(test, ranking, filters)


def kind_page(request: HtmxHttpRequest, test_id: str) -> HttpResponse:
    """A ranking page of a test that is not throughput (`_ranked`)."""
    read = _ranked(request, test_id)
    if isinstance(read, HttpResponse):
        return read
    test, ranking, filters = read.test, read.ranking, read.filters
    by = ranking.by
    rows = ranking.rows + ranking.elsewhere
    instead = {}
    if not rows and ranking.page == 1:
        instead = _quick_instead(
            request,
            ranking.method,
            lambda query: ranked_count(
                test=test,
                by=by,
                choice=ranking.choice,
                method=MethodFilter.QUICK,
                drives=chosen_drives(filters),
            ),
        )
    context = {
        **_pager(request, ranking.page, ranking.has_next),
        "test": test,
        "methodology": test_links(test),
        "ranking": ranking,
        "by": by,
        "rows": rows,
        "figure": charts.kind_bars(ranking),
        "choices": [(value, by.choice_text(value)) for value in ranking.choices],
        "method_choices": MethodFilter.CHOICES,
        "highlight": highlight_list(request, highlighted(request), (r.drive for r in rows)),
        **filter_context(DriveFilter, filters.form.cleaned_data, controllers()),
        **instead,
    }
    return render(request, partial(request, "bench/kind_ranking.html", "board"), context)


def ranking_charts(
    request: HtmxHttpRequest, test_id: str
) -> dict[str, Callable[[], Chart]] | HttpResponse:
    """The leaderboard's chart for results/views/chart_images.py: its ranking ("ranking"),
    read and drawn as the page does."""
    read = _board(request, test_id)
    if isinstance(read, HttpResponse):
        return read
    if read is None:
        read = _ranked(request, test_id)
        if isinstance(read, HttpResponse):
            return read
        test, ranking = read.test, read.ranking
        title = f"{test.name}: {ranking.by.unit.split(' (')[0]}, ranks {_ranks(ranking.rows)}"
        return {"ranking": lambda: Chart(title, charts.kind_bars(ranking))}
    board = read.board
    name = sweeps.sweep_label(read.test.name) if read.test.family else read.test.name
    if read.test.family:
        name += f" at QD{read.test.queue_depth}"
    title = f"{name}: leaderboard, ranks {_ranks(board.rows)}"
    return {"ranking": lambda: Chart(title, charts.leaderboard_bars(board))}


def _ranks(rows) -> str:
    return f"{rows[0].rank}–{rows[-1].rank}" if rows else "none"
