"""A drive's serial number is never stored: a version 1 or 2 document's target.serial is
hashed at ingest by loadgen's rule (held to loadgen's own test values), the stored document
holds only serial_hash and the run its unit_hash; the same document sent again is the same
run; the admin shows no serial; migration 0036 rewrote the runs stored before, a batch at a
time."""

import hashlib
import importlib
import json
import re
from pathlib import Path

import pytest
from django.conf import settings
from django.contrib.auth.models import User
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.test.utils import CaptureQueriesContext

from results import documents
from results.models import Run
from results.services import run_ingest
from results.synthetic import measured_document

LOADGEN_TESTS = Path(settings.BASE_DIR) / "loadgen" / "tests" / "test_ident.c"
SERIAL = "S3Z9NX0M123456"
MIGRATION = "0036_hash_stored_serials"


def loadgen_vectors() -> list[tuple[str, str]]:
    """(serial, hash) as loadgen's tests check lg_ident_serial_hash."""
    found = re.findall(
        r'lg_ident_serial_hash\("((?:[^"\\]|\\.)*)", hash\);.*\n\s*'
        r'CHECKF\(strcmp\(hash, "([0-9a-f]+)"\)',
        LOADGEN_TESTS.read_text(),
    )
    return [(serial.encode().decode("unicode_escape"), digest) for serial, digest in found]


def test_the_hash_is_loadgens():
    vectors = loadgen_vectors()
    assert len(vectors) >= 2 and any(s != s.strip() for s, _ in vectors)  # padded as sysfs pads
    for serial, digest in vectors:
        assert documents.serial_hash(serial) == digest
    for blank in ("", "   ", "\u00a0\ufeff\u3000"):
        assert documents.serial_hash(blank) == ""


def test_only_the_spaces_loadgen_trims_are_trimmed_and_only_its_first_255_bytes_count():
    assert documents.serial_hash("\u2007S1\ufeff") == documents.serial_hash("S1")
    assert documents.serial_hash("\x1cS1") != documents.serial_hash("S1")  # Python's space
    cut = "é" * 128  # 256 bytes: loadgen hashes 255, the last "é" cut in half
    salted = documents.SERIAL_SALT.encode() + cut.encode()[:255]
    expected = hashlib.sha256(salted).hexdigest()[: documents.SERIAL_HASH_DIGITS]
    assert documents.serial_hash(cut) == documents.serial_hash(cut + "more") == expected


def document_with_serial(version: int, serial: str = SERIAL, seed: int = 1) -> dict:
    document = measured_document(seed=seed, series_seconds=60)
    document["schema_version"] = version
    document["target"]["serial"] = serial
    return document


@pytest.mark.django_db
@pytest.mark.parametrize("version", [1, 2])
def test_a_version_1_or_2_serial_is_stored_only_as_its_hash(version):
    document = document_with_serial(version)
    raw = json.dumps(document)
    first = run_ingest(document=raw, submitter=None)
    run = Run.objects.get(pk=first.run.pk)
    assert SERIAL not in run.document
    stored = json.loads(run.document)
    assert "serial" not in stored["target"]
    assert stored["target"]["serial_hash"] == run.unit_hash == documents.serial_hash(SERIAL)
    del stored["target"]["serial_hash"], document["target"]["serial"]
    assert stored == document  # nothing else changed
    again = run_ingest(document=raw.replace(", ", ",  "), submitter=None)  # spaced otherwise
    assert (again.created, again.run.pk) == (False, run.pk)


@pytest.mark.django_db
def test_a_blank_serial_is_dropped():
    run = run_ingest(document=json.dumps(document_with_serial(1, " ")), submitter=None).run
    assert "serial" not in json.loads(Run.objects.get(pk=run.pk).document)["target"]
    assert run.unit_hash == ""


@pytest.mark.django_db
def test_the_admin_shows_no_serial(client):
    run = run_ingest(document=json.dumps(document_with_serial(2)), submitter=None).run
    client.force_login(User.objects.create_superuser("admin", password="a-long-test-password-41"))
    for url in ("/admin/results/run/", f"/admin/results/run/{run.pk}/change/"):
        response = client.get(url)
        assert response.status_code == 200
        assert SERIAL not in response.content.decode()


def stored_before(document: dict, text: str | None = None) -> int:
    """A run as run_ingest stored it before 0036: the document as submitted (text, or the
    document written as JSON), serial and all; its id."""
    target = {k: v for k, v in document["target"].items() if k != "serial"}
    run = run_ingest(document=json.dumps({**document, "target": target}), submitter=None).run
    raw = text or json.dumps(document)
    Run.objects.filter(pk=run.pk).update(
        document=raw, content_hash=documents.content_hash(json.loads(raw)), unit_hash=""
    )
    return run.pk


@pytest.mark.django_db(transaction=True)
def test_the_migration_hashes_every_stored_serial_a_batch_at_a_time(monkeypatch):
    serials = {
        stored_before(document_with_serial(1, f"{SERIAL}-{n}", seed=n)): f"{SERIAL}-{n}"
        for n in range(1, 4)
    }
    escaped = document_with_serial(2, seed=4)  # the key spelled with an escape
    serials[stored_before(escaped, json.dumps(escaped).replace('"serial"', '"s\\u0065rial"'))] = (
        SERIAL
    )
    blank = stored_before(document_with_serial(2, "  ", seed=5))
    without = run_ingest(document=json.dumps(measured_document(seed=6)), submitter=None).run
    hashes = dict(Run.objects.values_list("pk", "content_hash"))

    executor = MigrationExecutor(connection)
    executor.migrate([("results", "0035_wsat")])
    monkeypatch.setattr(importlib.import_module(f"results.migrations.{MIGRATION}"), "BATCH", 2)
    executor = MigrationExecutor(connection)
    with CaptureQueriesContext(connection) as queries:
        executor.migrate([("results", MIGRATION)])
    MigrationExecutor(connection).migrate(executor.loader.graph.leaf_nodes())

    for pk, serial in serials.items():
        run = Run.objects.get(pk=pk)
        assert serial not in run.document
        target = json.loads(run.document)["target"]
        assert "serial" not in target
        assert target["serial_hash"] == run.unit_hash == documents.serial_hash(serial)
    blank_run = Run.objects.get(pk=blank)
    assert "serial" not in json.loads(blank_run.document)["target"] and not blank_run.unit_hash
    assert Run.objects.get(pk=without.pk).document == without.document  # not rewritten
    assert dict(Run.objects.values_list("pk", "content_hash")) == hashes
    # Five documents rewritten, two a batch.
    updates = [q for q in queries.captured_queries if q["sql"].startswith("UPDATE")]
    assert len(updates) == 3

    # A document stored before is the same run when it is sent again.
    pk, serial = next(iter(serials.items()))
    again = run_ingest(document=json.dumps(document_with_serial(1, serial, seed=1)), submitter=None)
    assert (again.created, again.run.pk) == (False, pk)
