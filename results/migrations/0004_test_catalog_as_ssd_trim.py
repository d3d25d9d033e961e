"""A published-method test: AnandTech's 2013 TRIM validation measured with AS-SSD.

Its figures (incompressible sequential write of a 1 GiB file in 16 MiB blocks, clean,
after 60 minutes of 4KB random-write torture, and after TRIM) are not loadgen's
trim-validation (128KB QD1 over the whole drive), so they get a test of their own and
compare only with each other. loadgen does not run it (produced_by).
"""

from django.db import migrations

TEST = {
    "id": "trim-as-ssd-seqwrite",
    "name": "TRIM validation (AS-SSD incompressible sequential write: clean, after torture, "
    "after TRIM)",
    "kind": "trim",
    "operation": "write",
    "access": "sequential",
    "block_size": 16777216,
    "queue_depth": 1,
    "span": "fixed",
    "span_bytes": 1073741824,
    "duration_s": 3600,
    "metrics": [
        "clean_bytes_per_second",
        "after_torture_bytes_per_second",
        "after_trim_bytes_per_second",
    ],
    "unit": "bytes/s",
    "higher_is_better": True,
    "produced_by": "AS-SSD",
}


def add_test(apps, schema_editor):
    fields = {k: v for k, v in TEST.items() if k != "id"}
    apps.get_model("results", "Test").objects.update_or_create(
        identifier=TEST["id"], defaults=fields
    )


def remove_test(apps, schema_editor):
    apps.get_model("results", "Test").objects.filter(identifier=TEST["id"]).delete()


class Migration(migrations.Migration):
    dependencies = [("results", "0003_test_produced_by_citation_rate_unit_bigint_series")]

    operations = [migrations.RunPython(add_test, remove_test)]
