-- Each leaderboard entry's latest USD price, kept by a trigger on drives_price: the catalog
-- (drives) writes prices and knows nothing of results.
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
