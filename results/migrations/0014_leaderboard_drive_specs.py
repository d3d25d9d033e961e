"""Each leaderboard entry carries the specs of its drive that rankings and value views
filter on (controller, interface, kind, its NAND's cell type; capacity was already there) and
which latency its mean latency is, so that a filtered ranking reads one table's indexes
instead of joining each candidate to its drive (a leaderboard of one controller's drives
walked a whole test). Triggers on drives_drive and drives_nandtype keep them, as the capacity
trigger did (which this replaces): the catalog writes those tables and knows nothing of
results."""

import django.db.models.deletion
from django.db import migrations, models


FILL = """
UPDATE results_leaderboardentry e
SET controller_id = d.controller_id, interface = d.interface, kind = d.kind,
    cell_type = COALESCE(n.cell_type, ''),
    latency_kind = CASE WHEN e.latency_mean_ns IS NULL THEN '' ELSE r.latency_kind END
FROM (drives_drive d LEFT JOIN drives_nandtype n ON n.id = d.nand_id), results_result r
WHERE d.id = e.drive_id AND r.id = e.result_id
"""

TRIGGERS = """
DROP TRIGGER results_leaderboard_capacity_sync ON drives_drive;
DROP FUNCTION results_leaderboard_capacity_sync();

CREATE FUNCTION results_leaderboard_drive_sync() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE results_leaderboardentry
  SET capacity_bytes = NEW.capacity_bytes, controller_id = NEW.controller_id,
      interface = NEW.interface, kind = NEW.kind,
      cell_type = COALESCE((SELECT cell_type FROM drives_nandtype WHERE id = NEW.nand_id), '')
  WHERE drive_id = NEW.id;
  RETURN NULL;
END $$;
CREATE TRIGGER results_leaderboard_drive_sync
  AFTER UPDATE OF capacity_bytes, controller_id, interface, kind, nand_id ON drives_drive
  FOR EACH ROW WHEN (
    (OLD.capacity_bytes, OLD.controller_id, OLD.interface, OLD.kind, OLD.nand_id)
      IS DISTINCT FROM (NEW.capacity_bytes, NEW.controller_id, NEW.interface, NEW.kind,
                        NEW.nand_id))
  EXECUTE FUNCTION results_leaderboard_drive_sync();

CREATE FUNCTION results_leaderboard_nand_sync() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE results_leaderboardentry e SET cell_type = NEW.cell_type
  FROM drives_drive d WHERE d.nand_id = NEW.id AND e.drive_id = d.id;
  RETURN NULL;
END $$;
CREATE TRIGGER results_leaderboard_nand_sync
  AFTER UPDATE OF cell_type ON drives_nandtype
  FOR EACH ROW WHEN (OLD.cell_type IS DISTINCT FROM NEW.cell_type)
  EXECUTE FUNCTION results_leaderboard_nand_sync();
"""

DROP_TRIGGERS = """
DROP TRIGGER results_leaderboard_nand_sync ON drives_nandtype;
DROP FUNCTION results_leaderboard_nand_sync();
DROP TRIGGER results_leaderboard_drive_sync ON drives_drive;
DROP FUNCTION results_leaderboard_drive_sync();

CREATE FUNCTION results_leaderboard_capacity_sync() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE results_leaderboardentry SET capacity_bytes = NEW.capacity_bytes
  WHERE drive_id = NEW.id;
  RETURN NULL;
END $$;
CREATE TRIGGER results_leaderboard_capacity_sync
  AFTER UPDATE OF capacity_bytes ON drives_drive
  FOR EACH ROW WHEN (OLD.capacity_bytes IS DISTINCT FROM NEW.capacity_bytes)
  EXECUTE FUNCTION results_leaderboard_capacity_sync();
"""


class Migration(migrations.Migration):
    dependencies = [
        ("drives", "0006_drive_search_text"),
        ("results", "0013_leaderboard_pattern_price_index"),
    ]

    operations = [
        migrations.RemoveIndex(
            model_name="leaderboardentry",
            name="leaderboard_worst_price_idx",
        ),
        migrations.RemoveIndex(
            model_name="leaderboardentry",
            name="leaderboard_pattern_price_idx",
        ),
        migrations.AddField(
            model_name="leaderboardentry",
            name="cell_type",
            field=models.CharField(
                blank=True, help_text="Its NAND's cell type, kept by a trigger", max_length=3
            ),
        ),
        migrations.AddField(
            model_name="leaderboardentry",
            name="controller",
            field=models.ForeignKey(
                help_text="The drive's controller, kept by a trigger on drives_drive",
                null=True,
                on_delete=django.db.models.deletion.SET_NULL,
                related_name="+",
                to="drives.controller",
            ),
        ),
        migrations.AddField(
            model_name="leaderboardentry",
            name="interface",
            field=models.CharField(blank=True, max_length=10),
        ),
        migrations.AddField(
            model_name="leaderboardentry",
            name="kind",
            field=models.CharField(default="", max_length=10),
        ),
        migrations.AddField(
            model_name="leaderboardentry",
            name="latency_kind",
            field=models.CharField(
                blank=True,
                choices=[("lat", "issue to completion"), ("clat", "completion only (fio's clat)")],
                help_text="Which latency latency_mean_ns is (the result's; blank without one)",
                max_length=4,
            ),
        ),
        migrations.RunSQL(FILL, reverse_sql=""),
        migrations.RunSQL(TRIGGERS, reverse_sql=DROP_TRIGGERS),
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
        migrations.AddIndex(
            model_name="leaderboardentry",
            index=models.Index(
                models.F("test"),
                models.F("price_usd"),
                models.OrderBy(models.F("iops"), descending=True),
                models.F("drive"),
                condition=models.Q(("worst", True)),
                include=(
                    "price_observed_on",
                    "capacity_bytes",
                    "synthetic",
                    "quick",
                    "source",
                    "controller",
                    "interface",
                    "kind",
                    "cell_type",
                ),
                name="leaderboard_worst_price_idx",
            ),
        ),
        migrations.AddIndex(
            model_name="leaderboardentry",
            index=models.Index(
                models.F("test"),
                models.F("pattern"),
                models.F("price_usd"),
                models.OrderBy(models.F("iops"), descending=True),
                models.F("drive"),
                include=(
                    "price_observed_on",
                    "capacity_bytes",
                    "synthetic",
                    "quick",
                    "source",
                    "controller",
                    "interface",
                    "kind",
                    "cell_type",
                ),
                name="leaderboard_pattern_price_idx",
            ),
        ),
    ]
