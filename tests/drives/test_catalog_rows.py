"""drive_page: the catalog's count and page in one statement, as the catalog page and the
API's drive list read them — the same drives, in the same order (NULLs last either way, as
the API's lists order), with the same names, as the model instances and Django's paginator
give."""

import datetime
from decimal import Decimal

import pytest
from django.core.paginator import Paginator
from django.http import QueryDict
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from benchsite.api import MAX_OFFSET
from core.filters import nulls_last
from core.query import QueryError, page_number
from drives import views
from drives.filters import DriveFilter
from drives.models import NandType
from drives.selectors import CATALOG_ORDER, drive_list, drive_page, drive_rows_streamed
from tests.factories import ControllerFactory, DriveFactory, NandTypeFactory, PriceFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def catalog():
    controller = ControllerFactory()
    nands = [
        NandTypeFactory(),
        NandTypeFactory(vendor=None, process_nm=None, layers=96, cell_type="tlc"),
        NandTypeFactory(interface=NandType.Interface.UNKNOWN, cell_type="slc"),
    ]
    for i in range(9):
        drive = DriveFactory(
            model=f"Model {i % 4}",
            capacity_bytes=(i % 3 + 1) * 120 * 10**9 if i != 4 else None,
            hardware_revision="rev B" if i == 2 else "",
            controller=controller if i % 2 else None,
            nand=nands[i % 3] if i != 7 else None,
            release_date=datetime.date(2012, 1, i + 1) if i % 3 else None,
        )
        if i % 4:
            PriceFactory(drive=drive, amount="99.90", observed_on="2013-01-01")
            PriceFactory(drive=drive, amount=f"{100 + i}.00", observed_on="2013-02-01")


QUERIES = [
    {},
    {"capacity_min": "240"},
    {"kind": "ssd"},
    {"cell_type": "tlc"},
    {"q": "Model 1"},
    {"q": "120GB"},
    {"q": "no such drive"},
]
ORDERS = [
    CATALOG_ORDER,
    ("-capacity_bytes", "-pk"),
    ("release_date", "pk"),
    ("-release_date", "-pk"),
    ("manufacturer__name", "pk"),
    ("-model", "-pk"),
]


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    st.sampled_from(QUERIES),
    st.sampled_from(ORDERS),
    st.integers(0, 12),
    st.integers(1, 5),
)
def test_a_page_is_the_listed_drives_with_their_names_and_latest_price(
    catalog, query, order, offset, limit
):
    filters = DriveFilter(query)
    assert filters.is_valid()
    drives = drive_list(drives=filters.qs).order_by(*nulls_last(order))
    total, rows = drive_page(filters=filters, order=order, offset=offset, limit=limit)
    expected = list(drives)
    assert total == len(expected)
    shown = expected[offset : offset + limit]
    assert [r.slug for r in rows] == [d.slug for d in shown]
    for row, drive in zip(rows, shown, strict=True):
        latest = drive.prices.filter(currency="USD").order_by("-observed_on", "amount").first()
        assert str(row) == str(drive) and row.get_absolute_url() == drive.get_absolute_url()
        assert row.manufacturer.name == drive.manufacturer.name
        assert str(row.controller) == (str(drive.controller) if drive.controller else "None")
        assert str(row.nand) == (str(drive.nand) if drive.nand else "None")
        assert row.cell_type == (drive.nand.cell_type if drive.nand else None)
        assert row.get_kind_display() == drive.get_kind_display()
        assert row.get_interface_display() == drive.get_interface_display()
        assert row.release_date == drive.release_date
        assert row.latest_price == (latest.amount if latest else None)
        assert row.latest_price is None or isinstance(row.latest_price, Decimal)


@pytest.mark.parametrize(
    "number",
    [None, "", "x", "1.5", "0", "-2", "1", "2", "3", "4", "99", "\u0663", "2 ", "9" * 4000],
)
def test_the_catalog_page_number_is_chosen_as_djangos_paginator_chooses_it(
    catalog, monkeypatch, number
):
    """A page the query names (core.query: none or empty is the first; a number it cannot
    take, a 400) is the page Django's paginator gives for it (the last, beyond the last)."""
    monkeypatch.setattr(views, "PAGE_SIZE", 4)
    drives = drive_list()
    query = QueryDict(mutable=True)
    if number is not None:
        query["page"] = number
    if number not in (None, "", "1", "2", "3", "4", "99"):
        with pytest.raises(QueryError):
            page_number(query)
        return
    page, _ = views._page(None, page_number(query))  # and the controllers, read with it
    expected = Paginator(list(drives), 4).get_page(number)
    assert page.number == expected.number
    assert page.paginator.num_pages == expected.paginator.num_pages
    assert [r.slug for r in page] == [d.slug for d in expected]


def test_an_offset_beyond_any_catalog_reads_no_rows(catalog, client):
    for offset in (10**6, 2**63, 10**40):
        assert drive_page(offset=offset, limit=5) == (9, [])
        response = client.get("/api/v1/drives/", {"offset": offset})
        if offset <= MAX_OFFSET:
            body = response.json()
            assert body["count"] == 9 and body["results"] == []
        else:  # beyond what the API's schema allows an offset: refused, saying so
            assert response.status_code == 400
            assert response.json()["errors"][0]["pointer"] == "/query/offset"


@pytest.mark.parametrize("show_synthetic", [False, True])
def test_the_streamed_list_is_drive_pages_whole_list(catalog, settings, show_synthetic):
    """What the open-data dump reads a batch at a time from PostgreSQL is the list the API
    pages through from the process's copy: the same rows, equal field by field, in order."""
    settings.BENCH_SHOW_SYNTHETIC = show_synthetic
    DriveFactory(model="Synthetic", synthetic=True)
    DriveFactory(model="Unlisted", listed=False)
    total, rows = drive_page(offset=0, limit=100)
    batches = list(drive_rows_streamed(batch=4))
    assert [len(b) for b in batches] == ([4, 4, 2] if show_synthetic else [4, 4, 1])
    assert [r for b in batches for r in b] == rows and total == len(rows)
