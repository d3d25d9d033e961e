"""The drive catalog's version: a number that moves on when a transaction that wrote what
drive lists read (drives, makers, controllers, NAND types, prices) commits, so that a server
process can tell whether its copy of the list (drives.catalog_index) is current with one
read. Results keeps a version of its own for what value views read (results 0020); this one
is the drives app's, which never reads results' tables.

At commit, not at the write: a transaction then takes the version's row lock last, after
every lock it needs, so two writers never wait on each other in a cycle through it. A
transaction that has written those tables also sets `bench.drives_written` for its own
remaining life: its reads see its writes, which no committed version describes yet.
TRUNCATE (which has no row triggers) moves the version at once."""

from django.db import migrations

TABLES = (
    "drives_drive",
    "drives_manufacturer",
    "drives_controller",
    "drives_nandtype",
    "drives_price",
)

FORWARD = """
CREATE SEQUENCE drives_catalog_version_seq;
CREATE TABLE drives_catalogversion (
  id smallint PRIMARY KEY CHECK (id = 1),
  version bigint NOT NULL
);
INSERT INTO drives_catalogversion VALUES (1, nextval('drives_catalog_version_seq'));

CREATE FUNCTION drives_catalog_written() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM set_config('bench.drives_written', 'on', true);
  RETURN NULL;
END $$;

CREATE FUNCTION drives_catalog_committed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF current_setting('bench.drives_version_moved', true) IS DISTINCT FROM 'on' THEN
    INSERT INTO drives_catalogversion VALUES (1, nextval('drives_catalog_version_seq'))
    ON CONFLICT (id) DO UPDATE SET version = EXCLUDED.version;
    PERFORM set_config('bench.drives_version_moved', 'on', true);
  END IF;
  RETURN NULL;
END $$;
"""

TRIGGERS = """
CREATE TRIGGER {table}_drives_written
  AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON {table}
  FOR EACH STATEMENT EXECUTE FUNCTION drives_catalog_written();
CREATE CONSTRAINT TRIGGER {table}_drives_committed
  AFTER INSERT OR UPDATE OR DELETE ON {table}
  DEFERRABLE INITIALLY DEFERRED
  FOR EACH ROW EXECUTE FUNCTION drives_catalog_committed();
CREATE TRIGGER {table}_drives_truncated
  AFTER TRUNCATE ON {table}
  FOR EACH STATEMENT EXECUTE FUNCTION drives_catalog_committed();
"""

BACKWARD = """
DROP FUNCTION drives_catalog_written() CASCADE;
DROP FUNCTION drives_catalog_committed() CASCADE;
DROP TABLE drives_catalogversion;
DROP SEQUENCE drives_catalog_version_seq;
"""


class Migration(migrations.Migration):
    dependencies = [("drives", "0010_search_text_controller_maker")]

    operations = [
        migrations.RunSQL(FORWARD + "".join(TRIGGERS.format(table=t) for t in TABLES), BACKWARD),
    ]
