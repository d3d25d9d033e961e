"""A mixed test's reads' and writes' tails on a leaderboard entry (issue 46): each merged from
its group's histograms of that direction where every result carries one. The entries
standing are filled as leaderboard_refresh would write them (frozen here; the histograms
merged by results.histograms, which has no Django)."""

import json

from django.db import migrations, models

from results.histograms import decode, merge

_METHOD = """CASE WHEN run.source = 'published' THEN 'published'
  WHEN COALESCE(r.duration_ns < 0.9 * t.duration_s * 1e9, false) THEN 'quick'
  WHEN run.source = 'synthetic' OR run.tool_name = 'loadgen' THEN 'loadgen' ELSE 'import' END"""
_OWN_RUN = "CASE WHEN run.source = 'published' THEN run.id END"
# Each merged entry's group (every result carries a histogram): its results' reads' and
# writes' histograms with their max.
_GROUPS = f"""
WITH member AS (
  SELECT run.drive_id, r.test_id, r.pattern, {_METHOD} AS method, {_OWN_RUN} AS own_run,
    r.id, r.read_latency_histogram, r.read_latency_max_ns,
    r.write_latency_histogram, r.write_latency_max_ns
  FROM results_result r
  JOIN results_run run ON run.id = r.run_id
  JOIN results_test t ON t.id = r.test_id
  WHERE run.status = 'published' AND t.kind = 'throughput' AND NOT r.partial
),
entry AS (
  SELECT e.id, e.drive_id, e.test_id, e.pattern, {_METHOD} AS method, {_OWN_RUN} AS own_run
  FROM results_leaderboardentry e
  JOIN results_result r ON r.id = e.result_id
  JOIN results_run run ON run.id = e.run_id
  JOIN results_test t ON t.id = e.test_id
  WHERE e.tail = 'merged'
)
SELECT entry.id,
  json_agg(json_build_array(m.read_latency_histogram, m.read_latency_max_ns,
                            m.write_latency_histogram, m.write_latency_max_ns) ORDER BY m.id)
FROM entry JOIN member m ON (m.drive_id, m.test_id, m.pattern, m.method)
  = (entry.drive_id, entry.test_id, entry.pattern, entry.method)
  AND m.own_run IS NOT DISTINCT FROM entry.own_run
GROUP BY 1
"""
_POINTS = ("1", "5", "10", "25", "50", "75", "90", "95", "99", "99.9", "99.99")


def fill(apps, schema_editor):
    connection = schema_editor.connection
    with connection.cursor() as cursor:
        cursor.execute(_GROUPS)
        for entry, members in cursor.fetchall():
            if isinstance(members, str):
                members = json.loads(members)
            values = []
            for i in (0, 2):  # reads, then writes
                parts = [(m[i], m[i + 1]) for m in members]
                if all(h is not None for h, _ in parts):
                    h = merge(decode(e, {"min": None, "max": hi}) for e, hi in parts)
                    shown = {q: h.percentile(float(q)) for q in _POINTS}
                    values += [h.total, json.dumps(shown), h.max]
                else:
                    values += [None, None, None]
            if any(v is not None for v in values):
                cursor.execute(
                    "UPDATE results_leaderboardentry SET read_latency_io_count = %s, "
                    "read_latency_percentiles_ns = %s, read_latency_max_ns = %s, "
                    "write_latency_io_count = %s, write_latency_percentiles_ns = %s, "
                    "write_latency_max_ns = %s WHERE id = %s",
                    [*values, entry],
                )


class Migration(migrations.Migration):
    dependencies = [
        ("results", "0044_leaderboard_tails"),
    ]

    operations = [
        migrations.AddField(
            model_name="leaderboardentry",
            name="read_latency_io_count",
            field=models.BigIntegerField(
                help_text="The I/Os the group's reads' percentiles rest on (a mixed test)",
                null=True,
            ),
        ),
        migrations.AddField(
            model_name="leaderboardentry",
            name="read_latency_max_ns",
            field=models.BigIntegerField(help_text="The group's reads' highest latency", null=True),
        ),
        migrations.AddField(
            model_name="leaderboardentry",
            name="read_latency_percentiles_ns",
            field=models.JSONField(
                help_text="The group's reads' latency percentiles (ns), merged", null=True
            ),
        ),
        migrations.AddField(
            model_name="leaderboardentry",
            name="write_latency_io_count",
            field=models.BigIntegerField(
                help_text="The I/Os the group's writes' percentiles rest on (a mixed test)",
                null=True,
            ),
        ),
        migrations.AddField(
            model_name="leaderboardentry",
            name="write_latency_max_ns",
            field=models.BigIntegerField(
                help_text="The group's writes' highest latency", null=True
            ),
        ),
        migrations.AddField(
            model_name="leaderboardentry",
            name="write_latency_percentiles_ns",
            field=models.JSONField(
                help_text="The group's writes' latency percentiles (ns), merged", null=True
            ),
        ),
        migrations.RunPython(fill, migrations.RunPython.noop),
    ]
