"""A Shape's instance is the one the ORM builds from the same row: every loaded field's value
and type, the same fields deferred, the database it was read from. Over every model the
head to head reads, any choice of fields, and any float a result can hold."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.db import connection
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from core.db import Shape
from drives.models import Controller, Drive, FirmwareVersion, Manufacturer, NandType, Price
from results.models import (
    Citation,
    ConsistencySeries,
    Result,
    Run,
    SaturationSeries,
    Suite,
    Test,
    TestBench,
    TrimValidation,
)
from tests.factories import ControllerFactory, NandTypeFactory, PriceFactory
from tests.results.helpers import measured, published

pytestmark = pytest.mark.django_db

MODELS = [
    Drive,
    Manufacturer,
    Controller,
    NandType,
    Price,
    FirmwareVersion,
    Run,
    Citation,
    TestBench,
    Suite,
    get_user_model(),
    Test,
    Result,
    ConsistencySeries,
    TrimValidation,
    SaturationSeries,
]
PROPERTY = settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


@pytest.fixture
def rows():
    """At least one row of every model in MODELS, its optional relations filled in."""
    run = measured(manufacturer="Shape", model="One")
    published(
        manufacturer="Shape",
        model="Two",
        results=[{"test": "seqread-128k-qd1", "pattern": "unspecified", "iops": 1000}],
    )
    drive = run.drive
    drive.controller, drive.nand = ControllerFactory(), NandTypeFactory()
    drive.save()
    PriceFactory(drive=drive, amount="199.90")
    run.submitter = get_user_model().objects.create_user("reviewer")
    run.save()
    series = run.consistency_series.first()
    TrimValidation.objects.create(
        run=run,
        test=Test.objects.get(identifier="trim-validation"),
        pattern="incompressible",
        clean_bytes_per_second=2e8,
        after_torture_bytes_per_second=1.5e8,
        after_trim_bytes_per_second=1.99e8,
    )
    SaturationSeries.objects.create(
        run=run,
        test=Test.objects.get(identifier="write-saturation-128k-qd32"),
        bytes_per_interval=[10**9] * 3 + [10**8] * 20,
        bytes_written=5 * 10**9,
        exhausted=True,
        exhausted_at_s=3,
        mean_bytes_per_second=2.5e8,
    )
    assert all(model.objects.exists() for model in MODELS), series


def _read(model, fields: list[str], db: str = "default") -> list:
    """Every row of `model` built by a Shape of `fields`, in id order."""
    shape = Shape(model, "x", fields)
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT {shape.array} FROM {model._meta.db_table} x ORDER BY x.id")
        return [shape.build(row[0], db) for row in cursor.fetchall()]


def _assert_as_the_orm_builds(built, fields: list[str]) -> None:
    model = type(built[0])
    ordered = model.objects.order_by("pk")
    expected = list(ordered.only(*fields) if fields else ordered)
    for mine, orm in zip(built, expected, strict=True):
        assert mine.get_deferred_fields() == orm.get_deferred_fields()
        assert (mine._state.db, mine._state.adding) == (orm._state.db, orm._state.adding)
        for field in model._meta.concrete_fields:
            if field.attname in orm.get_deferred_fields():
                continue
            value, wanted = getattr(mine, field.attname), getattr(orm, field.attname)
            assert value == wanted, field
            assert type(value) is type(wanted), field


@pytest.mark.parametrize("model", MODELS, ids=lambda m: m.__name__)
def test_every_field_of_every_model_as_the_orm_builds_it(rows, model):
    _assert_as_the_orm_builds(_read(model, []), [])


@PROPERTY
@given(data=st.data())
def test_any_choice_of_fields_leaves_the_others_deferred(rows, data):
    model = data.draw(st.sampled_from(MODELS))
    names = [f.name for f in model._meta.concrete_fields if not f.primary_key]
    chosen = data.draw(st.sets(st.sampled_from(names), min_size=1))
    fields = ["id", *sorted(chosen)]
    _assert_as_the_orm_builds(_read(model, fields), fields)


FLOATS = [f.name for f in Result._meta.concrete_fields if f.get_internal_type() == "FloatField"]
POSITIVE = st.floats(min_value=0, max_value=1e300, exclude_min=True)  # MB/s and IOPS are


@PROPERTY
@given(values=st.lists(POSITIVE, min_size=len(FLOATS), max_size=len(FLOATS)))
# MB/s and IOPS as a run writes them, and the edges of a float; as many as FLOATS names.
@example(values=([215588301.0, 56948.0, 0.0, 1e15, 2.0**53, 1e-300] * len(FLOATS))[: len(FLOATS)])
def test_a_whole_number_in_a_float_field_is_a_float(rows, values):
    """PostgreSQL writes 215588301.0 as the JSON number 215588301, which reads back as an
    int: the ORM's instance has a float."""
    Result.objects.update(**dict(zip(FLOATS, values, strict=True)))
    _assert_as_the_orm_builds(_read(Result, []), [])


def test_built_on_the_database_it_was_read_from(rows):
    (test,) = _read(Test, ["id", "identifier"], db="replica")[:1]
    assert test._state.db == "replica" and not test._state.adding
