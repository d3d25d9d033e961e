"""The value views' change log (results.versioned.ENTRIES_COPIED, core.versions.copy_triggers):
which drives' rows each commit changed, so that a server process applies them to the copy it
holds (results.entries_index) instead of reading it again whole."""

from django.db import migrations

from core.versions import HORIZON_RAISED, copied_triggers
from results.versioned import ENTRIES_COPIED, ENTRIES_COPY

INSTALL, REMOVE = copied_triggers(ENTRIES_COPY, ENTRIES_COPIED)


class Migration(migrations.Migration):
    dependencies = [
        ("core", "0002_copy_changes"),
        ("drives", "0014_catalog_copy_changes"),
        ("results", "0039_placeholder_drives"),
    ]

    operations = [migrations.RunSQL(INSTALL + "\n" + HORIZON_RAISED, REMOVE)]
