"""The results list applies ResultFilter's own declarations: its statement's conditions are
derived from the filters' fields (selectors.runs.results_listed), and for any choice of
filters and values it lists exactly the results ResultFilter's queryset keeps of the
published, non-synthetic runs, newest first."""

from __future__ import annotations

import json

import django_filters
import pytest
from django.core.exceptions import ImproperlyConfigured
from django.db.models import QuerySet
from hypothesis import HealthCheck, given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st

from results.api.reads import ResultFilter, equalities
from results.models import DataPattern, Result, Run, Test
from results.selectors.runs import results_listed
from results.services import run_ingest, run_withdraw
from results.synthetic import measured_document
from tests.results.helpers import published

pytestmark = pytest.mark.django_db

EXAMPLES = hypothesis_settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


def ingest(document: dict) -> Run:
    return run_ingest(document=json.dumps(document), submitter=None).run


@pytest.fixture
def catalog() -> dict[str, list]:
    """Measured runs of two drives (two of one), published figures, a withdrawn run and a
    synthetic one: what each filter may name, and something that matches nothing."""
    runs = [
        ingest(measured_document(seed=1, model="Alpha 240GB", series_seconds=60)),
        ingest(measured_document(seed=3, model="Alpha 240GB", series_seconds=60)),
        ingest(measured_document(seed=2, model="Beta 480GB", capacity_bytes=480 * 10**9)),
        published(
            manufacturer="Gamma",
            model="G 120GB",
            results=[{"test": "randread-4k-qd3", "pattern": "unspecified", "iops": 9000.0}],
        ),
        ingest(measured_document(seed=4, model="Delta 960GB", series_seconds=60)),
        ingest(measured_document(seed=5, model="Epsilon 128GB", series_seconds=60)),
    ]
    run_withdraw(run=runs[4], reason="wrong drive")
    Run.objects.filter(pk=runs[5].pk).update(source=Run.Source.SYNTHETIC)
    return {
        "drive": [run.drive.slug for run in runs] + ["no-such-drive"],
        "test": [*Test.objects.values_list("identifier", flat=True), "no-such-test"],
        "source": Run.Source.values,
        "run": [str(run.pk) for run in runs] + ["999999"],
        "pattern": DataPattern.values,
    }


def shown() -> QuerySet[Result]:
    return Result.objects.filter(run__status=Run.Status.PUBLISHED).exclude(
        run__source=Run.Source.SYNTHETIC
    )


@EXAMPLES
@given(data=st.data())
def test_the_list_holds_what_the_filters_keep(catalog, data):
    query = data.draw(
        st.fixed_dictionaries({}, optional={k: st.sampled_from(v) for k, v in catalog.items()})
    )
    filters = ResultFilter(query, queryset=shown())
    assert filters.is_valid(), filters.errors
    listed = [row["id"] for row in results_listed(where=equalities(filters), limit=10_000)]
    assert listed == list(filters.qs.order_by("-id").values_list("id", flat=True))


def test_the_filters_narrow_the_list(client, catalog):
    # Held to the ORM above; here, that the examples are not all empty or all alike.
    everything = client.get("/api/v1/results/", {"limit": 500}).json()["results"]
    one_run = client.get("/api/v1/results/", {"run": catalog["run"][0], "limit": 500}).json()
    assert 0 < len(one_run["results"]) < len(everything)
    assert {r["run"] for r in one_run["results"]} == {int(catalog["run"][0])}


def test_a_filter_the_statement_cannot_apply_is_refused():
    # A range, or a filter with its own condition: not an equality on its field.
    class Wider(ResultFilter):
        queue_depth = django_filters.NumberFilter(lookup_expr="gte")

    filters = Wider({"queue_depth": "4"}, queryset=Result.objects.none())
    assert filters.is_valid()
    with pytest.raises(ImproperlyConfigured):
        equalities(filters)
