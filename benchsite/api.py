"""The REST API's project-wide pieces, named by dotted path in settings.REST_FRAMEWORK and
MIDDLEWARE (the apps never import this module):

- token authentication (django-rest-knox: tokens stored as digests) that refuses a token
  knox cannot have written without asking the database;
- the schema documents that error body, with an example, on every operation;
- one error body everywhere: {"detail": "<summary>", "errors": [{"pointer", "message"}]},
  the summary ending with an exception's `note` where it has one (an upload's: what is
  checked once its schema passes);
- JSON written by orjson (DRF's output, faster);
- every list also as CSV (`?format=csv` or `Accept: text/csv`), formulas neutralised, each
  number written as the JSON writes it;
- the query as the schema describes it: a parameter read as one value (every one whose schema
  is not an array) and given more than once is a 400 at it, never its last value read;
- limit/offset pagination with a maximum page (long lists use cursors of their own);
- cache headers on reads: `Cache-Control: public, max-age=60` for anonymous readers, private
  otherwise; ETag and 304 come from ConditionalGetMiddleware.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Callable, Iterable
from decimal import Decimal
from typing import Any

import orjson
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse, QueryDict
from django.utils.cache import patch_cache_control, patch_vary_headers
from django.utils.functional import Promise
from knox import auth
from knox.settings import knox_settings
from rest_framework import exceptions, renderers, serializers, status
from rest_framework.negotiation import DefaultContentNegotiation
from rest_framework.pagination import LimitOffsetPagination
from rest_framework.renderers import BaseRenderer
from rest_framework.utils import encoders

from core.db import JsonText
from core.filters import whole_number, whole_number_schema

MAX_PAGE = 500
READ_MAX_AGE_S = 60
SUMMARY_LIMIT = 500


# -- authentication ------------------------------------------------------------------------
INVALID_TOKEN = "Invalid token."
# What a token can be: knox writes lower-case hexadecimal digits, so many of them.
_TOKEN = re.compile(rb"[0-9a-f]{%d}" % knox_settings.AUTH_TOKEN_CHARACTER_LENGTH)


class TokenAuthentication(auth.TokenAuthentication):
    """knox's, with a token that knox cannot have written (a NUL byte, which PostgreSQL
    cannot even compare, text that is not UTF-8, another length) refused as an invalid
    token before any query."""

    def authenticate_credentials(self, token: bytes):
        if not _TOKEN.fullmatch(token):
            raise exceptions.AuthenticationFailed(INVALID_TOKEN)
        return super().authenticate_credentials(token)


# -- errors --------------------------------------------------------------------------------
def _pointer(path: tuple) -> str:
    return "".join("/" + str(p).replace("~", "~0").replace("/", "~1") for p in path)


def _flatten(data: Any, path: tuple = ()) -> Iterable[dict[str, str]]:
    if isinstance(data, dict):
        if set(data) == {"pointer", "message"}:
            yield {"pointer": str(data["pointer"]), "message": str(data["message"])}
            return
        for key, value in data.items():
            if key == "non_field_errors":
                yield from _flatten(value, path)
            else:
                yield from _flatten(value, (*path, key))
    elif isinstance(data, list):
        if all(not isinstance(item, (dict, list)) for item in data):
            for item in data:
                yield {"pointer": _pointer(path), "message": str(item)}
        else:
            for index, item in enumerate(data):
                yield from _flatten(item, (*path, index))
    else:
        yield {"pointer": _pointer(path), "message": str(data)}


def error_body(data: Any, status_code: int, note: str = "") -> dict[str, Any]:
    """The one error body, from what DRF's handler made of an exception; `note` ends the
    summary of its problems, whatever their number."""
    if isinstance(data, dict) and set(data) <= {"detail"} and "detail" in data:
        return {"detail": str(data["detail"]), "errors": []}
    errors = list(_flatten(data))
    if status_code == status.HTTP_400_BAD_REQUEST or errors:
        listed = "; ".join(f"{e['pointer'] or '/'}: {e['message']}" for e in errors[:3])
        more = f" (and {len(errors) - 3} more)" if len(errors) > 3 else ""
        summary = f"{len(errors)} problem(s): {listed}{more}" if errors else "bad request"
        if note:
            summary = f"{summary[: SUMMARY_LIMIT - len(note) - 2]}. {note}"
        return {"detail": summary[:SUMMARY_LIMIT], "errors": errors}
    return {"detail": str(data), "errors": []}


_ERROR_EXAMPLES = {
    "400": (
        "The request's parameters or body are not acceptable: each problem with its pointer",
        {
            "detail": "1 problem(s): /query/capacity_min: Enter a number.",
            "errors": [{"pointer": "/query/capacity_min", "message": "Enter a number."}],
        },
    ),
    "404": ("Nothing at this address", {"detail": "Not found.", "errors": []}),
    "401": (
        "Credentials are needed, or those sent are not valid (an unknown or revoked token)",
        {"detail": INVALID_TOKEN, "errors": []},
    ),
    "406": (
        "The Accept header names no type the operation writes (JSON, and CSV for a list)",
        {"detail": "Could not satisfy the request Accept header.", "errors": []},
    ),
    "415": (
        "The body's Content-Type is not one the operation reads",
        {"detail": 'Unsupported media type "text/plain" in request.', "errors": []},
    ),
}


def document_errors(result, generator, request, public):
    """drf-spectacular's last step: every operation documents the error body it can answer
    with, with an example: 400 where it reads parameters or a body, 415 where it reads a
    body (of the types it lists), 404 where its address names something, 401 and 406
    everywhere (a token that is not valid is refused on any operation, and some need one;
    an Accept header names what the client reads). Those an operation documents itself
    keep their words, and get the example. The ErrorBody component is the uploads'
    ErrorBodySerializer (results/api/runs.py), which their operations name."""
    body = {"$ref": "#/components/schemas/ErrorBody"}
    for operations in result.get("paths", {}).values():
        for operation in operations.values():
            if not isinstance(operation, dict) or "responses" not in operation:
                continue
            places = {p.get("in") for p in operation.get("parameters", [])}
            wanted = {"401", "406"}
            if "requestBody" in operation:
                wanted.add("415")
            if "query" in places or "requestBody" in operation:
                wanted.add("400")
            if "path" in places:
                wanted.add("404")
            responses = operation["responses"]
            for code in sorted(wanted):  # the same schema, byte for byte, every time
                text, _ = _ERROR_EXAMPLES[code]
                responses.setdefault(
                    code, {"description": text, "content": {"application/json": {"schema": body}}}
                )
            for code, response in responses.items():
                content = response.get("content", {}).get("application/json", {})
                if content.get("schema") == body and code in _ERROR_EXAMPLES:
                    content.setdefault("example", _ERROR_EXAMPLES[code][1])
    return result


def exception_handler(exc, context):
    # Imported here: rest_framework.views reads the settings that name this module.
    from rest_framework.views import exception_handler as drf_exception_handler

    response = drf_exception_handler(exc, context)
    if response is not None:
        response.data = error_body(
            response.data, response.status_code, note=getattr(exc, "note", "")
        )
        # An error is the one JSON error body, also to a client that asked for CSV.
        request = context.get("request")
        if request is not None and not isinstance(
            getattr(request, "accepted_renderer", None), JSONRenderer
        ):
            request.accepted_renderer = JSONRenderer()
            request.accepted_media_type = JSONRenderer.media_type
    return response


# -- JSON ----------------------------------------------------------------------------------
def _json_default(value: Any) -> Any:
    """What orjson does not write itself, written as DRF's JSON encoder writes it."""
    if isinstance(value, Decimal):
        return float(value)
    if isinstance(value, Promise):  # a lazy translation
        return str(value)
    if isinstance(value, (set, frozenset, QuerySet)):
        return list(value)
    if isinstance(value, JsonText):
        return value.fragment
    raise TypeError(f"{type(value).__name__} is not JSON serializable")


