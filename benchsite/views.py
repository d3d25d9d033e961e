"""Site-wide views: the error pages and the health check."""

import sys

from django.db import InterfaceError, OperationalError, connections
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.template.loader import render_to_string
from django.views.decorators.cache import never_cache
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_safe
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

from core.query import QueryError
from drives.views import bad_request as bad_query

RETRY_AFTER_S = 5
UNAVAILABLE = "Bench is briefly unavailable (its database cannot be reached); try again shortly."
SERVER_ERROR = "Something went wrong on our side; it has been logged."
NOT_FOUND = "There is nothing at this address."
BAD_REQUEST = "This request cannot be read (too many fields or files, or a malformed header)."
FORBIDDEN = "You may not do this."
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


def not_found(request: HttpRequest, exception: Exception) -> HttpResponse:
    """handler404: the site's page, or the API's error body under /api/ (an address no route
    of the API matches; the API's own views answer their 404s themselves)."""
    message = exception.args[0] if exception.args and isinstance(exception.args[0], str) else ""
    return _error(
        request, 404, message if message and not request.path.startswith("/api/") else NOT_FOUND
    )


@csrf_exempt
def api_not_found(request: HttpRequest) -> HttpResponse:
    """An address under /api/v1/ that no route of the API matches (a path parameter its
    pattern refuses, say): the API's 404 body, in development too, where DEBUG has Django
    answer handler404's cases with its own HTML page."""
    return _error(request, 404, NOT_FOUND)


def bad_request(request: HttpRequest, exception: Exception) -> HttpResponse:
    """handler400: what Django refuses before any view (more fields or files than it reads,
    a malformed Host header), as a page or the API's error body."""
    return _error(request, 400, BAD_REQUEST)


class QueryErrorMiddleware:
    """A page's query parameter it cannot take (core.query.QueryError, raised by the view
    or by what it reads through): the 400 page naming it, as a filter form's errors are
    shown (to htmx, the list of problems alone)."""

    def __init__(self, get_response) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)

    def process_exception(self, request: HttpRequest, exception: Exception):
        if isinstance(exception, QueryError):
            return bad_query(request, exception.errors)  # type: ignore[arg-type]
        return None


def permission_denied(request: HttpRequest, exception: Exception) -> HttpResponse:
    """handler403, as a page or the API's error body."""
    return _error(request, 403, FORBIDDEN)


def server_error(request: HttpRequest) -> HttpResponse:
    """handler500: 503 with Retry-After while the database is unreachable, else a plain 500."""
    if isinstance(sys.exc_info()[1], UNAVAILABLE_ERRORS):
        response = _error(request, 503, UNAVAILABLE)
        response["Retry-After"] = str(RETRY_AFTER_S)
        return response
    return _error(request, 500, SERVER_ERROR)


@never_cache
@require_safe
def health(request: HttpRequest) -> HttpResponse:
    """For load balancers: 200 when this worker can query the primary database."""
    with connections["default"].cursor() as cursor:
        cursor.execute("SELECT 1")
    return HttpResponse("ok\n", content_type="text/plain")
