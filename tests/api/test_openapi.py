"""The API's description: the OpenAPI schema validates and names every endpoint, its
filters and the one error body; the docs page is served from static files, no CDN."""

import pytest
import yaml
from django.core.management import call_command

pytestmark = pytest.mark.django_db


def test_the_schema_validates_and_describes_every_read(client, capsys):
    call_command("spectacular", "--validate", "--fail-on-warn")
    schema = yaml.safe_load(capsys.readouterr().out)
    paths = schema["paths"]
    for path in (
        "/api/v1/drives/",
        "/api/v1/drives/{slug}/",
        "/api/v1/results/",
        "/api/v1/consistency/{id}/",
        "/api/v1/compare/{a}/{b}/",
        "/api/v1/tests/{identifier}/leaderboard/",
        "/api/v1/value/",
    ):
        assert path in paths, path
    drive_filters = {p["name"] for p in paths["/api/v1/drives/"]["get"]["parameters"]}
    assert {"q", "kind", "interface", "controller", "cell_type", "capacity_min"} <= drive_filters
    assert {"manufacturer", "nand", "ordering", "limit", "offset"} <= drive_filters
    served = client.get("/api/schema/")
    assert served.status_code == 200


def test_the_docs_page_loads_nothing_from_elsewhere(client):
    page = client.get("/api/docs/")
    html = page.content.decode()
    assert page.status_code == 200
    assert "swagger-ui" in html and "cdn" not in html.lower()
    assert "<script>" not in html  # the CSP allows no inline script
    for src in [s.split('"')[1] for s in html.split("src=")[1:]]:
        assert src.startswith("/"), src


def test_every_operation_documents_its_errors_and_every_filter(capsys):
    from results.filters import LeaderboardFilter, ValueFilter

    call_command("spectacular", "--validate", "--fail-on-warn")
    schema = yaml.safe_load(capsys.readouterr().out)
    error = {"$ref": "#/components/schemas/ErrorBody"}
    checked = 0
    for path, operations in schema["paths"].items():
        for method, operation in operations.items():
            places = {p["in"] for p in operation.get("parameters", [])}
            codes = {"401"}  # a token that is not valid, on any operation
            if "query" in places or "requestBody" in operation:
                codes.add("400")
            if "path" in places:
                codes.add("404")
            for code in codes:
                body = operation["responses"][code]["content"]["application/json"]
                assert body["schema"] == error, (method, path, code)
                assert set(body["example"]) == {"detail", "errors"}, (method, path, code)
                checked += 1
    assert checked > 30
    for path, filterset in (
        ("/api/v1/tests/{identifier}/leaderboard/", LeaderboardFilter),
        ("/api/v1/value/", ValueFilter),
    ):
        names = {p["name"] for p in schema["paths"][path]["get"]["parameters"]}
        assert set(filterset.base_filters) | {"highlight"} <= names, path
