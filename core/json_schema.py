"""A JSON Schema of draft 7 (the result document's, which loadgen and the site share) as the
same schema in the dialect of OpenAPI 3.1 (JSON Schema 2020-12), to stand in the API's
description where an operation takes it."""

from __future__ import annotations

from typing import Any

# Keywords of a JSON Schema whose value maps names (not keywords) to schemas, and those whose
# value is data.
_SCHEMA_MAPS = frozenset({"properties", "patternProperties", "$defs", "definitions"})
_DATA = frozenset({"enum", "const", "default", "examples"})


def component_of_draft7(schema: Any, *, at: str) -> Any:
    """A JSON Schema of draft 7 as the same schema in OpenAPI 3.1's dialect (JSON Schema
    2020-12), to stand at `at` in the API's description ("#/components/schemas/<Name>"):
    its references within itself ("#/...") pointing there, `dependencies` as
    dependentRequired (a list of names) or dependentSchemas, a list of `items` as
    prefixItems (and additionalItems as items), its own $schema and $id left out (the
    dialect is OpenAPI's; the schema is named by its place). Every other keyword means the
    same in both."""
    if isinstance(schema, list):
        return [component_of_draft7(item, at=at) for item in schema]
    if not isinstance(schema, dict):
        return schema
    converted: dict[str, Any] = {}
    for key, value in schema.items():
        if key in ("$schema", "$id"):
            continue
        if key == "$ref" and value.startswith("#"):
            converted[key] = at + value[1:]
        elif key == "dependencies":
            for name, needs in value.items():
                into = "dependentRequired" if isinstance(needs, list) else "dependentSchemas"
                converted.setdefault(into, {})[name] = component_of_draft7(needs, at=at)
        elif key == "items" and isinstance(value, list):
            converted["prefixItems"] = component_of_draft7(value, at=at)
        elif key == "additionalItems":
            converted["items"] = component_of_draft7(value, at=at)
        elif key in _SCHEMA_MAPS:
            converted[key] = {n: component_of_draft7(v, at=at) for n, v in value.items()}
        elif key in _DATA:
            converted[key] = value
        else:
            converted[key] = component_of_draft7(value, at=at)
    return converted
