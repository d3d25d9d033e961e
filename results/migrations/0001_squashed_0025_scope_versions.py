"""The results: their tables, then what their models cannot say: the function a consistency
series' points as JSON are generated with, and their storage (results/sql), the triggers that
keep a leaderboard entry's price (results/sql/price_sync.sql) and its copies of its drive's
specs (results.copies, from results.models.DRIVE_COPIES), the scope triggers of the
versioned tables (results.versioned, made by core.versions), and the reviewer group. The
tests and suites are catalog.json's, written after every migrate (results.apps). Squashed
before the first release from 0001-0025, whose data steps had nothing to do in a new
database."""

from pathlib import Path

import django.contrib.postgres.fields
import django.core.validators
import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models

import results.models
from core.versions import versioned_triggers
from results.copies import copy_sql
from results.permissions import REVIEWER_GROUP
from results.versioned import VERSIONED

SQL = Path(__file__).parents[1] / "sql"
SCOPES, SCOPES_REMOVED = versioned_triggers(VERSIONED)
# results.models.DRIVE_COPIES as this migration applies it: a copy added later is a field
# its models do not have (results.copies).
DRIVE_COPIES = ("kind", "interface", "controller", "nand__cell_type", "capacity_bytes")


def _copies(apps):
    return copy_sql(
        apps.get_model("drives", "Drive"),
        apps.get_model("results", "LeaderboardEntry"),
        DRIVE_COPIES,
    )


def create_copy_triggers(apps, schema_editor):
    schema_editor.execute(_copies(apps).create)


def drop_copy_triggers(apps, schema_editor):
    schema_editor.execute(_copies(apps).drop)


def create_reviewer_group(apps, schema_editor):
    apps.get_model("auth", "Group").objects.get_or_create(name=REVIEWER_GROUP)


def delete_reviewer_group(apps, schema_editor):
    apps.get_model("auth", "Group").objects.filter(name=REVIEWER_GROUP).delete()


