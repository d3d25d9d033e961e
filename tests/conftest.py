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
    """The test catalog (the results data migrations 0002, 0004 and 0006), loaded again when
    the flush after an earlier transactional test removed it."""
    import importlib

    from django.apps import apps

    from results.models import Test

    if not Test.objects.exists():
        importlib.import_module("results.migrations.0002_test_catalog_v1").load_catalog(apps, None)
        importlib.import_module("results.migrations.0004_test_catalog_as_ssd_trim").add_test(
            apps, None
        )
        importlib.import_module("results.migrations.0006_test_catalog_write_saturation").load(
            apps, None
        )


@pytest.fixture(autouse=True)
def _catalog_in_transactional_tests(request):
    """Every transactional test starts with the test catalog, whatever ran before it."""
    marker = request.node.get_closest_marker("django_db")
    if marker and marker.kwargs.get("transaction"):
        request.getfixturevalue("transactional_db")
        request.getfixturevalue("test_catalog")
