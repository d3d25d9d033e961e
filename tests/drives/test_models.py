import re
from decimal import Decimal

import pytest
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.db.models import ProtectedError
from hypothesis import example, given
from hypothesis import strategies as st

from drives.filters import capacity_range
from drives.models import Drive, Manufacturer, NandType, capacity_label, catalog_key
from drives.selectors import drive_labels
from results import units
from tests.factories import (
    ControllerFactory,
    DriveFactory,
    ManufacturerFactory,
    NandTypeFactory,
    PriceFactory,
)

pytestmark = pytest.mark.django_db


def violates(constraint: str, make) -> None:
    with pytest.raises(IntegrityError) as caught, transaction.atomic():
        make()
    assert constraint in str(caught.value)


@pytest.mark.parametrize(
    "first, second",
    [
        ("Intel", "INTEL"),
        # Non-ASCII capitals: the database's C locale would not fold these; the key does.
        ("ÖKO Speicher", "öko speicher"),
        ("Straße", "STRASSE"),
        ("Ελληνικά", "ΕΛΛΗΝΙΚΆ"),
        # The same letters composed and decomposed, and white space runs.
        ("Caf\u00e9", "Cafe\u0301"),
        ("Western  Digital", "western digital"),
    ],
)
def test_manufacturer_names_are_unique_by_catalog_key(first, second):
    ManufacturerFactory(name=first)
    assert catalog_key(first) == catalog_key(second)
    violates("manufacturer_name_key_unique", lambda: ManufacturerFactory(name=second))


def test_catalog_key_is_kept_by_save_bulk_create_and_clean():
    maker = ManufacturerFactory(name="ÖKO Speicher")
    assert Manufacturer.objects.get(pk=maker.pk).name_key == "öko speicher"
    maker.name = "Öko Speicher GmbH"
    maker.save()
    assert Manufacturer.objects.get(pk=maker.pk).name_key == "öko speicher gmbh"
    (bulk,) = Manufacturer.objects.bulk_create([Manufacturer(name="ÄBC", slug="abc")])
    assert Manufacturer.objects.get(pk=bulk.pk).name_key == "äbc"
    # full_clean sees the key of the name being validated (the admin's path).
    clash = Manufacturer(name="äbc", slug="abc-2")
    with pytest.raises(ValidationError, match="name_key"):
        clash.full_clean()


def test_one_row_per_capacity_sku_and_revision():
    drive = DriveFactory(model="SSD 530", capacity_bytes=240 * 10**9)
    same = dict(manufacturer=drive.manufacturer, capacity_bytes=240 * 10**9)
    violates("drive_sku_unique", lambda: DriveFactory(model="ssd 530", **same))
    DriveFactory(model="Ödland", **same)
    violates("drive_sku_unique", lambda: DriveFactory(model="ÖDLAND", **same))
    DriveFactory(model="SSD 530", manufacturer=drive.manufacturer, capacity_bytes=120 * 10**9)
    DriveFactory(model="SSD 530", hardware_revision="v2", **same)


def test_unknown_capacities_still_collide():
    drive = DriveFactory(model="X25-M", capacity_bytes=None)
    violates(
        "drive_sku_unique",
        lambda: DriveFactory(model="X25-M", manufacturer=drive.manufacturer, capacity_bytes=None),
    )


def test_part_numbers_unique_per_manufacturer_when_given():
    drive = DriveFactory(part_number="SSDSC2BW240A4")
    violates(
        "drive_part_number_unique",
        lambda: DriveFactory(manufacturer=drive.manufacturer, part_number="SSDSC2BW240A4"),
    )
    DriveFactory(manufacturer=drive.manufacturer, part_number="")
    DriveFactory(manufacturer=drive.manufacturer, part_number="")


def test_virtual_devices_configurations_and_unverified_specs():
    vm_disk = DriveFactory(model="virtio-blk virtual disk", kind=Drive.Kind.VIRTUAL)
    vm_disk.full_clean()
    assert vm_disk.get_kind_display() == "virtual device"
    config = DriveFactory(configuration=True, unverified_specs=["nand"])
    config.full_clean()
    config.unverified_specs = ["colour"]
    with pytest.raises(ValidationError, match="colour"):
        config.full_clean()


@pytest.mark.parametrize("capacity", [0, -1])
def test_capacity_must_be_positive(capacity):
    violates("drive_capacity_positive", lambda: DriveFactory(capacity_bytes=capacity))


