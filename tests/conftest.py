import json
import os
from io import StringIO

import pytest
from hypothesis import settings

from results.synthetic import measured_document

# Property tests draw the same examples on every run ("ci", the default), so that a run of
# `make test` is repeatable; HYPOTHESIS_PROFILE=explore draws new ones each time, to look
# for failures (add any found as an @example).
settings.register_profile("ci", derandomize=True, database=None)
settings.register_profile("explore", derandomize=False)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


@pytest.fixture
def document() -> dict:
    return measured_document()


@pytest.fixture
def raw(document) -> bytes:
    return json.dumps(document).encode()


@pytest.fixture
def test_catalog():
    """The test catalog (written after every migrate by results.services.suite_catalog_sync),
    written again when the flush after an earlier transactional test removed it."""
    from results.models import Test
    from results.services import suite_catalog_sync

    if not Test.objects.exists():
        suite_catalog_sync()


@pytest.fixture(autouse=True)
def _catalog_in_transactional_tests(request):
    """Every transactional test starts with the test catalog, whatever ran before it."""
    marker = request.node.get_closest_marker("django_db")
    if marker and marker.kwargs.get("transaction"):
        request.getfixturevalue("transactional_db")
        request.getfixturevalue("test_catalog")


# The synthetic catalogs the query budgets hold every read to (tests/api/test_reads_budget.py,
# tests/results/test_views_budget.py): a page's statements must not grow with the catalog.
SCALE_SIZES = {"small": 12, "large": 240}


@pytest.fixture(scope="module", params=sorted(SCALE_SIZES))
def seeded(request, django_db_setup, django_db_blocker):
    """A synthetic catalog of each size (seed_scale: 20 results and two series a drive, with
    prices and leaderboard entries), seeded once for the module in a transaction rolled back
    after it: each test runs in a savepoint within it, so none sees another's writes. Its
    synthetic drives' slugs, in order."""
    from django.core.management import call_command
    from django.db import transaction

    from drives.models import Drive
    from results.models import LeaderboardEntry

    drives = SCALE_SIZES[request.param]
    with django_db_blocker.unblock(), transaction.atomic():
        call_command(
            "seed_scale",
            f"--drives={drives}",
            f"--results={drives * 20}",
            f"--series={drives * 2}",
            "--points=50",
            stdout=StringIO(),
        )
        slugs = list(
            Drive.objects.filter(synthetic=True).order_by("pk").values_list("slug", flat=True)
        )
        assert LeaderboardEntry.objects.count() >= drives * 3
        yield slugs
        transaction.set_rollback(True)


@pytest.fixture
def scale_catalog(seeded, db, settings):
    """The seeded catalog, its synthetic drives shown as real ones."""
    settings.BENCH_SHOW_SYNTHETIC = True
    return seeded
