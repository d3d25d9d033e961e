"""Every list of the API that can be ordered (?ordering=) puts the items without a value
last, going up and going down: each orderable field of each such list, both directions,
over a catalog where every nullable field has items with and without a value."""

from __future__ import annotations

import datetime

import pytest
from rest_framework.filters import OrderingFilter
from rest_framework.settings import api_settings

from benchsite.urls import router
from core.filters import StableOrderingFilter, nulls_last
from tests.factories import DriveFactory, ManufacturerFactory

pytestmark = pytest.mark.django_db

GB = 10**9


def orderable_lists() -> list[tuple[str, type]]:
    """(URL, viewset) of each list the router serves with an ordering backend."""
    found = []
    for prefix, viewset, _ in router.registry:
        backends = getattr(viewset, "filter_backends", api_settings.DEFAULT_FILTER_BACKENDS)
        if any(issubclass(backend, OrderingFilter) for backend in backends):
            found.append((f"/api/v1/{prefix}/", viewset))
    return found


LISTS = orderable_lists()
CASES = [
    (url, viewset, ("-" if down else "") + name)
    for url, viewset in LISTS
    for name in viewset.ordering_fields
    for down in (False, True)
]


def test_the_lists_that_can_be_ordered_are_found_and_order_nulls_last():
    assert "/api/v1/drives/" in [url for url, _ in LISTS]
    for url, viewset in LISTS:  # the one backend, whose rule is declared once
        backends = [b for b in viewset.filter_backends if issubclass(b, OrderingFilter)]
        assert backends == [StableOrderingFilter], url


@pytest.fixture
def catalog(db):
    makers = [ManufacturerFactory(name=name) for name in ("Zeta", "acme", "Intel")]
    capacities = [None, 120 * GB, None, 480 * GB, 240 * GB, None, 120 * GB]
    for i, capacity in enumerate(capacities):
        DriveFactory(
            manufacturer=makers[i % len(makers)],
            model=["Vertex", "agility", "SSD 520", "Ultra"][i % 4],
            capacity_bytes=capacity,
            release_date=datetime.date(2012, 1 + i % 4, 1) if i % 3 else None,
        )


@pytest.mark.parametrize(("url", "viewset", "ordering"), CASES, ids=[c[2] for c in CASES])
def test_every_ordering_puts_nulls_last_both_ways(client, catalog, url, viewset, ordering):
    name = ordering.removeprefix("-")
    lookup = viewset.lookup_field
    body = client.get(url, {"ordering": ordering, "limit": 500}).json()
    keys = [item[lookup if lookup != "pk" else "id"] for item in body["results"]]
    view = viewset(action="list", request=None, format_kwarg=None, kwargs={})
    queryset = view.get_queryset()
    values = dict(queryset.model.objects.values_list(lookup, name))
    shown = [values[key] for key in keys]
    known = [v for v in shown if v is not None]
    assert shown == known + [None] * (len(shown) - len(known)), (ordering, shown)
    field = queryset.model._meta.get_field(name.split("__")[0])
    if field.null:  # not vacuous: the catalog has drives with a value and without
        assert known and len(known) < len(shown), (ordering, shown)
    # And in the database's order of the values (its collation), ties by id.
    tie = "-pk" if ordering.startswith("-") else "pk"
    expected = queryset.order_by(*nulls_last([ordering, tie])).values_list(lookup, flat=True)
    assert keys == list(expected)
