"""Money is a JSON number everywhere in the API, and the schema types it so: every price-like
field (an amount, anything in US dollars) of every read, the drives list's latest price as
the compare's, a price's amount as the value view's. And every DecimalField the API could
write is a number (COERCE_DECIMAL_TO_STRING)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
import yaml
from django.core.management import call_command
from rest_framework.settings import api_settings

from results.services import run_ingest
from results.synthetic import measured_document
from tests.factories import PriceFactory

pytestmark = pytest.mark.django_db


def is_money(name: str) -> bool:
    return name == "amount" or name.endswith("_usd")


def money_in(value: Any, path: str = "") -> Iterator[tuple[str, Any]]:
    """(path, value) of every price-like member of a JSON value."""
    if isinstance(value, dict):
        for key, item in value.items():
            if is_money(key):
                yield f"{path}/{key}", item
            yield from money_in(item, f"{path}/{key}")
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from money_in(item, f"{path}/{index}")


@pytest.fixture
def openapi(capsys) -> dict:
    call_command("spectacular", "--validate", "--fail-on-warn")
    return yaml.safe_load(capsys.readouterr().out)


@pytest.fixture
def priced(db):
    slugs = []
    for seed, model in ((1, "Alpha 240GB"), (2, "Beta 480GB")):
        run = run_ingest(
            document=json.dumps(measured_document(seed=seed, model=model, series_seconds=60)),
            submitter=None,
        ).run
        PriceFactory(drive=run.drive, amount="389.00", observed_on="2013-01-01")
        PriceFactory(drive=run.drive, amount="349.99", observed_on="2013-06-01")
        slugs.append(run.drive.slug)
    return slugs


def reads(client, openapi: dict, slugs: list[str]) -> Iterator[tuple[str, Any]]:
    """Every read the schema describes, with data: each list, each item of it (by the
    path's one parameter), and the comparison of the two drives."""
    listed: dict[str, list] = {}
    for path, operations in openapi["paths"].items():
        if "get" in operations and "{" not in path and path.startswith("/api/v1/"):
            body = client.get(path).json()
            listed[path] = body.get("results", [])
            yield path, body
    for path, operations in openapi["paths"].items():
        if "get" not in operations or path.count("{") != 1:
            continue
        name = path.split("{", 1)[1].split("}", 1)[0]
        items = listed.get(path.split("{", 1)[0], [])
        if path.endswith("/leaderboard/"):  # leaderboards are of throughput tests
            items = [t for t in items if t["kind"] == "throughput"]
        if path.endswith("/ranking/"):  # rankings, of the other kinds
            items = [t for t in items if t["kind"] != "throughput"]
        for item in items[:3]:
            url = path.replace("{" + name + "}", str(item[name]))
            response = client.get(url)
            assert response.status_code == 200, url
            yield url, response.json()
    url = f"/api/v1/compare/{slugs[0]}/{slugs[1]}/"
    yield url, client.get(url).json()


def test_every_price_in_every_read_is_a_number(client, openapi, priced):
    seen: dict[str, int] = {}
    for url, body in reads(client, openapi, priced):
        for where, value in money_in(body):
            assert value is None or type(value) in (int, float), (url, where, value)
            if value is not None:
                name = where.rsplit("/", 1)[1]
                seen[name] = seen.get(name, 0) + 1
    # Not vacuous: each of the API's money fields was read with an amount.
    assert {
        "amount",
        "latest_price_usd",
        "price_usd",
        "price_per_gb_usd",
        "price_per_kiops_usd",
    } <= set(seen), seen


def test_the_drives_list_and_the_compare_give_the_same_price(client, priced):
    listed = {
        d["slug"]: d["latest_price_usd"] for d in client.get("/api/v1/drives/").json()["results"]
    }
    compared = client.get(f"/api/v1/compare/{priced[0]}/{priced[1]}/").json()
    assert listed[priced[0]] == compared["a"]["price_usd"] == 349.99
    assert listed[priced[1]] == compared["b"]["price_usd"] == 349.99


def test_the_schema_types_every_price_as_a_number(openapi):
    typed = 0
    for name, component in openapi["components"]["schemas"].items():
        for field, spec in component.get("properties", {}).items():
            if is_money(field):
                # OpenAPI 3.1 writes a nullable number as the type list JSON Schema has.
                assert spec.get("type") in ("number", ["number", "null"]), (name, field, spec)
                typed += 1
    assert typed >= 8  # drives, prices, compare (three), leaderboard, value (three)


def test_any_decimal_the_api_writes_is_a_number():
    assert api_settings.COERCE_DECIMAL_TO_STRING is False
