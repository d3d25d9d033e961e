"""The versions by scope (core.versions): their table, their sequence, and the trigger
functions (core/sql/scope_versions.sql) that the apps' versioned tables call."""

from pathlib import Path

from django.db import migrations

from core.versions import FIXED_SCOPES

FUNCTIONS = (Path(__file__).parents[1] / "sql" / "scope_versions.sql").read_text()

REMOVE = """
DROP FUNCTION core_scopes_truncated(), core_scopes_committed(), core_scopes_move(),
  core_scopes_touched(text[]);
DROP TABLE core_scopeversion;
DROP SEQUENCE core_scope_version_seq;
"""


class Migration(migrations.Migration):
    initial = True
    dependencies = []

    operations = [
        migrations.RunSQL(FUNCTIONS, REMOVE),
        migrations.RunSQL(
            [
                (
                    "INSERT INTO core_scopeversion SELECT scope, "
                    "nextval('core_scope_version_seq') FROM unnest(%s::text[]) scope",
                    [list(FIXED_SCOPES)],
                )
            ],
            migrations.RunSQL.noop,
        ),
    ]
