"""The drive catalog: its tables, then what their models cannot say: the triggers that keep
each drive's sort name and search text (drives/sql/names.sql), the trigram index of search
(drives/sql/search_trigram.sql), and the scope triggers of the versioned tables
(drives.versioned, made by core.versions). Squashed before the first release from 0001-0012,
whose data steps had nothing to do in a new database."""

from pathlib import Path

import django.contrib.postgres.fields
import django.core.validators
import django.db.models.deletion
import django.db.models.functions.text
from django.db import migrations, models

import drives.models
from core.versions import versioned_triggers
from drives.versioned import VERSIONED

SQL = Path(__file__).parents[1] / "sql"
SCOPES, SCOPES_REMOVED = versioned_triggers(VERSIONED)


class Migration(migrations.Migration):
    replaces = [
        ("drives", "0001_initial"),
        ("drives", "0002_catalog_name_keys"),
        ("drives", "0003_drive_virtual_kind_configuration_unverified_specs"),
        ("drives", "0004_drive_needs_review"),
        ("drives", "0005_price_as_of_index"),
        ("drives", "0006_drive_search_text"),
        ("drives", "0007_drive_order_indexes"),
        ("drives", "0008_drive_interface_capacity_index"),
        ("drives", "0009_search_text_revision"),
        ("drives", "0010_search_text_controller_maker"),
        ("drives", "0011_catalog_version"),
        ("drives", "0012_scope_versions"),
    ]
    initial = True

    dependencies = [("core", "0001_scope_versions")]

    operations = [
        migrations.CreateModel(
            name="Manufacturer",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("name", models.CharField(max_length=200)),
                ("name_key", drives.models.CatalogKeyField(source="name")),
                ("slug", models.SlugField(max_length=100, unique=True)),
                (
                    "website",
                    models.URLField(
                        blank=True,
                        validators=[django.core.validators.URLValidator(schemes=["http", "https"])],
                    ),
                ),
            ],
            options={
                "ordering": ["name"],
                "constraints": [
                    models.UniqueConstraint(
                        fields=("name_key",), name="manufacturer_name_key_unique"
                    )
                ],
            },
        ),
        migrations.CreateModel(
            name="Controller",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("model", models.CharField(help_text="e.g. SF-2281", max_length=100)),
                ("slug", models.SlugField(max_length=120, unique=True)),
                ("channels", models.PositiveSmallIntegerField(blank=True, null=True)),
                (
                    "compresses_data",
                    models.BooleanField(
                        default=False,
                        help_text="Compresses or deduplicates written data (e.g. SandForce).",
                    ),
                ),
                (
                    "vendor",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="controllers",
                        to="drives.manufacturer",
                    ),
                ),
            ],
            options={
                "ordering": ["vendor__name", "model"],
            },
        ),
        migrations.CreateModel(
            name="NandType",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("process_nm", models.PositiveSmallIntegerField(blank=True, null=True)),
                (
                    "cell_type",
                    models.CharField(
                        choices=[("slc", "SLC"), ("mlc", "MLC"), ("tlc", "TLC"), ("qlc", "QLC")],
                        max_length=3,
                    ),
                ),
                (
                    "interface",
                    models.CharField(
                        choices=[
                            ("async-onfi", "asynchronous ONFI"),
                            ("sync-onfi", "synchronous ONFI"),
                            ("toggle", "Toggle"),
                            ("unknown", "unknown"),
                        ],
                        default="unknown",
                        max_length=12,
                    ),
                ),
                (
                    "layers",
                    models.PositiveSmallIntegerField(
                        blank=True,
                        help_text="3D NAND layer count; empty for planar NAND",
                        null=True,
                    ),
                ),
                ("slug", models.SlugField(max_length=120, unique=True)),
                (
                    "vendor",
                    models.ForeignKey(
                        blank=True,
                        help_text="Fab or vendor, e.g. IMFT or Toshiba; empty when the source does not say",
                        null=True,
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="nand_types",
                        to="drives.manufacturer",
                    ),
                ),
            ],
            options={
                "ordering": ["vendor__name", "process_nm", "cell_type"],
            },
        ),
        migrations.CreateModel(
            name="Drive",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("model", models.CharField(max_length=200)),
                ("model_key", drives.models.CatalogKeyField(source="model")),
                (
                    "capacity_bytes",
                    models.BigIntegerField(
                        blank=True,
                        help_text="Empty when the source does not state the capacity",
                        null=True,
                    ),
                ),
                ("part_number", models.CharField(blank=True, max_length=100)),
                ("hardware_revision", models.CharField(blank=True, max_length=100)),
                ("slug", models.SlugField(max_length=255, unique=True)),
                (
                    "kind",
                    models.CharField(
                        choices=[
                            ("ssd", "SSD"),
                            ("hdd", "hard drive"),
                            ("virtual", "virtual device"),
                        ],
                        default="ssd",
                        max_length=10,
                    ),
                ),
                (
                    "configuration",
                    models.BooleanField(
                        db_default=False,
                        default=False,
                        help_text="Not a product sold under this name: a controller configuration a review charts (e.g. JMicron JMF602B with MLC NAND); the controller says which",
                    ),
                ),
                (
                    "interface",
                    models.CharField(
                        blank=True,
                        choices=[
                            ("pata", "PATA"),
                            ("sata-1.5g", "SATA 1.5 Gb/s"),
                            ("sata-3g", "SATA 3 Gb/s"),
                            ("sata-6g", "SATA 6 Gb/s"),
                            ("pcie-nvme", "PCIe NVMe"),
                            ("other", "other"),
                        ],
                        max_length=10,
                    ),
                ),
                (
                    "form_factor",
                    models.CharField(
                        blank=True,
                        choices=[
                            ("1.8in", '1.8"'),
                            ("2.5in", '2.5"'),
                            ("3.5in", '3.5"'),
                            ("msata", "mSATA"),
                            ("m.2-2280", "M.2 2280"),
                            ("add-in", "add-in card"),
                            ("other", "other"),
                        ],
                        max_length=10,
                    ),
                ),
                (
                    "dram_bytes",
                    models.BigIntegerField(blank=True, help_text="DRAM cache; 0 = none", null=True),
                ),
                ("release_date", models.DateField(blank=True, null=True)),
                (
                    "unverified_specs",
                    django.contrib.postgres.fields.ArrayField(
                        base_field=models.CharField(
                            choices=[
                                ("capacity_bytes", "capacity_bytes"),
                                ("part_number", "part_number"),
                                ("hardware_revision", "hardware_revision"),
                                ("interface", "interface"),
                                ("form_factor", "form_factor"),
                                ("controller", "controller"),
                                ("nand", "nand"),
                                ("dram_bytes", "dram_bytes"),
                                ("release_date", "release_date"),
                            ],
                            max_length=20,
                        ),
                        blank=True,
                        db_default=[],
                        default=list,
                        help_text="Specs whose only source does not establish them (a reader comment, a guess): shown as unverified, never as fact",
                        size=None,
                    ),
                ),
                (
                    "needs_review",
                    models.BooleanField(
                        db_default=False,
                        default=False,
                        help_text="Created from the drive block of an uploaded result document: staff check its specs against the catalog, then clear this",
                    ),
                ),
                (
                    "synthetic",
                    models.BooleanField(
                        default=False,
                        help_text="Generated for benchmarks (seed_scale); never a real drive",
                    ),
                ),
                (
                    "sort_name",
                    models.TextField(
                        db_default="",
                        default="",
                        editable=False,
                        help_text="lower(maker model): the order",
                    ),
                ),
                (
                    "search_text",
                    models.TextField(
                        db_default="",
                        default="",
                        editable=False,
                        help_text="maker, model, part number, hardware revision and controller (with its maker): what a search word matches",
                    ),
                ),
                ("created_at", models.DateTimeField(auto_now_add=True)),
                ("updated_at", models.DateTimeField(auto_now=True)),
                (
                    "controller",
                    models.ForeignKey(
                        blank=True,
                        null=True,
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="drives",
                        to="drives.controller",
                    ),
                ),
                (
                    "manufacturer",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="drives",
                        to="drives.manufacturer",
                    ),
                ),
                (
                    "nand",
                    models.ForeignKey(
                        blank=True,
                        null=True,
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="drives",
                        to="drives.nandtype",
                    ),
                ),
            ],
            options={
                "ordering": ["sort_name", "capacity_bytes", "pk"],
            },
        ),
        migrations.CreateModel(
            name="Price",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("amount", models.DecimalField(decimal_places=2, max_digits=12)),
                ("currency", models.CharField(default="USD", max_length=3)),
                ("observed_on", models.DateField()),
                (
                    "source",
                    models.CharField(
                        help_text="Retailer, or the article quoting it", max_length=300
                    ),
                ),
                (
                    "source_url",
                    models.URLField(
                        blank=True,
                        max_length=2000,
                        validators=[django.core.validators.URLValidator(schemes=["http", "https"])],
                    ),
                ),
                (
                    "drive",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="prices",
                        to="drives.drive",
                    ),
                ),
            ],
            options={
                "ordering": ["drive", "-observed_on"],
            },
        ),
        migrations.CreateModel(
            name="FirmwareVersion",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("version", models.CharField(max_length=100)),
                ("release_date", models.DateField(blank=True, null=True)),
                ("notes", models.TextField(blank=True)),
                (
                    "drive",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="firmware_versions",
                        to="drives.drive",
                    ),
                ),
            ],
            options={
                "ordering": ["drive", "version"],
                "constraints": [
                    models.UniqueConstraint(fields=("drive", "version"), name="firmware_unique")
                ],
            },
        ),
        migrations.AddConstraint(
            model_name="controller",
            constraint=models.UniqueConstraint(
                models.F("vendor"),
                django.db.models.functions.text.Lower("model"),
                name="controller_vendor_model_unique",
            ),
        ),
        migrations.AddConstraint(
            model_name="controller",
            constraint=models.CheckConstraint(
                condition=models.Q(
                    ("channels__isnull", True), ("channels__gte", 1), _connector="OR"
                ),
                name="controller_channels_positive",
            ),
        ),
        migrations.AddConstraint(
            model_name="nandtype",
            constraint=models.UniqueConstraint(
                fields=("vendor", "process_nm", "cell_type", "interface", "layers"),
                name="nand_type_unique",
                nulls_distinct=False,
            ),
        ),
        migrations.AddConstraint(
            model_name="nandtype",
            constraint=models.CheckConstraint(
                condition=models.Q(
                    ("process_nm__isnull", True), ("process_nm__gte", 1), _connector="OR"
                ),
                name="nand_process_positive",
            ),
        ),
        migrations.AddConstraint(
            model_name="nandtype",
            constraint=models.CheckConstraint(
                condition=models.Q(("layers__isnull", True), ("layers__gte", 1), _connector="OR"),
                name="nand_layers_positive",
            ),
        ),
        migrations.AddIndex(
            model_name="drive",
            index=models.Index(
                django.db.models.functions.text.Lower("model"), name="drive_model_lower_idx"
            ),
        ),
        migrations.AddIndex(
            model_name="drive",
            index=models.Index(fields=["kind", "interface"], name="drive_kind_interface_idx"),
        ),
        migrations.AddIndex(
            model_name="drive",
            index=models.Index(
                fields=["interface", "capacity_bytes", "id"],
                include=("kind", "nand", "controller", "synthetic"),
                name="drive_interface_capacity_idx",
            ),
        ),
        migrations.AddIndex(
            model_name="drive",
            index=models.Index(fields=["sort_name", "capacity_bytes", "id"], name="drive_sort_idx"),
        ),
        migrations.AddIndex(
            model_name="drive",
            index=models.Index(fields=["model", "id"], name="drive_model_idx"),
        ),
        migrations.AddIndex(
            model_name="drive",
            index=models.Index(fields=["capacity_bytes", "id"], name="drive_capacity_idx"),
        ),
        migrations.AddIndex(
            model_name="drive",
            index=models.Index(fields=["release_date", "id"], name="drive_release_idx"),
        ),
        migrations.AddConstraint(
            model_name="drive",
            constraint=models.UniqueConstraint(
                fields=("manufacturer", "model_key", "capacity_bytes", "hardware_revision"),
                name="drive_sku_unique",
                nulls_distinct=False,
            ),
        ),
        migrations.AddConstraint(
            model_name="drive",
            constraint=models.UniqueConstraint(
                models.F("manufacturer"),
                models.F("part_number"),
                condition=models.Q(("part_number", ""), _negated=True),
                name="drive_part_number_unique",
            ),
        ),
        migrations.AddConstraint(
            model_name="drive",
            constraint=models.CheckConstraint(
                condition=models.Q(
                    ("capacity_bytes__isnull", True), ("capacity_bytes__gt", 0), _connector="OR"
                ),
                name="drive_capacity_positive",
            ),
        ),
        migrations.AddConstraint(
            model_name="drive",
            constraint=models.CheckConstraint(
                condition=models.Q(
                    ("dram_bytes__isnull", True), ("dram_bytes__gte", 0), _connector="OR"
                ),
                name="drive_dram_not_negative",
            ),
        ),
        migrations.AddIndex(
            model_name="price",
            index=models.Index(fields=["drive", "-observed_on"], name="price_latest_idx"),
        ),
        migrations.AddIndex(
            model_name="price",
            index=models.Index(
                fields=["drive", "currency", "-observed_on", "amount"], name="price_as_of_idx"
            ),
        ),
        migrations.AddConstraint(
            model_name="price",
            constraint=models.UniqueConstraint(
                fields=("drive", "currency", "observed_on", "source"), name="price_unique"
            ),
        ),
        migrations.AddConstraint(
            model_name="price",
            constraint=models.CheckConstraint(
                condition=models.Q(("amount__gt", 0)), name="price_amount_positive"
            ),
        ),
        migrations.AddConstraint(
            model_name="price",
            constraint=models.CheckConstraint(
                condition=models.Q(("currency__regex", "^[A-Z]{3}$")), name="price_currency_iso"
            ),
        ),
        migrations.RunSQL(
            (SQL / "names.sql").read_text(),
            "DROP FUNCTION drives_drive_names, drives_maker_renamed, drives_controller_renamed CASCADE",
        ),
        migrations.RunSQL(
            (SQL / "search_trigram.sql").read_text(), "DROP INDEX IF EXISTS drive_search_trgm_idx"
        ),
        migrations.RunSQL(SCOPES, SCOPES_REMOVED),
    ]
