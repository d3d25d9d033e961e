"""The site's URLs plus the trivial view the web benchmark measures every page against."""

from django.http import HttpResponse
from django.urls import path

from benchsite.urls import urlpatterns as site_urlpatterns


def trivial(request):
    return HttpResponse("ok")


urlpatterns = [path("bench-trivial/", trivial), *site_urlpatterns]
