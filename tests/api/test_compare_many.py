"""The API's compare of two to four drives (issue 34, item 1): the two-drive body as before
(loadgen --compare reads it), the drives in order, each against A, the best, the errors."""

import pytest
from schemathesis.specs.openapi.checks import response_schema_conformance

from results.selectors.compare import compare
from tests.api.test_schemathesis import keep_the_test_connection, schema  # noqa: F401
from tests.factories import PriceFactory
from tests.results.helpers import measured

pytestmark = pytest.mark.django_db

NAMES = ("Acme Fast One", "Bolt Slow Two", "Cask Mid Three", "Dyne Odd Four")


@pytest.fixture
def four():
    drives = []
    for seed, name in enumerate(NAMES, start=1):
        manufacturer, model = name.split(" ", 1)
        drive = measured(manufacturer=manufacturer, model=model, seed=seed).drive
        PriceFactory(drive=drive, amount=f"{100 + seed}.00")
        drives.append(drive)
    return drives


def path(*drives) -> str:
    return "/api/v1/compare/" + "".join(f"{d.slug}/" for d in drives)


def conforms(template: str, **slugs) -> None:
    """The operation's answer as the schema types its 200 (with every series' points)."""
    case = schema[template]["GET"].Case(path_parameters=slugs, query={"points": "true"})
    response = case.call()
    assert response.status_code == 200, response.text[:300]
    case.validate_response(response, checks=[response_schema_conformance])


def test_two_drives_keep_every_key_loadgen_reads(client, four):
    a, b = four[:2]
    body = client.get(path(a, b)).json()
    assert body["a"]["drive"]["name"] == str(a) and body["b"]["drive"]["name"] == str(b)
    assert body["sides"] == [{"key": "a", "slug": a.slug}, {"key": "b", "slug": b.slug}]
    assert "c" not in body and "d" not in body
    test = body["tests"][0]
    assert test["test"] and test["patterns"]
    row = test["patterns"][0]
    figures = row["a"]
    for key in ("bytes_per_second", "iops", "method_label", "spread"):
        assert key in figures
    assert figures["spread"]["n"] >= 1
    for key in ("winner", "difference_percent", "verdict"):
        assert key in row
    assert set(row["verdicts"]) == {"b"} and row["verdicts"]["b"] == row["verdict"]
    assert "best" in row and "c" not in row


@pytest.mark.parametrize("count", [3, 4])
def test_three_and_four_drives(client, four, count):
    drives = four[:count]
    keys = "abcd"[:count]
    # First (the test client's request joins the test's connection to every later one).
    template = "/api/v1/compare/" + "".join(f"{{{k}}}/" for k in keys)
    conforms(template, **{k: d.slug for k, d in zip(keys, drives, strict=True)})
    response = client.get(path(*drives), {"points": "true"})
    assert response.status_code == 200
    body = response.json()
    assert body["sides"] == [{"key": k, "slug": d.slug} for k, d in zip(keys, drives, strict=True)]
    for key, drive in zip(keys, drives, strict=True):
        assert body[key]["drive"]["slug"] == drive.slug
    assert ("d" in body) == (count == 4)
    # The verdicts and the best are the selector's: each drive against A.
    c = compare([d.slug for d in drives])
    for test, pair in zip(body["tests"], c.tests, strict=True):
        for row, p in zip(test["patterns"], pair.rows, strict=True):
            assert set(row) >= set(keys)
            assert list(row["verdicts"]) == list(keys[1:])
            for key, v in zip(keys[1:], p.verdicts[1:], strict=True):
                assert row["verdicts"][key] == v.as_dict()
            assert row["best"] == (p.best or None)
    # Consistency, TRIM and saturation give every drive too.
    assert all(set(keys) <= set(level) for level in body["consistency"])
    assert len(body["consistency"][0]["c"]["iops"]) == 2000


def test_runs_per_drive(client, four):
    runs = {f"run_{k}": d.runs.get().pk for k, d in zip("abcd", four, strict=True)}
    body = client.get(path(*four), runs).json()
    for key, run in runs.items():
        assert body[key[-1]]["chosen_run"] == run


def test_a_drive_named_twice_among_three_or_four_is_400(client, four):
    a, b, c = four[:3]
    for drives in ((a, b, a), (a, b, c, b), (a, a, a)):
        response = client.get(path(*drives))
        assert response.status_code == 400
        assert "named twice" in response.json()["errors"][0]["message"]
    assert client.get(path(a, a)).status_code == 200  # two may be the same drive


def test_an_unknown_drive_is_404(client, four):
    a, b, c = four[:3]
    assert client.get(path(a, b) + "no-such-drive/").status_code == 404
    assert client.get(path(a, b, c) + "no-such-drive/").status_code == 404
    assert client.get(path(*four) + f"{a.slug}/").status_code == 404  # five: no such address


def test_the_schema_documents_each_count(client):
    paths = client.get("/api/schema/", {"format": "json"}).json()["paths"]
    for template, keys in (
        ("/api/v1/compare/{a}/{b}/", "ab"),
        ("/api/v1/compare/{a}/{b}/{c}/", "abc"),
        ("/api/v1/compare/{a}/{b}/{c}/{d}/", "abcd"),
    ):
        operation = paths[template]["get"]
        names = {p["name"] for p in operation["parameters"]}
        assert {*keys, *(f"run_{k}" for k in keys), "points", "format"} == names
        assert {"200", "400", "404"} <= set(operation["responses"])
