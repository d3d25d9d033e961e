"""What the read API's serializers are built on: a serializer that writes the rows a selector
read for it by its declared fields, at about the speed of a dict written by hand, and money
as the API writes it."""

from __future__ import annotations

import datetime
import functools
import keyword
from collections.abc import Callable
from operator import attrgetter
from typing import Any

from rest_framework import ISO_8601, serializers
from rest_framework.fields import SkipField
from rest_framework.settings import api_settings

# How IntegerField, FloatField, CharField and BooleanField write a value: int(value),
# float(value), str(value), bool(value), which give a value of that very type back as it is.
# A field that writes its value so (SlugField too; BigIntegerField where it does not write
# text) has it written as read: a row holds it in its field's type.
_AS_READ = {
    serializers.IntegerField.to_representation,
    serializers.FloatField.to_representation,
    serializers.CharField.to_representation,
    serializers.BooleanField.to_representation,
}


def _as_read(field: serializers.Field) -> bool:
    writes = type(field).to_representation
    if writes is serializers.ChoiceField.to_representation:  # a text choice, as its text
        return all(type(choice) is str for choice in field.choices)
    if writes is serializers.BigIntegerField.to_representation:
        return not getattr(field, "coerce_to_string", api_settings.COERCE_BIGINT_TO_STRING)
    return writes in _AS_READ


def _writer(field: serializers.Field) -> Callable[[Any], Any]:
    """How a field writes a value (not None) of its type: its to_representation, or the one
    call that comes down to: a date in ISO 8601 is its isoformat(), an entry named by a
    slug (SlugRelatedField) its slug."""
    writes = type(field).to_representation
    if writes is serializers.DateField.to_representation:
        output = getattr(field, "format", api_settings.DATE_FORMAT)
        if isinstance(output, str) and output.lower() == ISO_8601:
            return datetime.date.isoformat
    if writes is serializers.SlugRelatedField.to_representation:
        return attrgetter(field.slug_field)
    return field.to_representation


def _the_row(row: Any) -> Any:
    return row


def _read(mapping: bool, source: str) -> str | None:
    """The expression that reads a plain source of `row` (a key of a dict, an attribute
    path of an object), None where it cannot be written as one."""
    if mapping:
        return f"row[{source!r}]"
    names = source.split(".")
    if all(name.isidentifier() and not keyword.iskeyword(name) for name in names):
        return ".".join(("row", *names))
    return None


@functools.cache
def _plan(serializer: type[serializers.Serializer], mapping: bool) -> Callable[[list], list]:
    """How a serializer's fields write rows of one kind (dicts when `mapping`, else objects),
    as one function made for it: a dict display for each row, each value read plainly (a
    dict's item, an attribute path) or by its field (the row itself for source="*", a dotted
    path in a dict), and written as read or converted by its field (None stays None). Made
    once per class, from an instance of its own: a list builds its fields once, not once a
    request (a ModelSerializer's fields cost more to build than 50 rows to write)."""
    fields = {n: f for n, f in serializer().fields.items() if not f.write_only}
    scope: dict[str, Any] = {}
    entries = []
    for i, (name, field) in enumerate(fields.items()):
        plain = field.source_attrs and not (mapping and len(field.source_attrs) > 1)
        value = _read(mapping, field.source) if plain else None
        if value is None:
            scope[f"get{i}"] = field.get_attribute if field.source_attrs else _the_row
            value = f"get{i}(row)"
        if not plain or not _as_read(field):
            scope[f"write{i}"] = _writer(field)
            value = f"None if (v{i} := {value}) is None else write{i}(v{i})"
        entries.append(f"{name!r}: {value}")
    source = f"def write_all(rows):\n    return [{{{', '.join(entries)}}} for row in rows]\n"
    exec(compile(source, f"<{serializer.__qualname__} writer>", "exec"), scope)  # noqa: S102
    return scope["write_all"]


_FALLBACK = (AttributeError, KeyError, SkipField)


class RowListWriter(serializers.ListSerializer):
    """The list of a RowWriter serializer (its Meta's list_serializer_class, RowWriter.Meta):
    writes its rows all at once (the function _plan makes for its child), or row by row as the
    child writes each where one of them does not read plainly."""

    def to_representation(self, data) -> list[dict[str, Any]]:
        rows = list(data)
        if not rows:
            return []
        write_all = _plan(type(self.child), isinstance(rows[0], dict))
        try:
            return write_all(rows)
        except (*_FALLBACK, TypeError):  # TypeError: a row not of the first's kind
            return [self.child.to_representation(row) for row in rows]


# Mixed into a read-only Serializer or ModelSerializer whose instances are rows a selector
# read for the API (dicts, or objects whose attributes hold values, not methods, in the
# types of their fields: int for an IntegerField, text for a CharField or a text choice).
# Its to_representation writes what DRF's own would, each declared field's value by its
# source and its to_representation, without DRF's loop over the fields and without
# building the fields for every list: together they cost a list of 50 rows several times
# as much as reading them. A list (many=True) is written by RowListWriter: a serializer
# with a Meta of its own derives it from RowWriter.Meta. The fields are those of the class,
# made once without a context, so a field may not read the request. (No docstring:
# drf-spectacular would describe every serializer that mixes this in with it.)
class RowWriter:
    class Meta:
        list_serializer_class = RowListWriter

    def to_representation(self, row: Any) -> dict[str, Any]:
        try:
            return _plan(type(self), isinstance(row, dict))([row])[0]
        except _FALLBACK:
            # A source through a missing relation: the row as DRF writes it (the field's
            # default, or None where it allows null).
            return super().to_representation(row)


class MoneyField(serializers.DecimalField):
    """An amount of money as every response writes it: a JSON number (the stored amount,
    which has the field's decimal places), as COERCE_DECIMAL_TO_STRING=False has any
    DecimalField write it and the schema type it. float() of the amount, without the
    rounding context DecimalField makes for every value: that was a third of the time a list
    of 50 drives took to write."""

    def __init__(self, **kwargs):
        super().__init__(coerce_to_string=False, **kwargs)

    def to_representation(self, value) -> float:
        return float(value)
