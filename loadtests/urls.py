"""The site's URLs plus the trivial views the load benchmarks measure pages and API against."""

from django.http import HttpResponse
from django.urls import path
from rest_framework.response import Response
from rest_framework.views import APIView

from benchsite.urls import handler400, handler403, handler404, handler500  # noqa: F401
from benchsite.urls import urlpatterns as site_urlpatterns


def trivial(request):
    return HttpResponse("ok")


class TrivialApi(APIView):
    """The cheapest DRF endpoint: what every API figure of bench-api is a fraction of."""

    def get(self, request):
        return Response({"ok": True})


urlpatterns = [
    path("bench-trivial/", trivial),
    path("bench-trivial-api/", TrivialApi.as_view()),
    *site_urlpatterns,
]
