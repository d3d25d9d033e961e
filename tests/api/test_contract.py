"""The API's contract, class by class of what schemathesis found (issue 34, item 3): each
test generated over every operation of the served schema, so that an operation added
later is held to it too. A schema-violating query value is a 400 at its parameter (never a
silent default); a filter's parameter is described by its filter; the leaderboard and the
comparison are typed field by field; the result document's JSON Schema is served and named
by the upload."""

import json
import re
from pathlib import Path

import pytest
from django.conf import settings
from jsonschema import Draft7Validator, Draft202012Validator
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012

from core.filters import declared_filters, query_description, query_schema
from drives.models import Drive
from results import documents
from results.api.reads import NewestRowsFirst
from results.api.runs import DOCUMENT_SCHEMA_URL, FIO_OUTPUT, RESULT_DOCUMENT
from results.filters import LeaderboardFilter
from results.services import run_ingest
from results.synthetic import measured_document
from tests.api.conftest import RUNS, post_document
from tests.factories import PriceFactory

pytestmark = pytest.mark.django_db

# A value each kind of path parameter takes (a test the catalog has: a leaderboard's test
# is looked up before its query is read; a ranking's is of a kind that is not throughput).
PATH_VALUES = {
    **{"identifier": "randread-4k-qd3", "a": "x", "b": "y", "c": "z", "d": "w"},
    **{"slug": "x", "id": "1"},
}
RANKED_TEST = "consistency-4k-qd32"


@pytest.fixture
def client(client, django_user_model):
    """Signed in, so that every operation reads its query (a user's own runs too)."""
    client.force_login(django_user_model.objects.create_user("contract-reader"))
    return client


@pytest.fixture
def openapi(client) -> dict:
    response = client.get("/api/schema/", {"format": "json"})
    assert response.status_code == 200
    return response.json()


def operations(openapi: dict, method: str = "get"):
    """Each operation of the schema: its path with values in its path parameters, and its
    query parameters by name."""
    for path, item in openapi["paths"].items():
        operation = item.get(method)
        if operation is None:
            continue
        parameters = operation.get("parameters", [])
        url = path
        for p in parameters:
            if p["in"] == "path":
                value = RANKED_TEST if path.endswith("/ranking/") else PATH_VALUES[p["name"]]
                url = url.replace("{" + p["name"] + "}", value)
        yield url, {p["name"]: p for p in parameters if p["in"] == "query"}


def typed(schema: dict, kind: str) -> dict | None:
    """The schema of a query value if it is of `kind` (alone, or beside the empty value)."""
    for option in schema.get("anyOf", [schema]):
        if option.get("type") == kind:
            return option
    return None


def refused_at(response, name: str) -> None:
    assert response.status_code == 400, (response.request, response.content[:300])
    body = response.json()
    assert f"/query/{name}" in {e["pointer"] for e in body["errors"]}, body
    assert body["detail"]


def test_every_whole_number_parameter_refuses_anything_else_with_a_400(client, openapi):
    """?limit=abc was a page of the default size: every integer query parameter of every
    operation refuses a non-integer, a fraction, and a number beyond its bounds, and takes
    a whole number however JSON writes it (JSON Schema 2020-12, OpenAPI 3.1's: 2.0 and
    2e0 are the integer 2; schemathesis sends a whole float as 2.0)."""
    checked = set()
    for url, parameters in operations(openapi):
        for name, parameter in parameters.items():
            whole = typed(parameter["schema"], "integer")
            if whole is None:
                continue
            bad = ["abc", "1.5", "-", " 1", "1e-1", "+1", "１", "1e99999999"]
            if "maximum" in whole:
                bad += [str(whole["maximum"] + 1), f"{whole['maximum'] + 1}.0"]
            if "minimum" in whole:
                bad.append(str(whole["minimum"] - 1))
            for value in bad:
                refused_at(client.get(url, {name: value}), name)
            low = whole.get("minimum", 1)
            for value in (f"{low}.0", f"{low}e0", f"{low * 10}E-1", f"{low}.000"):
                assert client.get(url, {name: value}).status_code != 400, (url, name, value)
            checked.add(name)
    assert {"limit", "offset", "page", "page_size", "run", "run_a", "run_b", "run_d"} <= checked


