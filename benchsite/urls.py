from django.contrib import admin
from django.urls import include, path

from benchsite import views

handler500 = "benchsite.views.server_error"

urlpatterns = [
    path("admin/", admin.site.urls),
    path("healthz", views.health, name="health"),
    path("", include("results.urls")),
    path("", include("drives.urls")),
]
