"""Different documents for the same new drive, ingested at once from several processes
against the real database: every one is accepted, and the drive and its manufacturer are
created once. (Before drive_resolve retried, all but one failed on a unique constraint.)"""

import json
import multiprocessing
import traceback

import pytest
from django.db import connections

from drives.models import Drive, Manufacturer
from results.models import Run
from results.services import run_ingest
from results.synthetic import measured_document

# Committed rows that other processes can see: a real transaction per ingestion. The
# catalog the migrations loaded is put back for every transactional test (tests/conftest.py).
pytestmark = pytest.mark.django_db(transaction=True)

PROCESSES = 6
# One drive and one manufacturer, spelled as different reviewers would.
SPELLINGS = [
    ("ÖKO Speicher", "Flash Eins"),
    ("öko speicher", "FLASH EINS"),
    ("ÖKO SPEICHER", "flash eins"),
    ("Öko Speicher", "Flash  Eins"),
]


def ingest_when_all_are_ready(index: int, barrier, results) -> None:
    connections.close_all()  # never share the parent's connection
    manufacturer, model = SPELLINGS[index % len(SPELLINGS)]
    document = measured_document(
        seed=index, manufacturer=manufacturer, model=model, series_seconds=300
    )
    document["drive"]["firmware"] = f"1.{index}"
    try:
        barrier.wait(timeout=60)
        outcome = run_ingest(document=json.dumps(document), submitter=None)
        results.put(("ok", index, outcome.created, outcome.run.drive_id))
    except BaseException:
        results.put(("error", index, traceback.format_exc(), None))
    finally:
        connections.close_all()


def test_concurrent_documents_for_one_new_drive_all_go_in():
    context = multiprocessing.get_context("fork")
    barrier, results = context.Barrier(PROCESSES), context.Queue()
    connections.close_all()  # the children fork without an open connection
    workers = [
        context.Process(target=ingest_when_all_are_ready, args=(i, barrier, results))
        for i in range(PROCESSES)
    ]
    for worker in workers:
        worker.start()
    outcomes = [results.get(timeout=120) for _ in workers]
    for worker in workers:
        worker.join(timeout=30)
        assert worker.exitcode == 0

    errors = [o[2] for o in outcomes if o[0] == "error"]
    assert errors == []
    assert all(created for _, _, created, _ in outcomes)
    assert len({drive for *_, drive in outcomes}) == 1
    assert Manufacturer.objects.filter(name_key="öko speicher").count() == 1
    assert Drive.objects.filter(model_key="flash eins").count() == 1
    assert Run.objects.count() == PROCESSES
    assert Drive.objects.get().firmware_versions.count() == PROCESSES
