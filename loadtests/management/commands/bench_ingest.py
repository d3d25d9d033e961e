"""Benchmark: the cost of run_ingest against the floor of writing the same rows with psycopg.

One full document (the four corners in both data patterns plus two 2,000-point consistency
series) is ingested through run_ingest, and the same rows are inserted with plain psycopg
in one transaction; the two alternate, round after round, so that both see the same
machine. Medians are printed side by side with their ratio (target: at most 3x). A third
path, alternating with them, uploads the same kind of document through the API
(POST /api/v1/runs/ with a reviewer's token, in this process: authentication, throttle,
parsing, run_ingest, the response) to show what the API adds to run_ingest.
"""

import json
import statistics
import time
import uuid
from typing import Any

import psycopg
from django.conf import settings
from django.contrib.auth.models import User
from django.core.management import call_command
from django.core.management.base import BaseCommand
from django.db import connection
from django.test import override_settings
from psycopg.types.json import Jsonb
from rest_framework.test import APIClient

from results import documents
from results.kinds.consistency import consistency_figures
from results.kinds.throughput import result_figures
from results.models import Run, Test
from results.services import reviewer_token_issue, run_ingest
from results.synthetic import measured_document

TARGET_RATIO = 3.0


def unique_document(base: dict, n: int) -> str:
    """The same document with a new identity, so every round really ingests."""
    document = dict(base, tool=dict(base["tool"], command_line=f"round {n} {uuid.uuid4()}"))
    return json.dumps(document)


class Floor:
    """Insert a document's rows with plain psycopg: no validation, no ORM."""

    def __init__(self, conn: psycopg.Connection, drive_id: int, tests: dict[str, int]):
        self.conn, self.drive_id, self.tests = conn, drive_id, tests

    def insert(self, raw: str) -> None:
        document = json.loads(raw)
        digest = documents.content_hash(document)
        with self.conn.transaction(), self.conn.cursor() as cur:
            cur.execute(
                "INSERT INTO results_run (drive_id, tool_name, tool_version, engine, started_at,"
                " finished_at, source, citation_locator, drive_state, status, withdrawn_reason,"
                " document, content_hash, ingested_at) VALUES (%s, %s, %s, %s, %s, %s, %s, '',"
                " %s, 'published', '', %s, %s, now()) RETURNING id",
                (
                    self.drive_id,
                    document["tool"]["name"],
                    document["tool"]["version"],
                    document["tool"]["engine"],
                    document["started_at"],
                    document["finished_at"],
                    "measured",
                    document["drive_state"],
                    raw,
                    digest,
                ),
            )
            run_id = cur.fetchone()[0]
            kind = documents.latency_kind(document)
            _insert(
                cur,
                "results_result",
                [
                    {"run_id": run_id, "test_id": self.tests[r["test"]], **result_figures(r, kind)}
                    for r in document["results"]
                ],
            )
            _insert(
                cur,
                "results_consistencyseries",
                [
                    {"run_id": run_id, "test_id": self.tests[s["test"]], **consistency_figures(s)}
                    for s in document["consistency"]
                ],
            )


def _insert(cur: psycopg.Cursor, table: str, rows: list[dict[str, Any]]) -> None:
    """Rows of a table, each named by its columns (the same columns in every row)."""
    if not rows:
        return
    columns = list(rows[0])
    cur.executemany(
        f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({', '.join(['%s'] * len(columns))})",
        [[Jsonb(v) if isinstance(v, dict) else v for v in row.values()] for row in rows],
    )


class Command(BaseCommand):
    help = __doc__

    def add_arguments(self, parser):
        parser.add_argument("--rounds", type=int, default=40)

    def handle(self, *args, **options):
        call_command("migrate", verbosity=0)
        base = measured_document(seed=7, manufacturer="Bench", model="Ingest benchmark")
        size = len(json.dumps(base))
        # Warm up both paths (and create the catalog rows the floor refers to).
        run = run_ingest(document=unique_document(base, -1), submitter=None).run
        tests = dict(Test.objects.values_list("identifier", "id"))
        conn = psycopg.connect(**connection.get_connection_params())
        floor = Floor(conn, run.drive_id, tests)
        floor.insert(unique_document(base, -2))
        api = self.reviewer_client()
        rates = {**settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"], "uploads": "100000/hour"}
        unthrottled = override_settings(
            REST_FRAMEWORK={**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": rates}
        )
        with unthrottled:
            self.upload(api, unique_document(base, -3))

        ingest_s, floor_s, upload_s = [], [], []
        for n in range(options["rounds"]):
            raw_a, raw_b = unique_document(base, 3 * n), unique_document(base, 3 * n + 1)
            raw_c = unique_document(base, 3 * n + 2)
            start = time.perf_counter()
            assert run_ingest(document=raw_a, submitter=None).created
            ingest_s.append(time.perf_counter() - start)
            start = time.perf_counter()
            floor.insert(raw_b)
            floor_s.append(time.perf_counter() - start)
            with unthrottled:
                start = time.perf_counter()
                self.upload(api, raw_c)
                upload_s.append(time.perf_counter() - start)
        conn.close()
        assert Run.objects.count() == 3 * options["rounds"] + 3

        ingest_ms, floor_ms = statistics.median(ingest_s) * 1e3, statistics.median(floor_s) * 1e3
        ratio = ingest_ms / floor_ms
        rows = len(base["results"]) + len(base["consistency"]) + 1
        self.stdout.write(
            f"\nIngestion of one full document ({size / 1024:.0f} KiB, {rows} rows: "
            f"{len(base['results'])} results, {len(base['consistency'])} x 2,000-point series)\n"
            f"{options['rounds']} alternating rounds, medians:\n\n"
            f"  {'path':<34}{'median ms':>10}{'p90 ms':>10}\n"
            f"  {'run_ingest (validate + ORM)':<34}{ingest_ms:>10.2f}"
            f"{statistics.quantiles(ingest_s, n=10)[-1] * 1e3:>10.2f}\n"
            f"  {'floor: plain psycopg inserts':<34}{floor_ms:>10.2f}"
            f"{statistics.quantiles(floor_s, n=10)[-1] * 1e3:>10.2f}\n"
            f"  {'upload: POST /api/v1/runs/':<34}{statistics.median(upload_s) * 1e3:>10.2f}"
            f"{statistics.quantiles(upload_s, n=10)[-1] * 1e3:>10.2f}\n"
            f"  (the upload in-process: its median less run_ingest's is what the API adds)\n\n"
            f"  ratio {ratio:.2f}x (target <= {TARGET_RATIO:.0f}x): "
            f"{'PASS' if ratio <= TARGET_RATIO else 'MISS'}\n"
        )

    def reviewer_client(self) -> APIClient:
        user, _ = User.objects.get_or_create(username="bench-ingest-reviewer")
        client = APIClient()
        client.credentials(HTTP_AUTHORIZATION=f"Token {reviewer_token_issue(user=user)}")
        return client

    def upload(self, client: APIClient, raw: str) -> None:
        response = client.generic("POST", "/api/v1/runs/", raw, content_type="application/json")
        assert response.status_code == 201, response.content[:500]
