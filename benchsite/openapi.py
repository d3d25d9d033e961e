"""The API's description, where drf-spectacular's own reading of a view falls short: each
list's filters described by what their fields accept (core.filters.query_schema), not
guessed from the model. Loaded with the app (benchsite.apps), as drf-spectacular's
extensions must be before a schema is made."""

from __future__ import annotations

from typing import Any

from drf_spectacular.extensions import OpenApiFilterExtension
from drf_spectacular.plumbing import build_parameter_type, get_manager, get_view_model
from drf_spectacular.utils import OpenApiParameter

from core.filters import query_description, query_schema


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
            for name, flt in filterset.base_filters.items()
        ]
