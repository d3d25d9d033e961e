"""The compare path answers the same bytes before and after a change of its structure: the
page, its CSV and Markdown exports and the API's body (with and without the series' points),
for a fixed set of demo compare addresses of two, three and four drives.

Each answer's SHA-256 is kept in tests/results/golden/compare.json. An answer that differs
is written to var/golden/actual/ (and, when the file is rewritten, every answer to
var/golden/expected/), so a change is read as a diff, not a hash:

    BENCH_GOLDEN=write .venv/bin/python -m pytest tests/results/test_compare_golden.py

rewrites the hashes; do it only for a change of an answer made on purpose, and say which in
the commit. The demo is loaded with every table's ids from 1, so ids are the same whatever
ran before, and
its runs as ingested on one fixed day."""

from __future__ import annotations

import datetime
import hashlib
import itertools
import json
import os
import random
import re
from io import StringIO
from pathlib import Path

import pytest
from django.apps import apps
from django.conf import settings
from django.core.management import call_command
from django.db import connection, transaction
from django.urls import reverse

from drives.models import Drive
from results.models import Run

GOLDEN = Path(__file__).parent / "golden" / "compare.json"
OUT = Path(settings.BASE_DIR) / "var" / "golden"
WRITE = os.environ.get("BENCH_GOLDEN") == "write"

# How many addresses of three and of four drives are drawn (seeded) from the demo's drives;
# every pair is compared in one order, and a few in the other (A is the reference).
TRIPLES = 40
QUADRUPLES = 40
SWAPPED = 40
LOADED = datetime.datetime(2026, 11, 26, 12, tzinfo=datetime.UTC)


def _restart_empty_sequences() -> None:
    """Each empty table's ids start from 1 again (rows other tests wrote are rolled back,
    their ids are not), so the demo's rows get the same ids in every run."""
    with connection.cursor() as cursor:
        for model in apps.get_models():
            if model._meta.proxy or not model._meta.managed:
                continue
            pk = model._meta.pk
            if pk.get_internal_type() not in ("AutoField", "BigAutoField"):
                continue
            if model.objects.exists():
                continue
            cursor.execute(
                "SELECT setval(pg_get_serial_sequence(%s, %s), 1, false)",
                [model._meta.db_table, pk.column],
            )


@pytest.fixture(scope="module")
def demo(django_db_setup, django_db_blocker):
    with django_db_blocker.unblock(), transaction.atomic():
        _restart_empty_sequences()
        call_command("load_demo", stdout=StringIO())
        # The day it was loaded, which a run's provenance names, made one fixed day.
        Run.objects.update(ingested_at=LOADED)
        yield sorted(Drive.objects.values_list("slug", flat=True))
        transaction.set_rollback(True)


def addresses(slugs: list[str]) -> list[tuple[str, ...]]:
    pairs = list(itertools.combinations(slugs, 2))
    rng = random.Random(44)
    swapped = [(b, a) for a, b in rng.sample(pairs, SWAPPED)]
    triples = [tuple(rng.sample(slugs, 3)) for _ in range(TRIPLES)]
    quadruples = [tuple(rng.sample(slugs, 4)) for _ in range(QUADRUPLES)]
    return [*pairs, *swapped, *triples, *quadruples]


def answers(client, slugs: tuple[str, ...]):
    """Each view of one compare address: (name, bytes), every one a 200 (an answer kept as
    an error page would hold nothing of what the view shows)."""
    api = reverse("api:compare", args=slugs)
    for name, url, accept in (
        ("page", reverse("bench:compare", args=slugs), None),
        ("csv", reverse("bench:compare_csv", args=slugs), None),
        ("md", reverse("bench:compare_markdown", args=slugs), None),
        ("api", api, "application/json"),
        ("api-points", api + "?points=true", "application/json"),
    ):
        response = client.get(url, **({"HTTP_ACCEPT": accept} if accept else {}))
        assert response.status_code == 200, (name, url, response.content[:300])
        yield name, response.content


BLANK_LINES = re.compile(rb"\n[ \t]*(?=\n)")


def _digest(name: str, body: bytes) -> str:
    """An answer's hash; a page's without its blank lines, which HTML does not read (a
    section moved to a template of its own leaves them where it was)."""
    if name == "page":
        body = BLANK_LINES.sub(b"", body)
    return hashlib.sha256(body).hexdigest()


@pytest.mark.django_db
def test_every_compare_answer_is_the_one_kept(demo, client):
    kept = {} if WRITE else json.loads(GOLDEN.read_text())
    found, differ = {}, []
    for slugs in addresses(demo):
        address = "/".join(slugs)
        for name, body in answers(client, slugs):
            key = f"{address} {name}"
            found[key] = _digest(name, body)
            where = "expected" if WRITE else "actual"
            if WRITE or kept.get(key) != found[key]:
                path = OUT / where / f"{address.replace('/', '+')}.{name}"
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_bytes(body)
                differ.append(key)
    if WRITE:
        GOLDEN.parent.mkdir(exist_ok=True)
        GOLDEN.write_text(json.dumps(found, indent=0, sort_keys=True) + "\n")
        return
    assert found.keys() == kept.keys(), "the addresses compared changed: rewrite the file"
    assert not differ, f"{len(differ)} answers differ (in {OUT / 'actual'}): {differ[:10]}"
