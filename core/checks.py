"""A database that a squashed migration cannot take: one migrated by a tree from before the
squash, part of the way through the migrations it replaces. Django cannot finish those
without their files, and would fail in the middle of `migrate` with a traceback; this check
stops `migrate` first, saying what to do."""

from django.core.checks import Error, Tags, register
from django.db import connections
from django.db.migrations.loader import MigrationLoader

# The last commit that holds every migration the squashes replace: a database part of the
# way through them is migrated to their end by that tree, then by this one.
BEFORE_SQUASH = "23e470b"


@register(Tags.database)
def squashed_part_way(databases=None, **kwargs) -> list[Error]:
    errors = []
    for alias in databases or []:
        loader = MigrationLoader(connections[alias], ignore_no_migrations=True)
        applied = set(loader.applied_migrations)
        for key, migration in loader.disk_migrations.items():
            done = [name for name in migration.replaces if name in applied]
            if done and len(done) < len(migration.replaces):
                app, last = max(done)
                errors.append(
                    Error(
                        f"The database {alias!r} was migrated by an earlier tree to {app} "
                        f"{last}, part of the way through the migrations that {key[0]} "
                        f"{key[1]} replaces.",
                        hint=f"Migrate it with a checkout of {BEFORE_SQUASH} first "
                        f"(git worktree add /tmp/bench-{BEFORE_SQUASH} {BEFORE_SQUASH}), then "
                        "with this tree; or remove it (make run builds the demo again).",
                        id="core.E001",
                    )
                )
    return errors
