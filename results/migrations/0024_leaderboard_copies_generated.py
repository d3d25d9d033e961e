"""The triggers that keep a leaderboard entry's copies of its drive's specs, made from the
list of them (results.copies), and one more: an entry is given its copies when it is
written (results.services wrote them itself), so that a new copy is a line in that list.
The drive's and its NAND type's triggers are made again as migration 0014 wrote them."""

from django.db import migrations

from results.copies import copy_sql

# results.models.DRIVE_COPIES as this migration applies it.
DRIVE_COPIES = ("kind", "interface", "controller", "nand__cell_type", "capacity_bytes")


def _sql(apps):
    return copy_sql(
        apps.get_model("drives", "Drive"),
        apps.get_model("results", "LeaderboardEntry"),
        DRIVE_COPIES,
    )


def create(apps, schema_editor):
    schema_editor.execute(_sql(apps).create)


def drop_fill(apps, schema_editor):
    schema_editor.execute(_sql(apps).drop_fill)


class Migration(migrations.Migration):
    dependencies = [
        ("drives", "0011_catalog_version"),
        ("results", "0023_series_points_uncompressed"),
    ]

    operations = [migrations.RunPython(create, drop_fill)]
