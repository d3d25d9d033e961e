"""The write-saturation test and steady-state-2013 version 2, which adds it (catalog.json).

Nothing existing changes: a new test identifier and a new suite version.
"""

from django.db import migrations, models

TEST = {
    "id": "write-saturation-128k-qd32",
    "name": "Write saturation (128KB sequential write QD32 of the whole drive, incompressible)",
    "kind": "saturation",
    "operation": "write",
    "access": "sequential",
    "block_size": 131072,
    "queue_depth": 32,
    "span": "whole",
    "span_bytes": None,
    "duration_s": 0,
    "metrics": [
        "bytes_per_second_series",
        "bytes_before_exhausted",
        "bytes_per_second_before",
        "bytes_per_second_after",
    ],
    "unit": "bytes/s",
    "higher_is_better": True,
    "produced_by": "loadgen",
}

SUITE = {
    "name": "steady-state-2013",
    "version": 2,
    "title": "Performance consistency and TRIM validation (2013), with the write saturation of "
    "current reviews",
    "tests": ["consistency-4k-qd32", "trim-validation", "write-saturation-128k-qd32"],
}


def load(apps, schema_editor):
    Test = apps.get_model("results", "Test")
    Suite = apps.get_model("results", "Suite")
    SuiteTest = apps.get_model("results", "SuiteTest")
    fields = {k: v for k, v in TEST.items() if k != "id"}
    Test.objects.update_or_create(identifier=TEST["id"], defaults=fields)
    suite, _ = Suite.objects.update_or_create(
        name=SUITE["name"], version=SUITE["version"], defaults={"title": SUITE["title"]}
    )
    for position, test_id in enumerate(SUITE["tests"], start=1):
        SuiteTest.objects.update_or_create(
            suite=suite,
            test=Test.objects.get(identifier=test_id),
            defaults={"position": position},
        )


def unload(apps, schema_editor):
    apps.get_model("results", "Suite").objects.filter(
        name=SUITE["name"], version=SUITE["version"]
    ).delete()
    apps.get_model("results", "Test").objects.filter(identifier=TEST["id"]).delete()


class Migration(migrations.Migration):
    dependencies = [("results", "0005_run_content_hash_canonical_numbers")]

    operations = [
        migrations.AlterField(
            model_name="test",
            name="kind",
            field=models.CharField(
                choices=[
                    ("throughput", "throughput"),
                    ("consistency", "performance consistency"),
                    ("trim", "TRIM validation"),
                    ("saturation", "write saturation"),
                ],
                max_length=12,
            ),
        ),
        migrations.RunPython(load, unload),
    ]
