"""The schema and the database agree: every string the schema allows fits its column,
every integer fits its column, the result-metric rule is the constraint's, and the two
validators (compiled and explaining) read every keyword alike."""

import json
from pathlib import Path

import pytest
from django.conf import settings
from django.contrib.postgres.fields import ArrayField
from django.db import connection, models

from drives.models import Drive
from results import documents
from results.models import Result
from tests.results.schema_slots import (
    COLUMNS,
    DOCUMENT_ONLY,
    HASHED,
    SCHEMA,
    UINT64,
    model_field,
    schema_leaves,
)

LEAVES = list(schema_leaves())
# Bounded below the column by a CHECK constraint the schema states too.
TIGHTER = {
    ("consistency", "*", "spare_area_percent"): 90,  # consistency_spare_area_range
    ("results", "*", "jobs"): 64,  # loadgen's --jobs limit
    ("results", "*", "repeat"): 100,  # loadgen's --repeat limit
    ("results", "*", "fio_steadystate", "window_s"): 315_360_000,  # fio.LONGEST_RUN_S
}


def column_range(field: models.Field) -> tuple[int, int]:
    """The integers a column holds, as the database defines them."""
    if isinstance(field, ArrayField):
        field = field.base_field
    if isinstance(field, models.JSONField):  # latency percentiles: nanoseconds, as bigint
        field = models.BigIntegerField()
    low, high = connection.ops.integer_field_range(field.get_internal_type())
    if field.get_internal_type().startswith("Positive"):
        low = max(low, 0)
    return low, high


@pytest.mark.parametrize(
    "path, node", LEAVES, ids=lambda v: "/".join(v) if isinstance(v, tuple) else ""
)
def test_every_field_is_bounded_by_where_it_is_kept(path, node):
    if "const" in node or "enum" in node or node.get("type") in ("boolean", "number"):
        return  # bounded by their values; numbers by finiteness (documents.NOT_FINITE)
    assert path in COLUMNS or path in DOCUMENT_ONLY | HASHED, f"{path}: where is it kept?"
    kind = node["type"]
    if path in DOCUMENT_ONLY | HASHED:
        if kind == "string":
            assert "maxLength" in node, path
        else:
            assert node["maximum"] <= UINT64, path
        return
    field = model_field(COLUMNS[path])
    if kind == "string":
        if isinstance(field, models.DateField):  # DateTimeField too: a format, bounded
            assert "format" in node and "maxLength" in node, path
        elif isinstance(field, models.JSONField):  # text inside a jsonb value: the schema's bound
            assert "maxLength" in node, path
        else:
            assert node["maxLength"] == field.max_length, (path, field)
    else:
        low, high = column_range(field)
        assert node["maximum"] == TIGHTER.get(path, high), (path, field, high)
        assert node["minimum"] >= low, (path, field, low)


def test_every_field_kept_in_a_column_is_in_the_schema():
    assert set(COLUMNS) | DOCUMENT_ONLY | HASHED <= {path for path, _ in LEAVES}


def test_the_metric_rule_of_the_schema_is_the_constraints():
    alternatives = set()
    for branch in SCHEMA["$defs"]["result"]["anyOf"]:
        (field,) = branch["required"]
        nested = branch.get("properties", {}).get(field, {}).get("required")
        alternatives.add(("results", "*", field, *(nested or [])))
    percentiles = {
        ("results", "*", "latency_ns", "percentiles"): ("result", "latency_percentiles_ns")
    }
    schema_columns = {(COLUMNS | percentiles)[path][1] for path in alternatives}
    (constraint,) = [c for c in Result._meta.constraints if c.name == "result_has_a_metric"]
    constraint_columns = {
        name.removesuffix("__isnull") for name, _ in constraint.condition.children
    }
    assert all(value is False for _, value in constraint.condition.children)
    assert constraint.condition.connector == "OR"
    assert schema_columns == constraint_columns


def test_drive_kinds_are_the_models():
    assert SCHEMA["properties"]["drive"]["properties"]["kind"]["enum"] == Drive.Kind.values
    assert "virtual" in Drive.Kind.values


def test_every_pattern_and_format_has_words_for_the_reviewer():
    def walk(node):
        if isinstance(node, dict):
            for keyword in ("pattern", "format"):
                if isinstance(node.get(keyword), str):
                    yield keyword, node[keyword]
            for value in node.values():
                yield from walk(value)
        elif isinstance(node, list):
            for value in node:
                yield from walk(value)

    for keyword, value in walk(SCHEMA):
        if keyword == "pattern":
            assert value in documents.PATTERN_MESSAGES, value
        else:
            assert value in documents.FORMAT_NAMES and value in documents.FORMATS, value


# Strings where Python's re and JSON Schema's regular expressions differ (a final newline
# before `$`), formats at their edges: both validators must answer alike.
DISAGREEMENTS = {
    ("results", 0, "test"): ["randread-4k-qd3\n", "a\n"],
    ("parameters", "suite", "name"): ["desktop-2011\n"],
    ("drive", "model"): ["\n", " \n "],
    ("started_at",): [
        "2026-11-21T10:00:00Z\n",
        "2026-11-21T10:00:00+0000",
        "2026-11-21 10:00:00Z",
        "2026-11-21T10:00:00",
        "2026-11-21t10:00:00z",
    ],
    ("results", 0, "latency_ns", "percentiles"): [{"99.9\n": 5}],
}


@pytest.mark.parametrize(
    "path, value",
    [(path, value) for path, values in DISAGREEMENTS.items() for value in values],
    ids=repr,
)
def test_both_validators_answer_alike(path, value):
    from results.synthetic import measured_document

    document = measured_document(series_seconds=10)
    target = document
    for part in path[:-1]:
        target = target[part]
    target[path[-1]] = value
    try:
        documents._fast_check()(document)
        fast_ok = True
    except Exception:
        fast_ok = False
    explaining_ok = not list(documents._explaining_validator().iter_errors(document))
    assert fast_ok == explaining_ok, (path, value)
    if not fast_ok:
        assert (
            documents.pointer(*path) in {p.pointer for p in documents.schema_problems(document)}
            or path[-1] == "percentiles"
        )


def test_every_sample_and_demo_document_validates():
    root = Path(settings.BASE_DIR)
    for path in sorted((root / "demo/runs").glob("*.json")) + sorted(
        (root / "results/schema/samples").glob("*.json")
    ):
        assert documents.schema_problems(json.loads(path.read_text())) == [], path