class Migration(migrations.Migration):
    replaces = [
        ("results", "0001_initial"),
        ("results", "0002_test_catalog_v1"),
        ("results", "0003_test_produced_by_citation_rate_unit_bigint_series"),
        ("results", "0004_test_catalog_as_ssd_trim"),
        ("results", "0005_run_content_hash_canonical_numbers"),
        ("results", "0006_test_catalog_write_saturation"),
        ("results", "0007_v2_documents"),
        ("results", "0008_leaderboard_entry"),
        ("results", "0009_leaderboard_entry_fill"),
        ("results", "0010_uploads_withdrawn_by_idempotency_key_reviewer_group"),
        ("results", "0011_leaderboard_worst_price_index"),
        ("results", "0012_leaderboard_source_index"),
        ("results", "0013_leaderboard_pattern_price_index"),
        ("results", "0014_leaderboard_drive_specs"),
        ("results", "0015_value_cheapest_indexes"),
        ("results", "0016_leaderboard_ranking_covering_indexes"),
        ("results", "0017_result_test_newest_index"),
        ("results", "0018_leaderboard_value_sample_index"),
        ("results", "0019_value_indexes_derived"),
        ("results", "0020_catalog_version"),
        ("results", "0021_drop_value_indexes"),
        ("results", "0022_series_points_text"),
        ("results", "0023_series_points_uncompressed"),
        ("results", "0024_leaderboard_copies_generated"),
        ("results", "0025_scope_versions"),
    ]
    initial = True

    dependencies = [
        ("core", "0001_scope_versions"),
        ("drives", "0001_squashed_0012_scope_versions"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
        ("auth", "0012_alter_user_first_name_max_length"),
    ]

    operations = [
        # Before the table whose generated column calls it.
        migrations.RunSQL(
            (SQL / "counts_json.sql").read_text(), "DROP FUNCTION bench_counts_json(bigint[])"
        ),
        migrations.CreateModel(
            name="Suite",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("name", models.SlugField(max_length=64)),
                ("version", models.PositiveSmallIntegerField()),
                ("title", models.CharField(max_length=300)),
            ],
            options={
                "ordering": ["name", "version"],
            },
        ),
        migrations.CreateModel(
            name="Citation",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("publisher", models.CharField(max_length=200)),
                ("title", models.CharField(max_length=500)),
                ("author", models.CharField(blank=True, max_length=200)),
                ("published_on", models.DateField()),
                (
                    "url",
                    models.URLField(
                        blank=True,
                        max_length=2000,
                        validators=[django.core.validators.URLValidator(schemes=["http", "https"])],
                    ),
                ),
                (
                    "rate_unit",
                    models.CharField(
                        blank=True,
                        help_text="The unit rates are printed in, e.g. MB/s",
                        max_length=20,
                    ),
                ),
                (
                    "rate_unit_bytes",
                    models.PositiveIntegerField(
                        blank=True,
                        choices=[(1000000, "10^6 bytes"), (1048576, "2^20 bytes")],
                        help_text="Bytes in the unit's MB, when the source says; empty: it does not, and the rates were read as 10^6 bytes",
                        null=True,
                    ),
                ),
            ],
            options={
                "ordering": ["-published_on"],
                "constraints": [
                    models.UniqueConstraint(
                        fields=("publisher", "title", "published_on"), name="citation_unique"
                    )
                ],
            },
        ),
        migrations.CreateModel(
            name="Run",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("tool_name", models.CharField(max_length=100)),
                ("tool_version", models.CharField(blank=True, max_length=100)),
                ("engine", models.CharField(blank=True, max_length=50)),
                ("started_at", models.DateTimeField(blank=True, null=True)),
                ("finished_at", models.DateTimeField(blank=True, null=True)),
                (
                    "source",
                    models.CharField(
                        choices=[
                            ("measured", "measured"),
                            ("published", "published figures"),
                            ("synthetic", "synthetic (benchmark data)"),
                        ],
                        max_length=10,
                    ),
                ),
                (
                    "citation_locator",
                    models.CharField(
                        blank=True,
                        help_text="Where in the source: a table or chart title",
                        max_length=500,
                    ),
                ),
                (
                    "drive_state",
                    models.CharField(
                        choices=[
                            ("fresh", "fresh (secure-erased)"),
                            ("preconditioned", "preconditioned"),
                            ("used", "used"),
                            ("unknown", "unknown"),
                        ],
                        default="unknown",
                        max_length=14,
                    ),
                ),
                (
                    "status",
                    models.CharField(
                        choices=[("published", "published"), ("withdrawn", "withdrawn")],
                        default="published",
                        max_length=10,
                    ),
                ),
                ("withdrawn_at", models.DateTimeField(blank=True, null=True)),
                ("withdrawn_reason", models.TextField(blank=True)),
                (
                    "schema_version",
                    models.PositiveSmallIntegerField(
                        db_default=1, default=1, help_text="Version of the result document's schema"
                    ),
                ),
                (
                    "complete",
                    models.BooleanField(
                        db_default=True,
                        default=True,
                        help_text="False: the run was interrupted; its last test's results are partial",
                    ),
                ),
                (
                    "document",
                    models.TextField(help_text="The result document exactly as it was submitted"),
                ),
                (
                    "content_hash",
                    models.CharField(
                        help_text="SHA-256 of the document's canonical JSON",
                        max_length=64,
                        unique=True,
                    ),
                ),
                ("ingested_at", models.DateTimeField(auto_now_add=True)),
                (
                    "citation",
                    models.ForeignKey(
                        blank=True,
                        null=True,
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="runs",
                        to="results.citation",
                    ),
                ),
                (
                    "drive",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="runs",
                        to="drives.drive",
                    ),
                ),
                (
                    "firmware",
                    models.ForeignKey(
                        blank=True,
                        null=True,
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="runs",
                        to="drives.firmwareversion",
                    ),
                ),
                (
                    "submitter",
                    models.ForeignKey(
                        blank=True,
                        help_text="Empty for runs imported from the command line",
                        null=True,
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="runs",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
                (
                    "withdrawn_by",
                    models.ForeignKey(
                        blank=True,
                        help_text="Who withdrew the run: its submitter or a staff member; empty when a command did",
                        null=True,
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="withdrawn_runs",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
                (
                    "suite",
                    models.ForeignKey(
                        blank=True,
                        null=True,
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="runs",
                        to="results.suite",
                    ),
                ),
            ],
            options={
                "ordering": ["-ingested_at"],
            },
        ),
        migrations.CreateModel(
            name="Test",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("identifier", models.SlugField(max_length=64, unique=True)),
                ("name", models.CharField(max_length=200)),
                (
                    "kind",
                    models.CharField(
                        choices=[
                            ("throughput", "throughput"),
                            ("consistency", "performance consistency"),
                            ("trim", "TRIM validation"),
                            ("saturation", "write saturation"),
                        ],
                        max_length=12,
                    ),
                ),
                (
                    "operation",
                    models.CharField(choices=[("read", "read"), ("write", "write")], max_length=5),
                ),
                (
                    "access",
                    models.CharField(
                        choices=[("random", "random"), ("sequential", "sequential")], max_length=10
                    ),
                ),
                ("block_size", models.PositiveIntegerField()),
                ("queue_depth", models.PositiveSmallIntegerField()),
                (
                    "span",
                    models.CharField(
                        choices=[("whole", "whole drive"), ("fixed", "fixed LBA span")],
                        max_length=5,
                    ),
                ),
                ("span_bytes", models.BigIntegerField(blank=True, null=True)),
                ("duration_s", models.PositiveIntegerField()),
                (
                    "metrics",
                    django.contrib.postgres.fields.ArrayField(
                        base_field=models.CharField(max_length=64), size=None
                    ),
                ),
                ("unit", models.CharField(max_length=20)),
                ("higher_is_better", models.BooleanField(default=True)),
                (
                    "produced_by",
                    models.CharField(
                        default="loadgen",
                        help_text="The program whose method this test is: loadgen for the tests it runs, or the tool a review used (e.g. AS-SSD), whose figures only compare with its own",
                        max_length=50,
                    ),
                ),
            ],
            options={
                "ordering": ["identifier"],
                "constraints": [
                    models.CheckConstraint(
                        condition=models.Q(
                            models.Q(("span", "whole"), ("span_bytes__isnull", True)),
                            models.Q(
                                ("span", "fixed"),
                                ("span_bytes__gt", 0),
                                ("span_bytes__isnull", False),
                            ),
                            _connector="OR",
                        ),
                        name="test_span_rule",
                    ),
                    models.CheckConstraint(
                        condition=models.Q(("block_size__gte", 512)), name="test_block_size"
                    ),
                    models.CheckConstraint(
                        condition=models.Q(("queue_depth__gte", 1)), name="test_queue_depth"
                    ),
                ],
            },
        ),
        migrations.CreateModel(
            name="SuiteTest",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("position", models.PositiveSmallIntegerField()),
                (
                    "suite",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE, to="results.suite"
                    ),
                ),
                (
                    "test",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.PROTECT, to="results.test"
                    ),
                ),
            ],
            options={
                "ordering": ["suite", "position"],
            },
        ),
        migrations.AddField(
            model_name="suite",
            name="tests",
            field=models.ManyToManyField(
                related_name="suites", through="results.SuiteTest", to="results.test"
            ),
        ),
        migrations.CreateModel(
            name="SaturationSeries",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                (
                    "pattern",
                    models.CharField(
                        choices=[
                            ("compressible", "compressible"),
                            ("incompressible", "incompressible"),
                            ("unspecified", "unspecified"),
                        ],
                        default="incompressible",
                        max_length=14,
                    ),
                ),
                ("span_bytes", models.BigIntegerField(blank=True, null=True)),
                ("interval_ns", models.BigIntegerField(default=1000000000)),
                ("duration_ns", models.BigIntegerField(blank=True, null=True)),
                ("discard_method", models.CharField(blank=True, max_length=20)),
                (
                    "bytes_per_interval",
                    django.contrib.postgres.fields.ArrayField(
                        base_field=models.BigIntegerField(), size=None
                    ),
                ),
                ("bytes_written", models.BigIntegerField()),
                ("mean_bytes_per_second", models.FloatField(blank=True, null=True)),
                ("initial_bytes_per_second", models.FloatField(blank=True, null=True)),
                ("threshold_fraction", models.FloatField(blank=True, null=True)),
                ("exhausted", models.BooleanField()),
                ("exhausted_at_s", models.FloatField(blank=True, null=True)),
                ("bytes_before_exhausted", models.BigIntegerField(blank=True, null=True)),
                ("bytes_per_second_before", models.FloatField(blank=True, null=True)),
                ("bytes_per_second_after", models.FloatField(blank=True, null=True)),
                ("partial", models.BooleanField(default=False)),
                (
                    "run",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="saturation_series",
                        to="results.run",
                    ),
                ),
                (
                    "test",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="saturation_series",
                        to="results.test",
                    ),
                ),
            ],
        ),
        migrations.CreateModel(
            name="Result",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                (
                    "pattern",
                    models.CharField(
                        choices=[
                            ("compressible", "compressible"),
                            ("incompressible", "incompressible"),
                            ("unspecified", "unspecified"),
                        ],
                        max_length=14,
                    ),
                ),
                ("block_size", models.PositiveIntegerField(blank=True, null=True)),
                ("queue_depth", models.PositiveSmallIntegerField(blank=True, null=True)),
                ("span_bytes", models.BigIntegerField(blank=True, null=True)),
                ("duration_ns", models.BigIntegerField(blank=True, null=True)),
                ("io_count", models.BigIntegerField(blank=True, null=True)),
                ("bytes", models.BigIntegerField(blank=True, null=True)),
                ("bytes_per_second", models.FloatField(blank=True, null=True)),
                ("iops", models.FloatField(blank=True, null=True)),
                ("latency_mean_ns", models.FloatField(blank=True, null=True)),
                ("latency_stddev_ns", models.FloatField(blank=True, null=True)),
                ("latency_min_ns", models.BigIntegerField(blank=True, null=True)),
                ("latency_max_ns", models.BigIntegerField(blank=True, null=True)),
                (
                    "latency_percentiles_ns",
                    models.JSONField(
                        blank=True,
                        help_text='Percentile to nanoseconds, e.g. {"99.9": 812000}',
                        null=True,
                    ),
                ),
                (
                    "latency_kind",
                    models.CharField(
                        blank=True,
                        choices=[
                            ("lat", "issue to completion"),
                            ("clat", "completion only (fio's clat)"),
                        ],
                        db_default="",
                        help_text="Which latency the latency_* fields are; empty without latency",
                        max_length=4,
                    ),
                ),
                ("clat_mean_ns", models.FloatField(blank=True, null=True)),
                ("clat_stddev_ns", models.FloatField(blank=True, null=True)),
                ("clat_min_ns", models.BigIntegerField(blank=True, null=True)),
                ("clat_max_ns", models.BigIntegerField(blank=True, null=True)),
                (
                    "clat_percentiles_ns",
                    models.JSONField(
                        blank=True,
                        help_text="The completion part of the latency (fio's clat)",
                        null=True,
                    ),
                ),
                ("jobs", models.PositiveSmallIntegerField(db_default=1, default=1)),
                (
                    "partial",
                    models.BooleanField(
                        db_default=False,
                        default=False,
                        help_text="Interrupted: the figures until the interrupt; never ranked",
                    ),
                ),
                (
                    "run",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="results",
                        to="results.run",
                    ),
                ),
                (
                    "test",
                    models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="results",
                        to="results.test",
                    ),
                ),
            ],
        ),
        migrations.CreateModel(
            name="LeaderboardEntry",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                (
                    "pattern",
                    models.CharField(
                        choices=[
                            ("compressible", "compressible"),
                            ("incompressible", "incompressible"),
                            ("unspecified", "unspecified"),
                        ],
                        max_length=14,
                    ),
                ),
                (
                    "source",
                    models.CharField(
                        choices=[
                            ("measured", "measured"),
                            ("published", "published figures"),
                            ("synthetic", "synthetic (benchmark data)"),
                        ],
                        max_length=10,
                    ),
                ),
                ("synthetic", models.BooleanField(default=False)),
                ("bytes_per_second", models.FloatField(null=True)),
                ("iops", models.FloatField(null=True)),
                (
                    "derived",
                    models.CharField(
                        blank=True,
                        choices=[
                            ("", "as published"),
                            ("iops", "IOPS derived from MB/s"),
                            ("bytes_per_second", "MB/s derived from IOPS"),
                        ],
                        max_length=16,
                    ),
                ),
                ("latency_mean_ns", models.FloatField(null=True)),
                (
                    "latency_kind",
                    models.CharField(
                        blank=True,
                        choices=[
                            ("lat", "issue to completion"),
                            ("clat", "completion only (fio's clat)"),
                        ],
                        help_text="Which latency latency_mean_ns is (the result's; blank without one)",
                        max_length=4,
                    ),
                ),
                (
                    "quick",
                    models.BooleanField(
                        default=False, help_text="Measured for less than 90% of the test's duration"
                    ),
                ),
                (
                    "price_usd",
                    models.FloatField(
                        help_text="The drive's latest USD price, kept by a trigger on drives_price",
                        null=True,
                    ),
                ),
                ("price_observed_on", models.DateField(null=True)),
                (
                    "capacity_bytes",
                    models.BigIntegerField(
                        help_text="The drive's capacity, kept by a trigger on drives_drive",
                        null=True,
                    ),
                ),
                ("interface", models.CharField(blank=True, max_length=10)),
                ("kind", models.CharField(default="", max_length=10)),
                (
                    "cell_type",
                    models.CharField(
                        blank=True,
                        help_text="Its NAND's cell type, kept by a trigger",
                        max_length=3,
                    ),
                ),
                (
                    "worst",
                    models.BooleanField(
                        default=False,
                        help_text="The drive's slowest data pattern in this test (a compressing drive's worst case): value views place each drive by it",
                    ),
                ),
                (
                    "controller",
                    models.ForeignKey(
                        help_text="The drive's controller, kept by a trigger on drives_drive",
                        null=True,
                        on_delete=django.db.models.deletion.SET_NULL,
                        related_name="+",
                        to="drives.controller",
                    ),
                ),
                (
                    "drive",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="leaderboard_entries",
                        to="drives.drive",
                    ),
                ),
                (
                    "result",
                    models.OneToOneField(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="+",
                        to="results.result",
                    ),
                ),
                (
                    "run",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="+",
                        to="results.run",
                    ),
                ),
                (
                    "test",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="leaderboard_entries",
                        to="results.test",
                    ),
                ),
            ],
        ),
        migrations.CreateModel(
            name="ConsistencySeries",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("spare_area_percent", models.PositiveSmallIntegerField(default=0)),
                (
                    "pattern",
                    models.CharField(
                        choices=[
                            ("compressible", "compressible"),
                            ("incompressible", "incompressible"),
                            ("unspecified", "unspecified"),
                        ],
                        default="incompressible",
                        max_length=14,
                    ),
                ),
                ("span_bytes", models.BigIntegerField(blank=True, null=True)),
                ("interval_ns", models.BigIntegerField(default=1000000000)),
                (
                    "iops",
                    results.models.CounterSeriesField(
                        base_field=models.BigIntegerField(), size=None
                    ),
                ),
                (
                    "points",
                    models.GeneratedField(
                        db_persist=True,
                        expression=models.Func(models.F("iops"), function="cardinality"),
                        output_field=models.IntegerField(),
                    ),
                ),
                (
                    "stalls",
                    models.GeneratedField(
                        db_persist=True,
                        expression=models.Func(
                            models.Func(
                                models.F("iops"),
                                models.Value(0, output_field=models.BigIntegerField()),
                                function="array_positions",
                            ),
                            function="cardinality",
                        ),
                        output_field=models.IntegerField(),
                    ),
                ),
                (
                    "iops_text",
                    models.GeneratedField(
                        db_persist=True,
                        expression=models.Func(models.F("iops"), function="bench_counts_json"),
                        output_field=models.TextField(),
                    ),
                ),
                ("steady_state_start_s", models.PositiveIntegerField()),
                ("steady_mean_iops", models.FloatField()),
                ("steady_stddev_iops", models.FloatField()),
                ("steady_min_iops", models.BigIntegerField()),
                (
                    "partial",
                    models.BooleanField(
                        db_default=False,
                        default=False,
                        help_text="Interrupted: the seconds until the interrupt; never ranked",
                    ),
                ),
                (
                    "run",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="consistency_series",
                        to="results.run",
                    ),
                ),
                (
                    "test",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="consistency_series",
                        to="results.test",
                    ),
                ),
            ],
        ),
        migrations.CreateModel(
            name="TestBench",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("name", models.CharField(blank=True, max_length=200)),
                ("cpu", models.CharField(blank=True, max_length=200)),
                ("motherboard", models.CharField(blank=True, max_length=200)),
                ("chipset", models.CharField(blank=True, max_length=200)),
                ("memory", models.CharField(blank=True, max_length=200)),
                ("os", models.CharField(blank=True, max_length=200, verbose_name="OS")),
                ("storage_driver", models.CharField(blank=True, max_length=200)),
                ("interface", models.CharField(blank=True, max_length=200)),
            ],
            options={
                "constraints": [
                    models.UniqueConstraint(
                        fields=(
                            "name",
                            "cpu",
                            "motherboard",
                            "chipset",
                            "memory",
                            "os",
                            "storage_driver",
                            "interface",
                        ),
                        name="test_bench_unique",
                    )
                ],
            },
        ),
        migrations.AddField(
            model_name="run",
            name="bench",
            field=models.ForeignKey(
                blank=True,
                null=True,
                on_delete=django.db.models.deletion.PROTECT,
                related_name="runs",
                to="results.testbench",
            ),
        ),
        migrations.CreateModel(
            name="TrimValidation",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                (
                    "pattern",
                    models.CharField(
                        choices=[
                            ("compressible", "compressible"),
                            ("incompressible", "incompressible"),
                            ("unspecified", "unspecified"),
                        ],
                        max_length=14,
                    ),
                ),
                ("span_bytes", models.BigIntegerField(blank=True, null=True)),
                ("torture_seconds", models.FloatField(blank=True, null=True)),
                ("discard_method", models.CharField(blank=True, max_length=20)),
                ("clean_bytes_per_second", models.FloatField()),
                ("after_torture_bytes_per_second", models.FloatField()),
                ("after_trim_bytes_per_second", models.FloatField()),
                (
                    "run",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="trim_validations",
                        to="results.run",
                    ),
                ),
                (
                    "test",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="trim_validations",
                        to="results.test",
                    ),
                ),
            ],
        ),
        migrations.CreateModel(
            name="IdempotencyKey",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("key", models.CharField(max_length=255)),
                (
                    "fingerprint",
                    models.CharField(
                        help_text="SHA-256 of the request: its path, query string and body",
                        max_length=64,
                    ),
                ),
                ("status_code", models.PositiveSmallIntegerField()),
                ("response", models.JSONField(help_text="The body of the first response")),
                ("created_at", models.DateTimeField(auto_now_add=True)),
                (
                    "user",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="idempotency_keys",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
                (
                    "run",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="idempotency_keys",
                        to="results.run",
                    ),
                ),
            ],
            options={
                "constraints": [
                    models.UniqueConstraint(fields=("user", "key"), name="idempotency_key_unique")
                ],
            },
        ),
        migrations.AddConstraint(
            model_name="suitetest",
            constraint=models.UniqueConstraint(fields=("suite", "test"), name="suite_test_unique"),
        ),
        migrations.AddConstraint(
            model_name="suitetest",
            constraint=models.UniqueConstraint(
                fields=("suite", "position"), name="suite_position_unique"
            ),
        ),
        migrations.AddConstraint(
            model_name="suite",
            constraint=models.UniqueConstraint(
                fields=("name", "version"), name="suite_version_unique"
            ),
        ),
        migrations.AddConstraint(
            model_name="saturationseries",
            constraint=models.UniqueConstraint(
                fields=("run", "test", "pattern"), name="saturation_unique"
            ),
        ),
        migrations.AddConstraint(
            model_name="saturationseries",
            constraint=models.CheckConstraint(
                condition=models.Q(("interval_ns__gt", 0)), name="saturation_interval"
            ),
        ),
        migrations.AddConstraint(
            model_name="saturationseries",
            constraint=models.CheckConstraint(
                condition=models.Q(
                    models.Q(("exhausted", False), ("exhausted_at_s__isnull", True)),
                    models.Q(("exhausted", True), ("exhausted_at_s__isnull", False)),
                    _connector="OR",
                ),
                name="saturation_exhausted_has_point",
            ),
        ),
        migrations.AddIndex(
            model_name="result",
            index=models.Index(
                fields=["test", "pattern", "-bytes_per_second"], name="result_leaderboard_idx"
            ),
        ),
        migrations.AddIndex(
            model_name="result",
            index=models.Index(fields=["test", "id"], name="result_test_newest_idx"),
        ),
        migrations.AddConstraint(
            model_name="result",
            constraint=models.UniqueConstraint(
                fields=("run", "test", "pattern"), name="result_unique"
            ),
        ),
        migrations.AddConstraint(
            model_name="result",
            constraint=models.CheckConstraint(
                condition=models.Q(
                    ("bytes_per_second__isnull", True), ("bytes_per_second__gt", 0), _connector="OR"
                ),
                name="result_bps_positive",
            ),
        ),
        migrations.AddConstraint(
            model_name="result",
            constraint=models.CheckConstraint(
                condition=models.Q(("iops__isnull", True), ("iops__gt", 0), _connector="OR"),
                name="result_iops_positive",
            ),
        ),
        migrations.AddConstraint(
            model_name="result",
            constraint=models.CheckConstraint(
                condition=models.Q(
                    ("bytes_per_second__isnull", False),
                    ("iops__isnull", False),
                    ("latency_mean_ns__isnull", False),
                    ("latency_max_ns__isnull", False),
                    ("latency_percentiles_ns__isnull", False),
                    _connector="OR",
                ),
                name="result_has_a_metric",
            ),
        ),
        migrations.AddConstraint(
            model_name="result",
            constraint=models.CheckConstraint(
                condition=models.Q(
                    ("latency_mean_ns__isnull", True), ("latency_mean_ns__gte", 0), _connector="OR"
                ),
                name="result_latency_not_negative",
            ),
        ),
        migrations.AddIndex(
            model_name="leaderboardentry",
            index=models.Index(
                models.F("test"),
                models.OrderBy(models.F("bytes_per_second"), descending=True, nulls_last=True),
                models.F("id"),
                include=(
                    "pattern",
                    "source",
                    "synthetic",
                    "kind",
                    "interface",
                    "controller",
                    "cell_type",
                    "capacity_bytes",
                ),
                name="leaderboard_test_bps_idx",
            ),
        ),
        migrations.AddIndex(
            model_name="leaderboardentry",
            index=models.Index(
                models.F("test"),
                models.OrderBy(models.F("bytes_per_second"), descending=True, nulls_last=True),
                models.F("id"),
                condition=models.Q(("synthetic", False)),
                include=(
                    "pattern",
                    "source",
                    "synthetic",
                    "kind",
                    "interface",
                    "controller",
                    "cell_type",
                    "capacity_bytes",
                ),
                name="leaderboard_real_bps_idx",
            ),
        ),
        migrations.AddIndex(
            model_name="leaderboardentry",
            index=models.Index(
                models.F("test"),
                models.F("source"),
                models.OrderBy(models.F("bytes_per_second"), descending=True, nulls_last=True),
                models.F("id"),
                name="leaderboard_source_bps_idx",
            ),
        ),
        migrations.AddIndex(
            model_name="leaderboardentry",
            index=models.Index(
                models.F("test"),
                models.OrderBy(models.F("latency_mean_ns"), nulls_last=True),
                models.F("id"),
                include=(
                    "pattern",
                    "source",
                    "synthetic",
                    "kind",
                    "interface",
                    "controller",
                    "cell_type",
                    "capacity_bytes",
                ),
                name="leaderboard_test_latency_idx",
            ),
        ),
        migrations.AddIndex(
            model_name="leaderboardentry",
            index=models.Index(
                models.F("test"),
                models.F("controller"),
                models.OrderBy(models.F("bytes_per_second"), descending=True, nulls_last=True),
                models.F("id"),
                name="leaderboard_controller_bps_idx",
            ),
        ),
        migrations.AddConstraint(
            model_name="leaderboardentry",
            constraint=models.UniqueConstraint(
                fields=("drive", "test", "pattern"), name="leaderboard_entry_unique"
            ),
        ),
        migrations.AddConstraint(
            model_name="consistencyseries",
            constraint=models.UniqueConstraint(
                fields=("run", "test", "spare_area_percent"), name="consistency_unique"
            ),
        ),
        migrations.AddConstraint(
            model_name="consistencyseries",
            constraint=models.CheckConstraint(
                condition=models.Q(("spare_area_percent__lte", 90)),
                name="consistency_spare_area_range",
            ),
        ),
        migrations.AddConstraint(
            model_name="consistencyseries",
            constraint=models.CheckConstraint(
                condition=models.Q(("interval_ns__gt", 0)), name="consistency_interval"
            ),
        ),
        migrations.AddIndex(
            model_name="run",
            index=models.Index(fields=["drive", "status"], name="run_drive_status_idx"),
        ),
        migrations.AddConstraint(
            model_name="run",
            constraint=models.CheckConstraint(
                condition=models.Q(
                    models.Q(("citation__isnull", False), ("source", "published")),
                    models.Q(
                        models.Q(("source", "published"), _negated=True), ("citation__isnull", True)
                    ),
                    _connector="OR",
                ),
                name="run_citation_iff_published",
            ),
        ),
        migrations.AddConstraint(
            model_name="run",
            constraint=models.CheckConstraint(
                condition=models.Q(
                    ("started_at__isnull", True),
                    ("finished_at__isnull", True),
                    ("finished_at__gte", models.F("started_at")),
                    _connector="OR",
                ),
                name="run_times_ordered",
            ),
        ),
        migrations.AddConstraint(
            model_name="run",
            constraint=models.CheckConstraint(
                condition=models.Q(
                    models.Q(("status", "withdrawn"), ("withdrawn_at__isnull", False)),
                    models.Q(("status", "published"), ("withdrawn_at__isnull", True)),
                    _connector="OR",
                ),
                name="run_withdrawn_has_time",
            ),
        ),
        migrations.AddConstraint(
            model_name="trimvalidation",
            constraint=models.UniqueConstraint(
                fields=("run", "test", "pattern"), name="trim_unique"
            ),
        ),
        migrations.AddConstraint(
            model_name="trimvalidation",
            constraint=models.CheckConstraint(
                condition=models.Q(
                    ("clean_bytes_per_second__gt", 0),
                    ("after_torture_bytes_per_second__gt", 0),
                    ("after_trim_bytes_per_second__gt", 0),
                ),
                name="trim_rates_positive",
            ),
        ),
        migrations.RunSQL(
            (SQL / "series_storage.sql").read_text(),
            "ALTER TABLE results_consistencyseries ALTER COLUMN iops_text SET STORAGE EXTENDED",
        ),
        migrations.RunSQL(
            (SQL / "price_sync.sql").read_text(),
            "DROP FUNCTION results_leaderboard_price_sync() CASCADE",
        ),
        migrations.RunPython(create_copy_triggers, drop_copy_triggers),
        migrations.RunSQL(SCOPES, SCOPES_REMOVED),
        migrations.RunPython(create_reviewer_group, delete_reviewer_group),
    ]
