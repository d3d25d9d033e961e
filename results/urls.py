import json

from django.urls import path

from core.versions import VALUE, drive_scope, ranking_scope
from results import sweeps
from results.filters import highlight_slugs
from results.services import TEST_CATALOG
from results.views import (
    browse,
    compare,
    drives,
    leaderboards,
    methodology,
    runs,
    upload,
    value,
)

# The compare URLs' drives: two, three or four slugs (A, the reference, first).
COMPARED = tuple("/".join(f"<slug:{key}>" for key in "abcd"[:n]) for n in range(2, 5))

app_name = "bench"
urlpatterns = [
    path("drives/<slug:slug>/", drives.drive_detail, name="drive"),
    path("bench/compare/", compare.compare_start, name="compare_start"),
    path("bench/compare/pick/", compare.pick, name="pick"),
    # Two to four drives, each URL under one name (reverse() takes the one of as many slugs).
    *(
        route
        for drives in COMPARED
        for route in (
            path(f"bench/compare/{drives}/", compare.compare_page, name="compare"),
            path(f"bench/compare/{drives}/compare.csv", compare.compare_csv, name="compare_csv"),
            path(
                f"bench/compare/{drives}/compare.md",
                compare.compare_markdown,
                name="compare_markdown",
            ),
        )
    ),
    path("bench/upload/", upload.upload, name="upload"),
    path("bench/runs/<int:pk>/", runs.run_detail, name="run"),
    path("bench/runs/<int:pk>/document.json", runs.run_document, name="run_document"),
    path("bench/tests/", leaderboards.test_index, name="tests"),
    path("bench/methodology/", methodology.methodology_page, name="methodology"),
    path("bench/tests/<slug:test_id>/", leaderboards.leaderboard_page, name="leaderboard"),
    path("bench/value/", value.value_page, name="value"),
    path("bench/controllers/<slug:slug>/", browse.controller_page, name="controller"),
    path("bench/nand/<slug:slug>/", browse.nand_page, name="nand"),
]


# What the pages' kept responses depend on besides the catalog (benchsite/response_cache.py):
# scopes (core.versions) from the URL's arguments and query; a page not named here depends
# on every write. The API's reads of the same things say the same (benchsite/urls.py).


def highlighted(query) -> list[str]:
    return [drive_scope(slug) for slug in highlight_slugs(query.getlist("highlight"))]


def compare_scopes(query, *slugs: str, **named: str) -> list[str]:
    """A comparison's: every drive it compares (two to four)."""
    return [drive_scope(slug) for slug in (*slugs, *named.values())]


# A consistency test's ranking reads series and the status of their runs, and withdrawing a
# run touches no series row: that ranking depends on every write.
_SERIES_RANKED = frozenset(
    test["id"]
    for test in json.loads(TEST_CATALOG.read_text())["tests"]
    if test["kind"] == "consistency"
)


def ranking_scopes(query, identifier: str) -> list[str] | None:
    """A ranking's: the test it ranks (a queue-depth sweep's at the depth ?qd= chooses), and
    the drives it highlights; a consistency test's, every write."""
    if identifier in _SERIES_RANKED:
        return None
    ranked = sweeps.member_of_query(identifier, query.get("qd"))
    return [ranking_scope(ranked), *highlighted(query)]


def value_scopes(query) -> list[str]:
    return [VALUE, *highlighted(query)]


response_scopes = {
    "drive": lambda query, slug: [drive_scope(slug)],
    "compare": compare_scopes,
    "compare_csv": compare_scopes,
    "compare_markdown": compare_scopes,
    "leaderboard": lambda query, test_id: ranking_scopes(query, test_id),
    "value": value_scopes,
}
