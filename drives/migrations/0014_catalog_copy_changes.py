"""The drive list's change log (drives.versioned.CATALOG_COPIED, core.versions.copy_triggers):
which drives' rows each commit changed, so that a server process applies them to the copy it
holds (drives.catalog_index) instead of reading it again whole."""

from django.db import migrations

from core.versions import HORIZON_RAISED, copied_triggers
from drives.versioned import CATALOG_COPIED, CATALOG_COPY

INSTALL, REMOVE = copied_triggers(CATALOG_COPY, CATALOG_COPIED)


class Migration(migrations.Migration):
    dependencies = [("core", "0002_copy_changes"), ("drives", "0013_drive_listed")]

    operations = [migrations.RunSQL(INSTALL + "\n" + HORIZON_RAISED, REMOVE)]
