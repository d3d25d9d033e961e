"""The test catalog loaded by migrations is exactly results/schema/catalog.json."""

import json
from pathlib import Path

import pytest
from django.conf import settings
from django.db import IntegrityError, transaction

from results.models import Suite, Test

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
