"""The drive list's copy in each server process (drives.catalog_index): it lists, counts,
orders, pages and searches exactly as the ORM does over generated filters, orders and
catalogs (ties, NULL capacities and dates, last in either direction as the API's ordering
backend orders a queryset, names in any case and beyond ASCII, synthetic drives), and it is
current: a process keeps its copy while the catalog's version stays and reads it again
when a transaction that wrote drives, makers, controllers, NAND types or prices commits (and
only then); a transaction that has written them reads its own."""

import datetime

import psycopg
import pytest
from django.db import connection, transaction
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core.filters import nulls_last
from core.versions import CATALOG, DRIVES, versions_sql
from drives import catalog_index as ci
from drives.api import DriveApiFilter
from drives.models import Controller, Drive, Manufacturer, NandType, Price
from drives.selectors import DRIVE_ORDERS, catalog_row, controllers, drive_list, drive_page
from tests.factories import (
    ControllerFactory,
    DriveFactory,
    ManufacturerFactory,
    NandTypeFactory,
    PriceFactory,
)
from tests.filter_queries import filter_queries

GB = 10**9
MAKERS = ["Intel", "iNtel Corp", "OCZ", "Ångström", "straße", "Zeta"]
MODELS = ["Vertex 4", "vertex 3", "SSD 520", "Agility", "Ultra ſ", "İnland", "50%_off", "Ä b"]


@pytest.fixture
def catalog(db):
    makers = [ManufacturerFactory(name=n, slug=f"m{i}") for i, n in enumerate(MAKERS)]
    controllers = [ControllerFactory(vendor=makers[i], slug=f"c{i}") for i in range(3)]
    nands = [
        NandTypeFactory(slug="n-mlc"),
        NandTypeFactory(slug="n-tlc", cell_type="tlc", vendor=None),
        NandTypeFactory(slug="n-slc", cell_type="slc"),
    ]
    NandTypeFactory(slug="n-unused", cell_type="qlc")
    for i in range(30):
        drive = DriveFactory(
            manufacturer=makers[i % len(makers)],
            model=MODELS[i % len(MODELS)] + ("" if i < 16 else f" {i}"),
            capacity_bytes=[None, 120 * GB, 240 * GB, 2**62, 240 * GB][i % 5],
            hardware_revision="rev B" if i % 7 == 3 else "",
            kind=Drive.Kind.HDD if i % 9 == 4 else Drive.Kind.SSD,
            interface=Drive.Interface.PCIE_NVME if i % 4 == 1 else Drive.Interface.SATA_6G,
            controller=controllers[i % 3] if i % 4 else None,
            nand=nands[i % 3] if i % 5 != 2 else None,
            release_date=datetime.date(2012, 1 + i % 3, 1) if i % 3 else None,
            synthetic=i % 8 == 5,
        )
        if i % 3 != 1:
            PriceFactory(drive=drive, amount=f"{50 + i % 4}.00", observed_on="2013-01-01")


WORDS = [
    "vert",
    "VERTEX",
    "intel",
    "ssd",
    "5",
    "%",
    "_",
    "ä",
    "Ä",
    "ß",
    "ſ",
    "İ",
    "s",
    "240GB",
    "120gb",
    "4611686.02TB",
    "rev",
    "(rev",
    "CTL",
    "Maker",
    "zz",
    "x",
]
# Capacities in GB: none, the fixture's, and bounds about the largest (2**62 bytes).
NUMBERS = ["0", "120", "240", "4611686018", "9000000000"]
FIELDS = [name for name in DRIVE_ORDERS if name != "pk"]
ORDERS = st.lists(st.tuples(st.sampled_from(FIELDS), st.booleans()), min_size=0, max_size=3).map(
    lambda fields: (*(("-" if down else "") + f for f, down in fields), "pk")
)


@settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(
    data=st.data(),
    order=ORDERS,
    offset=st.integers(0, 32),
    limit=st.integers(1, 8),
    synthetic=st.booleans(),
)
def test_a_page_is_what_the_orm_lists(catalog, data, order, offset, limit, synthetic):
    from django.conf import settings as django_settings

    query = data.draw(
        filter_queries(DriveApiFilter, words=st.sampled_from(WORDS), numbers=NUMBERS, max_size=9)
    )
    django_settings.BENCH_SHOW_SYNTHETIC = synthetic
    try:
        filters = DriveApiFilter(query)
        assert filters.is_valid(), filters.errors
        drives = filters.qs if synthetic else drive_list(drives=filters.qs)
        expected = list(drives.order_by(*nulls_last(order)).values_list("slug", flat=True))
        total, rows = drive_page(filters=filters, order=order, offset=offset, limit=limit)
        assert total == len(expected)
        assert [r.slug for r in rows] == expected[offset : offset + limit]
    finally:
        django_settings.BENCH_SHOW_SYNTHETIC = False


@pytest.mark.parametrize("word", ["ß", "İ", "Å", "straSSe"])
def test_a_search_beyond_ascii_finds_what_the_database_finds(catalog, word):
    filters = DriveApiFilter({"q": word})
    assert filters.is_valid()
    expected = list(drive_list(drives=filters.qs).values_list("slug", flat=True))
    total, rows = drive_page(filters=filters, offset=0, limit=100)
    assert [r.slug for r in rows] == expected and total == len(expected)


def test_a_bound_beyond_any_capacity_keeps_every_drive_with_one(catalog):
    # Django's ORM drops a condition whose bound a bigint cannot hold (and so keeps drives
    # of unknown capacity); SQL's comparison, which lists follow, keeps only known ones.
    known = list(drive_list().filter(capacity_bytes__isnull=False).values_list("slug", flat=True))
    for query in ({"capacity_max": "99999999999999"}, {"capacity_min": "0"}):
        filters = DriveApiFilter(query)
        assert filters.is_valid()
        total, rows = drive_page(filters=filters, offset=0, limit=100)
        assert total == len(known) and {r.slug for r in rows} == set(known)
    filters = DriveApiFilter({"capacity_min": "99999999999999"})
    assert filters.is_valid()
    assert drive_page(filters=filters, offset=0, limit=100) == (0, [])


def test_a_drive_is_found_by_its_slug_unless_synthetic(catalog, settings):
    drive = Drive.objects.filter(synthetic=False).first()
    assert catalog_row(drive.slug).slug == drive.slug
    hidden = Drive.objects.filter(synthetic=True).first()
    assert catalog_row(hidden.slug) is None and catalog_row("nope") is None
    settings.BENCH_SHOW_SYNTHETIC = True
    assert catalog_row(hidden.slug).slug == hidden.slug


# -- the copy is current ---------------------------------------------------------------------


def _version() -> int:
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT {versions_sql(CATALOG, DRIVES)}")
        return cursor.fetchone()[0]


def _models() -> list[str]:
    return [row.model for row in drive_page(order=("model", "pk"), offset=0, limit=100)[1]]


@pytest.fixture
def committed(transactional_db):
    ci._held.clear()
    return [DriveFactory(model="Alpha"), DriveFactory(model="Beta")]


def test_a_copy_is_kept_while_nothing_changes_and_checked_with_one_statement(
    committed, django_assert_num_queries
):
    first = ci.catalog_index()
    with django_assert_num_queries(1):
        assert ci.catalog_index() is first
    with django_assert_num_queries(1):
        _models()  # a list costs that one statement
    list(Drive.objects.all())
    assert ci.catalog_index() is first


WRITES = {
    "a price": lambda d: PriceFactory(drive=d, amount="10.00"),
    "a price deleted": lambda d: Price.objects.filter(drive=d).delete(),
    "a drive renamed": lambda d: Drive.objects.filter(pk=d.pk).update(model="Renamed"),
    "a drive added": lambda d: DriveFactory(model="Gamma"),
    "a maker renamed": lambda d: Manufacturer.objects.filter(pk=d.manufacturer_id).update(
        name="Other"
    ),
    "a controller added": lambda d: Controller.objects.create(
        vendor=d.manufacturer, model="C1", slug="index-c1"
    ),
    "a NAND type changed": lambda d: NandType.objects.filter(pk=d.nand_id).update(layers=64),
}


