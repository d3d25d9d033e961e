"""The API fuzzed from its own OpenAPI schema (schemathesis, in-process) with every check
schemathesis has and the hooks add, anonymous and as a reviewer with a token (so uploads
are fuzzed too), each operation's failures a failed test (so the run finds 0 or fails):
for every operation, positive and negative cases (schemathesis.toml: the coverage phase's
cases, each query parameter also given twice, and a few generated ones per operation, the
same each run) get no 5xx, only documented status codes, content types and headers,
bodies that conform to the schema; schema-violating requests are refused and schema-valid
ones accepted (tests/api/schemathesis_hooks.py: a positive upload is a real document);
and the stateful sequences (an upload, then its run, its withdrawal) find every resource a
response names. Every list's CSV is checked as the text the schema says it is."""

import io

import pytest
import schemathesis
from django.core.management import call_command
from django.core.signals import request_finished, request_started
from django.core.wsgi import get_wsgi_application
from django.db import close_old_connections, transaction
from hypothesis import HealthCheck, settings
from schemathesis.checks import CHECKS, load_all_checks

# Loaded at collection: the schema view reads no database.
schema = schemathesis.openapi.from_wsgi("/api/schema/", get_wsgi_application())
pytestmark = pytest.mark.django_db

load_all_checks()
EVERY_CHECK = list(CHECKS.get_all())


@schemathesis.deserializer("text/csv")
def csv_as_text(ctx, response):
    """A CSV answer is text, as the schema types it (benchsite.openapi)."""
    return response.content.decode(response.encoding or "utf-8")


@pytest.fixture(autouse=True)
def keep_the_test_connection():
    """As Django's test client does: the WSGI app must not close the test's connection."""
    for signal in (request_started, request_finished):
        signal.disconnect(close_old_connections)
    yield
    for signal in (request_started, request_finished):
        signal.connect(close_old_connections)


@pytest.fixture(scope="module")
def catalog(django_db_setup, django_db_blocker):
    """The demo catalog and its runs, so that operations reach their data, not only their
    404s: loaded once for the module, in a transaction rolled back after it (each test's
    own is a savepoint within it)."""
    with django_db_blocker.unblock(), transaction.atomic():
        call_command("load_demo", verbosity=0)
        yield
        transaction.set_rollback(True)


@pytest.fixture
def reviewer_headers() -> dict[str, str]:
    """A reviewer's credentials, issued as a reviewer's are (`make reviewer`: the
    reviewer_token command prints the token of a user it makes a reviewer)."""
    printed = io.StringIO()
    call_command("reviewer_token", "fuzzing-reviewer", "--create", stdout=printed)
    return {"Authorization": f"Token {printed.getvalue().split()[-1]}"}


FUZZ = settings(deadline=None, database=None, suppress_health_check=list(HealthCheck))
# The stateful phase: sequences of calls that follow the links schemathesis infers (an
# upload's Location to its run, a list's ids to their details), a bounded number of them.
SEQUENCES = settings(
    FUZZ, max_examples=8, stateful_step_count=6, derandomize=True, phases=FUZZ.phases
)


def test_every_check_schemathesis_has_is_run():
    names = {check.__name__ for check in EVERY_CHECK}
    assert {
        "not_a_server_error",
        "status_code_conformance",
        "content_type_conformance",
        "response_headers_conformance",
        "response_schema_conformance",
        "negative_data_rejection",
        "positive_data_acceptance",
        "use_after_free",
        "ensure_resource_availability",
        "ignored_auth",
        "repeated_parameter_refused",  # the hooks'
    } <= names
    assert {mode.value for mode in schema.config.generation.modes} == {"positive", "negative"}


@schema.parametrize()
@FUZZ
def test_anonymous(case, catalog):
    case.call_and_validate(checks=EVERY_CHECK)


@schema.parametrize()
@FUZZ
def test_as_a_reviewer(case, catalog, reviewer_headers):
    case.call_and_validate(headers=reviewer_headers, checks=EVERY_CHECK)


class Sequences(schema.as_state_machine()):
    """The stateful phase, with every check, as whoever `headers` names."""

    headers: dict[str, str] = {}

    def get_call_kwargs(self, case):
        return {"headers": self.headers}

    def validate_response(self, response, case, additional_checks=None, **kwargs):
        case.validate_response(
            response,
            checks=EVERY_CHECK,
            headers=self.headers,
            transport_kwargs=kwargs or None,
            recorder=getattr(self, "recorder", None),
        )


def test_sequences_anonymous(catalog):
    Sequences.run(settings=SEQUENCES)


def test_sequences_as_a_reviewer(catalog, reviewer_headers):
    reviewer = type("ReviewerSequences", (Sequences,), {"headers": reviewer_headers})
    reviewer.run(settings=SEQUENCES)
