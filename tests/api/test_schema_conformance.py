"""Every read of the API conforms to its OpenAPI schema on a catalog that has every kind of
row: the demo's measured and published runs (series, TRIM, saturation, citations, prices,
firmware), drives without a controller or NAND, a NAND type without a vendor, a controller
and NAND that nothing uses. The fuzzing (test_schemathesis) generates requests against an
empty catalog, where a list holds nothing to break its schema; here each list, each of its
items by id or slug, the comparison, a leaderboard and the value view answer with data."""

import pytest
from django.contrib.auth.models import User
from django.core.management import call_command
from schemathesis.specs.openapi.checks import response_schema_conformance

from drives.models import FirmwareVersion, Manufacturer, NandType
from results.models import Run
from results.services import reviewer_token_issue
from tests.api.test_schemathesis import keep_the_test_connection, schema  # noqa: F401
from tests.factories import DriveFactory

pytestmark = pytest.mark.django_db

# The path parameter of an item, read from the items of its list.
ITEM_KEYS = {"slug": "slug", "id": "id", "identifier": "identifier"}


@pytest.fixture
def catalog(test_catalog):
    call_command("load_demo", verbosity=0)
    bare = DriveFactory(manufacturer=Manufacturer.objects.first(), controller=None, nand=None)
    FirmwareVersion.objects.create(drive=bare, version="1.0")  # no date, no notes
    FirmwareVersion.objects.create(drive=bare, version="2.0", release_date="2012-05-01")
    NandType.objects.create(slug="no-vendor-tlc", vendor=None, cell_type="tlc")
    user = User.objects.create_user("conformance-reviewer")
    Run.objects.filter(pk=Run.objects.order_by("pk").first().pk).update(submitter=user)
    return {"Authorization": f"Token {reviewer_token_issue(user=user)}"}


def get(path: str, headers: dict | None = None, **parameters):
    case = schema[path]["GET"].Case(path_parameters=parameters or None, headers=headers)
    response = case.call()
    assert response.status_code == 200, (path, parameters, response.text[:300])
    case.validate_response(response, checks=[response_schema_conformance])
    return response.json()


def test_every_read_conforms_to_the_schema_with_data(catalog):
    lists = [p for p, ops in schema.raw_schema["paths"].items() if "get" in ops and "{" not in p]
    items = {}
    for path in lists:
        body = get(path, headers=catalog)
        rows = body["results"] if isinstance(body, dict) and "results" in body else body
        if isinstance(rows, list) and rows:
            items[path] = rows
    checked = 0
    for path, ops in schema.raw_schema["paths"].items():
        if "get" not in ops or "{" not in path or path.count("{") != 1:
            continue
        name = path.split("{", 1)[1].split("}", 1)[0]
        listed = items.get(path.split("{", 1)[0])
        assert listed, f"no items to read at {path}"
        if path.endswith("/leaderboard/"):  # leaderboards are of throughput tests only
            listed = [t for t in listed if t["kind"] == "throughput"]
        if path.endswith("/ranking/"):  # and rankings of the other kinds
            listed = [t for t in listed if t["kind"] != "throughput"]
        for row in listed[:25]:
            assert ITEM_KEYS[name] in row, (path, sorted(row))
            get(path, **{name: row[ITEM_KEYS[name]]})
            checked += 1
    drives = [d["slug"] for d in items["/api/v1/drives/"]]
    assert any(d["controller"] is None and d["nand"] is None for d in items["/api/v1/drives/"])
    assert any(n["vendor"] is None for n in items["/api/v1/nand-types/"])
    for a, b in zip(drives, drives[1:], strict=False):
        get("/api/v1/compare/{a}/{b}/", a=a, b=b)
    # Three and four drives, every drive of the demo in some place.
    for i in range(0, len(drives) - 3, 2):
        a, b, c, d = drives[i : i + 4]
        get("/api/v1/compare/{a}/{b}/{c}/", a=a, b=b, c=c)
        get("/api/v1/compare/{a}/{b}/{c}/{d}/", a=a, b=b, c=c, d=d)
    assert checked > 50
