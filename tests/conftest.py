import json

import pytest

from results.synthetic import measured_document


@pytest.fixture
def document() -> dict:
    return measured_document()


@pytest.fixture
def raw(document) -> bytes:
    return json.dumps(document).encode()


@pytest.fixture
def test_catalog():
    """The test catalog (results migration 0002), loaded again when the flush after an
    earlier transactional test removed it."""
    import importlib

    from django.apps import apps

    from results.models import Test

    if not Test.objects.exists():
        importlib.import_module("results.migrations.0002_test_catalog_v1").load_catalog(apps, None)
