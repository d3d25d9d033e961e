"""The change log of the in-process copies (core/sql/copy_changes.sql): its table, its
horizon, and core_scopes_move writing it. The apps' migrations that install a copy's
triggers (core.versions.copied_triggers) raise the horizon to the version they are installed
at (HORIZON_RAISED): what was written before is not in the log."""

import re
from pathlib import Path

from django.db import migrations

SQL = Path(__file__).parents[1] / "sql"
FUNCTIONS = (SQL / "copy_changes.sql").read_text()
# core_scopes_move as core/sql/scope_versions.sql (migration 0001) made it: what undoing
# this migration puts back.
SCOPES_MOVE = re.search(
    r"CREATE FUNCTION core_scopes_move\(\).*?END \$\$;",
    (SQL / "scope_versions.sql").read_text(),
    re.DOTALL,
).group(0)

REMOVE = f"""
DROP FUNCTION core_copies_touched(text[]);
DROP TABLE core_copychange, core_copyhorizon;
{SCOPES_MOVE.replace("CREATE FUNCTION", "CREATE OR REPLACE FUNCTION")}
"""


class Migration(migrations.Migration):
    dependencies = [("core", "0001_scope_versions")]

    operations = [
        migrations.RunSQL(
            FUNCTIONS + "\nINSERT INTO core_copyhorizon "
            "SELECT version FROM core_scopeversion WHERE scope = 'any';",
            REMOVE,
        ),
    ]
