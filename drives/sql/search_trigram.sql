-- Search matches UPPER(search_text) with LIKE, which a trigram index serves. pg_trgm ships
-- with PostgreSQL's contrib, which the server may lack (the pgserver wheel has none): then
-- the index is left out and search scans the table.
DO $$ BEGIN
  IF EXISTS (SELECT 1 FROM pg_available_extensions WHERE name = 'pg_trgm') THEN
    CREATE EXTENSION IF NOT EXISTS pg_trgm;
    CREATE INDEX drive_search_trgm_idx ON drives_drive
      USING gin (upper(search_text) gin_trgm_ops);
  END IF;
END $$;