def test_every_number_parameter_refuses_text_and_numbers_beyond_its_bounds(client, openapi):
    checked = 0
    for url, parameters in operations(openapi):
        for name, parameter in parameters.items():
            number = typed(parameter["schema"], "number")
            if number is None:
                continue
            refused_at(client.get(url, {name: "abc"}), name)
            if "minimum" in number:
                refused_at(client.get(url, {name: str(number["minimum"] - 1)}), name)
            if "maximum" in number:
                refused_at(client.get(url, {name: repr(number["maximum"] * 10)}), name)
            checked += 1
    assert checked >= 6  # capacities on drives, leaderboards and value views


def test_every_boolean_parameter_takes_true_and_false_and_nothing_else(client, openapi, two_drives):
    """?points=1 and ?points=TRUE were read as true, where the schema's boolean is true or
    false on the wire: of real drives, so that the refusal is the parameter's, not a 404."""
    alpha, beta = two_drives
    checked = set()
    for url, parameters in operations(openapi):
        url = url.replace("/compare/x/y/", f"/compare/{alpha.slug}/{beta.slug}/")
        for name, parameter in parameters.items():
            if parameter["schema"].get("type") != "boolean" or re.search("/[xyzw]/", url):
                continue  # a compare of drives that do not exist: 404 whatever the query
            for value in ("true", "false"):
                assert client.get(url, {name: value}).status_code == 200, (url, name, value)
            for value in ("1", "0", "TRUE", "False", "yes", "", "true "):
                refused_at(client.get(url, {name: value}), name)
            checked.add(name)
    assert checked == {"points"}


def test_every_choice_parameter_refuses_a_value_it_does_not_list(client, openapi):
    """Unknown enum values (?format=xml was a 404, ?source=synthetic on a ranking...)."""
    checked = set()
    for url, parameters in operations(openapi):
        for name, parameter in parameters.items():
            choices = parameter["schema"].get("enum")
            if choices is None:
                continue
            refused_at(client.get(url, {name: "no-such-choice"}), name)
            checked.add(name)
    assert {"format", "kind", "interface", "pattern", "source", "metric", "test"} <= checked


def test_an_empty_format_is_refused_and_a_listed_one_is_written(client, openapi):
    for url, parameters in operations(openapi):
        if "format" not in parameters:
            continue
        refused_at(client.get(url, {"format": ""}), "format")
        for fmt in parameters["format"]["schema"]["enum"]:
            assert client.get(url, {"format": fmt}).status_code != 400, (url, fmt)


def test_every_text_parameter_refuses_a_nul_and_text_beyond_its_length(client, openapi):
    checked = 0
    for url, parameters in operations(openapi):
        for name, parameter in parameters.items():
            text = parameter["schema"]
            if text.get("type") != "string" or "enum" in text or "pattern" not in text:
                continue
            if text["pattern"] == "^[^\\u0000]*$":
                refused_at(client.get(url, {name: "a\x00b"}), name)
            if "maxLength" in text:
                refused_at(client.get(url, {name: "x" * (text["maxLength"] + 1)}), name)
            checked += 1
    assert checked >= 10


def allows(parameter: dict, text: str) -> bool:
    """Whether a query parameter's schema allows `text` as its value on the wire: as text,
    or read as the number or boolean it writes (a list of it, for an array)."""
    read: list[object] = [text]
    if re.fullmatch(r"-?[0-9]+", text):
        read.append(int(text))
    if re.fullmatch(r"-?[0-9]+(\.[0-9]+)?(e[-+]?[0-9]+)?", text):
        read.append(float(text))
    if text in ("true", "false"):
        read.append(text == "true")
    validator = Draft202012Validator(parameter["schema"])
    many = parameter["schema"].get("type") == "array"
    return any(validator.is_valid([value] if many else value) for value in read)


def test_every_parameter_takes_the_empty_value_exactly_where_its_schema_does(client, openapi):
    """?method= was read as its default where the schema's choices have no empty value: each
    query parameter of each operation given empty is accepted if and only if its schema
    allows it (a filter, which an empty value does not narrow; never a number, a format or a
    page's place)."""
    empty, refused = set(), set()
    for url, parameters in operations(openapi):
        for name, parameter in parameters.items():
            response = client.get(url, {name: ""})
            if allows(parameter, ""):
                assert response.status_code != 400, (url, name, response.content[:300])
                empty.add(name)
            else:
                refused_at(response, name)
                refused.add(name)
    assert {"method", "kind", "q", "run", "capacity_min", "qd", "highlight"} <= empty
    assert {"format", "limit", "offset", "page", "metric", "points", "cursor"} <= refused


