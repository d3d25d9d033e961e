"""drive_resolve and manufacturer_resolve: the catalog row a result document names."""

import itertools

import pytest
from django.db import transaction

from drives.models import Drive, Manufacturer
from drives.services import (
    AMBIGUOUS_DRIVE,
    NO_SUCH_SLUG,
    PART_NUMBER_DIFFERS,
    PART_NUMBER_TAKEN,
    SLUG_IS_ANOTHER,
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
    assert caught.value.message == AMBIGUOUS_DRIVE.format(
        count=2, names=f"{a} (slug {a.slug}), {b} (slug {b.slug})"
    )
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


def _own_spec(drive: Drive) -> dict:
    """A document's drive object naming `drive` by its own fields (those it has)."""
    named = {"manufacturer": drive.manufacturer.name, "model": drive.model}
    for field in ("capacity_bytes", "hardware_revision", "part_number"):
        if getattr(drive, field):
            named[field] = getattr(drive, field)
    return named


# Every SKU a drive model can have in the catalog: (capacity GB or None, hardware revision).
SKUS = list(itertools.product([None, 120, 240], ["", "B"]))


@pytest.mark.parametrize("with_parts", [False, True])
def test_every_catalog_drive_can_be_named_by_its_own_fields_and_by_its_slug(with_parts):
    """Whatever SKUs of one model the catalog holds (every combination of them), each is
    the drive a document names by its own fields, and by its slug; nothing is created."""
    maker = ManufacturerFactory(name="Intel")
    for size in range(1, len(SKUS) + 1):
        for skus in itertools.combinations(SKUS, size):
            with transaction.atomic():
                drives = [
                    DriveFactory(
                        manufacturer=maker,
                        model="X25-M",
                        capacity_bytes=gb and gb * GB,
                        hardware_revision=revision,
                        part_number=f"P{n}" if with_parts and n % 2 else "",
                    )
                    for n, (gb, revision) in enumerate(skus)
                ]
                for drive in drives:
                    assert drive_resolve(spec=_own_spec(drive)) == drive, skus
                    by_slug = {**_own_spec(drive), "slug": drive.slug}
                    assert drive_resolve(spec=by_slug) == drive
                    assert (
                        drive_resolve(
                            spec={
                                **spec(),
                                "manufacturer": "Intel",
                                "model": "x25-m",
                                "slug": drive.slug,
                            }
                        )
                        == drive
                    )
                assert Drive.objects.count() == len(drives)
                transaction.set_rollback(True)


def test_the_capacity_less_entry_is_the_one_a_document_without_capacity_means():
    """The demo's "Intel X25-M" (no capacity) stays addressable after "Intel X25-M 80GB" is
    uploaded; with two capacities and no capacity-less entry, the spec stays ambiguous."""
    old = drive_resolve(spec={"manufacturer": "Intel", "model": "X25-M"})
    new = drive_resolve(spec={"manufacturer": "Intel", "model": "X25-M", "capacity_bytes": 80 * GB})
    assert new != old
    assert drive_resolve(spec={"manufacturer": "intel", "model": "x25-m"}) == old
    Drive.objects.filter(pk=old.pk).update(capacity_bytes=160 * GB)
    with pytest.raises(DriveSpecProblem) as caught:
        drive_resolve(spec={"manufacturer": "Intel", "model": "X25-M"})
    assert (
        "(slug intel-x25-m)" in caught.value.message
        and f"(slug {new.slug})" in caught.value.message
    )


def test_a_slug_names_its_drive_and_the_other_fields_must_describe_it():
    drive = drive_resolve(spec=spec(capacity_bytes=240 * GB, hardware_revision="B"))
    with pytest.raises(DriveSpecProblem) as caught:
        drive_resolve(spec=spec(slug="no-such-drive"))
    assert (caught.value.field, caught.value.message) == (
        "slug",
        NO_SUCH_SLUG.format(slug="no-such-drive"),
    )
    for field, wrong in (
        ("manufacturer", "Other Maker"),
        ("model", "Flash Zwei"),
        ("capacity_bytes", 480 * GB),
        ("hardware_revision", "C"),
        ("part_number", "OK-1"),
    ):
        with pytest.raises(DriveSpecProblem) as caught:
            drive_resolve(spec={**spec(slug=drive.slug), field: wrong})
        assert (caught.value.field, caught.value.message) == (
            field,
            SLUG_IS_ANOTHER.format(slug=drive.slug, drive=drive, field=field),
        )
    assert Drive.objects.count() == 1 and Manufacturer.objects.count() == 1
