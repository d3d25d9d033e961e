"""A leaderboard entry keeps whether its drive awaits staff review (a copy of
drives_drive.needs_review, kept by the copy triggers of results.copies): the copies' functions
and triggers are made again with the list this migration applies, and the entries there are
given theirs."""

from django.db import migrations, models

from results.copies import copy_sql

DRIVE_COPIES = ("kind", "interface", "controller", "nand__cell_type", "capacity_bytes")
WITH_REVIEW = (*DRIVE_COPIES, "needs_review")


def _copies(apps, copies):
    return copy_sql(
        apps.get_model("drives", "Drive"), apps.get_model("results", "LeaderboardEntry"), copies
    )


def copy_review(apps, schema_editor):
    made = _copies(apps, WITH_REVIEW)
    schema_editor.execute(made.create)
    schema_editor.execute(made.fill)


def copy_without_review(apps, schema_editor):
    schema_editor.execute(_copies(apps, DRIVE_COPIES).create)


class Migration(migrations.Migration):
    dependencies = [
        ("drives", "0001_squashed_0012_scope_versions"),
        ("results", "0027_held_runs"),
    ]

    operations = [
        migrations.RemoveIndex(
            model_name="leaderboardentry",
            name="leaderboard_test_bps_idx",
        ),
        migrations.RemoveIndex(
            model_name="leaderboardentry",
            name="leaderboard_real_bps_idx",
        ),
        migrations.RemoveIndex(
            model_name="leaderboardentry",
            name="leaderboard_test_latency_idx",
        ),
        migrations.AddField(
            model_name="leaderboardentry",
            name="needs_review",
            field=models.BooleanField(
                default=False,
                help_text="The drive awaits staff review (an upload created it): not ranked, kept by a trigger on drives_drive",
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
                    "needs_review",
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
                    "needs_review",
                ),
                name="leaderboard_real_bps_idx",
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
                    "needs_review",
                ),
                name="leaderboard_test_latency_idx",
            ),
        ),
        migrations.RunPython(copy_review, copy_without_review),
    ]
