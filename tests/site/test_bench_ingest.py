"""bench_ingest's floor (plain psycopg inserts) writes the very rows run_ingest writes for
the same document, every column of them, so the two paths it times do the same work."""

from __future__ import annotations

import json

import psycopg
import pytest
from django.db import connection

from loadtests.management.commands.bench_ingest import Floor, unique_document
from results.models import RESULT_FIGURES, ConsistencySeries, Result, Run, Test
from results.services import run_ingest

pytestmark = pytest.mark.django_db(transaction=True)

SERIES_FIELDS = [
    f.attname
    for f in ConsistencySeries._meta.concrete_fields
    if not f.generated and f.name not in ("id", "run")
]


def stored(model, run: Run, fields) -> list[tuple]:
    return sorted(model.objects.filter(run=run).values_list(*fields), key=repr)


def test_the_floor_writes_the_rows_ingest_writes(document):
    ingested = run_ingest(document=json.dumps(document), submitter=None).run
    tests = dict(Test.objects.values_list("identifier", "id"))
    with psycopg.connect(**connection.get_connection_params()) as conn:
        Floor(conn, ingested.drive_id, tests).insert(unique_document(document, 1))
    floor = Run.objects.exclude(pk=ingested.pk).get()
    results = stored(Result, ingested, ["test_id", *RESULT_FIGURES])
    assert results and stored(Result, floor, ["test_id", *RESULT_FIGURES]) == results
    series = stored(ConsistencySeries, ingested, SERIES_FIELDS)
    assert series and stored(ConsistencySeries, floor, SERIES_FIELDS) == series
