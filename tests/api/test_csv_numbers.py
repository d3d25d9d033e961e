"""A list's CSV writes every number as its JSON writes it: for every row and column, the
cell is the JSON's very text of the value (31700000.0 in both, 1e-7 in both), and so
parses to the same number; a null is an empty cell. Over generated published figures
(integral, huge, tiny) in the results list, and over every list the API serves as CSV."""

from __future__ import annotations

import csv
import io
import json

import pytest
from hypothesis import HealthCheck, given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st

from results.services import run_ingest
from results.synthetic import measured_document
from tests.api.conftest import SAMPLES
from tests.factories import PriceFactory
from tests.results.helpers import published

pytestmark = pytest.mark.django_db


class Number(str):
    """A number of a JSON text, as the text it was written as."""


def json_rows(content: bytes) -> list[dict]:
    body = json.loads(content, parse_float=Number, parse_int=Number)
    if isinstance(body, dict) and "results" in body:
        return body["results"]
    if isinstance(body, dict) and "rows" in body:
        return body["rows"] + body.get("elsewhere", [])
    return body


def leaves(item: dict, header: list[str], prefix: str = "") -> dict[str, object]:
    """A JSON item's values by the CSV's dotted column names: nested objects flattened,
    but for a column the CSV writes whole (as JSON)."""
    found: dict[str, object] = {}
    for key, value in item.items():
        column = f"{prefix}{key}"
        if isinstance(value, dict) and column not in header:
            found.update(leaves(value, header, f"{column}."))
        else:
            found[column] = value
    return found


def assert_csv_numbers_are_the_jsons(client, url: str, params: dict) -> int:
    """Every number of the JSON list at its row and column of the CSV; how many."""
    rows = json_rows(client.get(url, params).content)
    response = client.get(url, {**params, "format": "csv"})
    assert response.status_code == 200
    header, *cells = list(csv.reader(io.StringIO(response.content.decode())))
    assert len(cells) == len(rows), url
    checked = 0
    for item, line in zip(rows, cells, strict=True):
        written = dict(zip(header, line, strict=True))
        for column, value in leaves(item, header).items():
            if isinstance(value, Number):
                assert written[column] == value, (url, column, written[column], value)
                assert float(written[column]) == float(value)
                checked += 1
            elif value is None and column in written:
                assert written[column] == "", (url, column)
    return checked


FIGURES = st.one_of(
    st.integers(10**4, 10**12).map(float),  # integral: written 31700000.0 by both
    st.floats(4096.0, 1e15, allow_nan=False, allow_infinity=False),
)
SMALL = st.one_of(
    st.just(1.5e-05),
    st.just(1e-7),
    st.floats(0.0, 1e6, allow_nan=False, allow_infinity=False, allow_subnormal=False),
)


@hypothesis_settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(bps=FIGURES, iops=FIGURES, stddev=SMALL, mean=SMALL, seq=st.integers(0, 10**6))
def test_the_results_csv_writes_each_number_as_the_json_does(
    client, db, bps, iops, stddev, mean, seq
):
    run = published(
        manufacturer="Old",
        model=f"Disk {seq}",
        kind="virtual",  # a RAM disk of the catalog: no wire bounds the magnitudes drawn
        results=[
            {
                "test": "randread-4k-qd3",
                "pattern": "unspecified",
                "bytes_per_second": bps,
                "iops_stddev": min(stddev, bps / 4096),  # a spread its mean can have
            },
            {"test": "seqread-128k-qd1", "pattern": "unspecified", "iops": iops / 4096},
            {
                "test": "randwrite-4k-qd3-8g",
                "pattern": "unspecified",
                "latency_ns": {"mean": mean, "stddev": stddev},
            },
        ],
    )
    checked = assert_csv_numbers_are_the_jsons(
        client, "/api/v1/results/", {"drive": run.drive.slug}
    )
    assert checked >= 6