# Values some parameter of the API takes, tried in turn for one its schema allows.
SAMPLES = ("", "1", "x", "2024-01-01", "before-1", "true")


def test_a_parameter_given_twice_is_refused_unless_its_schema_is_a_list(client, openapi):
    """?limit=1&limit=500 was a page of 500 (the last value read): every query parameter
    of every operation, given twice with a value its schema allows, is a 400 at it, unless
    its schema is an array (?highlight=a&highlight=b)."""
    lists, once = set(), set()
    for url, parameters in operations(openapi):
        for name, parameter in parameters.items():
            value = next(
                (
                    v
                    for v in (*SAMPLES, *map(str, parameter["schema"].get("enum", ())))
                    if allows(parameter, v)
                ),
                None,
            )
            assert value is not None, (url, name)
            response = client.get(url, {name: [value, value]})
            if parameter["schema"].get("type") == "array":
                assert response.status_code != 400, (url, name, response.content[:300])
                lists.add(name)
            else:
                refused_at(response, name)
                assert "given 2 times" in response.json()["detail"]
                once.add(name)
    assert lists == {"highlight"}
    assert {"format", "limit", "kind", "method", "ordering", "cursor", "run_a", "qd"} <= once


def test_every_filter_is_described_by_its_declaration(openapi):
    """The leaderboard's filters (source among them) as LeaderboardFilter declares them:
    the schema derives from the declarations, so a filter added there is documented."""
    path = openapi["paths"]["/api/v1/tests/{identifier}/leaderboard/"]["get"]
    documented = {p["name"]: p for p in path["parameters"]}
    for name, flt in declared_filters(LeaderboardFilter).items():
        assert documented[name]["schema"] == query_schema(flt), name
        assert documented[name]["description"] == query_description(flt), name
    assert set(documented["source"]["schema"]["enum"]) == {"measured", "published", ""}
    assert "published in a review" in documented["source"]["description"]


def test_a_results_cursor_of_the_documented_form_names_a_page(client, openapi):
    pattern = next(
        p["schema"]["pattern"]
        for p in openapi["paths"]["/api/v1/results/"]["get"]["parameters"]
        if p["name"] == "cursor"
    )
    assert pattern == f"^{NewestRowsFirst.CURSOR.pattern}$"
    for cursor in ("before-1", "after-1", "before-9999999999999999999"):
        assert client.get("/api/v1/results/", {"cursor": cursor}).status_code == 200
    for cursor in ("before-", "between-1", "cD1hYmM="):
        refused_at(client.get("/api/v1/results/", {"cursor": cursor}), "cursor")


def resolve(openapi: dict, schema: dict) -> dict:
    """The schema of a value that is not null: a component by its name, the one schema of
    an allOf, or of a oneOf beside null (OpenAPI 3.1's nullable)."""
    while "$ref" in schema:
        schema = openapi["components"]["schemas"][schema["$ref"].rsplit("/", 1)[1]]
    if "allOf" in schema and len(schema["allOf"]) == 1:
        return resolve(openapi, {**schema["allOf"][0]})
    options = [s for s in schema.get("oneOf", ()) if s != {"type": "null"}]
    if len(options) == 1:
        return resolve(openapi, options[0])
    return schema


def assert_fully_typed(openapi: dict, schema: dict, value, where: str = "") -> int:
    """Every object in `value` has the properties its schema declares, and no other: no
    part of the response is an object the schema leaves untyped. Returns the objects seen."""
    schema = resolve(openapi, schema)
    if value is None:
        return 0
    if isinstance(value, list):
        return sum(
            assert_fully_typed(openapi, schema["items"], item, f"{where}/{n}")
            for n, item in enumerate(value)
        )
    if not isinstance(value, dict):
        return 0
    if "additionalProperties" in schema and "properties" not in schema:  # a mapping
        return 1
    properties = schema.get("properties")
    assert properties, f"{where}: an object the schema does not type"
    assert set(value) <= set(properties), (where, set(value) - set(properties))
    assert set(schema.get("required", [])) <= set(value), where
    return 1 + sum(
        assert_fully_typed(openapi, properties[key], item, f"{where}/{key}")
        for key, item in value.items()
    )


