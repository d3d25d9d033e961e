-- The change-log triggers of one table a copy reads, {table}, for one copy, named {name}
-- (core/sql/copy_changes.sql): core.versions.copy_triggers fills in, as an SQL text
-- expression over the row r ("copy:42", "copy:*"; NULL names none), what an INSERT's new
-- rows and a DELETE's old rows and an UPDATE's changed rows (as they were and as they are)
-- change. TRUNCATE changes the copy whole. Named so that they fire before the scope triggers
-- of the same event (triggers fire in the order of their names): a TRUNCATE moves its scopes
-- at once.
CREATE FUNCTION {name}() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    PERFORM core_copies_touched(ARRAY(
      SELECT DISTINCT s FROM new_rows r CROSS JOIN LATERAL (VALUES ({inserted})) v (s)
      WHERE s IS NOT NULL));
  ELSIF TG_OP = 'DELETE' THEN
    PERFORM core_copies_touched(ARRAY(
      SELECT DISTINCT s FROM old_rows r CROSS JOIN LATERAL (VALUES ({changed})) v (s)
      WHERE s IS NOT NULL));
  ELSE
    PERFORM core_copies_touched(ARRAY(
      SELECT DISTINCT s FROM (
        SELECT o.* FROM old_rows o JOIN new_rows n USING (id) WHERE o *<> n
        UNION ALL
        SELECT n.* FROM old_rows o JOIN new_rows n USING (id) WHERE o *<> n) r
      CROSS JOIN LATERAL (VALUES ({changed})) v (s)
      WHERE s IS NOT NULL));
  END IF;
  RETURN NULL;
END $$;

CREATE FUNCTION {name}_truncated() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM core_copies_touched(ARRAY[{truncated}]);
  RETURN NULL;
END $$;

CREATE TRIGGER {name}_inserted AFTER INSERT ON {table}
  REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION {name}();
CREATE TRIGGER {name}_updated AFTER UPDATE ON {table}
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION {name}();
CREATE TRIGGER {name}_deleted AFTER DELETE ON {table}
  REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION {name}();
CREATE TRIGGER {name}_truncated AFTER TRUNCATE ON {table}
  FOR EACH STATEMENT EXECUTE FUNCTION {name}_truncated();