@pytest.fixture
def catalog(db):
    # A quick loadgen run with TRIM validations and write saturation, and two full ones.
    run_ingest(document=(SAMPLES / "measured-loadgen-quick-v2.json").read_bytes(), submitter=None)
    for seed, model in ((1, "Alpha 240GB"), (2, "Beta 480GB")):
        document = measured_document(seed=seed, model=model, series_seconds=60)
        run = run_ingest(document=json.dumps(document), submitter=None).run
        PriceFactory(drive=run.drive, amount="349.99")
    published(
        manufacturer="Old",
        model="Disk",
        results=[
            {"test": "randread-4k-qd3", "pattern": "unspecified", "bytes_per_second": 31700000},
            {"test": "randwrite-4k-qd3-8g", "pattern": "unspecified", "iops": 9000},
        ],
    )


LISTS = [
    "/api/v1/results/",
    "/api/v1/drives/",
    "/api/v1/prices/",
    "/api/v1/tests/",
    "/api/v1/runs/",
    "/api/v1/consistency/",
    "/api/v1/trim/",
    "/api/v1/saturation/",
    "/api/v1/tests/randread-4k-qd3/leaderboard/",
    "/api/v1/tests/consistency-4k-qd32/ranking/",
    "/api/v1/value/",
]
# The catalog's series are quick runs' (60 s): the ranking of those.
QUERY = {"/api/v1/tests/consistency-4k-qd32/ranking/": {"method": "quick"}}


@pytest.mark.parametrize("url", LISTS)
def test_every_lists_csv_writes_each_number_as_the_json_does(client, catalog, url):
    params = {"limit": 500, **QUERY.get(url, {})}
    assert assert_csv_numbers_are_the_jsons(client, url, params) > 0


@pytest.mark.parametrize("url", LISTS)
def test_every_lists_csv_writes_nested_objects_as_dotted_columns(client, catalog, url):
    """No cell of a list's CSV is an object written as JSON text: a run's drive, tool, bench
    and citation, a result's latency percentiles, are columns of their own (drive.slug,
    latency.percentiles_ns.99.9), as the schema's description of the CSV says."""
    response = client.get(url, {"limit": 500, "format": "csv", **QUERY.get(url, {})})
    header, *cells = list(csv.reader(io.StringIO(response.content.decode())))
    assert cells, url
    for line in cells:
        for column, cell in zip(header, line, strict=True):
            assert not cell.startswith(("{", "[{")), (url, column, cell[:80])
    if url == "/api/v1/runs/":
        assert {"drive.slug", "tool.name", "tool.version", "bench.cpu", "citation.title"} <= set(
            header
        )
    if url == "/api/v1/results/":
        assert {"latency.percentiles_ns.50", "latency.percentiles_ns.99.99"} <= set(header)


def test_a_figure_is_written_alike_in_every_read(client, catalog):
    """The published 31700000 bytes/s: the same text in the results list, the leaderboard
    and the compare (PostgreSQL's JSON, which the compare reads, writes it 31700000)."""
    old = "old-disk"

    def read(url: str, **params):
        return json.loads(client.get(url, params).content, parse_float=Number, parse_int=Number)

    listed = read("/api/v1/results/", drive=old, test="randread-4k-qd3")["results"]
    board = read("/api/v1/tests/randread-4k-qd3/leaderboard/")["rows"]
    compared = read(f"/api/v1/compare/maker-alpha-240gb-256gb/{old}/")
    pair = next(t for t in compared["tests"] if t["test"] == "randread-4k-qd3")["patterns"]
    texts = {
        listed[0]["bytes_per_second"],
        *(e["bytes_per_second"] for e in board if e["drive"] == old),
        *(e["spread"]["mean_bytes_per_second"] for e in board if e["drive"] == old),
        *(p["b"]["bytes_per_second"] for p in pair if p["b"]),
        *(p["b"]["spread"]["mean_bytes_per_second"] for p in pair if p["b"]),
    }
    assert texts == {"31700000.0"}
