"""Model instances from rows that PostgreSQL writes as JSON: for reads that gather many
related rows in one statement (the head-to-head comparison).

A Shape names a model's columns for SQL (`json_build_array` of them, in the order of the
model's fields) and turns such an array back into an instance, as the ORM would from a row
(dates, times and decimals parsed; JSON and arrays already Python values), through the
ORM's own positional constructor. Compiling the ORM's query for half a dozen related models
and building its instances cost more than the database's work for the same rows; written
once as SQL, a statement is planned once per connection (prepared) and its rows travel in
one round trip.
"""

from __future__ import annotations

import datetime
from collections.abc import Callable, Sequence
from decimal import Decimal
from typing import Any

from django.db import connection, models


def _converter(field: models.Field) -> Callable[[Any], Any] | None:
    if isinstance(field, models.DateTimeField):
        return datetime.datetime.fromisoformat
    if isinstance(field, models.DateField):
        return datetime.date.fromisoformat
    if isinstance(field, models.DecimalField):
        return Decimal
    return None


class Shape:
    """How rows of `model` travel as JSON arrays: `fields` (names; all concrete fields by
    default, in the model's order) as columns of the table aliased `alias`."""

    def __init__(self, model: type[models.Model], alias: str, fields: Sequence[str] = ()):
        self.model = model
        chosen = set(fields)
        self.fields = [f for f in model._meta.concrete_fields if not chosen or f.name in chosen]
        if chosen and len(self.fields) != len(chosen):
            raise ValueError(f"unknown fields of {model.__name__}: {chosen}")
        self.attnames = [f.attname for f in self.fields]
        self.complete = len(self.fields) == len(model._meta.concrete_fields)
        self.conversions = [(i, c) for i, f in enumerate(self.fields) if (c := _converter(f))]
        quote = connection.ops.quote_name
        columns = []
        for f in self.fields:
            column = f"{alias}.{quote(f.column)}"
            # Decimals as text: a JSON number would go through a float.
            columns.append(f"{column}::text" if isinstance(f, models.DecimalField) else column)
        self.array = f"json_build_array({', '.join(columns)})"
        pk = f"{alias}.{quote(model._meta.pk.column)}"
        # A row of an outer join that found nothing is null, not an array of nulls.
        self.optional = f"CASE WHEN {pk} IS NULL THEN NULL ELSE {self.array} END"

    def build(self, values: list | None, db: str = "default") -> models.Model | None:
        """The instance of one array of values (None for null)."""
        if values is None:
            return None
        for i, convert in self.conversions:
            if values[i] is not None:
                values[i] = convert(values[i])
        if self.complete:
            instance = self.model(*values)
            instance._state.adding = False
            instance._state.db = db
            return instance
        return self.model.from_db(db, self.attnames, values)


def attach(instance: models.Model, field: str, related: models.Model | None) -> None:
    """Set a forward relation as select_related would (no query when it is read)."""
    instance._meta.get_field(field).set_cached_value(instance, related)
