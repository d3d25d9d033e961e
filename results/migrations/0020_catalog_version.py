"""The catalog's version: a number that moves on when a transaction that wrote what value
views read (entries, prices, drives, makers, controllers, tests) commits, so that a server
process can tell whether its copy of them (results.value_index) is current with one read.

At commit, not at the write: a transaction then takes the version's row lock last, after
every lock it needs, so two writers never wait on each other in a cycle through it. A
transaction that has written those tables also sets `bench.catalog_written` for its own
remaining life: its reads see its writes, which no committed version describes yet.
TRUNCATE (which has no row triggers) moves the version at once."""

from django.db import migrations

TABLES = (
    "results_leaderboardentry",
    "drives_price",
    "drives_drive",
    "drives_manufacturer",
    "drives_controller",
    "results_test",
)

FORWARD = """
CREATE SEQUENCE results_catalog_version_seq;
CREATE TABLE results_catalogversion (
  id smallint PRIMARY KEY CHECK (id = 1),
  version bigint NOT NULL
);
INSERT INTO results_catalogversion VALUES (1, nextval('results_catalog_version_seq'));

CREATE FUNCTION results_catalog_written() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM set_config('bench.catalog_written', 'on', true);
  RETURN NULL;
END $$;

CREATE FUNCTION results_catalog_committed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF current_setting('bench.catalog_version_moved', true) IS DISTINCT FROM 'on' THEN
    INSERT INTO results_catalogversion VALUES (1, nextval('results_catalog_version_seq'))
    ON CONFLICT (id) DO UPDATE SET version = EXCLUDED.version;
    PERFORM set_config('bench.catalog_version_moved', 'on', true);
  END IF;
  RETURN NULL;
END $$;
"""

TRIGGERS = """
CREATE TRIGGER {table}_catalog_written
  AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON {table}
  FOR EACH STATEMENT EXECUTE FUNCTION results_catalog_written();
CREATE CONSTRAINT TRIGGER {table}_catalog_committed
  AFTER INSERT OR UPDATE OR DELETE ON {table}
  DEFERRABLE INITIALLY DEFERRED
  FOR EACH ROW EXECUTE FUNCTION results_catalog_committed();
CREATE TRIGGER {table}_catalog_truncated
  AFTER TRUNCATE ON {table}
  FOR EACH STATEMENT EXECUTE FUNCTION results_catalog_committed();
"""

BACKWARD = """
DROP FUNCTION results_catalog_written() CASCADE;
DROP FUNCTION results_catalog_committed() CASCADE;
DROP TABLE results_catalogversion;
DROP SEQUENCE results_catalog_version_seq;
"""


class Migration(migrations.Migration):
    dependencies = [
        ("drives", "0010_search_text_controller_maker"),
        ("results", "0019_value_indexes_derived"),
    ]

    operations = [
        migrations.RunSQL(FORWARD + "".join(TRIGGERS.format(table=t) for t in TABLES), BACKWARD),
    ]
