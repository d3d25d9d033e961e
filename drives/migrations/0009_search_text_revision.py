"""A drive's search text holds its hardware revision too: the site names a drive with it
("Maker Model 240GB (rev 2)"), and a search for that name must find the drive."""

from django.db import migrations, models

FUNCTION = """
CREATE OR REPLACE FUNCTION drives_drive_names() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  maker text;
  controller text;
BEGIN
  SELECT name INTO maker FROM drives_manufacturer WHERE id = NEW.manufacturer_id;
  SELECT model INTO controller FROM drives_controller WHERE id = NEW.controller_id;
  NEW.sort_name := lower(concat_ws(' ', maker, NEW.model));
  NEW.search_text := concat_ws(' ', maker, NEW.model, NULLIF(NEW.part_number, ''),
                               NULLIF(NEW.hardware_revision, ''){controller});
  RETURN NEW;
END $$;
DROP TRIGGER drives_drive_names ON drives_drive;
CREATE TRIGGER drives_drive_names
  BEFORE INSERT OR UPDATE OF manufacturer_id, model, part_number, {revision}controller_id,
    sort_name, search_text ON drives_drive
  FOR EACH ROW EXECUTE FUNCTION drives_drive_names();
UPDATE drives_drive SET sort_name = '';
"""
WITH_REVISION = FUNCTION.replace("{controller}", ", controller").replace(
    "{revision}", "hardware_revision, "
)
# Back to 0006's: the revision out of the text and of the columns that refresh it.
WITHOUT_REVISION = FUNCTION.replace(
    "NULLIF(NEW.hardware_revision, ''){controller}", "controller"
).replace("{revision}", "")


class Migration(migrations.Migration):
    dependencies = [
        ("drives", "0008_drive_interface_capacity_index"),
    ]

    operations = [
        migrations.AlterField(
            model_name="drive",
            name="search_text",
            field=models.TextField(
                db_default="",
                default="",
                editable=False,
                help_text="maker, model, part number, hardware revision and controller: what a "
                "search word matches",
            ),
        ),
        migrations.RunSQL(WITH_REVISION, reverse_sql=WITHOUT_REVISION),
    ]