@pytest.fixture
def two_drives():
    runs = [
        run_ingest(document=json.dumps(document), submitter=None).run
        for document in (
            measured_document(seed=1, model="Alpha 240GB", series_seconds=60),
            measured_document(seed=2, model="Beta 480GB", capacity_bytes=480 * 10**9),
        )
    ]
    drives = [Drive.objects.get(pk=run.drive_id) for run in runs]
    for drive, amount in zip(drives, ("89.00", "149.00"), strict=True):
        PriceFactory(drive=drive, amount=amount)  # priced: the value view has rows
    return drives


@pytest.mark.parametrize("points", ["false", "true"])
def test_the_comparison_and_the_leaderboard_are_typed_field_by_field(
    client, openapi, two_drives, points
):
    alpha, beta = two_drives
    for path, url, params in (
        ("/api/v1/compare/{a}/{b}/", f"/api/v1/compare/{alpha.slug}/{beta.slug}/", {}),
        (
            "/api/v1/tests/{identifier}/leaderboard/",
            "/api/v1/tests/randread-4k-qd3/leaderboard/",
            {"highlight": beta.slug, "page_size": 1},
        ),
        ("/api/v1/value/", "/api/v1/value/", {}),
    ):
        response = client.get(url, {"points": points, **params} if "compare" in url else params)
        assert response.status_code == 200, response.content[:300]
        documented = openapi["paths"][path]["get"]["responses"]["200"]["content"]
        seen = assert_fully_typed(
            openapi, documented["application/json"]["schema"], response.json()
        )
        assert seen >= 3, path
        assert documented["text/csv"]["schema"]["type"] == "string"


def test_the_result_document_schema_is_served_and_is_the_upload_body(client, openapi):
    """The upload bodies were {"type": "object"}: POST /runs/ takes the result document's
    component (or fio's output), POST /runs/fio/ fio's output, and the component is the
    schema served at DOCUMENT_SCHEMA_URL (the same verdict on every document: see
    test_the_document_component_judges_every_document_as_the_served_schema)."""
    served = client.get(DOCUMENT_SCHEMA_URL)
    assert served.status_code == 200
    assert served["Content-Type"] == "application/schema+json"
    path = Path(settings.BASE_DIR) / "results" / "schema" / "result-document.schema.json"
    assert served.content == path.read_bytes()
    assert openapi["openapi"].startswith("3.1.")  # JSON Schema 2020-12: if/then, const
    uploads = {
        "/api/v1/runs/": {"anyOf": [component(RESULT_DOCUMENT), component(FIO_OUTPUT)]},
        "/api/v1/runs/fio/": component(FIO_OUTPUT),
    }
    for path, documented in uploads.items():
        body = openapi["paths"][path]["post"]["requestBody"]
        assert body["required"] is True
        json_body = body["content"]["application/json"]["schema"]
        assert {k: v for k, v in json_body.items() if k != "description"} == documented
    document = openapi["components"]["schemas"][RESULT_DOCUMENT]
    assert document["externalDocs"]["url"] == DOCUMENT_SCHEMA_URL


def component(name: str) -> dict:
    return {"$ref": f"#/components/schemas/{name}"}


def variants(document):
    """A document and documents a little off it: each member left out, and each value in
    turn null, text, a negative number or false (of a list, its first two items only)."""
    yield document
    if isinstance(document, dict):
        for key, value in document.items():
            yield {k: v for k, v in document.items() if k != key}
            for other in variants(value):
                yield {**document, key: other}
    elif isinstance(document, list):
        for index, value in enumerate(document[:2]):
            for other in variants(value):
                yield [*document[:index], other, *document[index + 1 :]]
    else:
        yield from (None, "x", -1, False)


def test_the_document_component_judges_every_document_as_the_served_schema(openapi):
    """The upload body's component and the served draft-7 file find the same problems in
    every sample document and in each variant of them (if/then, const, dependencies and
    the $defs they refer to among what is exercised)."""
    served = Draft7Validator(documents.schema())
    registry = Registry().with_resource(
        "urn:api", Resource(contents=openapi, specification=DRAFT202012)
    )
    described = Draft202012Validator(
        {"$ref": f"urn:api#/components/schemas/{RESULT_DOCUMENT}"}, registry=registry
    )
    samples = sorted((Path(settings.BASE_DIR) / "results" / "schema" / "samples").glob("*.json"))
    compared = refused = 0
    seen = set()
    for sample in samples:
        for document in variants(json.loads(sample.read_text())):
            # Each distinct document once: a value replaced by itself (each member's first
            # variant, or a scalar already null, "x", -1 or false) is a document judged
            # already, and both validators judge the same document alike every time.
            text = json.dumps(document)
            if text in seen:
                continue
            seen.add(text)
            problems = sorted(e.message for e in served.iter_errors(document))
            assert sorted(e.message for e in described.iter_errors(document)) == problems
            compared += 1
            refused += bool(problems)
    assert compared > 1000 and refused > 500


