"""Site-wide views: the error pages and the health check."""

import sys

from django.db import InterfaceError, OperationalError, connections
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.template.loader import render_to_string
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

RETRY_AFTER_S = 5
UNAVAILABLE = "Bench is briefly unavailable (its database cannot be reached); try again shortly."
SERVER_ERROR = "Something went wrong on our side; it has been logged."
# Errors that mean "not now" rather than "broken": the database or the cache cannot be
# reached, or a statement was cancelled (statement timeout, server shutting down).
UNAVAILABLE_ERRORS = (OperationalError, InterfaceError, RedisConnectionError, RedisTimeoutError)


def _error(request: HttpRequest, status: int, message: str) -> HttpResponse:
    # No database, session or user here: the page must render while they are down.
    if request.path.startswith("/api/"):
        # The API's one error body (benchsite/api.py): a summary and the errors by pointer.
        response = JsonResponse({"detail": message, "errors": []}, status=status)
    else:
        body = render_to_string("error.html", {"status": status, "message": message})
        response = HttpResponse(body, status=status)
    response["Cache-Control"] = "no-store"
    return response


def server_error(request: HttpRequest) -> HttpResponse:
    """handler500: 503 with Retry-After while the database is unreachable, else a plain 500."""
    if isinstance(sys.exc_info()[1], UNAVAILABLE_ERRORS):
        response = _error(request, 503, UNAVAILABLE)
        response["Retry-After"] = str(RETRY_AFTER_S)
        return response
    return _error(request, 500, SERVER_ERROR)


@never_cache
@require_GET
def health(request: HttpRequest) -> HttpResponse:
    """For load balancers: 200 when this worker can query the primary database."""
    with connections["default"].cursor() as cursor:
        cursor.execute("SELECT 1")
    return HttpResponse("ok\n", content_type="text/plain")
