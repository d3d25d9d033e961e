"""A result's rates are the same in every read of the API: the one a source did not give
is derived from the other through the test's block size (IOPS = bytes/s ÷ block size) and
marked so (`derived` names it), in the results list, one result, a run's results, the
leaderboard and the compare alike; a result that holds only latency has both rates null
and says why (`missing_rates_reason`), and the schema says both."""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterator
from typing import Any

import pytest
import yaml
from django.core.management import call_command
from hypothesis import HealthCheck, given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st

from results.models import Test
from results.selectors.common import (
    LATENCY_ONLY_MEASURED,
    LATENCY_ONLY_PUBLISHED,
    MISSING_RATES_REASONS,
)
from results.services import run_ingest
from results.synthetic import measured_document
from tests.results.helpers import published

pytestmark = pytest.mark.django_db

EXAMPLES = hypothesis_settings(
    max_examples=30,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
TESTS = ["randread-4k-qd3", "seqwrite-128k-qd1"]
RATES = st.floats(1e3, 1e6, allow_nan=False)  # IOPS: well within what a document may hold
DRIVES = itertools.count()


def reads_of(client, run_pk: int, drive: str, other: str, test: str) -> Iterator[tuple]:
    """(where, figures) of the one result of `run_pk` in `test` in every read showing it."""
    listed = client.get("/api/v1/results/", {"drive": drive, "test": test}).json()["results"]
    assert len(listed) == 1
    yield "results list", listed[0]
    yield "one result", client.get(f"/api/v1/results/{listed[0]['id']}/").json()
    run = client.get(f"/api/v1/runs/{run_pk}/").json()
    yield "run", next(r for r in run["results"] if r["test"] == test)
    for metric in ("throughput", "latency_published"):
        board = client.get(
            f"/api/v1/tests/{test}/leaderboard/", {"metric": metric, "highlight": drive}
        ).json()
        for entry in board["rows"] + board["elsewhere"]:
            if entry["drive"] == drive:
                yield f"leaderboard ({metric})", entry
    compared = client.get(f"/api/v1/compare/{drive}/{other}/").json()
    for pair in compared["tests"]:  # an unspecified pattern's figure faces both patterns
        for side in pair["patterns"]:
            if pair["test"] == test and side["a"] is not None:
                yield "compare", side["a"]


@pytest.fixture
def other(db) -> str:
    document = measured_document(seed=1, model="Alpha 240GB", series_seconds=60)
    return run_ingest(document=json.dumps(document), submitter=None).run.drive.slug


@EXAMPLES
@given(
    given_as=st.sampled_from(["bytes_per_second", "iops", "both", "latency"]),
    iops=RATES,
    test=st.sampled_from(TESTS),
)
def test_every_read_gives_a_results_rates_alike_derived_and_marked(
    client, other, given_as, iops, test
):
    block = Test.objects.get(identifier=test).block_size
    figures: dict[str, Any] = {}
    if given_as in ("bytes_per_second", "both"):
        figures["bytes_per_second"] = iops * block
    if given_as in ("iops", "both"):
        figures["iops"] = iops
    if given_as == "latency":
        figures["latency_ns"] = {"mean": 1e9 / iops}
    run = published(
        manufacturer="Old",
        model=f"Disk {next(DRIVES)}",  # a drive of its own for each example
        kind="virtual",  # a RAM disk of the catalog: no wire bounds the magnitudes drawn
        results=[{"test": test, "pattern": "unspecified", **figures}],
    )
    derived = {"bytes_per_second": "iops", "iops": "bytes_per_second"}.get(given_as)
    seen = set()
    for where, shown in reads_of(client, run.pk, run.drive.slug, other, test):
        seen.add(where.split(" (")[0])
        assert shown["derived"] == derived, where
        if given_as == "latency":
            assert shown["bytes_per_second"] is None and shown["iops"] is None, where
            assert shown["missing_rates_reason"] == LATENCY_ONLY_PUBLISHED, where
            continue
        assert shown["missing_rates_reason"] is None, where
        bps = figures.get("bytes_per_second", figures.get("iops", 0) * block)
        assert shown["bytes_per_second"] == bps, where
        assert shown["iops"] == figures.get("iops", bps / block), where
    assert seen >= {"results list", "one result", "run", "leaderboard", "compare"}, seen


def test_a_measured_result_of_latency_alone_says_the_run_measured_only_latency(client, other):
    document = measured_document(seed=5, model="Quiet 120GB", series_seconds=60)
    kept = document["results"][0]
    for name in ("bytes_per_second", "iops", "io_count", "bytes", "iops_stddev", "iops_min"):
        kept.pop(name, None)
    document["results"] = [kept]
    run = run_ingest(document=json.dumps(document), submitter=None).run
    listed = client.get("/api/v1/results/", {"drive": run.drive.slug}).json()["results"]
    assert [r["missing_rates_reason"] for r in listed] == [LATENCY_ONLY_MEASURED]
    assert [(r["bytes_per_second"], r["iops"], r["derived"]) for r in listed] == [
        (None, None, None)
    ]


def test_the_schema_says_derived_and_why_rates_are_missing_wherever_it_gives_rates(capsys):
    call_command("spectacular", "--validate", "--fail-on-warn")
    schema = yaml.safe_load(capsys.readouterr().out)
    giving = {
        name: component["properties"]
        for name, component in schema["components"]["schemas"].items()
        if {"bytes_per_second", "iops"} <= set(component.get("properties", {}))
    }
    # The results list and one result, a run's results, the compare's figures, leaderboards.
    assert {"Result", "RunResultShape", "FiguresShape", "EntryShape"} <= set(giving)
    for name, properties in giving.items():
        derived, why = properties.get("derived"), properties.get("missing_rates_reason")
        assert derived and why, name
        assert set(derived.get("enum", [])) | set(_enum(schema, derived)) >= {
            "iops",
            "bytes_per_second",
        }, (name, derived)
        assert set(_enum(schema, why)) == set(MISSING_RATES_REASONS), (name, why)
        assert "latency" in why.get("description", ""), (name, why)


def _enum(schema: dict, spec: dict) -> list:
    """The values of a property's enum, through its $ref (oneOf/allOf with null)."""
    found = list(spec.get("enum", []))
    for part in spec.get("oneOf", []) + spec.get("allOf", []) + [spec]:
        ref = part.get("$ref")
        if ref:
            found += schema["components"]["schemas"][ref.rsplit("/", 1)[1]].get("enum", [])
    return [v for v in found if v is not None]
