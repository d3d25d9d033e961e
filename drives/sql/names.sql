-- Each drive's sort name and search text, kept from the drive, its maker and its controller
-- (with the controller's maker, as the site names it), so that the catalog's order and its
-- search read one table's indexes instead of joining every drive to its maker.
CREATE FUNCTION drives_drive_names() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  maker text;
  controller text;
BEGIN
  SELECT name INTO maker FROM drives_manufacturer WHERE id = NEW.manufacturer_id;
  SELECT concat_ws(' ', v.name, c.model) INTO controller FROM drives_controller c
  JOIN drives_manufacturer v ON v.id = c.vendor_id WHERE c.id = NEW.controller_id;
  NEW.sort_name := lower(concat_ws(' ', maker, NEW.model));
  NEW.search_text := concat_ws(' ', maker, NEW.model, NULLIF(NEW.part_number, ''),
                               NULLIF(NEW.hardware_revision, ''), controller);
  RETURN NEW;
END $$;
CREATE TRIGGER drives_drive_names
  BEFORE INSERT OR UPDATE OF manufacturer_id, model, part_number, hardware_revision,
    controller_id, sort_name, search_text ON drives_drive
  FOR EACH ROW EXECUTE FUNCTION drives_drive_names();

-- A renamed maker, or a controller renamed or given another maker, renames the drives that
-- name it (the update fires the trigger above).
CREATE FUNCTION drives_maker_renamed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE drives_drive SET sort_name = ''
  WHERE manufacturer_id = NEW.id
     OR controller_id IN (SELECT id FROM drives_controller WHERE vendor_id = NEW.id);
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
  AFTER UPDATE OF model, vendor_id ON drives_controller
  FOR EACH ROW WHEN (OLD.model IS DISTINCT FROM NEW.model
                     OR OLD.vendor_id IS DISTINCT FROM NEW.vendor_id)
  EXECUTE FUNCTION drives_controller_renamed();
