"""The hooks schemathesis runs with on this API (schemathesis.toml names this file: the test
suite's run, tests/api/test_schemathesis.py, and `schemathesis run` against a served site).

A schema-valid upload, in schemathesis's positive mode, is a real one. What an upload takes
is a result document as its JSON Schema says (the request body's ResultDocument component,
the schema served at /api/schema/result-document.json) and as its meaning checks say
(known test ids, rates against block sizes, I/O counts and the drive's interface: beyond
any schema), or fio's output with the drive it measured; a generated document is neither,
and is refused with a 400 that says why. So where a positive case's body is generated, it
is a real document (the measured sample both loadgen's and the site's tests check), or
fio's real output beside the drive it measured, and must be accepted (a multipart form of
one is left to the upload tests, see filter_case); an Idempotency-Key, whose promise (a
new key for a new upload) no schema states, is a new one. Negative cases keep what was
generated, and must be refused.

One check of this API's own: a query parameter given twice (schemathesis.toml has the
coverage phase send each so) is refused unless its schema is an array. schemathesis's
negative_data_rejection lets such a case pass, since many servers read one of the values."""

import json
import uuid
from pathlib import Path

import schemathesis
from schemathesis.generation.meta import CoveragePhaseData, CoverageScenario

from tests.api.fio_upload import FIO_DRIVE, FIO_OUTPUT

ROOT = Path(__file__).resolve().parents[2]
DOCUMENT = ROOT / "results" / "schema" / "samples" / "measured-loadgen-quick-v2.json"
REAL_UPLOADS = {"/api/v1/runs/": DOCUMENT, "/api/v1/runs/fio/": FIO_OUTPUT}


def _positive(case, location: str) -> bool:
    """Whether the case's part at `location` ("body", "query", "header") was generated valid."""
    component = case.meta.components.get(location) if case.meta is not None else None
    return component is not None and component.mode.is_positive


def _positive_upload(case) -> bool:
    positive = case.meta is not None and case.meta.generation.mode.is_positive
    return positive and case.method.upper() == "POST" and case.operation.path in REAL_UPLOADS


@schemathesis.hook
def filter_case(context, case):
    # A positive multipart upload is left to tests/api/test_uploads.py and
    # test_web_upload.py, which send real documents so: in schemathesis's coverage phase,
    # such a case whose body map_case made real was then checked as a negative one ("valid
    # object") and its acceptance reported as a failure.
    return not (_positive_upload(case) and case.media_type == "multipart/form-data")


@schemathesis.hook
def map_case(context, case):
    if not _positive_upload(case):
        return case  # a negative case must be refused whatever its body
    real = REAL_UPLOADS[case.operation.path]
    if _positive(case, "body"):
        case.body = json.loads(real.read_bytes())
        if real is FIO_OUTPUT and _positive(case, "query"):
            # The drive fio measured, named as the catalog holds it: other names of the same
            # drive (another part number) are refused for what they are, a conflict.
            kept = {k: v for k, v in case.query.items() if k in ("format", "drive_state")}
            case.query = {**kept, **FIO_DRIVE}
    if _positive(case, "header") and "Idempotency-Key" in (case.headers or {}):
        case.headers["Idempotency-Key"] = uuid.uuid4().hex
    return case


@schemathesis.check
def repeated_parameter_refused(ctx, response, case):
    """A query parameter given more than once, where its schema is not an array, is refused
    (benchsite.api.QueryOnce), never read as one of its values."""
    data = case.meta.phase.data if case.meta is not None else None
    if not (
        isinstance(data, CoveragePhaseData)
        and data.scenario == CoverageScenario.DUPLICATE_PARAMETER
        and response.status_code < 400
    ):
        return None
    schema = next(
        (p.definition.get("schema", {}) for p in case.operation.query if p.name == data.parameter),
        {},
    )
    if schema.get("type") != "array":
        raise AssertionError(
            f"`{data.parameter}` given twice was accepted ({response.status_code}), not refused"
        )
    return None
