-- The triggers of one versioned table, {table}: core.versions.scope_triggers fills in the
-- table and the scopes a row touches (SQL text expressions over the row r; NULL names none),
-- for an INSERT's new rows and for a DELETE's old rows and an UPDATE's changed rows, as they
-- were and as they are. Statement triggers see the rows as transition tables; a deferred
-- trigger moves the scopes at commit; TRUNCATE, which has no rows, moves its own at once.
CREATE FUNCTION {table}_scopes() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    PERFORM core_scopes_touched(ARRAY(
      SELECT DISTINCT s FROM new_rows r CROSS JOIN LATERAL (VALUES {inserted}) v (s)
      WHERE s IS NOT NULL));
  ELSIF TG_OP = 'DELETE' THEN
    PERFORM core_scopes_touched(ARRAY(
      SELECT DISTINCT s FROM old_rows r CROSS JOIN LATERAL (VALUES {changed}) v (s)
      WHERE s IS NOT NULL));
  ELSE
    PERFORM core_scopes_touched(ARRAY(
      SELECT DISTINCT s FROM (
        SELECT o.* FROM old_rows o JOIN new_rows n USING (id) WHERE o *<> n
        UNION ALL
        SELECT n.* FROM old_rows o JOIN new_rows n USING (id) WHERE o *<> n) r
      CROSS JOIN LATERAL (VALUES {changed}) v (s)
      WHERE s IS NOT NULL));
  END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER {table}_scopes_inserted AFTER INSERT ON {table}
  REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION {table}_scopes();
CREATE TRIGGER {table}_scopes_updated AFTER UPDATE ON {table}
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION {table}_scopes();
CREATE TRIGGER {table}_scopes_deleted AFTER DELETE ON {table}
  REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION {table}_scopes();
CREATE TRIGGER {table}_scopes_truncated AFTER TRUNCATE ON {table}
  FOR EACH STATEMENT EXECUTE FUNCTION core_scopes_truncated({truncated});
CREATE CONSTRAINT TRIGGER {table}_scopes_committed AFTER INSERT OR UPDATE OR DELETE ON {table}
  DEFERRABLE INITIALLY DEFERRED
  FOR EACH ROW EXECUTE FUNCTION core_scopes_committed();
