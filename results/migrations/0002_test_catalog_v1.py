"""Load the version-1 test catalog (results/schema/catalog.json, frozen here).

Test identifiers and suite versions never change once released: a changed method gets
a new test identifier or a new suite version in a new migration.
"""

from django.db import migrations

TESTS = [
    {
        "id": "randread-4k-qd3",
        "name": "4KB random read",
        "kind": "throughput",
        "operation": "read",
        "access": "random",
        "block_size": 4096,
        "queue_depth": 3,
        "span": "whole",
        "span_bytes": None,
        "duration_s": 180,
        "metrics": ["bytes_per_second", "iops", "latency"],
        "unit": "bytes/s",
        "higher_is_better": True,
    },
    {
        "id": "randwrite-4k-qd3-8g",
        "name": "4KB random write, 8GB LBA span",
        "kind": "throughput",
        "operation": "write",
        "access": "random",
        "block_size": 4096,
        "queue_depth": 3,
        "span": "fixed",
        "span_bytes": 8589934592,
        "duration_s": 180,
        "metrics": ["bytes_per_second", "iops", "latency"],
        "unit": "bytes/s",
        "higher_is_better": True,
    },
    {
        "id": "randwrite-4k-qd32-8g",
        "name": "4KB random write QD32, 8GB LBA span",
        "kind": "throughput",
        "operation": "write",
        "access": "random",
        "block_size": 4096,
        "queue_depth": 32,
        "span": "fixed",
        "span_bytes": 8589934592,
        "duration_s": 180,
        "metrics": ["bytes_per_second", "iops", "latency"],
        "unit": "bytes/s",
        "higher_is_better": True,
    },
    {
        "id": "seqread-128k-qd1",
        "name": "128KB sequential read",
        "kind": "throughput",
        "operation": "read",
        "access": "sequential",
        "block_size": 131072,
        "queue_depth": 1,
        "span": "whole",
        "span_bytes": None,
        "duration_s": 60,
        "metrics": ["bytes_per_second", "iops", "latency"],
        "unit": "bytes/s",
        "higher_is_better": True,
    },
    {
        "id": "seqwrite-128k-qd1",
        "name": "128KB sequential write",
        "kind": "throughput",
        "operation": "write",
        "access": "sequential",
        "block_size": 131072,
        "queue_depth": 1,
        "span": "whole",
        "span_bytes": None,
        "duration_s": 60,
        "metrics": ["bytes_per_second", "iops", "latency"],
        "unit": "bytes/s",
        "higher_is_better": True,
    },
    {
        "id": "seqread-2m-qd1",
        "name": "2MB sequential read",
        "kind": "throughput",
        "operation": "read",
        "access": "sequential",
        "block_size": 2097152,
        "queue_depth": 1,
        "span": "whole",
        "span_bytes": None,
        "duration_s": 60,
        "metrics": ["bytes_per_second", "iops", "latency"],
        "unit": "bytes/s",
        "higher_is_better": True,
    },
    {
        "id": "seqwrite-2m-qd1",
        "name": "2MB sequential write",
        "kind": "throughput",
        "operation": "write",
        "access": "sequential",
        "block_size": 2097152,
        "queue_depth": 1,
        "span": "whole",
        "span_bytes": None,
        "duration_s": 60,
        "metrics": ["bytes_per_second", "iops", "latency"],
        "unit": "bytes/s",
        "higher_is_better": True,
    },
    {
        "id": "consistency-4k-qd32",
        "name": "Performance consistency (4KB random write QD32, incompressible)",
        "kind": "consistency",
        "operation": "write",
        "access": "random",
        "block_size": 4096,
        "queue_depth": 32,
        "span": "whole",
        "span_bytes": None,
        "duration_s": 2000,
        "metrics": ["iops_per_second"],
        "unit": "IOPS",
        "higher_is_better": True,
    },
    {
        "id": "trim-validation",
        "name": "TRIM validation (128KB sequential write: clean, after torture, after TRIM)",
        "kind": "trim",
        "operation": "write",
        "access": "sequential",
        "block_size": 131072,
        "queue_depth": 1,
        "span": "whole",
        "span_bytes": None,
        "duration_s": 3600,
        "metrics": [
            "clean_bytes_per_second",
            "after_torture_bytes_per_second",
            "after_trim_bytes_per_second",
        ],
        "unit": "bytes/s",
        "higher_is_better": True,
    },
]

SUITES = [
    {
        "name": "desktop-2010",
        "version": 1,
        "title": "Desktop Iometer suite (2010): four corners with 2MB sequential transfers",
        "tests": ["randread-4k-qd3", "randwrite-4k-qd3-8g", "seqread-2m-qd1", "seqwrite-2m-qd1"],
    },
    {
        "name": "desktop-2011",
        "version": 1,
        "title": "Desktop Iometer suite (2011): four corners with 128KB sequential transfers and QD32 "
        "random write",
        "tests": [
            "randread-4k-qd3",
            "randwrite-4k-qd3-8g",
            "randwrite-4k-qd32-8g",
            "seqread-128k-qd1",
            "seqwrite-128k-qd1",
        ],
    },
    {
        "name": "steady-state-2013",
        "version": 1,
        "title": "Performance consistency and TRIM validation (2013)",
        "tests": ["consistency-4k-qd32", "trim-validation"],
    },
]


def load_catalog(apps, schema_editor):
    Test = apps.get_model("results", "Test")
    Suite = apps.get_model("results", "Suite")
    SuiteTest = apps.get_model("results", "SuiteTest")
    by_id = {}
    for spec in TESTS:
        fields = {k: v for k, v in spec.items() if k != "id"}
        by_id[spec["id"]], _ = Test.objects.update_or_create(identifier=spec["id"], defaults=fields)
    for spec in SUITES:
        suite, _ = Suite.objects.update_or_create(
            name=spec["name"], version=spec["version"], defaults={"title": spec["title"]}
        )
        for position, test_id in enumerate(spec["tests"], start=1):
            SuiteTest.objects.update_or_create(
                suite=suite, test=by_id[test_id], defaults={"position": position}
            )


def unload_catalog(apps, schema_editor):
    apps.get_model("results", "Suite").objects.filter(
        name__in=[s["name"] for s in SUITES], version=1
    ).delete()
    apps.get_model("results", "Test").objects.filter(
        identifier__in=[t["id"] for t in TESTS]
    ).delete()


class Migration(migrations.Migration):
    dependencies = [("results", "0001_initial")]

    operations = [migrations.RunPython(load_catalog, unload_catalog)]
