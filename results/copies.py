"""The SQL that keeps a leaderboard entry's copies of its drive's specs current, made from
the list of them (results.models.DRIVE_COPIES): an entry is given them when it is written,
and follows every write to its drive (or to the row of a table its drive names, its NAND
type) that changes them. The catalog writes those tables and knows nothing of results, so
triggers do it.

Results migration 0001 runs `create` with the list as it is. A migration that changes the
list runs `fill` (the entries already there) and `create` (every trigger and function again,
created or replaced) with the list it applies, made from the models it sees
(apps.get_model), so that it reads the tables as they were then; 0001 then keeps the list it
applied, as a copy, since the fields of a copy added later are not in its models."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from django.db.models import Field, Model


@dataclass(frozen=True)
class CopySql:
    create: str  # the functions and triggers, created or replaced
    fill: str  # every entry's copies, from its drive
    drop_fill: str  # the trigger that gives a new entry its copies, dropped
    drop: str  # every function, and with them their triggers


@dataclass(frozen=True)
class _Copy:
    """One copy: the entry's column `target`, of the drive's column `source`, or
    (`relation`: the drive's foreign key to another table) of that table's."""

    target: Field
    source: Field
    relation: Field | None

    def value(self, expression: str) -> str:
        """`expression` as the entry's column takes it: where it may be NULL (a drive that
        names no such row) and the column may not, the column's default."""
        if self.target.null or not (self.relation or self.source.null):
            return expression
        default = str(self.target.get_default()).replace("'", "''")
        return f"COALESCE({expression}, '{default}')"


def copy_sql(drive: type[Model], entry: type[Model], copies: Sequence[str]) -> CopySql:
    """The SQL of the entries' (`entry`) copies of their drive's (`drive`) fields `copies`
    (a field of the drive, or "<relation>__<field>" of a model the drive has a foreign key
    to), each in the entry's field of the last name."""
    entries, drives = entry._meta.db_table, drive._meta.db_table
    made = []
    for path in copies:
        relation_name, _, name = path.rpartition("__")
        relation = drive._meta.get_field(relation_name) if relation_name else None
        model = relation.related_model if relation else drive
        made.append(_Copy(entry._meta.get_field(name), model._meta.get_field(name), relation))
    relations = list(dict.fromkeys(c.relation for c in made if c.relation))

    # A drive (d) with the rows it names, each aliased by the name of its relation.
    joins = "".join(
        f" LEFT JOIN {r.related_model._meta.db_table} {r.name} ON {r.name}.id = d.{r.column}"
        for r in relations
    )
    joined = f"{drives} d{joins}"
    targets = [c.target.column for c in made]
    from_drive = [
        c.value(f"{c.relation.name if c.relation else 'd'}.{c.source.column}") for c in made
    ]
    fill = (
        f"UPDATE {entries} e SET ({', '.join(targets)}) = ROW({', '.join(from_drive)})\n"
        f"FROM {joined} WHERE d.id = e.drive_id"
    )
    functions = [
        "results_leaderboard_copy_fill",
        "results_leaderboard_drive_sync",
        *(f"results_leaderboard_{r.name}_sync" for r in relations),
    ]
    statements = [
        _trigger(
            functions[0],
            f"BEFORE INSERT ON {entries}",
            f"SELECT {', '.join(from_drive)}\n  INTO {', '.join(f'NEW.{t}' for t in targets)}\n"
            f"  FROM {joined} WHERE d.id = NEW.drive_id;\n  RETURN NEW;",
        )
    ]

    def of_new_drive(c: _Copy) -> str:
        if c.relation is None:
            return c.value(f"NEW.{c.source.column}")
        table = c.relation.related_model._meta.db_table
        return c.value(
            f"(SELECT {c.source.column} FROM {table} WHERE id = NEW.{c.relation.column})"
        )

    # A drive's own columns, and its foreign keys to the rows it names.
    watched = list(
        dict.fromkeys(c.relation.column if c.relation else c.source.column for c in made)
    )
    statements.append(
        _trigger(
            functions[1],
            f"AFTER UPDATE OF {', '.join(watched)} ON {drives}",
            f"UPDATE {entries}\n  SET ({', '.join(targets)}) = "
            f"ROW({', '.join(map(of_new_drive, made))})\n"
            "  WHERE drive_id = NEW.id;\n  RETURN NULL;",
            changed=watched,
        )
    )
    for function, relation in zip(functions[2:], relations, strict=True):
        mine = [c for c in made if c.relation == relation]
        sources = [c.source.column for c in mine]
        statements.append(
            _trigger(
                function,
                f"AFTER UPDATE OF {', '.join(sources)} ON {relation.related_model._meta.db_table}",
                f"UPDATE {entries} e SET ({', '.join(c.target.column for c in mine)}) = "
                f"ROW({', '.join(c.value(f'NEW.{c.source.column}') for c in mine)})\n"
                f"  FROM {drives} d WHERE d.{relation.column} = NEW.id AND e.drive_id = d.id;\n"
                "  RETURN NULL;",
                changed=sources,
            )
        )
    return CopySql(
        create="\n".join(statements),
        fill=fill,
        drop_fill=f"DROP TRIGGER results_leaderboard_copy_fill ON {entries};\n"
        "DROP FUNCTION results_leaderboard_copy_fill();",
        drop=f"DROP FUNCTION {', '.join(functions)} CASCADE;",
    )


def _trigger(name: str, event: str, body: str, *, changed: Sequence[str] = ()) -> str:
    """Function `name` (plpgsql `body`) and its row trigger on `event`, created or replaced;
    with `changed`, it fires only when one of those columns changed."""
    table = event.rsplit(" ON ", 1)[1]
    when = ""
    if changed:
        old = ", ".join(f"OLD.{c}" for c in changed)
        new = ", ".join(f"NEW.{c}" for c in changed)
        when = f" WHEN (ROW({old}) IS DISTINCT FROM ROW({new}))"
    return (
        f"CREATE OR REPLACE FUNCTION {name}() RETURNS trigger LANGUAGE plpgsql AS $$\n"
        f"BEGIN\n  {body}\nEND $$;\n"
        f"DROP TRIGGER IF EXISTS {name} ON {table};\n"
        f"CREATE TRIGGER {name}\n  {event}\n  FOR EACH ROW{when}\n  EXECUTE FUNCTION {name}();\n"
    )
