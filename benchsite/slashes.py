"""Django's CommonMiddleware with its redirect to the address ending in a slash made a 308
(permanent, method and body kept) rather than a 301: `POST /api/v1/runs` reaches the upload
endpoint at /api/v1/runs/ with its document, where a 301 turns it into a GET without one
(and Django, in DEBUG, raises rather than redirect a POST: a 500)."""

from django.http import HttpResponsePermanentRedirect
from django.middleware import common
from django.utils.http import escape_leading_slashes


class PermanentRedirectKeepingMethod(HttpResponsePermanentRedirect):
    status_code = 308


class CommonMiddleware(common.CommonMiddleware):
    response_redirect_class = PermanentRedirectKeepingMethod

    def get_full_path_with_slash(self, request) -> str:
        return escape_leading_slashes(request.get_full_path(force_append_slash=True))
