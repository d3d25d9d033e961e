"""Raw SQL as the ORM would run it, where the ORM's own cost is the larger part of a read:
on the database the router reads a model from (a replica or the primary), prepared where
that pays, and model instances built from rows PostgreSQL writes as JSON. Both apps'
selectors use these.

A Shape names a model's columns for SQL (`json_build_array` of them, in the order of the
model's fields) and turns such an array back into an instance, as the ORM would from a row
(dates, times and decimals parsed; JSON and arrays already Python values), through
Model.from_db, the classmethod the ORM builds its own instances with. Compiling the ORM's
query for half a dozen related models and building its instances cost more than the
database's work for the same rows (the head to head); written once as SQL, a statement is
prepared (planned once per connection) and gathers its rows in one round trip.
"""

from __future__ import annotations

import contextlib
import datetime
from collections.abc import Callable, Iterator, Sequence
from decimal import Decimal
from typing import Any

import orjson
from django.conf import settings
from django.db import connection, connections, models, router
from django.db.models import DEFERRED


def read_alias(model: type[models.Model]) -> str:
    """The database a read of `model` goes to (a replica or the primary, as the router
    says): raw SQL must ask, the ORM does it itself."""
    return router.db_for_read(model)


@contextlib.contextmanager
def prepared(alias: str) -> Iterator[None]:
    """Statements executed inside on `alias` are prepared: planned once per connection, for
    any parameters. Only for statements whose best plan does not depend on their parameters
    (a lookup by slug and id), and never when BENCH_DB_PREPARE is off."""
    if not settings.BENCH_DB_PREPARE:
        yield
        return
    wrapper = connections[alias]
    wrapper.ensure_connection()
    raw = wrapper.connection
    before = raw.prepare_threshold
    raw.prepare_threshold = 0
    try:
        yield
    finally:
        raw.prepare_threshold = before


def prepared_rows(
    model: type[models.Model], sql: str, params=(), *, alias: str = ""
) -> tuple[str, list[tuple]]:
    """The rows of a statement written for `model` (whose read database it runs on, unless
    the caller asked the router already: `alias`), prepared, and that database's alias (for
    the instances built from them)."""
    alias = alias or read_alias(model)
    with prepared(alias), connections[alias].cursor() as cursor:
        cursor.execute(sql, params)
        return alias, cursor.fetchall()


def current_copy(
    model: type[models.Model],
    held: dict[str, Any],
    version_sql: str,
    read: Callable[[str, Any | None], Any],
) -> Any:
    """A copy (with a `version`) held in `held` per database the reads of `model` go to and
    current with a catalog version: one prepared statement (`version_sql`: the version, and
    whether this transaction has itself written what the copy holds), and when the version
    moved, read(alias, the copy held, to bring up to date; None: none may be) for the copy
    now. A transaction that has written gets a copy of what it sees, kept by no one
    (core.columns.Copy: drives.catalog_index, results.entries_index). Of two threads that
    read at once, the later version is kept."""
    alias, rows = prepared_rows(model, version_sql)
    version, written = rows[0]
    copy = held.get(alias)
    if copy is not None and copy.version == version and not written and version is not None:
        return copy
    fresh = read(alias, None if written else copy)
    if not written and fresh.version is not None:
        now = held.get(alias)
        if now is None or now.version is None or now.version <= fresh.version:
            held[alias] = fresh
    return fresh


def _converter(field: models.Field) -> Callable[[Any], Any] | None:
    if isinstance(field, models.FloatField):
        return float  # PostgreSQL writes a whole number in a float column as 3, not 3.0
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
        # Built with every concrete field named, those the shape leaves out as DEFERRED (as
        # the documented default from_db places them): from_db then takes its values as
        # they are, where a shorter list makes it look each field up in the names read.
        self.all_attnames = [f.attname for f in model._meta.concrete_fields]
        self.positions = [
            self.fields.index(f) if f in self.fields else None for f in model._meta.concrete_fields
        ]
        self.partial = len(self.fields) < len(self.all_attnames)
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
        """The instance of one array of values (None for null), as the ORM builds one from
        a row (Model.from_db): fields not in the shape stay deferred."""
        if values is None:
            return None
        for i, convert in self.conversions:
            if values[i] is not None:
                values[i] = convert(values[i])
        if self.partial:
            values = [DEFERRED if i is None else values[i] for i in self.positions]
        return self.model.from_db(db, self.all_attnames, values)


def attach(instance: models.Model, field: str, related: models.Model | None) -> None:
    """Set a forward relation as select_related does (no query when it is read): through
    the relation field's own set_cached_value, the setter select_related itself calls.
    Assigning through the relation's descriptor instead would also rewrite the foreign key
    from the related instance (a relation the statement did not read would null it) and
    consult the router for every assignment."""
    instance._meta.get_field(field).set_cached_value(instance, related)


class JsonText:
    """JSON text as PostgreSQL wrote it (e.g. a series' points), passed on without parsing:
    the JSON writers give orjson `fragment`; the json module (the rare fallback) `parsed`."""

    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text = text

    @property
    def fragment(self) -> orjson.Fragment:
        return orjson.Fragment(self.text)

    @property
    def parsed(self) -> Any:
        return orjson.loads(self.text)
