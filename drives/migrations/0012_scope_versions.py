"""The catalog's tables move versions by scope (core.versions) instead of the drive
catalog's one version (0011, removed): a price moves its drive's pages, the drive lists and
the value views, not every page."""

import importlib

from django.db import migrations

from core.versions import CATALOG, DRIVE_PREFIX, DRIVES, VALUE, prefixed, scope_triggers

_0011 = importlib.import_module("drives.migrations.0011_catalog_version")

DRIVE_OF_ROW = (
    f"(SELECT {prefixed(DRIVE_PREFIX, 'd.slug')} FROM drives_drive d WHERE d.id = r.drive_id)"
)

# What a row of each table touches (core.versions.scope_triggers).
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
TRIGGERS = {table: scope_triggers(table, **scopes) for table, scopes in VERSIONED.items()}
INSTALL = "\n".join(install for install, _ in TRIGGERS.values())
REMOVE = "\n".join(remove for _, remove in TRIGGERS.values())
RESTORE_0011 = _0011.FORWARD + "".join(_0011.TRIGGERS.format(table=t) for t in _0011.TABLES)


class Migration(migrations.Migration):
    dependencies = [
        ("core", "0001_scope_versions"),
        ("drives", "0011_catalog_version"),
    ]

    operations = [migrations.RunSQL(_0011.BACKWARD + INSTALL, REMOVE + RESTORE_0011)]
