"""The API's description, where drf-spectacular's own reading of a view falls short: each
list's filters described by what their fields accept (core.filters.query_schema), not
guessed from the model; a request body's text by what DRF's CharField refuses; the token
authentication (benchsite.api), knox's. Loaded with the app (benchsite.apps), as
drf-spectacular's extensions must be before a schema is made."""

from __future__ import annotations

import functools
from typing import Any

from drf_spectacular.contrib.knox_auth_token import KnoxTokenScheme
from drf_spectacular.extensions import OpenApiFilterExtension, OpenApiSerializerFieldExtension
from drf_spectacular.plumbing import build_parameter_type, get_manager, get_view_model
from drf_spectacular.utils import OpenApiParameter

from core.filters import NO_NUL, declared_filters, query_description, query_schema


class TokenScheme(KnoxTokenScheme):
    """`Authorization: Token <token>`, under the name the schema has always given it."""

    target_class = "benchsite.api.TokenAuthentication"
    name = "tokenAuth"


class FilterSetParameters(OpenApiFilterExtension):
    """Every list's filters (core.filters.QueryFilterBackend, django-filter's backend) as
    query parameters, each typed, bounded and described by its filter, as the rankings' are
    (results.api.reads.filter_parameters)."""

    target_class = "core.filters.QueryFilterBackend"
    priority = 1  # before drf-spectacular's own extension of django-filter's backend

    def get_schema_operation_parameters(self, auto_schema, *args, **kwargs) -> list[dict[str, Any]]:
        model = get_view_model(auto_schema.view)
        if model is None:
            return []
        filterset = self.target.get_filterset_class(auto_schema.view, get_manager(model).none())
        if filterset is None:
            return []
        return [
            build_parameter_type(
                name=name,
                schema=query_schema(flt),
                location=OpenApiParameter.QUERY,
                description=query_description(flt),
            )
            for name, flt in declared_filters(filterset).items()
        ]


def _character_class(chars: list[str]) -> str:
    """A regular expression's class of these characters, as ranges of \\u escapes (the same
    in ECMA 262's expressions, JSON Schema's, and Python's)."""
    codes = sorted(ord(c) for c in chars)
    ranges: list[list[int]] = []
    for code in codes:
        if ranges and code == ranges[-1][1] + 1:
            ranges[-1][1] = code
        else:
            ranges.append([code, code])
    return "".join(
        f"\\u{low:04x}" if low == high else f"\\u{low:04x}-\\u{high:04x}" for low, high in ranges
    )


@functools.cache
def text_pattern(*, blank: bool) -> str:
    """What DRF's CharField accepts as text, as a pattern: no NUL, which it always refuses,
    and unless it may be `blank`, a character it does not strip (str.strip: Python's
    whitespace, which is not ECMA 262's \\s)."""
    if blank:
        return NO_NUL
    stripped = _character_class([chr(c) for c in range(0x110000) if chr(c).isspace()])
    return f"^[^\\u0000]*[^\\u0000{stripped}][^\\u0000]*$"


class TextRefusals(OpenApiSerializerFieldExtension):
    """A request body's text field (DRF's CharField) as what it accepts: no NUL (DRF's
    CharField refuses one in any text) and, where it may not be blank and trims what it
    is given, a character other than whitespace (a reason of spaces is refused as none).
    A field that states a pattern of its own (a slug, a regular expression) keeps it."""

    target_class = "rest_framework.fields.CharField"
    match_subclasses = True

    def map_serializer_field(self, auto_schema, direction):
        schema = auto_schema._map_serializer_field(self.target, direction, bypass_extensions=True)
        if direction == "request" and schema.get("type") == "string" and "pattern" not in schema:
            blank = self.target.allow_blank or not self.target.trim_whitespace
            schema["pattern"] = text_pattern(blank=blank)
        return schema


CSV = "text/csv"
CSV_SCHEMA = {
    "type": "string",
    "description": "The same data as CSV: one row per item (a list's page, a ranking's rows "
    "and its highlighted drives ranked elsewhere), nested objects as dotted columns, each "
    "number as the JSON writes it; a page's links in the Link header",
}


def text_csv_and_required_bodies(result, generator, request, public):
    """drf-spectacular's last steps: a CSV answer is text, not the JSON object drf-spectacular
    gives it (benchsite.api.CSVRenderer writes it), and a request body, where an operation
    reads one, is required (none of them reads an empty body as a request)."""
    for operations in result.get("paths", {}).values():
        for operation in operations.values():
            if not isinstance(operation, dict):
                continue
            if "requestBody" in operation:
                operation["requestBody"]["required"] = True
            for response in operation.get("responses", {}).values():
                if CSV in response.get("content", {}):
                    response["content"][CSV] = {"schema": dict(CSV_SCHEMA)}
    return result
