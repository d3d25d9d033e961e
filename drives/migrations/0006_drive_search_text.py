"""Each drive's sort name and search text, kept by triggers from the drive, its maker and its
controller, so that the catalog's order and its search read one table's indexes: searching
10,000 drives for a word scanned and joined them all, and ordering them by their maker's
name sorted every match.

Search matches UPPER(search_text) with LIKE, which a trigram index serves: pg_trgm ships
with PostgreSQL's contrib, which the server may lack (the pgserver wheel has none); then the
index is left out and search scans the table, as it did before.
"""

from django.db import migrations, models

TRIGGERS = """
CREATE FUNCTION drives_drive_names() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  maker text;
  controller text;
BEGIN
  SELECT name INTO maker FROM drives_manufacturer WHERE id = NEW.manufacturer_id;
  SELECT model INTO controller FROM drives_controller WHERE id = NEW.controller_id;
  NEW.sort_name := lower(concat_ws(' ', maker, NEW.model));
  NEW.search_text := concat_ws(' ', maker, NEW.model, NULLIF(NEW.part_number, ''), controller);
  RETURN NEW;
END $$;
CREATE TRIGGER drives_drive_names
  BEFORE INSERT OR UPDATE OF manufacturer_id, model, part_number, controller_id, sort_name,
    search_text ON drives_drive
  FOR EACH ROW EXECUTE FUNCTION drives_drive_names();

-- A renamed maker or controller renames its drives (the update fires the trigger above).
CREATE FUNCTION drives_maker_renamed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE drives_drive SET sort_name = '' WHERE manufacturer_id = NEW.id;
  RETURN NULL;
END $$;
CREATE TRIGGER drives_maker_renamed
  AFTER UPDATE OF name ON drives_manufacturer
  FOR EACH ROW WHEN (OLD.name IS DISTINCT FROM NEW.name)
  EXECUTE FUNCTION drives_maker_renamed();
CREATE FUNCTION drives_controller_renamed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE drives_drive SET sort_name = '' WHERE controller_id = NEW.id;
  RETURN NULL;
END $$;
CREATE TRIGGER drives_controller_renamed
  AFTER UPDATE OF model ON drives_controller
  FOR EACH ROW WHEN (OLD.model IS DISTINCT FROM NEW.model)
  EXECUTE FUNCTION drives_controller_renamed();

UPDATE drives_drive SET sort_name = '';
"""

DROP_TRIGGERS = """
DROP TRIGGER drives_controller_renamed ON drives_controller;
DROP FUNCTION drives_controller_renamed();
DROP TRIGGER drives_maker_renamed ON drives_manufacturer;
DROP FUNCTION drives_maker_renamed();
DROP TRIGGER drives_drive_names ON drives_drive;
DROP FUNCTION drives_drive_names();
"""

TRIGRAM_INDEX = """
DO $$ BEGIN
  IF EXISTS (SELECT 1 FROM pg_available_extensions WHERE name = 'pg_trgm') THEN
    CREATE EXTENSION IF NOT EXISTS pg_trgm;
    CREATE INDEX drive_search_trgm_idx ON drives_drive
      USING gin (upper(search_text) gin_trgm_ops);
  END IF;
END $$;
"""


class Migration(migrations.Migration):
    dependencies = [
        ("drives", "0005_price_as_of_index"),
    ]

    operations = [
        migrations.AlterModelOptions(
            name="drive",
            options={"ordering": ["sort_name", "capacity_bytes", "pk"]},
        ),
        migrations.AddField(
            model_name="drive",
            name="search_text",
            field=models.TextField(
                db_default="",
                default="",
                editable=False,
                help_text="maker, model, part number and controller: what a search word matches",
            ),
        ),
        migrations.AddField(
            model_name="drive",
            name="sort_name",
            field=models.TextField(
                db_default="", default="", editable=False, help_text="lower(maker model): the order"
            ),
        ),
        migrations.RunSQL(TRIGGERS, reverse_sql=DROP_TRIGGERS),
        migrations.AddIndex(
            model_name="drive",
            index=models.Index(fields=["sort_name", "capacity_bytes", "id"], name="drive_sort_idx"),
        ),
        migrations.RunSQL(TRIGRAM_INDEX, reverse_sql="DROP INDEX IF EXISTS drive_search_trgm_idx"),
    ]
