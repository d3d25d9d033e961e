"""Every way an upload can name its drive (issue 48, item 7): a result document's drive
block, or the fields beside fio's output (query parameters, the upload form), holding only
the fields of one of the ways the schema allows (results.uploads.drive_namings: the slug
alone, or manufacturer and model) names the catalog drive, and creates none; a slug the
catalog does not hold is a 400 at /drive/slug, and a block naming nothing a 400 at /drive,
with nothing written."""

from __future__ import annotations

from urllib.parse import urlencode

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from drives.models import Drive
from drives.services import NO_SUCH_SLUG
from results.models import Run
from results.uploads import FIO_NEEDS_DRIVE, drive_namings
from tests.api.conftest import FIO_RUNS, post_document, rows
from tests.api.fio_upload import FIO_DRIVE, FIO_OUTPUT
from tests.factories import DriveFactory, ManufacturerFactory

pytestmark = pytest.mark.django_db

NAMINGS = drive_namings()
UPLOAD = "/bench/upload/"


def test_the_ways_are_the_slug_and_the_names():
    assert sorted(NAMINGS) == [("manufacturer", "model"), ("slug",)]


@pytest.fixture
def measured_drive() -> Drive:
    """The catalog's entry of the drive results.synthetic.measured_document measured."""
    return DriveFactory(
        manufacturer=ManufacturerFactory(name="Maker"), model="Model X", capacity_bytes=None
    )


@pytest.fixture
def fio_drive() -> Drive:
    """The catalog's entry of the drive fio-3.41-standard.json measured."""
    return DriveFactory(
        manufacturer=ManufacturerFactory(name=FIO_DRIVE["manufacturer"]),
        model=FIO_DRIVE["model"],
        capacity_bytes=None,
        kind=FIO_DRIVE["kind"],
        interface=FIO_DRIVE["interface"],
    )


def named(drive: Drive, naming: tuple[str, ...]) -> dict[str, str]:
    """The drive named by the fields of one way alone."""
    values = {"slug": drive.slug, "manufacturer": drive.manufacturer.name, "model": drive.model}
    return {field: values[field] for field in naming}


@pytest.mark.parametrize("naming", NAMINGS, ids="+".join)
def test_a_document_names_its_drive_each_way(api, document, measured_drive, naming):
    document["drive"] = named(measured_drive, naming)
    response = post_document(api, document)
    assert response.status_code == 201, response.content
    assert Run.objects.get(pk=response.json()["run"]["id"]).drive == measured_drive
    assert Drive.objects.count() == 1


@pytest.mark.parametrize("naming", NAMINGS, ids="+".join)
def test_fio_output_names_its_drive_each_way(api, fio_drive, naming):
    url = f"{FIO_RUNS}?{urlencode(named(fio_drive, naming))}"
    response = post_document(api, FIO_OUTPUT.read_bytes(), url)
    assert response.status_code == 201, response.content
    assert Run.objects.get(pk=response.json()["run"]["id"]).drive == fio_drive
    assert Drive.objects.count() == 1


@pytest.mark.parametrize("naming", NAMINGS, ids="+".join)
def test_the_upload_form_names_fios_drive_each_way(client, reviewer, fio_drive, naming):
    client.force_login(reviewer)
    file = SimpleUploadedFile("fio.json", FIO_OUTPUT.read_bytes(), "application/json")
    response = client.post(UPLOAD, {"file": file, **named(fio_drive, naming)})
    assert response.status_code == 302, response.content.decode()[-2000:]
    assert Run.objects.get().drive == fio_drive and Drive.objects.count() == 1


def test_an_unknown_slug_alone_is_a_400_and_nothing_is_written(api, document, measured_drive):
    before = rows()
    document["drive"] = {"slug": "no-such-drive"}
    response = post_document(api, document)
    assert response.status_code == 400
    assert response.json()["errors"] == [
        {"pointer": "/drive/slug", "message": NO_SUCH_SLUG.format(slug="no-such-drive")}
    ]
    fio = post_document(api, FIO_OUTPUT.read_bytes(), f"{FIO_RUNS}?slug=no-such-drive")
    assert fio.status_code == 400
    assert fio.json()["errors"][0]["pointer"] == "/drive/slug"
    assert rows() == before


def test_a_drive_named_no_way_is_a_400_and_nothing_is_written(api, document, measured_drive):
    before = rows()
    for fields in ({}, {"manufacturer": "Maker"}, {"model": "Model X"}):
        document["drive"] = {**fields, "capacity_bytes": 256 * 10**9}
        response = post_document(api, document)
        assert response.status_code == 400
        assert response.json()["errors"][0]["pointer"] == "/drive", fields
        fio = post_document(api, FIO_OUTPUT.read_bytes(), f"{FIO_RUNS}?{urlencode(fields)}")
        assert fio.status_code == 400
        assert fio.json()["errors"][0] == {"pointer": "/drive", "message": FIO_NEEDS_DRIVE}
    assert rows() == before
