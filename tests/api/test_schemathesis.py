"""The API fuzzed from its own OpenAPI schema (schemathesis, in-process): for every
operation, generated requests — anonymous, and as a reviewer with a token, so uploads are
fuzzed too — never get a 5xx, and every response conforms to the schema.

Bounded: a few examples per operation keep the whole module to about a minute."""

import pytest
import schemathesis
from django.contrib.auth.models import Group, User
from django.core.signals import request_finished, request_started
from django.core.wsgi import get_wsgi_application
from django.db import close_old_connections
from hypothesis import HealthCheck, settings
from rest_framework.authtoken.models import Token
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import response_schema_conformance

EXAMPLES = 5


# Loaded at collection: the schema view reads no database.
schema = schemathesis.openapi.from_wsgi("/api/schema/", get_wsgi_application())
pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def keep_the_test_connection():
    """As Django's test client does: the WSGI app must not close the test's connection."""
    for signal in (request_started, request_finished):
        signal.disconnect(close_old_connections)
    yield
    for signal in (request_started, request_finished):
        signal.connect(close_old_connections)


@pytest.fixture
def reviewer_headers() -> dict[str, str]:
    user = User.objects.create_user("fuzzing-reviewer")
    group, _ = Group.objects.get_or_create(name="reviewer")
    user.groups.add(group)
    return {"Authorization": f"Token {Token.objects.create(user=user).key}"}


FUZZ = settings(
    max_examples=EXAMPLES,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=list(HealthCheck),
)
CHECKS = [not_a_server_error, response_schema_conformance]


@schema.parametrize()
@FUZZ
def test_anonymous(case):
    case.call_and_validate(checks=CHECKS)


@schema.parametrize()
@FUZZ
def test_as_a_reviewer(case, reviewer_headers):
    case.call_and_validate(headers=reviewer_headers, checks=CHECKS)
