from django.urls import path

from results.views import browse, compare, drives, leaderboards, methodology, upload, value

app_name = "bench"
urlpatterns = [
    path("drives/<slug:slug>/", drives.drive_detail, name="drive"),
    path("bench/compare/", compare.compare_start, name="compare_start"),
    path("bench/compare/pick/", compare.pick, name="pick"),
    path("bench/compare/<slug:a>/<slug:b>/", compare.compare_page, name="compare"),
    path("bench/compare/<slug:a>/<slug:b>/compare.csv", compare.compare_csv, name="compare_csv"),
    path(
        "bench/compare/<slug:a>/<slug:b>/compare.md",
        compare.compare_markdown,
        name="compare_markdown",
    ),
    path("bench/upload/", upload.upload, name="upload"),
    path("bench/tests/", leaderboards.test_index, name="tests"),
    path("bench/methodology/", methodology.methodology_page, name="methodology"),
    path("bench/tests/<slug:test_id>/", leaderboards.leaderboard_page, name="leaderboard"),
    path("bench/value/", value.value_page, name="value"),
    path("bench/controllers/<slug:slug>/", browse.controller_page, name="controller"),
    path("bench/nand/<slug:slug>/", browse.nand_page, name="nand"),
]