@pytest.mark.parametrize("write", list(WRITES), ids=list(WRITES))
def test_a_committed_write_to_what_lists_read_moves_the_version_once(committed, write):
    drive = committed[0]
    drive.nand = NandTypeFactory()
    drive.save()
    PriceFactory(drive=drive, amount="9.00")
    before = _version()
    held = ci.catalog_index()
    with transaction.atomic():
        WRITES[write](drive)
        PriceFactory(drive=committed[1], amount="11.00")
        assert _version() == before  # not until the commit
    after = _version()
    assert after == before + 1  # once for the transaction
    fresh = ci.catalog_index()
    assert fresh is not held and fresh.version == after
    assert ci.catalog_index() is fresh


def test_the_list_follows_a_renamed_drive_and_a_new_price(committed):
    assert _models() == ["Alpha", "Beta"]
    Drive.objects.filter(pk=committed[0].pk).update(model="Zulu")
    PriceFactory(drive=committed[1], amount="40.00")
    rows = drive_page(order=("model", "pk"), offset=0, limit=10)[1]
    assert [(r.model, r.latest_price) for r in rows] == [("Beta", 40), ("Zulu", None)]


def test_the_filter_forms_controllers_follow_the_catalog(committed):
    # the catalog page's choice of controllers comes with the copy: in order, current
    maker = ManufacturerFactory(name="Zeta", slug="zeta")
    Controller.objects.create(vendor=maker, model="Z1", slug="z1")
    Controller.objects.create(vendor=maker, model="A9", slug="a9")
    assert controllers() == [("a9", "Zeta A9"), ("z1", "Zeta Z1")]
    Manufacturer.objects.filter(pk=maker.pk).update(name="Acme")
    Controller.objects.create(vendor=ManufacturerFactory(name="Bolt"), model="B", slug="b")
    assert controllers() == [("a9", "Acme A9"), ("z1", "Acme Z1"), ("b", "Bolt B")]


def test_an_uncommitted_write_elsewhere_is_not_seen_and_its_commit_is(committed):
    held = ci.catalog_index()
    params = connection.get_connection_params()
    params.pop("cursor_factory", None)
    params.pop("context", None)
    with psycopg.connect(**params) as other:
        other.execute("UPDATE drives_drive SET model = 'Omega' WHERE id = %s", [committed[0].pk])
        assert ci.catalog_index() is held  # the other transaction is still open
        assert _models() == ["Alpha", "Beta"]
        other.commit()
    assert ci.catalog_index() is not held
    assert _models() == ["Beta", "Omega"]


def test_a_transaction_that_wrote_reads_its_own_copy_and_keeps_none(committed):
    held = ci.catalog_index()
    with transaction.atomic():
        DriveFactory(model="Aardvark")
        mine = ci.catalog_index()
        assert mine is not held and ci.catalog_index() is not mine
        assert _models() == ["Aardvark", "Alpha", "Beta"]
        transaction.set_rollback(True)
    assert ci.catalog_index() is held
    assert _models() == ["Alpha", "Beta"]


def test_truncating_moves_the_version_at_once(committed):
    before = _version()
    with transaction.atomic():
        with connection.cursor() as cursor:
            cursor.execute("TRUNCATE drives_price")
        assert _version() > before


def test_an_empty_catalog_lists_nothing(transactional_db):
    ci._held.clear()
    assert drive_page(offset=0, limit=5) == (0, [])
    assert catalog_row("anything") is None


def test_search_words_are_literal_text(committed):
    DriveFactory(model="100% _fast_")
    for word, models in {"%": ["100% _fast_"], "_f": ["100% _fast_"], "a_": []}.items():
        filters = DriveApiFilter({"q": word})
        assert filters.is_valid()
        assert [r.model for r in drive_page(filters=filters, offset=0, limit=9)[1]] == models
