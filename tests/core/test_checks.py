"""core.checks: `migrate` stops with a clear error on a database migrated part of the way
through the migrations a squash replaces, and says nothing of a complete one."""

import pytest
from django.db.migrations.recorder import MigrationRecorder
from hypothesis import given, settings
from hypothesis import strategies as st

from core.checks import squashed_part_way

pytestmark = pytest.mark.django_db

SQUASHED = {
    "drives": "0001_squashed_0012_scope_versions",
    "results": "0001_squashed_0025_scope_versions",
}


def replaced(app: str) -> list[tuple[str, str]]:
    from django.db import connection
    from django.db.migrations.loader import MigrationLoader

    return MigrationLoader(connection).disk_migrations[(app, SQUASHED[app])].replaces


def test_a_database_migrated_to_the_end_passes():
    assert squashed_part_way(databases=["default"]) == []


@settings(max_examples=10, deadline=None)
@given(app=st.sampled_from(sorted(SQUASHED)), data=st.data())
def test_a_database_part_of_the_way_is_stopped_with_what_to_do(app, data):
    names = replaced(app)
    kept = data.draw(st.integers(1, len(names) - 1), label="migrations applied")
    applied = MigrationRecorder.Migration.objects.filter(app=app, name__in=[n for _, n in names])
    removed = [n for _, n in names[kept:]]
    rows = list(applied.filter(name__in=removed).values_list("app", "name"))
    applied.filter(name__in=removed).delete()
    try:
        (error,) = squashed_part_way(databases=["default"])
        assert error.id == "core.E001"
        assert f"{app} {names[kept - 1][1]}" in error.msg and SQUASHED[app] in error.msg
        assert "Migrate it with a checkout of" in error.hint
    finally:
        MigrationRecorder.Migration.objects.bulk_create(
            MigrationRecorder.Migration(app=a, name=n) for a, n in rows
        )
