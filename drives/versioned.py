"""What a written row of each catalog table touches (core.versions.scope_triggers): a price
moves its drive's pages, the drive lists and the value views, not every page. The migration
that installs the triggers, and any later one that changes them, reads this one
declaration."""

from core.versions import CATALOG, DRIVE_PREFIX, DRIVES, VALUE, WHOLE, prefixed

DRIVE_OF_ROW = (
    f"(SELECT {prefixed(DRIVE_PREFIX, 'd.slug')} FROM drives_drive d WHERE d.id = r.drive_id)"
)

VERSIONED = {
    "drives_manufacturer": {"always": (CATALOG, DRIVES)},
    "drives_controller": {"always": (CATALOG, DRIVES)},
    "drives_nandtype": {"always": (CATALOG, DRIVES)},
    "drives_drive": {
        "always": (DRIVES,),
        "changed": (CATALOG,),
        "of_row": (prefixed(DRIVE_PREFIX, "r.slug"),),
    },
    "drives_firmwareversion": {"of_row": (DRIVE_OF_ROW,)},
    "drives_price": {"always": (DRIVES, VALUE), "of_row": (DRIVE_OF_ROW,)},
}

# The drive list held in each server process (drives.catalog_index): which drive's rows a
# written row changes (core.versions.copy_triggers), or WHOLE: an edit of a maker,
# controller or NAND type shows on every drive that names it.
CATALOG_COPY = "catalog"
CATALOG_COPIED = {
    "drives_drive": "r.id",
    "drives_price": "r.drive_id",
    "drives_manufacturer": WHOLE,
    "drives_controller": WHOLE,
    "drives_nandtype": WHOLE,
}
