import json
import os

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
