-- Scoped versions (core/versions.py): a reader tells whether what it holds (a kept response,
-- a cached value, an in-process copy) is current by reading the versions of the scopes it
-- depends on. A version is a value of one sequence, drawn once by each transaction that wrote
-- rows touching some scopes, as it commits, and given to all of them. Every such transaction
-- touches ANY and holds its row from before it draws until it has committed, so versions are
-- drawn in the order of the commits: the greatest version of a set of scopes moves on
-- whenever one of them does, and one number says whether any has.

CREATE SEQUENCE core_scope_version_seq;

CREATE TABLE core_scopeversion (
  scope text PRIMARY KEY,
  version bigint NOT NULL
);

-- A statement wrote rows touching `scopes` (none: it changed nothing): keep them
-- (transaction-local, so a rolled-back savepoint forgets them with its rows) until commit,
-- and mark the transaction as one that has written: its own reads see rows that no committed
-- version describes. Each versioned table's trigger (scope_trigger.sql) calls this.
CREATE FUNCTION core_scopes_touched(scopes text[]) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  pending text[] := COALESCE(NULLIF(current_setting('bench.scopes', true), '')::text[], '{}');
BEGIN
  IF scopes = '{}' THEN
    RETURN;
  END IF;
  PERFORM set_config('bench.written', 'on', true);
  IF NOT scopes <@ pending THEN
    PERFORM set_config(
      'bench.scopes', ARRAY(SELECT DISTINCT unnest(pending || scopes))::text, true);
  END IF;
END $$;

-- Give every scope touched so far the transaction's new version. The rows are locked first
-- (made when new), in the scopes' order, the same in every transaction, so two writers never
-- wait on each other in a cycle here; then the version is drawn.
CREATE FUNCTION core_scopes_move() RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  pending text[] := NULLIF(current_setting('bench.scopes', true), '')::text[];
  moved bigint;
BEGIN
  IF pending IS NOT NULL THEN
    PERFORM set_config('bench.scopes', '', true);
    INSERT INTO core_scopeversion AS v (scope, version)
    SELECT scope, 0 FROM unnest(pending) scope ORDER BY scope
    ON CONFLICT (scope) DO UPDATE SET version = v.version;
    moved := nextval('core_scope_version_seq');
    UPDATE core_scopeversion SET version = moved WHERE scope = ANY(pending);
  END IF;
END $$;

-- At commit: a deferred constraint trigger queued by every row written. The first to fire
-- moves every scope the transaction touched, once; the others find nothing left to move.
CREATE FUNCTION core_scopes_committed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM core_scopes_move();
  RETURN NULL;
END $$;

-- TRUNCATE has no rows to name scopes by, nor to queue a deferred trigger on: everything
-- may have changed, at once.
CREATE FUNCTION core_scopes_truncated() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM core_scopes_touched(ARRAY[TG_ARGV[0], TG_ARGV[1]]);
  PERFORM core_scopes_move();
  RETURN NULL;
END $$;
