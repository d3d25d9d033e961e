"""The shared cache (benchsite/cache.py), against the database cache and a real redis-server."""

import json
import subprocess
import sys

import pytest
from django.core.cache import cache
from django.db import connection, transaction

from benchsite.cache import cached
from benchsite.settings.base import cache_settings
from drives.models import Drive
from loadtests.appserver import server_environment
from results.models import Run, Test
from results.services import run_ingest, run_withdraw, suite_catalog_sync
from tests.site.support import ROOT


@pytest.fixture
def catalog():
    """The test catalog, which the flush after a transactional test removes, written again
    as migrate writes it."""
    if not Test.objects.exists():
        suite_catalog_sync()


# Real commits: the on-commit hooks run as in production.
committed = pytest.mark.django_db(transaction=True)


@pytest.fixture(params=["database", "redis"])
def backend(request, settings):
    redis_url = request.getfixturevalue("redis_url") if request.param == "redis" else ""
    settings.CACHES = cache_settings(redis_url)
    cache.clear()
    yield redis_url
    cache.clear()


class Counter:
    """A computation that records how often it ran: the published runs, newest first."""

    def __init__(self) -> None:
        self.runs = 0

    def __call__(self) -> list[int]:
        self.runs += 1
        return list(Run.objects.published().order_by("-pk").values_list("pk", flat=True))


def published(compute: Counter) -> list[int]:
    return cached("published-runs", compute=compute)


@committed
def test_ingest_and_withdraw_invalidate_at_once(backend, catalog, document):
    compute = Counter()
    assert published(compute) == []
    assert published(compute) == [] and compute.runs == 1
    run = run_ingest(document=json.dumps(document), submitter=None).run
    assert published(compute) == [run.pk]
    assert published(compute) == [run.pk] and compute.runs == 2
    run_withdraw(run=run, reason="wrong drive")
    assert published(compute) == []  # the moment the withdrawal returns
    assert compute.runs == 3
    # Ingesting the same document again writes nothing, and invalidates nothing.
    assert not run_ingest(document=json.dumps(document), submitter=None).created
    assert published(compute) == [] and compute.runs == 3


@committed
def test_any_save_or_delete_of_a_catalog_row_invalidates(backend, catalog, document):
    run = run_ingest(document=json.dumps(document), submitter=None).run
    compute = Counter()
    published(compute)
    drive = Drive.objects.get(pk=run.drive_id)
    drive.model = "renamed in the admin"
    drive.save()
    published(compute)
    assert compute.runs == 2
    run.delete()
    assert published(compute) == [] and compute.runs == 3


@committed
def test_a_rolled_back_write_invalidates_nothing(backend, catalog, document):
    compute = Counter()
    published(compute)
    with pytest.raises(RuntimeError), transaction.atomic():
        run_ingest(document=json.dumps(document), submitter=None)
        raise RuntimeError("the request failed after the ingest")
    assert published(compute) == [] and compute.runs == 1


@pytest.mark.django_db
def test_a_hit_reads_the_version_and_the_entry(backend, django_assert_num_queries):
    compute = Counter()
    published(compute)
    # The version in one statement, then the entry: one more query on the database cache,
    # a Redis read on Redis.
    with django_assert_num_queries(1 if backend else 2):
        published(compute)
    assert compute.runs == 1


@pytest.mark.django_db
def test_an_unreachable_redis_means_uncached_not_an_error(settings, workdir):
    settings.CACHES = cache_settings(f"unix://{workdir}/no-redis-here.sock")
    compute = Counter()
    assert published(compute) == [] and published(compute) == []
    assert compute.runs == 2


def run_in_another_process(code: str, redis_url: str) -> str:
    """Python code run with the test database and cache, as another worker would."""
    db = connection.settings_dict
    env = {
        "DJANGO_SETTINGS_MODULE": "benchsite.settings.test",
        "DATABASE_URL": f"postgresql://{db['USER']}@/{db['NAME']}?host={db['HOST']}",
        "REDIS_URL": redis_url,
    }
    result = subprocess.run(
        [sys.executable, "-c", "import django; django.setup()\n" + code],
        cwd=ROOT,
        env=server_environment(env),
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    return result.stdout.strip()


@committed
def test_every_worker_shares_the_entries(backend):
    code = "from benchsite.cache import cached; print(cached('shared', compute=lambda: 'A'))"
    assert run_in_another_process(code, backend) == "A"
    assert cached("shared", compute=lambda: "B") == "A"


THROTTLED_REQUEST = """
from rest_framework.response import Response
from rest_framework.test import APIRequestFactory
from rest_framework.throttling import AnonRateThrottle
from rest_framework.views import APIView

class TwoAMinute(AnonRateThrottle):
    rate = "2/min"

class Probe(APIView):
    permission_classes = []
    throttle_classes = [TwoAMinute]

    def get(self, request):
        return Response("ok")

print(Probe.as_view()(APIRequestFactory().get("/")).status_code)
"""


@committed
def test_throttles_count_across_workers(backend):
    statuses = [run_in_another_process(THROTTLED_REQUEST, backend) for _ in range(3)]
    assert statuses == ["200", "200", "429"]
