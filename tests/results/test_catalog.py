"""The test catalog in the database is exactly results/schema/catalog.json, kept so by
services.suite_catalog_sync after every migrate."""

import json
from pathlib import Path

import pytest
from django.conf import settings
from django.core.management import call_command
from django.db import IntegrityError, transaction

from results.models import Suite, SuiteTest, Test
from results.services import suite_catalog_sync

pytestmark = pytest.mark.django_db

CATALOG = json.loads((Path(settings.BASE_DIR) / "results/schema/catalog.json").read_text())


def test_every_catalog_test_is_loaded_with_its_parameters():
    loaded = {t.identifier: t for t in Test.objects.all()}
    assert set(loaded) == {spec["id"] for spec in CATALOG["tests"]}
    for spec in CATALOG["tests"]:
        test = loaded[spec["id"]]
        for field, value in spec.items():
            if field != "id":
                assert getattr(test, field) == value, (spec["id"], field)


def test_suites_hold_their_tests_in_order():
    for spec in CATALOG["suites"]:
        suite = Suite.objects.get(name=spec["name"], version=spec["version"])
        assert suite.title == spec["title"]
        ordered = [st.test.identifier for st in suite.suitetest_set.order_by("position")]
        assert ordered == spec["tests"]


def test_methodology_table_values():
    # The DESIGN.md methodology table, row by row.
    expect = {
        "randread-4k-qd3": (4096, 3, None, 180),
        "randwrite-4k-qd3-8g": (4096, 3, 8 * 2**30, 180),
        "randwrite-4k-qd32-8g": (4096, 32, 8 * 2**30, 180),
        "seqread-128k-qd1": (128 * 1024, 1, None, 60),
        "seqwrite-128k-qd1": (128 * 1024, 1, None, 60),
        "seqread-2m-qd1": (2 * 2**20, 1, None, 60),
        "seqwrite-2m-qd1": (2 * 2**20, 1, None, 60),
        "consistency-4k-qd32": (4096, 32, None, 2000),
    }
    for identifier, (block, depth, span, seconds) in expect.items():
        test = Test.objects.get(identifier=identifier)
        assert (test.block_size, test.queue_depth, test.span_bytes, test.duration_s) == (
            block,
            depth,
            span,
            seconds,
        )


def test_the_latency_suite_is_snia_lat():
    # SNIA PTS's LAT: one I/O outstanding, random over the whole drive, each of 0.5, 4 and
    # 8 KiB at 100/0, 65/35 and 0/100 reads/writes; ranked and compared as throughput tests.
    suite = Suite.objects.get(name="lat-2026", version=1)
    tests = [st.test for st in suite.suitetest_set.order_by("position")]
    shares = {"read": 100, "write": 0}
    assert sorted((t.block_size, shares.get(t.operation, t.rwmixread)) for t in tests) == sorted(
        (size, reads) for size in (512, 4096, 8192) for reads in (0, 65, 100)
    )
    for t in tests:
        assert (t.kind, t.access, t.queue_depth, t.span, t.family) == (
            "throughput",
            "random",
            1,
            "whole",
            "",
        ), t.identifier
        assert "latency" in t.metrics and t.duration_s == 60, t.identifier


def test_span_rule_is_enforced():
    with pytest.raises(IntegrityError, match="test_span_rule"), transaction.atomic():
        Test.objects.create(
            identifier="bad",
            name="bad",
            kind="throughput",
            operation="read",
            access="random",
            block_size=4096,
            queue_depth=1,
            span="fixed",
            span_bytes=None,
            duration_s=1,
            metrics=[],
            unit="bytes/s",
        )


def _with_new_test(catalog: dict) -> dict:
    """The catalog with one more test, added to the newest suite and a new suite version."""
    new = dict(CATALOG["tests"][0], id="randread-4k-qd1", name="4KB random read QD1")
    new["queue_depth"] = 1
    newest = CATALOG["suites"][-1]
    return {
        **catalog,
        "tests": [*catalog["tests"], new],
        "suites": [
            *catalog["suites"],
            {**newest, "version": newest["version"] + 1, "tests": [new["id"], *newest["tests"]]},
        ],
    }


def test_sync_of_the_catalog_as_loaded_writes_nothing():
    assert suite_catalog_sync() == 0


def test_a_test_added_to_the_catalog_is_one_entry_and_a_sync():
    catalog = _with_new_test(CATALOG)
    assert suite_catalog_sync(catalog=catalog) == 2  # the test and the suite
    added = Test.objects.get(identifier="randread-4k-qd1")
    assert (added.queue_depth, added.name) == (1, "4KB random read QD1")
    suite = Suite.objects.get(
        name=CATALOG["suites"][-1]["name"], version=catalog["suites"][-1]["version"]
    )
    assert [st.test.identifier for st in suite.suitetest_set.order_by("position")] == catalog[
        "suites"
    ][-1]["tests"]
    assert suite_catalog_sync(catalog=catalog) == 0


def test_a_sync_writes_what_changed_and_deletes_nothing():
    catalog = json.loads(json.dumps(CATALOG))
    catalog["tests"][0]["name"] = "4KB random read (renamed)"
    first = catalog["suites"][0]
    first["tests"] = list(reversed(first["tests"]))
    dropped = catalog["tests"].pop()
    assert suite_catalog_sync(catalog=catalog) == 2  # the name, the suite's order
    assert (
        Test.objects.get(identifier=catalog["tests"][0]["id"]).name == "4KB random read (renamed)"
    )
    suite = Suite.objects.get(name=first["name"], version=first["version"])
    assert [st.test.identifier for st in suite.suitetest_set.order_by("position")] == first["tests"]
    assert Test.objects.filter(identifier=dropped["id"]).exists()


def test_migrate_brings_the_database_back_to_the_catalog():
    last = CATALOG["suites"][-1]
    SuiteTest.objects.filter(suite__name=last["name"], suite__version=last["version"]).delete()
    Test.objects.filter(identifier="write-saturation-128k-qd32").update(name="edited")
    call_command("migrate", verbosity=0)
    test_every_catalog_test_is_loaded_with_its_parameters()
    test_suites_hold_their_tests_in_order()
