"""A drive's search text names its controller as the site does, with the controller's maker
("SandForce SF-1200"): a search for "SandForce" found none of its drives. A controller given
another maker, and a maker renamed, refresh the drives whose controller it makes."""

import importlib

from django.db import migrations, models

_0009 = importlib.import_module("drives.migrations.0009_search_text_revision")

NAMES = _0009.FUNCTION.replace(
    "SELECT model INTO controller FROM drives_controller WHERE id = NEW.controller_id;",
    "SELECT concat_ws(' ', v.name, c.model) INTO controller FROM drives_controller c\n"
    "  JOIN drives_manufacturer v ON v.id = c.vendor_id WHERE c.id = NEW.controller_id;",
)
WITH_MAKER = (
    NAMES.replace("{controller}", ", controller").replace("{revision}", "hardware_revision, ")
    + """
CREATE OR REPLACE FUNCTION drives_maker_renamed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE drives_drive SET sort_name = ''
  WHERE manufacturer_id = NEW.id
     OR controller_id IN (SELECT id FROM drives_controller WHERE vendor_id = NEW.id);
  RETURN NULL;
END $$;
DROP TRIGGER drives_controller_renamed ON drives_controller;
CREATE TRIGGER drives_controller_renamed
  AFTER UPDATE OF model, vendor_id ON drives_controller
  FOR EACH ROW WHEN (OLD.model IS DISTINCT FROM NEW.model
                     OR OLD.vendor_id IS DISTINCT FROM NEW.vendor_id)
  EXECUTE FUNCTION drives_controller_renamed();
"""
)
# Back to 0009's.
WITHOUT_MAKER = (
    """
CREATE OR REPLACE FUNCTION drives_maker_renamed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE drives_drive SET sort_name = '' WHERE manufacturer_id = NEW.id;
  RETURN NULL;
END $$;
DROP TRIGGER drives_controller_renamed ON drives_controller;
CREATE TRIGGER drives_controller_renamed
  AFTER UPDATE OF model ON drives_controller
  FOR EACH ROW WHEN (OLD.model IS DISTINCT FROM NEW.model)
  EXECUTE FUNCTION drives_controller_renamed();
"""
    + _0009.WITH_REVISION
)


class Migration(migrations.Migration):
    dependencies = [
        ("drives", "0009_search_text_revision"),
    ]

    operations = [
        migrations.AlterField(
            model_name="drive",
            name="search_text",
            field=models.TextField(
                db_default="",
                default="",
                editable=False,
                help_text="maker, model, part number, hardware revision and controller (with "
                "its maker): what a search word matches",
            ),
        ),
        migrations.RunSQL(WITH_MAKER, reverse_sql=WITHOUT_MAKER),
    ]
