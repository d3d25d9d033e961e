from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import include, path
from rest_framework.routers import DefaultRouter

from benchsite import views
from results.api.runs import OwnRunViewSet, RunViewSet

handler500 = "benchsite.views.server_error"

router = DefaultRouter()
router.register("runs", RunViewSet, basename="run")
router.register("me/runs", OwnRunViewSet, basename="own-run")

urlpatterns = [
    path("admin/", admin.site.urls),
    path("healthz", views.health, name="health"),
    path("api/v1/", include((router.urls, "api"))),
    path(
        "accounts/login/",
        auth_views.LoginView.as_view(template_name="registration/login.html"),
        name="login",
    ),
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("", include("results.urls")),
    path("", include("drives.urls")),
]
