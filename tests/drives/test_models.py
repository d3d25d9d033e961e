import pytest
from django.db import IntegrityError, transaction

from drives.models import Drive, NandType
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


def test_manufacturer_names_are_unique_ignoring_case():
    ManufacturerFactory(name="Intel")
    violates("manufacturer_name_ci_unique", lambda: ManufacturerFactory(name="INTEL"))


def test_one_row_per_capacity_sku_and_revision():
    drive = DriveFactory(model="SSD 530", capacity_bytes=240 * 10**9)
    same = dict(manufacturer=drive.manufacturer, capacity_bytes=240 * 10**9)
    violates("drive_sku_unique", lambda: DriveFactory(model="ssd 530", **same))
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
    with pytest.raises(Exception, match="protected"):
        drive.controller.delete()


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
