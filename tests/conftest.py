import json

import pytest

from results.synthetic import measured_document


@pytest.fixture
def document() -> dict:
    return measured_document()


@pytest.fixture
def raw(document) -> bytes:
    return json.dumps(document).encode()
