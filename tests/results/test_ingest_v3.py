"""Ingesting schema_version 3 documents: the drive's identity in target, its serial only as a
salted hash (stored on the run as unit_hash, to tell runs of one physical unit), and its
health before and after the run (kept in the document); versions 1 and 2 refuse what
version 3 added, and version 3 refuses a raw serial."""

import json

import pytest

from results import documents
from results.models import Run
from results.services import run_ingest
from tests.results.schema_slots import (
    maximal_measured,
    maximal_measured_v2,
    maximal_measured_v3,
)
from tests.results.test_ingest import rejected

pytestmark = pytest.mark.django_db

HASH = "0123456789abcdef0123456789abcdef"


def test_the_serial_hash_is_the_runs_unit_and_the_health_stays_in_the_document():
    document = maximal_measured_v3()
    run = run_ingest(document=json.dumps(document), submitter=None).run
    run = Run.objects.get(pk=run.pk)
    assert (run.schema_version, run.unit_hash) == (3, HASH)
    kept = json.loads(run.document)
    assert kept["health"] == document["health"]
    assert kept["target"]["vendor"] == "Maker"


def test_runs_of_one_unit_share_its_hash_and_other_runs_have_none():
    first = maximal_measured_v3()
    second = maximal_measured_v3()
    second["started_at"], second["finished_at"] = "2026-11-22T10:00:00Z", "2026-11-22T11:00:00Z"
    serial_less = maximal_measured_v2()
    del serial_less["target"]["serial"]
    for document in (first, second, serial_less):
        run_ingest(document=json.dumps(document), submitter=None)
    assert Run.objects.filter(unit_hash=HASH).count() == 2
    assert Run.objects.filter(unit_hash="").count() == 1


@pytest.mark.parametrize("version, make", [(1, maximal_measured), (2, maximal_measured_v2)])
@pytest.mark.parametrize(
    "path, value",
    [
        (("target", "serial_hash"), HASH),
        (("target", "vendor"), "Maker"),
        (("target", "identified_by"), "nvme-identify"),
        (("health",), {"source": "none", "reason": "a file"}),
    ],
)
def test_earlier_versions_cannot_carry_version_3_members(version, make, path, value):
    document = make()
    owner = document
    for part in path[:-1]:
        owner = owner[part]
    owner[path[-1]] = value
    problems = rejected(document)
    assert [(p.pointer, p.message) for p in problems] == [
        (documents.pointer(*path), documents.NOT_IN_VERSION.format(field=path[-1], version=version))
    ]


def test_version_3_holds_the_serial_only_as_its_hash():
    document = maximal_measured_v3()
    document["target"]["serial"] = "S123456789"
    problems = rejected(document)
    assert [(p.pointer, p.message) for p in problems] == [
        ("/target/serial", documents.SERIAL_NOT_IN_VERSION_3.format(version=3))
    ]


@pytest.mark.parametrize(
    "health, pointer",
    [
        ({"source": "none"}, "/health"),  # none says why
        ({"source": "smart"}, "/health/source"),
        ({"source": "ata-smart", "before": {"temperature_celsius": 30}}, "/health/before"),
        (
            {"source": "ata-smart", "before": {"taken_at": "2026-11-21T10:00:00Z", "x": 1}},
            "/health/before/x",
        ),
    ],
)
def test_a_malformed_health_member_is_refused_at_its_pointer(health, pointer):
    document = maximal_measured_v3()
    document["health"] = health
    assert pointer in {p.pointer for p in rejected(document)}


@pytest.mark.parametrize("serial_hash", ["0123", "0123456789ABCDEF0123", "g" * 32, "a" * 65])
def test_a_serial_hash_is_lower_case_hex_of_16_to_64_digits(serial_hash):
    document = maximal_measured_v3()
    document["target"]["serial_hash"] = serial_hash
    assert {p.pointer for p in rejected(document)} == {"/target/serial_hash"}
