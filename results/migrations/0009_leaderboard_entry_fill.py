"""Fill the leaderboard entries of the runs already stored (SQL frozen from
results.services.leaderboard_refresh as it was when the table was created), and keep each
entry's latest USD price and the drive's capacity current with triggers on drives_price and
drives_drive: the catalog (drives) writes those and knows nothing of results."""

from django.db import migrations

FILL = """
INSERT INTO results_leaderboardentry (drive_id, test_id, pattern, result_id, run_id, source,
    synthetic, capacity_bytes, bytes_per_second, iops, derived, latency_mean_ns, quick, worst,
    price_usd, price_observed_on)
SELECT latest.*, row_number() OVER (PARTITION BY drive_id, test_id
                                    ORDER BY bytes_per_second NULLS LAST, pattern) = 1,
       price.amount, price.observed_on
FROM (
  SELECT DISTINCT ON (run.drive_id, r.test_id, r.pattern)
      run.drive_id, r.test_id, r.pattern, r.id, run.id, run.source, d.synthetic,
      d.capacity_bytes,
      COALESCE(r.bytes_per_second, r.iops * COALESCE(r.block_size, t.block_size))
        AS bytes_per_second,
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
  WHERE run.status = 'published' AND t.kind = 'throughput' AND NOT r.partial
  ORDER BY run.drive_id, r.test_id, r.pattern, quick,
      COALESCE(run.started_at, c.published_on::timestamptz, run.ingested_at) DESC, run.id DESC
) latest
LEFT JOIN LATERAL (SELECT amount::float8 AS amount, observed_on FROM drives_price
                   WHERE drive_id = latest.drive_id AND currency = 'USD'
                   ORDER BY observed_on DESC, amount LIMIT 1) price ON true
"""

PRICE_TRIGGER = """
CREATE FUNCTION results_leaderboard_price_sync() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  drive bigint;
BEGIN
  FOREACH drive IN ARRAY ARRAY[
      CASE WHEN TG_OP <> 'INSERT' THEN OLD.drive_id END,
      CASE WHEN TG_OP <> 'DELETE' THEN NEW.drive_id END] LOOP
    CONTINUE WHEN drive IS NULL;
    UPDATE results_leaderboardentry SET (price_usd, price_observed_on) = (
      SELECT amount::float8, observed_on FROM drives_price
      WHERE drive_id = drive AND currency = 'USD'
      ORDER BY observed_on DESC, amount LIMIT 1)
    WHERE drive_id = drive;
  END LOOP;
  RETURN NULL;
END $$;
CREATE TRIGGER results_leaderboard_price_sync
  AFTER INSERT OR UPDATE OR DELETE ON drives_price
  FOR EACH ROW EXECUTE FUNCTION results_leaderboard_price_sync();

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

DROP_PRICE_TRIGGER = """
DROP TRIGGER results_leaderboard_capacity_sync ON drives_drive;
DROP FUNCTION results_leaderboard_capacity_sync();
DROP TRIGGER results_leaderboard_price_sync ON drives_price;
DROP FUNCTION results_leaderboard_price_sync();
"""


class Migration(migrations.Migration):
    dependencies = [
        ("results", "0008_leaderboard_entry"),
        ("drives", "0003_drive_virtual_kind_configuration_unverified_specs"),
    ]

    operations = [
        migrations.RunSQL(FILL, reverse_sql="DELETE FROM results_leaderboardentry"),
        migrations.RunSQL("ANALYZE results_leaderboardentry", reverse_sql=""),
        migrations.RunSQL(PRICE_TRIGGER, reverse_sql=DROP_PRICE_TRIGGER),
    ]