class _Encoder(encoders.JSONEncoder):
    """DRF's encoder (the fallback below), which also writes JSON text PostgreSQL wrote."""

    def default(self, obj: Any) -> Any:
        return obj.parsed if isinstance(obj, JsonText) else super().default(obj)


def page_links(response: Any, data: Any) -> None:
    """A page's neighbours in a Link header (RFC 8288) and a list's size in X-Total-Count,
    from the page's body, whichever way it is written: a CSV page has no field for them."""
    if response is None or not isinstance(data, dict) or response.status_code != 200:
        return
    links = [
        f'<{data[key]}>; rel="{rel}"'
        for key, rel in (("next", "next"), ("previous", "prev"))
        if isinstance(data.get(key), str)
    ]
    if links:
        response["Link"] = ", ".join(links)
    if isinstance(data.get("count"), int):
        response["X-Total-Count"] = str(data["count"])


class JSONRenderer(renderers.JSONRenderer):
    """DRF's JSON, written by orjson: the same bytes for the API's data (compact, UTF-8,
    datetimes in UTC with a Z) in a fraction of the time (a page of 500 results, a compare
    with its series). Asked for indented JSON, or given an integer beyond 64 bits, DRF's own
    encoder writes it."""

    encoder_class = _Encoder

    def render(self, data, accepted_media_type=None, renderer_context=None):
        if data is None:
            return b""
        page_links((renderer_context or {}).get("response"), data)
        if self.get_indent(accepted_media_type or "", renderer_context or {}):
            return super().render(data, accepted_media_type, renderer_context)
        try:
            return orjson.dumps(data, default=_json_default, option=orjson.OPT_UTC_Z)
        except TypeError:  # an integer beyond 64 bits, which only the json module writes
            return super().render(data, accepted_media_type, renderer_context)


