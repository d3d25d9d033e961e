"""A leaderboard entry's tail (issue 46): its group's latency percentiles from the merge of
every result's histogram, else a group of one's own, with the I/Os they rest on, and the
p99.9 its ranking orders by. The entries standing are filled as leaderboard_refresh would
write them (frozen here; the histograms merged by results.histograms, which has no Django)."""

import json

from django.db import migrations, models

from results.histograms import decode, merge

_METHOD = """CASE WHEN run.source = 'published' THEN 'published'
  WHEN COALESCE(r.duration_ns < 0.9 * t.duration_s * 1e9, false) THEN 'quick'
  WHEN run.source = 'synthetic' OR run.tool_name = 'loadgen' THEN 'loadgen' ELSE 'import' END"""
_OWN_RUN = "CASE WHEN run.source = 'published' THEN run.id END"
# Each entry's group: its results' histograms with their min and max, and the latest's own
# percentiles, I/Os and max.
_GROUPS = f"""
WITH member AS (
  SELECT run.drive_id, r.test_id, r.pattern, {_METHOD} AS method, {_OWN_RUN} AS own_run,
    r.id, r.latency_histogram, r.latency_min_ns, r.latency_max_ns
  FROM results_result r
  JOIN results_run run ON run.id = r.run_id
  JOIN results_test t ON t.id = r.test_id
  WHERE run.status = 'published' AND t.kind = 'throughput' AND NOT r.partial
),
entry AS (
  SELECT e.id, e.drive_id, e.test_id, e.pattern, {_METHOD} AS method, {_OWN_RUN} AS own_run,
    r.io_count, r.latency_percentiles_ns, r.latency_max_ns
  FROM results_leaderboardentry e
  JOIN results_result r ON r.id = e.result_id
  JOIN results_run run ON run.id = e.run_id
  JOIN results_test t ON t.id = e.test_id
)
SELECT entry.id, entry.io_count, entry.latency_percentiles_ns, entry.latency_max_ns,
  json_agg(json_build_array(m.latency_histogram, m.latency_min_ns, m.latency_max_ns)
           ORDER BY m.id)
FROM entry JOIN member m ON (m.drive_id, m.test_id, m.pattern, m.method)
  = (entry.drive_id, entry.test_id, entry.pattern, entry.method)
  AND m.own_run IS NOT DISTINCT FROM entry.own_run
GROUP BY 1, 2, 3, 4
"""
_POINTS = ("1", "5", "10", "25", "50", "75", "90", "95", "99", "99.9", "99.99")


def fill(apps, schema_editor):
    connection = schema_editor.connection
    with connection.cursor() as cursor:
        cursor.execute(_GROUPS)
        rows = cursor.fetchall()
        for entry, io_count, own, own_max, members in rows:
            if isinstance(members, str):
                members = json.loads(members)
            if isinstance(own, str):
                own = json.loads(own)
            found = sum(1 for h, _, _ in members if h is not None)
            if members and found == len(members):
                h = merge(decode(e, {"min": lo, "max": hi}) for e, lo, hi in members)
                tail, ios, shown = "merged", h.total, {q: h.percentile(float(q)) for q in _POINTS}
                top = h.max
            elif own is None:
                tail, ios, shown, top = "", None, None, None
            elif len(members) > 1:
                tail, ios, shown, top = "unmerged", None, None, None
            else:
                tail, ios, shown, top = "result", io_count, own, own_max
            p999 = shown.get("99.9") if shown and ios is not None and ios >= 10_000 else None
            cursor.execute(
                "UPDATE results_leaderboardentry SET histograms = %s, tail = %s, "
                "latency_io_count = %s, latency_percentiles_ns = %s, latency_max_ns = %s, "
                "latency_p999_ns = %s WHERE id = %s",
                [
                    found,
                    tail,
                    ios,
                    None if shown is None else json.dumps(shown),
                    top,
                    None if p999 is None else round(p999),
                    entry,
                ],
            )


class Migration(migrations.Migration):
    dependencies = [
        ("drives", "0014_catalog_copy_changes"),
        ("results", "0043_test_curve"),
    ]

    operations = [
        migrations.AddField(
            model_name="leaderboardentry",
            name="histograms",
            field=models.PositiveSmallIntegerField(
                default=0, help_text="How many of the group's results carry a latency histogram"
            ),
        ),
        migrations.AddField(
            model_name="leaderboardentry",
            name="latency_io_count",
            field=models.BigIntegerField(
                help_text="The I/Os the group's percentiles rest on", null=True
            ),
        ),
        migrations.AddField(
            model_name="leaderboardentry",
            name="latency_max_ns",
            field=models.BigIntegerField(help_text="The group's highest latency", null=True),
        ),
        migrations.AddField(
            model_name="leaderboardentry",
            name="latency_p999_ns",
            field=models.BigIntegerField(
                help_text="latency_percentiles_ns's 99.9, the column its ranking orders by",
                null=True,
            ),
        ),
        migrations.AddField(
            model_name="leaderboardentry",
            name="latency_percentiles_ns",
            field=models.JSONField(
                help_text="The group's latency percentiles (ns), keyed as documents key them",
                null=True,
            ),
        ),
        migrations.AddField(
            model_name="leaderboardentry",
            name="tail",
            field=models.CharField(
                blank=True,
                choices=[
                    ("merged", "merged from every result's histogram"),
                    ("result", "the result's own percentiles, as its tool wrote them"),
                    ("unmerged", "not merged: not every result of the group carries a histogram"),
                ],
                help_text="Where latency_percentiles_ns come from (blank: no percentiles)",
                max_length=10,
            ),
        ),
        migrations.AddIndex(
            model_name="leaderboardentry",
            index=models.Index(
                models.F("test"),
                models.OrderBy(models.F("latency_p999_ns"), nulls_last=True),
                models.F("id"),
                include=(
                    "pattern",
                    "source",
                    "synthetic",
                    "quick",
                    "kind",
                    "interface",
                    "controller",
                    "cell_type",
                    "capacity_bytes",
                    "needs_review",
                ),
                name="leaderboard_test_p999_idx",
            ),
        ),
        migrations.RunPython(fill, migrations.RunPython.noop),
    ]
