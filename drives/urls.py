from django.urls import path

from core.versions import DRIVES
from drives import views

app_name = "drives"
urlpatterns = [
    path("", views.home, name="home"),
]


# What a page's kept response depends on besides the catalog (benchsite/response_cache.py).


def drive_list_scopes(query, **kwargs) -> list[str]:
    return [DRIVES]


response_scopes = {"home": drive_list_scopes}