def test_controller_per_vendor_model_unique():
    controller = ControllerFactory(model="SF-2281")
    violates(
        "controller_vendor_model_unique",
        lambda: ControllerFactory(vendor=controller.vendor, model="sf-2281"),
    )


def test_nand_type_unique_even_with_unknown_fields():
    nand = NandTypeFactory(process_nm=None, layers=None)
    violates(
        "nand_type_unique",
        lambda: NandTypeFactory(
            vendor=nand.vendor,
            process_nm=None,
            layers=None,
            cell_type=nand.cell_type,
            interface=nand.interface,
        ),
    )


def test_price_rules():
    price = PriceFactory()
    violates("price_amount_positive", lambda: PriceFactory(amount="0"))
    violates("price_currency_iso", lambda: PriceFactory(currency="usd"))
    violates(
        "price_unique",
        lambda: PriceFactory(drive=price.drive, observed_on=price.observed_on, source=price.source),
    )


def test_protected_references():
    drive = DriveFactory(controller=ControllerFactory(), nand=NandTypeFactory())
    with pytest.raises(ProtectedError) as caught:
        drive.controller.delete()
    assert set(caught.value.protected_objects) == {drive}
    with pytest.raises(ProtectedError) as caught:
        drive.nand.delete()
    assert set(caught.value.protected_objects) == {drive}
    with pytest.raises(ProtectedError) as caught:
        drive.manufacturer.delete()
    assert set(caught.value.protected_objects) == {drive}


def test_names_read_like_a_catalog():
    intel = ManufacturerFactory(name="Intel")
    drive = DriveFactory(manufacturer=intel, model="SSD 530", capacity_bytes=240 * 10**9)
    assert str(drive) == "Intel SSD 530 240GB"
    assert (
        str(
            NandTypeFactory(
                vendor=ManufacturerFactory(name="IMFT"),
                process_nm=20,
                cell_type=NandType.CellType.MLC,
                interface=NandType.Interface.SYNC_ONFI,
            )
        )
        == "IMFT 20nm MLC (synchronous ONFI)"
    )
    assert Drive.objects.real().count() == 1


# Capacities as devices report them: 256 GiB, a 9 GiB zram device, 16 GiB, a "240GB" SSD,
# enterprise and hard-drive TB, the edges where a step changes.
@pytest.mark.parametrize(
    ("capacity", "label"),
    [
        (274_877_906_944, "275GB"),
        (9_663_676_416, "9.7GB"),
        (17_179_869_184, "17GB"),
        (240_057_409_536, "240GB"),
        (268_435_456, "0.27GB"),
        (9_960_000_000, "10GB"),
        (999_499_999_999, "999GB"),
        (999_600_000_000, "1TB"),
        (1_920_383_410_176, "1.92TB"),
        (4_000_787_030_016, "4TB"),
        (15_360_950_534_144, "15.36TB"),
    ],
)
def test_a_drive_is_named_by_its_capacity_as_makers_state_it(capacity, label):
    """Not "274.878GB": the name, the label of rankings and value views, and the tables'
    capacity column all say the same."""
    drive = DriveFactory(
        manufacturer=ManufacturerFactory(name="Maker"), model="Model", capacity_bytes=capacity
    )
    assert capacity_label(capacity) == label
    assert str(drive) == f"Maker Model {label}"
    assert str(drive_labels([drive.pk])[drive.pk]) == str(drive)
    assert units.capacity(capacity) == label


@given(st.integers(min_value=1, max_value=2**63 - 1))
@example(999_500_000_000)
@example(9_950_000_000)
@example(1)
def test_a_capacity_label_rounds_to_its_step_and_search_finds_it(capacity):
    """Two significant digits below 10GB, whole GB below 1TB, hundredths of a TB above,
    half a step up; the label, searched for, matches the capacity it names."""
    number, unit = re.fullmatch(r"(\d+(?:\.\d+)?)(GB|TB)", capacity_label(capacity)).groups()
    named = Decimal(number) * (10**9 if unit == "GB" else 10**12)
    places = max(0, -Decimal(number).as_tuple().exponent)
    if unit == "TB":
        assert named >= 10**12 and places <= 2 and abs(named - capacity) <= 5 * 10**9
    elif named >= 10 * 10**9:
        assert places == 0 and abs(named - capacity) <= 5 * 10**8
    else:
        assert len(Decimal(number).normalize().as_tuple().digits) <= 2
        assert abs(named - capacity) <= Decimal(capacity) / 20
    low, high = capacity_range(number, unit)
    assert low <= capacity <= high
