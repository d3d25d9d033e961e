-- Which drives' rows of each in-process copy (core.columns.Copy) a commit changed: the change
-- log a copy applies instead of reading itself again whole. A versioned table that a copy
-- reads has, besides its scope triggers, the triggers of copy_trigger.sql: a statement's rows
-- name, per copy, the drives whose rows they change ("catalog:42"), or that the copy must be
-- read whole ("catalog:*", an edit of a maker every drive row shows). At commit,
-- core_scopes_move writes them under the version it draws, in the same transaction as the
-- rows they describe: a reader of the log and of the rows in one statement sees both or
-- neither.

CREATE TABLE core_copychange (
  copy text NOT NULL,
  version bigint NOT NULL,
  drives bigint[] NOT NULL,
  whole boolean NOT NULL,
  PRIMARY KEY (copy, version)
);

-- Every change with a version above `horizon` is in the log: older rows are deleted as the
-- log grows (core_scopes_move), and a copy read at a version below it is read again whole.
CREATE TABLE core_copyhorizon (horizon bigint NOT NULL);

-- A statement changed these copies' rows ("copy:drive", "copy:*"): kept until commit, as
-- core_scopes_touched keeps scopes (transaction-local: a rolled-back savepoint forgets them).
CREATE FUNCTION core_copies_touched(items text[]) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  pending text[] := COALESCE(NULLIF(current_setting('bench.copies', true), '')::text[], '{}');
BEGIN
  IF items <> '{}' AND NOT items <@ pending THEN
    PERFORM set_config(
      'bench.copies', ARRAY(SELECT DISTINCT unnest(pending || items))::text, true);
  END IF;
END $$;

-- core_scopes_move (scope_versions.sql), which also logs the copies' changes under the version
-- it draws, and now and then forgets the oldest (keeping the last 100,000 versions' worth).
CREATE OR REPLACE FUNCTION core_scopes_move() RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  pending text[] := NULLIF(current_setting('bench.scopes', true), '')::text[];
  copies text[] := NULLIF(current_setting('bench.copies', true), '')::text[];
  moved bigint;
BEGIN
  IF pending IS NOT NULL THEN
    PERFORM set_config('bench.scopes', '', true);
    INSERT INTO core_scopeversion AS v (scope, version)
    SELECT scope, 0 FROM unnest(pending) scope ORDER BY scope
    ON CONFLICT (scope) DO UPDATE SET version = v.version;
    moved := nextval('core_scope_version_seq');
    UPDATE core_scopeversion SET version = moved WHERE scope = ANY(pending);
    IF copies IS NOT NULL THEN
      PERFORM set_config('bench.copies', '', true);
      INSERT INTO core_copychange (copy, version, drives, whole)
      SELECT split_part(item, ':', 1), moved,
             COALESCE(array_agg(DISTINCT split_part(item, ':', 2)::bigint)
                        FILTER (WHERE split_part(item, ':', 2) <> '*'), '{}'),
             bool_or(split_part(item, ':', 2) = '*')
      FROM unnest(copies) item GROUP BY 1;
    END IF;
    IF moved % 1000 = 0 THEN
      DELETE FROM core_copychange WHERE version <= moved - 100000;
      UPDATE core_copyhorizon SET horizon = greatest(horizon, moved - 100000);
    END IF;
  END IF;
END $$;
