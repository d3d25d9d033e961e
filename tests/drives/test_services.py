"""drive_resolve and manufacturer_resolve: the catalog row a result document names."""

import pytest

from drives.models import Drive, Manufacturer
from drives.services import (
    AMBIGUOUS_DRIVE,
    PART_NUMBER_DIFFERS,
    PART_NUMBER_TAKEN,
    DriveSpecProblem,
    drive_resolve,
    manufacturer_resolve,
)
from tests.factories import DriveFactory, ManufacturerFactory

pytestmark = pytest.mark.django_db
GB = 10**9


def spec(**fields):
    return {"manufacturer": "ÖKO Speicher", "model": "Flash Eins", **fields}


def test_a_new_drive_is_created_once_and_found_again_in_any_case():
    drive = drive_resolve(spec=spec(capacity_bytes=240 * GB, kind="virtual"))
    assert (drive.manufacturer.name, drive.model, drive.kind) == (
        "ÖKO Speicher",
        "Flash Eins",
        "virtual",
    )
    for variant in (
        spec(),
        spec(manufacturer="öko speicher", model="FLASH EINS"),
        spec(manufacturer="  ÖKO   SPEICHER ", model="flash eins", capacity_bytes=240 * GB),
    ):
        assert drive_resolve(spec=variant) == drive
    assert (Manufacturer.objects.count(), Drive.objects.count()) == (1, 1)
    assert manufacturer_resolve(name="ÖKO SPEICHER") == drive.manufacturer


def test_a_part_number_names_one_drive():
    owner = drive_resolve(spec=spec(capacity_bytes=240 * GB, part_number="OK-240"))
    assert drive_resolve(spec=spec(part_number="OK-240")) == owner
    # Reused by another model, or by another SKU of the same model: refused, not a crash.
    for other in (
        spec(model="Flash Zwei", part_number="OK-240"),
        spec(capacity_bytes=480 * GB, part_number="OK-240"),
    ):
        with pytest.raises(DriveSpecProblem) as caught:
            drive_resolve(spec=other)
        assert caught.value.field == "part_number"
        assert caught.value.message == PART_NUMBER_TAKEN.format(part="OK-240", drive=owner)


def test_a_drive_without_a_part_number_matches_one_given():
    drive = DriveFactory(
        manufacturer=ManufacturerFactory(name="Intel"), model="SSD 530", capacity_bytes=240 * GB
    )
    found = drive_resolve(
        spec={
            "manufacturer": "intel",
            "model": "ssd 530",
            "capacity_bytes": 240 * GB,
            "part_number": "SSDSC2BW240A4",
        }
    )
    assert found == drive and found.part_number == ""  # an upload does not edit the catalog


def test_the_same_sku_under_another_part_number_is_refused():
    drive = drive_resolve(spec=spec(capacity_bytes=240 * GB, part_number="OK-240"))
    with pytest.raises(DriveSpecProblem) as caught:
        drive_resolve(spec=spec(capacity_bytes=240 * GB, part_number="OK-240-B"))
    assert caught.value.field == "part_number"
    assert caught.value.message == PART_NUMBER_DIFFERS.format(
        drive=drive, other="OK-240", part="OK-240-B"
    )


def test_an_ambiguous_spec_names_the_candidates():
    maker = ManufacturerFactory(name="Maker")
    a = DriveFactory(manufacturer=maker, model="X", capacity_bytes=120 * GB)
    b = DriveFactory(manufacturer=maker, model="X", capacity_bytes=240 * GB)
    with pytest.raises(DriveSpecProblem) as caught:
        drive_resolve(spec={"manufacturer": "Maker", "model": "x"})
    assert caught.value.field == ""
    assert caught.value.message == AMBIGUOUS_DRIVE.format(count=2, names=f"{a}, {b}")
    assert (
        drive_resolve(spec={"manufacturer": "Maker", "model": "x", "capacity_bytes": 240 * GB}) == b
    )


def test_the_longest_names_that_fold_widest_fit_the_unique_index():
    # U+1D1C0 and its kin decompose and fold to 12 UTF-8 bytes each: 200 of them are the
    # largest model key the schema allows, next to the largest hardware revision.
    wide = "".join(chr(0x1D15E + i % 7) for i in range(200))
    revision = "".join(chr(0x10000 + i * 977) for i in range(100))
    drive = drive_resolve(spec={"manufacturer": wide, "model": wide, "hardware_revision": revision})
    assert (
        drive_resolve(spec={"manufacturer": wide, "model": wide, "hardware_revision": revision})
        == drive
    )
    assert len(drive.model_key.encode()) > 2000
