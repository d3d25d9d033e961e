import json

import pytest

from tests.factories import measured_document


@pytest.fixture
def document() -> dict:
    return measured_document()


@pytest.fixture
def raw(document) -> bytes:
    return json.dumps(document).encode()
