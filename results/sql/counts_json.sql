-- bigint[]'s text ({1,2,3}) with brackets is its JSON: a consistency series' points as the
-- pages and the API send them (ConsistencySeries.iops_text). PostgreSQL calls array output
-- "stable" (other element types' text can depend on settings); a bigint's never does, so
-- this is declared immutable, as a generated column requires.
CREATE FUNCTION bench_counts_json(bigint[]) RETURNS text
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
RETURN translate($1::text, '{}', '[]');
