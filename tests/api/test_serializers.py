"""The serializers that write rows a selector read for them (core.serializers.RowWriter:
the drives list's) write exactly what DRF's own to_representation
writes from the same declared fields, for any row of the shape their selectors give, and
any source a field can have (one name, a dotted path, a path through a missing relation,
the row itself)."""

from __future__ import annotations

from decimal import Decimal
from types import SimpleNamespace

from hypothesis import given
from hypothesis import strategies as st
from rest_framework import serializers

from core.serializers import RowWriter
from drives.api import DriveSerializer
from drives.models import Drive
from drives.selectors import CatalogRow, Named


def drf_writes(serializer: serializers.Serializer, row) -> dict:
    """What DRF's Serializer.to_representation writes of the row, field by field."""
    return serializers.Serializer.to_representation(serializer, row)


text = st.text(max_size=12)
big = st.integers(min_value=-(2**63), max_value=2**63 - 1)
named = st.builds(Named, slug=text, name=text)
catalog_rows = st.builds(
    CatalogRow,
    slug=text,
    manufacturer=named,
    model=text,
    capacity_bytes=st.none() | big,
    part_number=text,
    hardware_revision=text,
    kind=st.sampled_from(Drive.Kind.values),
    interface=st.sampled_from(Drive.Interface.values),
    form_factor=st.sampled_from(Drive.FormFactor.values),
    controller=st.none() | named,
    nand=st.none() | named,
    cell_type=st.none() | text,
    dram_bytes=st.none() | big,
    release_date=st.none() | st.dates(),
    synthetic=st.booleans(),
    latest_price=st.none() | st.decimals(min_value=0, max_value=10**9, places=2),
    url=text,
)


@given(row=catalog_rows)
def test_a_drive_is_written_as_drf_writes_it(row):
    serializer = DriveSerializer()
    assert serializer.to_representation(row) == drf_writes(serializer, row)


class Shelf(RowWriter, serializers.Serializer):
    name = serializers.CharField()
    maker = serializers.CharField(source="maker.name", default="nobody")
    price = serializers.DecimalField(max_digits=12, decimal_places=2, allow_null=True)
    sold_on = serializers.DateField(allow_null=True)
    whole = serializers.SerializerMethodField()

    def get_whole(self, row) -> str:
        return "row"


shelf_values = {
    "name": text,
    "maker": st.none() | st.builds(SimpleNamespace, name=text),
    "price": st.none() | st.decimals(min_value=-(10**9), max_value=10**9, places=2),
    "sold_on": st.none() | st.dates(),
}


@given(values=st.fixed_dictionaries(shelf_values), as_object=st.booleans())
def test_any_source_is_read_as_drf_reads_it(values, as_object):
    row = SimpleNamespace(**values) if as_object else values
    serializer = Shelf()
    assert serializer.to_representation(row) == drf_writes(serializer, row)


def test_a_value_is_written_by_its_field_not_as_read():
    written = Shelf().to_representation(
        {"name": "a", "maker": None, "price": Decimal("3.5"), "sold_on": None}
    )
    assert written == {
        "name": "a",
        "maker": "nobody",
        "price": "3.50",
        "sold_on": None,
        "whole": "row",
    }
