"""What the read API's serializers are built on: a serializer that writes the rows a selector
read for it by its declared fields, at the speed of a dict written by hand."""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from operator import attrgetter, itemgetter
from typing import Any

from rest_framework import serializers

Writer = Callable[[Any], Any]


def _writer(field: serializers.Field, mapping: bool) -> Writer:
    """How a field writes its value from a row: read by its source, written by its
    to_representation, None as None. A source is read as plainly as a dict or an attribute
    is; where that fails (a dotted path through a None), by the field's own get_attribute,
    which answers as DRF does (the field's default, or None where it allows null)."""
    if not field.source_attrs:  # source="*": the row itself
        return field.to_representation
    plain = itemgetter(field.source) if mapping else attrgetter(field.source)
    if mapping and len(field.source_attrs) > 1:
        plain = field.get_attribute
    write = field.to_representation

    def read(row: Any) -> Any:
        try:
            return plain(row)
        except (AttributeError, KeyError):
            return field.get_attribute(row)

    return lambda row: None if (value := read(row)) is None else write(value)


@functools.cache
def _writers(serializer: type[serializers.Serializer], mapping: bool) -> tuple:
    # Built once per class, on an instance of its own: a list builds its fields once, not
    # once a request (a ModelSerializer's cost more to build than 50 rows to write).
    fields = serializer().fields
    return tuple((n, _writer(f, mapping)) for n, f in fields.items() if not f.write_only)


# Mixed into a read-only Serializer or ModelSerializer whose instances are rows a selector
# read for the API (dicts, or objects whose attributes hold values, not methods, with every
# source a field names). Its to_representation writes what DRF's own would, each declared
# field's value by its source and its to_representation, without DRF's generic loop over
# the fields (its traversal, SkipField and PKOnlyObject checks) and without building the
# fields again for every list: together they cost a list of 50 rows several times as much
# as reading them. The fields are those of the class, made once without a context, so a
# field may not read the request. (No docstring: drf-spectacular would describe every
# serializer that mixes this in with it.)
class RowWriter:
    def to_representation(self, row: Any) -> dict[str, Any]:
        return {name: write(row) for name, write in _writers(type(self), isinstance(row, Mapping))}
