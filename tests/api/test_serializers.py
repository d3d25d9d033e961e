"""The serializers that write rows a selector read for them (core.serializers.RowWriter:
the drives list's, the results list's) write exactly what DRF's own to_representation
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
from results.api.reads import ResultSerializer
from results.models import DataPattern, LatencyKind, Run
from results.selectors.runs import RESULT_LIST_FIELDS


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


@given(price=st.decimals(min_value=0, max_value=10**10 - 1, places=2))
def test_a_price_is_written_as_the_json_writes_a_decimalfields_amount(price):
    # A number (COERCE_DECIMAL_TO_STRING=False): DecimalField's amount, which the JSON
    # renderer writes as a float.
    declared = DriveSerializer().fields["latest_price_usd"]
    decimal = serializers.DecimalField(max_digits=12, decimal_places=2)
    written = declared.to_representation(price)
    assert type(written) is float and written == float(decimal.to_representation(price))


@given(row=catalog_rows)
def test_a_drive_is_written_as_drf_writes_it(row):
    serializer = DriveSerializer()
    assert serializer.to_representation(row) == drf_writes(serializer, row)


def _result_value(name: str):
    field = ResultSerializer().fields.get(name)
    if name.endswith("_percentiles_ns"):
        return st.none() | st.dictionaries(st.sampled_from(["50", "99", "99.9"]), big)
    if name == "fio_steadystate":  # fio's own verdict (results.importers.fio)
        return st.none() | st.fixed_dictionaries(
            {
                "criterion": st.text(min_size=1, max_size=60),
                "window_s": big,
                "attained": st.booleans(),
            },
            optional={"value": st.text(min_size=1, max_size=60)},
        )
    if name == "pattern":
        return st.sampled_from(DataPattern.values)
    if name == "source":
        return st.sampled_from(Run.Source.values)
    if name == "latency_kind":
        return st.sampled_from(["", *LatencyKind.values])
    if name == "partial":
        return st.booleans()
    if name in ("drive", "test"):
        return text
    if isinstance(field, serializers.ChoiceField):  # derived, missing_rates_reason
        return st.none() | st.sampled_from(list(field.choices))
    if isinstance(field, serializers.FloatField) or name.endswith(("_mean_ns", "_stddev_ns")):
        return st.none() | st.floats(allow_nan=False, allow_infinity=False)
    return st.none() | big


# Rows as results_listed reads them: every column, of its column's type.
result_rows = st.fixed_dictionaries({name: _result_value(name) for name in RESULT_LIST_FIELDS})


@given(row=result_rows)
def test_a_listed_result_is_written_as_drf_writes_it(row):
    serializer = ResultSerializer()
    written = serializer.to_representation(row)
    assert written == drf_writes(serializer, row)
    assert list(written) == list(serializer.fields)


class Shelf(RowWriter, serializers.Serializer):
    name = serializers.CharField()
    maker = serializers.CharField(source="maker.name", default="nobody")
    # As text, which tells a value written by its field ("3.50") from one as read (3.5).
    price = serializers.DecimalField(
        max_digits=12, decimal_places=2, allow_null=True, coerce_to_string=True
    )
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


# -- lists (many=True): written field by field down the list, the same as row by row ------


@given(rows=st.lists(catalog_rows, max_size=6))
def test_a_list_of_drives_is_written_as_drf_writes_each(rows):
    assert DriveSerializer(rows, many=True).data == [drf_writes(DriveSerializer(), r) for r in rows]


@given(rows=st.lists(result_rows, max_size=6))
def test_a_list_of_results_is_written_as_drf_writes_each(rows):
    serializer = ResultSerializer()
    assert ResultSerializer(rows, many=True).data == [drf_writes(serializer, r) for r in rows]


@given(rows=st.lists(st.tuples(st.fixed_dictionaries(shelf_values), st.booleans()), max_size=6))
def test_a_list_of_rows_of_any_kind_is_written_as_drf_writes_each(rows):
    # objects and dicts in one list, a source through a missing relation among them: the
    # list is written row by row then, as each row's own
    rows = [SimpleNamespace(**values) if as_object else values for values, as_object in rows]
    assert Shelf(rows, many=True).data == [drf_writes(Shelf(), r) for r in rows]