# -- CSV -----------------------------------------------------------------------------------
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def json_number(value: int | float | Decimal) -> str:
    """A number as the JSON renderer writes it ("" where it writes null: NaN, infinity),
    so that a list's CSV and its JSON carry the same text for each figure."""
    try:
        text = orjson.dumps(value, default=_json_default).decode()
    except TypeError:  # an integer beyond 64 bits, which the json module writes
        text = str(value)
    return "" if text == "null" else text


def _scalar_text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float, Decimal)):
        return json_number(value)
    return str(value)


def csv_cell(value: Any) -> str:
    """A value as a spreadsheet cell that is never run as a formula: a number as the JSON
    writes it (json_number), a boolean as true or false."""
    if value is None:
        return ""
    text = _scalar_text(value)
    # Numbers stay numbers (a negative figure is data, not a formula).
    if text.startswith(FORMULA_STARTS) and not isinstance(value, (int, float, Decimal)):
        return "'" + text
    return text


def _serializer_columns(serializer: serializers.BaseSerializer, prefix: str = "") -> list[str]:
    """The CSV columns a serializer's items have, in its field order: a nested serializer's
    fields as dotted columns (prefix.field), and so a mapping whose keys its field declares
    (`csv_keys`: latency percentiles, prefix.field.99.9); any other field one column (another
    mapping, or a list of objects, is written in it as JSON)."""
    columns: list[str] = []
    for name, field in serializer.fields.items():
        if isinstance(field, serializers.Serializer):
            columns += _serializer_columns(field, f"{prefix}{name}.")
        elif keys := getattr(field, "csv_keys", None):
            columns += [f"{prefix}{name}.{key}" for key in keys]
        else:
            columns.append(f"{prefix}{name}")
    return columns


def _view_columns(view: Any) -> list[str]:
    """The columns of the items a list view serializes (none for a view without one)."""
    get_class = getattr(view, "get_serializer_class", None)
    if get_class is None:
        return []
    try:
        return _serializer_columns(get_class()())
    except (AssertionError, TypeError):  # no serializer class, or one that needs arguments
        return []


def _flat_row(item: Any, whole: set[str], prefix: str = "") -> dict[str, Any]:
    """An item's cells by column: nested objects as dotted columns, except at a column the
    serializer writes whole (`whole`), where a mapping or a list of objects is JSON."""
    column = prefix[:-1]
    if item is None and column not in whole and any(k.startswith(prefix) for k in whole):
        return {}  # a nested object that is absent: its columns stay empty
    if column in whole and isinstance(item, (dict, list)):
        if isinstance(item, list) and all(not isinstance(v, (dict, list)) for v in item):
            return {column: " ".join(_scalar_text(v) for v in item)}
        return {column: orjson.dumps(item, option=orjson.OPT_SORT_KEYS).decode()}
    if isinstance(item, dict):
        row: dict[str, Any] = {}
        for key, value in item.items():
            row.update(_flat_row(value, whole, f"{prefix}{key}."))
        return row
    if isinstance(item, list):
        if all(not isinstance(v, (dict, list)) for v in item):
            return {column: " ".join(_scalar_text(v) for v in item)}
        row = {}
        for index, value in enumerate(item):
            row.update(_flat_row(value, whole, f"{prefix}{index}."))
        return row
    return {column or "value": item}


class CSVRenderer(BaseRenderer):
    """A list (or a page of one) as CSV: one row per item, nested objects as dotted columns.
    The columns are the serializer's, in its order (the header too for an empty list), so
    every page of a list has the same ones; a ranking's rows come with its highlighted
    drives ranked elsewhere; a view's body that is no list, as the view's `csv_items` say
    (the compare: one row per drive, test and pattern). The pages' links travel in the Link
    header (Pagination)."""

    media_type = "text/csv"
    format = "csv"
    charset = "utf-8"

    def render(self, data, accepted_media_type=None, renderer_context=None):
        if data is None:
            return b""
        page_links((renderer_context or {}).get("response"), data)
        view = (renderer_context or {}).get("view")
        long = getattr(view, "csv_items", None)
        if long is not None and isinstance(data, dict) and "errors" not in data:
            items = long(data)  # a body that is not a list, written long (the compare's)
        elif isinstance(data, dict) and isinstance(data.get("results"), list):
            items = data["results"]
        elif isinstance(data, dict) and isinstance(data.get("rows"), list):
            items = data["rows"] + list(data.get("elsewhere") or [])
        elif isinstance(data, list):
            items = data
        else:
            items = [data]
        declared = _view_columns((renderer_context or {}).get("view"))
        whole = set(declared)
        rows = [_flat_row(item, whole) for item in items]
        columns = list(dict.fromkeys([*declared, *(key for row in rows for key in row)]))
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\r\n")
        writer.writerow([csv_cell(c) for c in columns])
        for row in rows:
            writer.writerow([csv_cell(row.get(column)) for column in columns])
        return out.getvalue().encode(self.charset)


