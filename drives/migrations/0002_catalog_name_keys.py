"""Catalog names compared by one normalisation in Python and in the database.

The unique constraints used to hold on lower(name), which under the embedded cluster's C
locale folds only ASCII, while the lookups lowercased in Python: a second document for
"ÖKO Speicher" missed the first and hit the constraint. Now both read a key column that
Python fills with drives.models.catalog_key (NFC, case-folded, white space collapsed).
"""

import unicodedata

from django.db import migrations, models

import drives.models


def catalog_key(name: str) -> str:
    # drives.models.catalog_key as of this migration.
    return " ".join(unicodedata.normalize("NFC", name).casefold().split())


def fill_keys(apps, schema_editor):
    Manufacturer = apps.get_model("drives", "Manufacturer")
    Drive = apps.get_model("drives", "Drive")
    makers = list(Manufacturer.objects.only("name"))
    for maker in makers:
        maker.name_key = catalog_key(maker.name)
    Manufacturer.objects.bulk_update(makers, ["name_key"], batch_size=1000)
    drives = list(Drive.objects.only("model"))
    for drive in drives:
        drive.model_key = catalog_key(drive.model)
    Drive.objects.bulk_update(drives, ["model_key"], batch_size=1000)


class Migration(migrations.Migration):
    dependencies = [("drives", "0001_initial")]

    operations = [
        migrations.AddField(
            model_name="manufacturer",
            name="name_key",
            field=models.TextField(editable=False, null=True),
        ),
        migrations.AddField(
            model_name="drive",
            name="model_key",
            field=models.TextField(editable=False, null=True),
        ),
        migrations.RunPython(fill_keys, migrations.RunPython.noop),
        migrations.AlterField(
            model_name="manufacturer",
            name="name_key",
            field=drives.models.CatalogKeyField(source="name"),
        ),
        migrations.AlterField(
            model_name="drive",
            name="model_key",
            field=drives.models.CatalogKeyField(source="model"),
        ),
        migrations.RemoveConstraint(model_name="drive", name="drive_sku_unique"),
        migrations.RemoveConstraint(model_name="manufacturer", name="manufacturer_name_ci_unique"),
        migrations.AddConstraint(
            model_name="drive",
            constraint=models.UniqueConstraint(
                fields=("manufacturer", "model_key", "capacity_bytes", "hardware_revision"),
                name="drive_sku_unique",
                nulls_distinct=False,
            ),
        ),
        migrations.AddConstraint(
            model_name="manufacturer",
            constraint=models.UniqueConstraint(
                fields=("name_key",), name="manufacturer_name_key_unique"
            ),
        ),
    ]
