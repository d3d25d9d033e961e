"""The hooks schemathesis runs with on this API (schemathesis.toml names this file: the test
suite's run, tests/api/test_schemathesis.py, and `schemathesis run` against a served site).

A schema-valid upload, in schemathesis's positive mode, is a real one. What an upload takes
is a result document as its JSON Schema says (served at /api/schema/result-document.json,
which schemathesis cannot generate from: if/then, $defs) and as its meaning checks say
(known test ids, rates against block sizes, I/O counts and the drive's interface: beyond
any schema), or fio's output with the drive it measured; a generated object is neither, and
is refused with a 400 that says why, as a negative case should be. So where a positive
case's body is generated, it is a real document (the measured sample both loadgen's and the
site's tests check), or fio's real output beside the drive it measured, and must be
accepted; an Idempotency-Key, whose promise (a new key for a new upload) no schema states,
is a new one. Negative cases keep what was generated, and must be refused."""

import json
import uuid
from pathlib import Path

import schemathesis

ROOT = Path(__file__).resolve().parents[2]
DOCUMENT = ROOT / "results" / "schema" / "samples" / "measured-loadgen-quick-v2.json"
FIO_OUTPUT = ROOT / "tests" / "results" / "fio" / "fio-3.41-standard.json"
# The drive fio-3.41-standard.json measured (tests/results/fio/README.md): a 16 MiB file.
FIO_DRIVE = {
    "manufacturer": "Linux",
    "model": "16 MiB file on ext4",
    "kind": "virtual",
    "interface": "other",
}
REAL_UPLOADS = {"/api/v1/runs/": DOCUMENT, "/api/v1/runs/fio/": FIO_OUTPUT}


def _positive(case, location: str) -> bool:
    """Whether the case's part at `location` ("body", "query", "header") was generated valid."""
    component = case.meta.components.get(location) if case.meta is not None else None
    return component is not None and component.mode.is_positive


@schemathesis.hook
def map_case(context, case):
    real = REAL_UPLOADS.get(case.operation.path)
    if real is None or case.method.upper() != "POST":
        return case
    if _positive(case, "body"):
        if case.media_type == "multipart/form-data":
            case.body = {"document": real.read_bytes()}
        else:
            case.body = json.loads(real.read_bytes())
        if real is FIO_OUTPUT and _positive(case, "query"):
            drive = {k: v for k, v in case.query.items() if k not in ("capacity_bytes",)}
            case.query = {**drive, **FIO_DRIVE}
    if _positive(case, "header") and "Idempotency-Key" in (case.headers or {}):
        case.headers["Idempotency-Key"] = uuid.uuid4().hex
    return case