# -- formats -------------------------------------------------------------------------------
class ContentNegotiation(DefaultContentNegotiation):
    """DRF's, with a `?format=` the view does not write (or an empty one) refused with a 400
    at the parameter, as any other bad query value is (DRF's answers 404, or ignores it)."""

    def select_renderer(self, request, renderers, format_suffix=None):
        name = self.settings.URL_FORMAT_OVERRIDE
        if not format_suffix and name and name in request.query_params:
            formats = [renderer.format for renderer in renderers]
            if request.query_params[name] not in formats:
                raise exceptions.ValidationError(
                    [{"pointer": f"/query/{name}", "message": f"must be one of {formats}"}]
                )
        return super().select_renderer(request, renderers, format_suffix)


# -- the query -----------------------------------------------------------------------------
GIVEN_TWICE = "given {count} times: give it once"


class QueryOnce(QueryDict):
    """A query whose parameters are each read as one value (get, [], items...) only where it
    gives one: a parameter given more than once is the API's 400 at it, which is what the
    schema says of every parameter that is not an array (Django reads the last value). A
    list (the schema's arrays: ?highlight=) is read with getlist."""

    def __getitem__(self, key: str) -> str:
        count = len(self.getlist(key))
        if count > 1:
            raise exceptions.ValidationError(
                [{"pointer": f"/query/{key}", "message": GIVEN_TWICE.format(count=count)}]
            )
        return super().__getitem__(key)

    @classmethod
    def of(cls, query: QueryDict) -> QueryDict:
        """The query to read: as it is where it gives no parameter twice (each is then read
        as its one value either way, the most queries), else read again from its own text
        as a QueryOnce, which is immutable as Django's request.GET is (with no need to set
        its private `_mutable`)."""
        if all(len(values) == 1 for _, values in query.lists()):
            return query
        return cls(query.urlencode(), encoding=query.encoding)


class ApiQueryMiddleware:
    """The API's views read their query as QueryOnce (last among the middleware: the ones
    before read the query as Django gives it, the response cache's scopes among them)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if not request.path.startswith("/api/v1/"):
            return self.get_response(request)
        given = request.GET
        request.GET = QueryOnce.of(given)
        try:
            return self.get_response(request)
        finally:
            request.GET = given


# -- pagination ----------------------------------------------------------------------------
# The furthest a page may start: an offset and a page's size within PostgreSQL's bigint.
MAX_OFFSET = 2**63 - 1 - MAX_PAGE


class Pagination(LimitOffsetPagination):
    """Pages of `limit` items from `offset`: each a whole number within its bounds, or a 400
    that says so (DRF's reads any other value as the default, and a limit beyond the
    maximum as the maximum)."""

    default_limit = 50
    max_limit = MAX_PAGE

    def get_limit(self, request) -> int:
        return whole_number(
            request.query_params,
            self.limit_query_param,
            default=self.default_limit,
            minimum=1,
            maximum=self.max_limit,
        )

    def get_offset(self, request) -> int:
        return whole_number(
            request.query_params,
            self.offset_query_param,
            default=0,
            minimum=0,
            maximum=MAX_OFFSET,
        )

    def get_schema_operation_parameters(self, view) -> list[dict[str, Any]]:
        bounds = {
            self.limit_query_param: (1, self.max_limit),
            self.offset_query_param: (0, MAX_OFFSET),
        }
        parameters = super().get_schema_operation_parameters(view)
        for parameter in parameters:
            parameter["schema"] = whole_number_schema(*bounds[parameter["name"]])
        return parameters


# -- cache headers -------------------------------------------------------------------------
def _anonymous(request: HttpRequest) -> bool:
    from django.conf import settings

    return (
        "HTTP_AUTHORIZATION" not in request.META
        and settings.SESSION_COOKIE_NAME not in request.COOKIES
    )


class ApiCacheHeadersMiddleware:
    """Cache-Control and Vary on the API's successful reads."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        if (
            request.path.startswith("/api/v1/")
            and request.method in ("GET", "HEAD")
            and response.status_code == 200
            and not response.has_header("Cache-Control")
        ):
            if _anonymous(request):
                patch_cache_control(response, public=True, max_age=READ_MAX_AGE_S)
            else:
                patch_cache_control(response, private=True, no_cache=True)
            patch_vary_headers(response, ("Accept", "Authorization", "Cookie"))
        return response
