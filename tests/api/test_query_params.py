"""Every read of the API, every parameter its schema names (query and path), given what a
client should not send — NUL bytes, bytes that are not UTF-8, numbers beyond 64 bits,
negative and empty values, very long text, HTML — answers 200 or a 4xx in the one error body,
never a 5xx. The operations and parameters are read from the schema, so a new endpoint or
filter is covered as soon as it is documented."""

import json
from urllib.parse import quote

import pytest
from django.test import Client

from drives.models import Drive
from results.models import Run, Test
from results.services import run_ingest
from results.synthetic import measured_document

pytestmark = pytest.mark.django_db

HOSTILE = [
    "\x00",
    "a\x00b",
    "%ED%A0%80",  # a lone surrogate as UTF-8 (not valid UTF-8), sent as it is
    "%FF%FE",
    "9" * 30,
    "-1",
    "0",
    "",
    " ",
    "1.5e400",
    "NaN",
    "true",
    "ü" * 300,
    "x" * 5000,
    '"><script>alert(1)</script>',
    "2025-02-30",
    "-capacity_bytes,,pk",
]


def _operations(client: Client) -> list[tuple[str, list[dict]]]:
    schema = client.get("/api/schema/", {"format": "json"}).json()
    found = []
    for path, operations in schema["paths"].items():
        get = operations.get("get")
        if get is not None:
            found.append((path, get.get("parameters", [])))
    return found


@pytest.fixture
def catalog():
    a = run_ingest(
        document=json.dumps(measured_document(seed=1, series_seconds=60)), submitter=None
    ).run
    b = run_ingest(
        document=json.dumps(measured_document(seed=2, model="Other 480GB")), submitter=None
    ).run
    c, d = (
        run_ingest(
            document=json.dumps(measured_document(seed=seed, model=model)), submitter=None
        ).run
        for seed, model in ((3, "Third 240GB"), (4, "Fourth 120GB"))
    )
    return {
        "slug": Drive.objects.get(pk=a.drive_id).slug,
        "slug_a": Drive.objects.get(pk=a.drive_id).slug,
        "slug_b": Drive.objects.get(pk=b.drive_id).slug,
        "a": Drive.objects.get(pk=a.drive_id).slug,
        "b": Drive.objects.get(pk=b.drive_id).slug,
        "c": Drive.objects.get(pk=c.drive_id).slug,
        "d": Drive.objects.get(pk=d.drive_id).slug,
        "id": str(a.pk),
        "pk": str(a.pk),
        "run": str(a.pk),
        "identifier": Test.objects.filter(kind=Test.Kind.THROUGHPUT).first().identifier,
        "test": Test.objects.filter(kind=Test.Kind.THROUGHPUT).first().identifier,
    }


def _url(path: str, values: dict[str, str]) -> str:
    for name, value in values.items():
        path = path.replace("{" + name + "}", value)
    return path


def _check(client: Client, url: str, what: str, *, query: bool = False) -> None:
    """< 500; any 4xx the one JSON error body, also to a client that asks for CSV; a value
    of a query parameter that cannot be read a 400 (a 404 means the address names nothing)."""
    for accept in ("application/json", "text/csv"):
        response = client.get(url, HTTP_ACCEPT=accept)
        assert response.status_code < 500, (what, url[:200], response.content[:300])
        if 400 <= response.status_code < 500:
            assert response["Content-Type"].startswith("application/json"), (what, url[:200])
            body = response.json()
            assert set(body) == {"detail", "errors"}, (what, body)
            if query and what != "format":
                assert response.status_code != 404, (what, url[:200], body)


def test_every_parameter_of_every_read_takes_hostile_values(client, catalog):
    operations = _operations(client)
    assert len(operations) > 15  # the schema was read
    checked = 0
    for path, parameters in operations:
        names = {p["name"] for p in parameters if p["in"] == "path"}
        missing = names - set(catalog)
        assert not missing, f"{path}: give the test a value for {missing}"
        if path.endswith("/ranking/"):  # a ranking is of a kind other than throughput
            catalog = {**catalog, "identifier": "consistency-4k-qd32"}
        base = _url(path, catalog)
        assert client.get(base).status_code < 500, base
        for parameter in parameters:
            name = parameter["name"]
            for value in HOSTILE:
                raw = value if value.startswith("%") else quote(value, safe="")
                if parameter["in"] == "query":
                    _check(client, f"{base}?{quote(name)}={raw}", name, query=True)
                    _check(client, f"{base}?{quote(name)}={raw}&{quote(name)}=1", name, query=True)
                elif parameter["in"] == "path" and raw:
                    _check(client, _url(path, {**catalog, name: raw}), name)
                checked += 1
    assert checked > 500


def test_a_nul_byte_in_the_runs_list_is_a_400(client, catalog):
    response = client.get("/api/v1/runs/", {"drive": "a\x00b"})
    assert response.status_code == 400
    assert response.json()["errors"][0]["pointer"] == "/query/drive"
    assert client.get("/api/v1/runs/", {"source": "other"}).status_code == 400
    listed = client.get("/api/v1/runs/", {"drive": catalog["slug"]}).json()
    assert [r["id"] for r in listed["results"]] == [int(catalog["id"])]
    assert Run.objects.count() == 4


@pytest.mark.parametrize("path", ["results", "consistency", "trim", "saturation"])
@pytest.mark.parametrize("value", ["1.5", "1e-3", "0x10", "-2.5"])
def test_a_run_id_is_a_whole_number(client, catalog, path, value):
    response = client.get(f"/api/v1/{path}/", {"run": value})
    assert response.status_code == 400, response.content[:200]
    assert response.json()["errors"][0]["pointer"] == "/query/run"
    assert client.get(f"/api/v1/{path}/", {"run": catalog["run"]}).status_code == 200
    # The same whole number as JSON may write it (JSON Schema 2020-12's integer).
    assert client.get(f"/api/v1/{path}/", {"run": f"{catalog['run']}.0"}).status_code == 200


def test_a_parameter_given_twice_is_a_400_at_it_unless_the_schema_makes_it_a_list(client, catalog):
    """Every query parameter of every read: given twice with one valid value (the one the
    read answers 200 to), a 400 pointing at it; an array parameter (the schema's `type:
    array`, read as a list) is read whole, as given."""
    twice = lists = 0
    valid = {"page": "1", "format": "json", "ordering": "pk", "highlight": catalog["b"]}
    for path, parameters in _operations(client):
        if path.endswith("/ranking/"):
            catalog = {**catalog, "identifier": "consistency-4k-qd32"}
        base = _url(path, catalog)
        for parameter in parameters:
            name = parameter["name"]
            if parameter["in"] != "query" or name not in valid:
                continue
            once = client.get(f"{base}?{name}={quote(valid[name])}")
            if once.status_code != 200:
                continue  # not a value this read takes (an ordering it does not offer)
            response = client.get(f"{base}?{name}={quote(valid[name])}&{name}={quote(valid[name])}")
            if parameter.get("schema", {}).get("type") == "array":
                assert response.status_code == 200, (path, name, response.content[:200])
                lists += 1
            else:
                assert response.status_code == 400, (path, name, response.status_code)
                error = response.json()["errors"][0]
                assert error["pointer"] == f"/query/{name}", (path, error)
                assert "given 2 times" in error["message"], (path, error)
                twice += 1
    assert twice > 10 and lists > 0, (twice, lists)
