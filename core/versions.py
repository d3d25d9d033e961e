"""Versions by scope: one source, in the database, that says what has changed.

A scope names what a set of pages depends on. A write to a versioned table gives the scopes
its rows touch a new version when its transaction commits (triggers installed by
`scope_triggers`, functions in core/sql/scope_versions.sql), so a reader that kept
something computed at some versions (a response, a cached value, an in-process copy) tells
whether it is current by reading those versions again: one statement, on the database its
other reads go to. The scopes:

- ANY: every write of a versioned table (what a page that declares no scopes depends on);
- CATALOG: edits that can change any page (makers, controllers, NAND types, tests, a
  drive's edits and deletion ...); every page depends on it;
- DRIVES: the drive lists (a drive added, a price, makers, controllers, NAND types);
- drive_scope(slug): one drive's pages (its runs, results, series, prices, entries ...);
- ranking_scope(identifier): one test's ranking (its leaderboard entries);
- VALUE: the value views (prices, and the priced entries of the 4KB throughput tests);
- RANKINGS: every test's ranking at once (any leaderboard entry written): what the
  in-process copy of the entries (results.entries_index) follows besides the catalog;
- DUMPS: the open-data dumps, files outside the database (scopes_moved).

Each commit that writes draws one value of a sequence, in commit order, and gives it to the
scopes it touched: the greatest version of a set of scopes (one number) moves on whenever
any of them does, and never comes back. A transaction that has itself written a versioned
table reads rows no committed version describes (WRITTEN): what it computes must not be
kept for others. Version rows are never deleted.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

from django.db import connections, transaction

from core.db import prepared

ANY = "any"
CATALOG = "catalog"
DRIVES = "drives"
VALUE = "value"
RANKINGS = "rankings"
DUMPS = "dumps"  # the open-data dumps published (results.dumps): no table holds them
DRIVE_PREFIX = "drive:"
TEST_PREFIX = "test:"
TRIGGER_SQL = (Path(__file__).parent / "sql" / "scope_trigger.sql").read_text()
COPY_TRIGGER_SQL = (Path(__file__).parent / "sql" / "copy_trigger.sql").read_text()
# Run where a copy's triggers were just installed (copied_triggers, in the same
# transaction): what was written before is not in the log. Installing a trigger waits for
# every transaction that wrote the table to end, and holds off new ones until the migration
# commits, so each write is either under this version or logged.
HORIZON_RAISED = (
    "UPDATE core_copyhorizon SET horizon = greatest(horizon, "
    "(SELECT version FROM core_scopeversion WHERE scope = 'any'));"
)
# What an edit of a row means to a copy that reads every drive's rows through it (a maker's
# name on every drive it makes): read the copy again whole (copy_triggers).
WHOLE = "*"
# The scopes that exist from the start (core migration 0001), so that a reader of them never
# finds none.
FIXED_SCOPES = (ANY, CATALOG, DRIVES, VALUE)

# True when this transaction has written a versioned table (core_scopes_touched).
WRITTEN = "COALESCE(current_setting('bench.written', true) = 'on', false)"


def drive_scope(slug: str) -> str:
    return f"{DRIVE_PREFIX}{slug}"


def ranking_scope(identifier: str) -> str:
    return f"{TEST_PREFIX}{identifier}"


def literal(text: str) -> str:
    """text as an SQL string literal."""
    return "'" + text.replace("'", "''") + "'"


# The latest version committed, as a statement sees: every change logged under a version up
# to it is visible to that statement (versions are drawn in the order of the commits).
COMMITTED_SQL = f"(SELECT version FROM core_scopeversion WHERE scope = {literal(ANY)})"


def prefixed(prefix: str, text_sql: str) -> str:
    """SQL: the scope named by a prefix (DRIVE_PREFIX, TEST_PREFIX) and an SQL text."""
    return f"{literal(prefix)} || {text_sql}"


def versions_sql(*scopes: str) -> str:
    """An SQL expression: the version of these fixed scopes now (the same while none of them
    moves)."""
    names = ", ".join(literal(s) for s in sorted(scopes))
    return f"(SELECT max(version) FROM core_scopeversion WHERE scope IN ({names}))"


_READ_SQL = (
    f"SELECT COALESCE(max(version), 0), {WRITTEN} FROM core_scopeversion WHERE scope = ANY(%s)"
)


def read_version(alias: str, scopes: Sequence[str]) -> int | None:
    """The version of `scopes` on database `alias` (one prepared statement), or None when
    this transaction has written: then nothing it computes may be kept."""
    with prepared(alias), connections[alias].cursor() as cursor:
        cursor.execute(_READ_SQL, [list(scopes)])
        version, written = cursor.fetchone()
    return None if written else version


_READ_EACH_SQL = (
    "SELECT COALESCE(array_agg(scope), '{}'), COALESCE(array_agg(version), '{}'), "
    f"{WRITTEN} FROM core_scopeversion WHERE scope = ANY(%s)"
)


def read_versions(alias: str, scopes: Sequence[str]) -> dict[str, int] | None:
    """Each of `scopes`' version on database `alias` (0 for a scope never written; one
    prepared statement), or None when this transaction has written."""
    with prepared(alias), connections[alias].cursor() as cursor:
        cursor.execute(_READ_EACH_SQL, [list(scopes)])
        names, versions, written = cursor.fetchone()
    if written:
        return None
    found = dict(zip(names, versions, strict=True))
    return {scope: found.get(scope, 0) for scope in scopes}


def scopes_moved(*scopes: str, alias: str = "default") -> None:
    """Give `scopes` (and ANY) a new version now, as a committed write touching them would:
    for a change the database does not hold (a data dump published), on which what was kept
    under them depends. Inside an open transaction, at its commit."""
    with transaction.atomic(using=alias), connections[alias].cursor() as cursor:
        cursor.execute("SELECT core_scopes_touched(%s::text[])", [[ANY, *scopes]])
        cursor.execute("SELECT core_scopes_move()")


def scope_triggers(
    table: str,
    *,
    always: Iterable[str] = (),
    inserted: Iterable[str] = (),
    changed: Iterable[str] = (),
    of_row: Iterable[str] = (),
) -> tuple[str, str]:
    """The SQL that makes `table` versioned (core/sql/scope_trigger.sql), and the SQL that
    undoes it: a row written moves ANY and `always`, and `inserted` when it is new or
    `changed` when it is updated or deleted, and the scopes `of_row` names (SQL text
    expressions over the written row `r`, the old and the new one of an update; NULL names
    none). TRUNCATE moves ANY and CATALOG."""
    always, of_row = tuple(always), tuple(of_row)

    def values(fixed: Iterable[str]) -> str:
        rows = [literal(s) for s in (ANY, *always, *fixed)] + list(of_row)
        return ", ".join(f"({row})" for row in rows)

    install = TRIGGER_SQL.format(
        table=table,
        inserted=values(inserted),
        changed=values(changed),
        truncated=f"{literal(ANY)}, {literal(CATALOG)}",
    )
    remove = (
        f"DROP FUNCTION {table}_scopes() CASCADE;\n"
        f"DROP TRIGGER {table}_scopes_truncated ON {table};\n"
        f"DROP TRIGGER {table}_scopes_committed ON {table};"
    )
    return install, remove


def versioned_triggers(versioned: Mapping[str, Mapping[str, Iterable[str]]]) -> tuple[str, str]:
    """The SQL that makes every table of `versioned` (table: scope_triggers' arguments, as
    drives.versioned and results.versioned declare them) versioned, and the SQL that undoes
    it."""
    made = [scope_triggers(table, **scopes) for table, scopes in versioned.items()]
    return "\n".join(install for install, _ in made), "\n".join(remove for _, remove in made)


def copy_triggers(table: str, copy: str, drive: str) -> tuple[str, str]:
    """The SQL that logs which drives' rows of the in-process copy named `copy`
    (core.columns.Copy) a write to `table` changes (core/sql/copy_trigger.sql, the log
    core_copychange), and the SQL that undoes it. `drive` names the drive a written row's
    rows are of (an SQL expression over the row `r`, the old and the new one of an update;
    NULL: none), or is WHOLE: an update or a deletion may change rows of any drive (the
    copy is read again whole), an insertion none (nothing it holds refers to a new row yet)."""
    name = f"{table}_copy_{copy}"
    changed = (
        literal(f"{copy}:{WHOLE}")
        if drive == WHOLE
        else f"{literal(copy + ':')} || ({drive})::text"
    )
    install = COPY_TRIGGER_SQL.format(
        table=table,
        name=name,
        inserted="NULL::text" if drive == WHOLE else changed,
        changed=changed,
        truncated=literal(f"{copy}:{WHOLE}"),
    )
    remove = f"DROP FUNCTION {name}() CASCADE;\nDROP FUNCTION {name}_truncated() CASCADE;"
    return install, remove


def copied_triggers(copy: str, tables: Mapping[str, str]) -> tuple[str, str]:
    """copy_triggers for every table the copy named `copy` reads (table: its rows' drive,
    or WHOLE; as drives.versioned and results.versioned declare them), and the SQL that
    undoes them."""
    made = [copy_triggers(table, copy, drive) for table, drive in tables.items()]
    return "\n".join(install for install, _ in made), "\n".join(remove for _, remove in made)
