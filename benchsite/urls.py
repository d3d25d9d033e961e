from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import include, path, re_path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerSplitView
from rest_framework.routers import DefaultRouter

from benchsite import views
from drives import api as drives_api
from drives import urls as drives_urls
from results import urls as results_urls
from results.api import dumps, reads, runs

handler400 = "benchsite.views.bad_request"
handler403 = "benchsite.views.permission_denied"
handler404 = "benchsite.views.not_found"
handler500 = "benchsite.views.server_error"

# The REST API, wired once: /api/v1/ (benchsite/api.py has its shared pieces).
router = DefaultRouter()
router.register("drives", drives_api.DriveViewSet, basename="drive")
router.register("manufacturers", drives_api.ManufacturerViewSet, basename="manufacturer")
router.register("controllers", drives_api.ControllerViewSet, basename="controller")
router.register("nand-types", drives_api.NandTypeViewSet, basename="nand-type")
router.register("firmware", drives_api.FirmwareViewSet, basename="firmware")
router.register("prices", drives_api.PriceViewSet, basename="price")
router.register("suites", reads.SuiteViewSet, basename="suite")
router.register("tests", reads.TestViewSet, basename="test")
router.register("runs", runs.RunViewSet, basename="run")
router.register("me/runs", runs.OwnRunViewSet, basename="own-run")
router.register("results", reads.ResultViewSet, basename="result")
router.register("consistency", reads.ConsistencyViewSet, basename="consistency")
router.register("trim", reads.TrimViewSet, basename="trim")
router.register("saturation", reads.SaturationViewSet, basename="saturation")

api_urls = [
    *(
        path(f"compare/{drives}/", reads.CompareView.as_view(), name="compare")
        for drives in results_urls.COMPARED
    ),
    path(
        "tests/<slug:identifier>/leaderboard/", reads.LeaderboardView.as_view(), name="leaderboard"
    ),
    path("tests/<slug:identifier>/ranking/", reads.RankingView.as_view(), name="ranking"),
    path("value/", reads.ValueView.as_view(), name="value"),
    path("dumps/", dumps.DumpListView.as_view(), name="dumps"),
    *router.urls,
    # Last: any other address ending in a slash (one without is first redirected to it).
    re_path(r"^.*/$", views.api_not_found),
]

urlpatterns = [
    path("admin/", admin.site.urls),
    path("healthz", views.health, name="health"),
    path("api/v1/", include((api_urls, "api"))),
    path("api/schema/", SpectacularAPIView.as_view(), name="schema"),
    path(runs.DOCUMENT_SCHEMA_URL.lstrip("/"), runs.document_schema, name="result-document-schema"),
    path("api/docs/", SpectacularSwaggerSplitView.as_view(url_name="schema"), name="api-docs"),
    path(
        "accounts/login/",
        auth_views.LoginView.as_view(template_name="registration/login.html"),
        name="login",
    ),
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("", include("results.urls")),
    path("", include("drives.urls")),
]


# What each read's kept response depends on besides the catalog, by URL name: a function of
# the URL's query and arguments giving scopes (core.versions). benchsite/response_cache.py
# serves a kept response while their versions stand; a read not named here depends on every
# write.
response_scopes = {
    **{f"bench:{name}": scopes for name, scopes in results_urls.response_scopes.items()},
    **{f"drives:{name}": scopes for name, scopes in drives_urls.response_scopes.items()},
    "api:compare": results_urls.compare_scopes,
    "api:leaderboard": results_urls.ranking_scopes,
    "api:value": results_urls.value_scopes,
    "api:dumps": results_urls.dump_scopes,
    "api:drive-list": drives_urls.drive_list_scopes,
    "api:drive-detail": drives_urls.drive_list_scopes,
}
