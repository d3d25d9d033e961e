import json

from django.urls import path, register_converter

from core.versions import DUMPS, VALUE, drive_scope, ranking_scope
from results import sweeps
from results.documents import TEST_CATALOG
from results.filters import highlight_slugs
from results.kinds import RANKED_KINDS
from results.views import (
    browse,
    chart_images,
    compare,
    data,
    drives,
    feeds,
    leaderboards,
    loadgen,
    methodology,
    runs,
    upload,
    value,
)

# The compare URLs' drives: two, three or four slugs (A, the reference, first).
COMPARED = tuple("/".join(f"<slug:{key}>" for key in "abcd"[:n]) for n in range(2, 5))

app_name = "bench"
register_converter(chart_images.ImageFormatConverter, "image_format")
register_converter(data.DumpNameConverter, "dump")
register_converter(loadgen.ReleaseVersionConverter, "release")


def with_charts(route: str, view, name: str, source) -> list:
    """A page's route and its charts' (results/views/chart_images.py): each chart of
    `source` at <route>chart/<id>.svg and .png (`<name>_chart`) and
    <route>chart/<id>/embed/ (`<name>_chart_embed`), cached by the page's scopes."""
    extra = {"source": source, "page": name}
    return [
        path(route, view, name=name),
        path(
            f"{route}{chart_images.CHART_PATH}<slug:chart>.<image_format:fmt>",
            chart_images.image,
            extra,
            name=f"{name}_chart",
        ),
        path(
            f"{route}{chart_images.CHART_PATH}<slug:chart>/embed/",
            chart_images.embed,
            extra,
            name=f"{name}_chart_embed",
        ),
    ]


# The pages with charts, each with their images: (route, view, name, chart source). A page
# compares more drives by a route with more slugs, the same view and source.
CHARTED_PAGES = (
    *(
        (f"bench/compare/{drives}/", compare.compare_page, "compare", compare.compare_charts)
        for drives in COMPARED
    ),
    (
        "bench/tests/<slug:test_id>/",
        leaderboards.leaderboard_page,
        "leaderboard",
        leaderboards.ranking_charts,
    ),
    ("bench/value/", value.value_page, "value", value.value_charts),
)

urlpatterns = [
    path("drives/<slug:slug>/", drives.drive_detail, name="drive"),
    path("drives/<slug:slug>/feed/", feeds.drive_feed, name="drive_feed"),
    path("bench/compare/", compare.compare_start, name="compare_start"),
    path("bench/compare/pick/", compare.pick, name="pick"),
    # Two to four drives, each URL under one name (reverse() takes the one of as many slugs).
    *(
        route
        for drives in COMPARED
        for route in (
            path(f"bench/compare/{drives}/compare.csv", compare.compare_csv, name="compare_csv"),
            path(
                f"bench/compare/{drives}/compare.md",
                compare.compare_markdown,
                name="compare_markdown",
            ),
        )
    ),
    path("bench/upload/", upload.upload, name="upload"),
    path("bench/runs/feed/", feeds.catalog_feed, name="runs_feed"),
    path("bench/runs/<int:pk>/", runs.run_detail, name="run"),
    path("bench/runs/<int:pk>/document.json", runs.run_document, name="run_document"),
    path("bench/tests/", leaderboards.test_index, name="tests"),
    path("bench/tests/<slug:test_id>/feed/", feeds.test_feed, name="test_feed"),
    path("bench/methodology/", methodology.methodology_page, name="methodology"),
    path("bench/loadgen/", loadgen.loadgen_page, name="loadgen"),
    path("bench/loadgen/<release:version>/<str:file>", loadgen.loadgen_file, name="loadgen_file"),
    path("bench/controllers/<slug:slug>/", browse.controller_page, name="controller"),
    path("data/", data.data_page, name="data"),
    path("data/<dump:dump>/", data.data_dump, name="data_dump"),
    path("data/<dump:dump>/<str:file>", data.data_file, name="data_file"),
    path("bench/nand/<slug:slug>/", browse.nand_page, name="nand"),
    *(route for page in CHARTED_PAGES for route in with_charts(*page)),
]


# What the pages' kept responses depend on besides the catalog (benchsite/response_cache.py):
# scopes (core.versions) from the URL's arguments and query; a page not named here depends
# on every write. The API's reads of the same things say the same (benchsite/urls.py).


def highlighted(query) -> list[str]:
    return [drive_scope(slug) for slug in highlight_slugs(query.getlist("highlight"))]


def compare_scopes(query, *slugs: str, **named: str) -> list[str]:
    """A comparison's: every drive it compares (two to four)."""
    return [drive_scope(slug) for slug in (*slugs, *named.values())]


# The ranking of a test of a kind that is not throughput (results.kinds: its `ranked_by`)
# reads its kind's rows and the status of their runs, and withdrawing a run touches none of
# those rows: that ranking depends on every write.
_SERIES_RANKED = frozenset(
    test["id"]
    for test in json.loads(TEST_CATALOG.read_text())["tests"]
    if test["kind"] in RANKED_KINDS
)


def ranking_scopes(query, identifier: str) -> list[str] | None:
    """A ranking's: the test it ranks (a queue-depth sweep's at the depth ?qd= chooses), and
    the drives it highlights; a test's of another kind than throughput, every write."""
    if identifier in _SERIES_RANKED:
        return None
    ranked = sweeps.member_of_query(identifier, query.get("qd"))
    return [ranking_scope(ranked), *highlighted(query)]


def value_scopes(query) -> list[str]:
    return [VALUE, *highlighted(query)]


def dump_scopes(query) -> list[str]:
    """The dumps' list: files, not rows; the dump command moves its scope (results.dumps)."""
    return [DUMPS]


def _chart_scopes(page_scopes):
    """A chart's: its page's (the URL's chart, format and view arguments aside)."""

    def scopes(query, chart, source, page, fmt=None, **kwargs):
        return page_scopes(query, **kwargs)

    return scopes


def every_write(query, **kwargs) -> None:
    """A read that depends on every write (ANY), said where a reader might look for it."""
    return None


response_scopes = {
    "drive": lambda query, slug: [drive_scope(slug)],
    # A drive's feed lists its runs: its scope moves when one is written (published, held,
    # withdrawn). Every run and a filter's runs are of any drive; a test's runs are not
    # all in its ranking (an older run of a drive, a partial result), whose scope moves
    # only when an entry changes: those feeds depend on every write.
    "drive_feed": lambda query, slug: [drive_scope(slug)],
    "runs_feed": every_write,
    "test_feed": every_write,
    "compare": compare_scopes,
    "compare_csv": compare_scopes,
    "compare_markdown": compare_scopes,
    "leaderboard": lambda query, test_id: ranking_scopes(query, test_id),
    "value": value_scopes,
}
for _name in ("compare", "leaderboard", "value"):
    response_scopes[f"{_name}_chart"] = _chart_scopes(response_scopes[_name])
    response_scopes[f"{_name}_chart_embed"] = _chart_scopes(response_scopes[_name])
