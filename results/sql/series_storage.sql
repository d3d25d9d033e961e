-- A series' points as JSON text are read whole by every page and API call that draws the
-- series: kept out of line but uncompressed, PostgreSQL reads them as they are instead of
-- decompressing them each time (pglz: about 27 µs for 2,000 points, against 5 µs; they
-- compress only to two thirds).
ALTER TABLE results_consistencyseries ALTER COLUMN iops_text SET STORAGE EXTERNAL;