def withdraw_reason_schema(openapi: dict) -> dict:
    body = openapi["paths"]["/api/v1/runs/{id}/withdraw/"]["post"]["requestBody"]
    return resolve(openapi, body["content"]["application/json"]["schema"])["properties"]["reason"]


@pytest.mark.parametrize(
    "reason",
    [
        "",
        " ",
        "\t\n ",
        "\x1c\x1f",  # whitespace to Python's str.strip, not to ECMA 262's \s
        "\u3000",
        "a\x00b",
        "x" * 2001,
        " " * 1999 + "xy",  # 2001 sent, 2 once trimmed
        "ok",
        "  the drive was mislabelled  ",
        "\ufeffnot blank",  # not whitespace to str.strip
        "x" * 2000,
    ],
)
def test_the_withdraw_reason_is_refused_exactly_where_its_schema_refuses_it(
    openapi, reviewer, api, reason
):
    """A reason with a NUL was refused with a 400 the schema did not foresee: the reason's
    schema states what DRF's CharField refuses (benchsite.openapi.TextRefusals), and the
    server measures the text sent, as maxLength does."""
    run = run_ingest(document=json.dumps(measured_document()), submitter=reviewer).run
    allowed = Draft202012Validator(withdraw_reason_schema(openapi)).is_valid(reason)
    response = api.post(f"{RUNS}{run.pk}/withdraw/", {"reason": reason}, format="json")
    if allowed:
        assert response.status_code == 200, response.content[:300]
    else:
        assert response.status_code == 400, response.content[:300]
        assert [e["pointer"] for e in response.json()["errors"]] == ["/reason"]


def test_every_refusal_of_a_body_or_an_accept_header_is_documented(client, openapi, reviewer, api):
    """An operation that reads a body documents the 415 of a type it does not read, and
    every operation the 406 of an Accept header it cannot answer, in the one error body."""
    for path, item in openapi["paths"].items():
        for method, operation in item.items():
            documented = operation["responses"]
            assert "406" in documented, (method, path)
            assert "415" in documented or "requestBody" not in operation, (method, path)
    run = run_ingest(document=json.dumps(measured_document()), submitter=reviewer).run
    refused = api.generic(
        "POST", f"{RUNS}{run.pk}/withdraw/", "reason=x", content_type="text/plain"
    )
    not_acceptable = client.get("/api/v1/drives/", HTTP_ACCEPT="application/xml")
    for response, status in ((refused, 415), (not_acceptable, 406)):
        assert response.status_code == status, response.content[:300]
        assert set(response.json()) == {"detail", "errors"}


def test_fio_fields_beside_a_result_document_are_checked_not_ignored(api, document):
    """A value no fio upload could give (a kind not listed, a name beyond 200 characters)
    is refused beside a result document too, at its place in the drive block."""
    for field, value in (("kind", "floppy"), ("model", "x" * 201), ("capacity_bytes", "0")):
        response = post_document(api, document, f"{RUNS}?{field}={value}")
        assert response.status_code == 400, (field, response.content[:300])
        assert f"/drive/{field}" in {e["pointer"] for e in response.json()["errors"]}
    assert post_document(api, document, f"{RUNS}?kind=ssd").status_code == 201


def test_an_order_by_a_field_not_offered_is_refused(client, openapi):
    """?ordering=price was the default order, silently: every list that takes an order
    refuses a term its pattern does not allow, and takes each it does."""
    checked = 0
    for url, parameters in operations(openapi):
        if "ordering" not in parameters:
            continue
        pattern = parameters["ordering"]["schema"]["pattern"]
        for bad in ("price", "model,", "--model", "model;capacity_bytes"):
            assert not re.fullmatch(pattern, bad)
            refused_at(client.get(url, {"ordering": bad}), "ordering")
        for good in ("model", "-capacity_bytes,model", ""):
            assert re.fullmatch(pattern, good)
            assert client.get(url, {"ordering": good}).status_code == 200, (url, good)
        checked += 1
    assert checked >= 1
