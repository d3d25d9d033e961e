"""Fill the leaderboard entries of the runs already stored (SQL frozen from
results.services.leaderboard_refresh as it was when the table was created)."""

from django.db import migrations

FILL = """
INSERT INTO results_leaderboardentry (drive_id, test_id, pattern, result_id, run_id, source,
    synthetic, bytes_per_second, iops, derived, latency_mean_ns, quick)
SELECT DISTINCT ON (run.drive_id, r.test_id, r.pattern)
    run.drive_id, r.test_id, r.pattern, r.id, run.id, run.source, d.synthetic,
    COALESCE(r.bytes_per_second, r.iops * COALESCE(r.block_size, t.block_size)),
    COALESCE(r.iops, r.bytes_per_second / COALESCE(r.block_size, t.block_size)),
    CASE WHEN r.iops IS NULL AND r.bytes_per_second IS NOT NULL THEN 'iops'
         WHEN r.bytes_per_second IS NULL AND r.iops IS NOT NULL THEN 'bytes_per_second'
         ELSE '' END,
    r.latency_mean_ns,
    COALESCE(r.duration_ns < 0.9 * t.duration_s * 1e9, false) AS quick
FROM results_result r
JOIN results_run run ON run.id = r.run_id
JOIN results_test t ON t.id = r.test_id
JOIN drives_drive d ON d.id = run.drive_id
LEFT JOIN results_citation c ON c.id = run.citation_id
WHERE run.status = 'published' AND t.kind = 'throughput'
ORDER BY run.drive_id, r.test_id, r.pattern, quick,
    COALESCE(run.started_at, c.published_on::timestamptz, run.ingested_at) DESC, run.id DESC
"""


class Migration(migrations.Migration):
    dependencies = [("results", "0003_leaderboard_entry")]

    operations = [migrations.RunSQL(FILL, reverse_sql="DELETE FROM results_leaderboardentry")]
