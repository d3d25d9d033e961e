"""Rows held in each server process as named columns, current with a version: the drive list
(drives.catalog_index) and what value views price (results.entries_index).

A copy is declared as tables, each a list of (name, SQL expression) pairs over its rows; the
load statement follows from them, and each column is read by its name. Names of the columns
that filters compare are their fields as the ORM names them ("kind", "nand__cell_type"), so
that a FilterSet's mask reads them (core.filters.FilterSet.mask).

A copy is read whole once (core.db.current_copy): one statement, so one snapshot, in which
each column travels as one JSON array (the table's rows in the same order in every column,
aggregated in one pass). When its version moves, it is brought up to date instead from the
change log (core/sql/copy_changes.sql): in one statement again, which drives' rows changed
since the snapshot it holds, and those drives' rows now; their old rows are dropped and the
new ones appended (a table's rows are in no order its readers rely on), and a small table
without drives (the controllers a form offers) is read again whole. Ranks, which a change
of one row moves on every other, are worked out from the neighbour each changed value has
among the others (Table.ranks). It is read whole again only when the log cannot say (an edit
of a maker every drive row shows, a snapshot older than the log, too many drives changed),
or for a transaction that has itself written (its own copy, kept by no one)."""

from __future__ import annotations

import bisect
import functools
import operator
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import orjson
from django.db import connections
from django.db.models import Model
from django.dispatch import Signal

from core.db import current_copy, read_alias
from core.versions import COMMITTED_SQL, literal

_OPERATORS = {"exact": operator.eq, "gte": operator.ge, "lte": operator.le}
_INT64 = (-(2**63), 2**63 - 1)


class Column:
    """One column's values as numpy holds them (`array`): numbers (int64, or float64 when
    any is fractional), flags (bool), or text as codes (int32, `codes` maps each text to
    its code). `null` marks the rows where it is NULL (None: no row is)."""

    __slots__ = ("array", "codes", "null", "_texts")

    def __init__(self, array: np.ndarray, null: np.ndarray | None, codes: dict[str, int] | None):
        self.array, self.null, self.codes = array, null, codes
        self._texts: np.ndarray | None = None

    @classmethod
    def of(cls, values: list) -> Column:
        """The column of these values (JSON values: numbers, booleans, text or None)."""
        first = next((v for v in values if v is not None), None)
        if isinstance(first, str):
            codes: dict[str, int] = {}
            array = np.fromiter(
                (-1 if v is None else codes.setdefault(v, len(codes)) for v in values),
                np.int32,
                len(values),
            )
            return cls(array, array < 0, codes)
        array = np.array(values) if values else np.zeros(0, dtype=bool)
        if array.dtype != object:
            return cls(array, None, None)
        null = np.equal(array, None)
        array[null] = False if isinstance(first, bool) else 0
        return cls(np.array(array.tolist()), null, None)

    def take(self, keep: np.ndarray) -> Column:
        """The rows `keep` (a mask or positions) keeps."""
        null = None if self.null is None else self.null[keep]
        return Column(self.array[keep], null, self.codes)

    def joined(self, other: Column, index: np.ndarray) -> Column | None:
        """The rows `index` picks of these rows and then `other`'s (positions in both, one
        after the other): the column Column.of would make of their values (numbers, at
        most, made float64 where Column.of would find them all whole), or None where this
        one cannot say (kinds that do not meet: make it again from the values)."""
        if not len(other.array):
            both = self
        elif not len(self.array):
            both = other
        else:
            mine, other = _alike(self, other), _alike(other, self)
            if (mine.codes is None) != (other.codes is None):
                return None
            if mine.codes is not None:
                codes = dict(mine.codes)  # the held copy's stay as they are: read meanwhile
                # Each of other's codes as this one's, and NULL's (-1, the last) as NULL's.
                recoded = np.array([*(codes.setdefault(t, len(codes)) for t in other.codes), -1])
                array = np.concatenate([mine.array, recoded[other.array]]).astype(np.int32)
                both = Column(array, array < 0, codes)
            elif object in (mine.array.dtype, other.array.dtype) or (
                (mine.array.dtype == bool) != (other.array.dtype == bool)
            ):
                return None
            else:
                nulls = [
                    np.zeros(len(c.array), bool) if c.null is None else c.null
                    for c in (mine, other)
                ]
                both = Column(
                    np.concatenate([mine.array, other.array]), np.concatenate(nulls), None
                )
        return both.take(index).normalized()

    def normalized(self) -> Column:
        """This column as Column.of makes one of its values: no rows, booleans; every row
        NULL, numbers; numbers without a NULL, no mask."""
        if not len(self.array):
            return Column(np.zeros(0, dtype=bool), None, None)
        if self.null is not None and self.null.all():
            return Column(np.zeros(len(self.array), np.int64), self.null, None)
        if self.codes is None and self.null is not None and not self.null.any():
            return Column(self.array, None, None)
        return self

    def floats(self) -> np.ndarray:
        """The numbers as float64, NaN where NULL."""
        values = self.array.astype(np.float64)
        if self.null is not None:
            values[self.null] = np.nan
        return values

    def texts(self) -> np.ndarray:
        """Each code's text as UTF-8 bytes, in the order of codes."""
        if self._texts is None:
            self._texts = np.array([t.encode() for t in self.codes or ()], dtype=np.bytes_)
        return self._texts


def _shared(values: list) -> list:
    """`values` with each text held once (JSON makes a string of every row's: a text column
    of a few distinct values costs one string a row, the bulk of a large copy's memory)."""
    first = next((v for v in values if v is not None), None)
    if isinstance(first, str):
        held: dict[str, str] = {}
        values = [v if v is None else held.setdefault(v, v) for v in values]
    return values


def _alike(column: Column, like: Column) -> Column:
    """`column`, when every row of it is NULL, as a column of the kind of `like` (what
    Column.of makes of NULLs alone depends on nothing: numbers, here 0 where NULL)."""
    if column.null is None or not column.null.all() or not len(column.array):
        return column
    if like.codes is not None:
        return Column(np.full(len(column.array), -1, np.int32), column.null, {})
    return Column(np.zeros(len(column.array), like.array.dtype), column.null, None)


def _placement(length: int, dropped: np.ndarray, added: int) -> np.ndarray:
    """Where the rows after a change come from, as positions in `length` rows and then
    `added` new ones: each of the rows `dropped` (ascending) is taken by a new row, and the
    new rows left over are appended, or the dropped rows left over removed. A change moves
    no other row: a copy is made in one pass."""
    filled = min(len(dropped), added)
    index = np.arange(length, dtype=np.intp)
    index[dropped[:filled]] = length + np.arange(filled)
    if added > filled:
        return np.concatenate([index, length + np.arange(filled, added)])
    return np.delete(index, dropped[filled:])


def _placed(values: list, added: list, dropped: list[int]) -> list:
    """The values _placement places: `values` with those at `dropped` replaced by `added`
    (as a new list)."""
    placed = values.copy()
    filled = min(len(dropped), len(added))
    for at, value in zip(dropped[:filled], added[:filled], strict=True):
        placed[at] = value
    if len(added) > filled:
        placed += added[filled:]
    for at in reversed(dropped[filled:]):
        del placed[at]
    return placed


def _source(at: int, length: int, added: int, dropped: list[int]) -> tuple[bool, int]:
    """Where row `at` of _placed's list comes from: (True, k) the k-th of `added`, or
    (False, i) the i-th of the `length` values before."""
    filled = min(len(dropped), added)
    if added > filled and at >= length:
        return True, filled + at - length
    for gone in dropped[filled:]:  # ascending: the rows removed, each moving those after
        if gone <= at:
            at += 1
        else:
            break
    replaced = dropped[:filled]
    k = bisect.bisect_left(replaced, at)
    if k < filled and replaced[k] == at:
        return True, k
    return False, at


_STEPS = 32  # changes a table's lists may stand behind the last made of them (_Placed)


class _Placed(Mapping):
    """A table's value lists after changes (Columns.spliced), each made when first read: a
    change copies no list that no reader reads. Copying every list touched every value the
    copy holds, and in a worker forked from a master that had read it, a touch writes to a
    page it shares with the master: after one drive was listed, each worker took a quarter
    of a second at once for it under load (`make bench-load UPLOADS=1`). A list is made
    from the last one made of it (or the copy's last whole read) and the changes since;
    one row (Columns.row) is looked up through them. Beyond _STEPS changes every list is
    made, so that the changes held stay few. Rank lists are made from their columns
    (`later`), as each change ranks again."""

    def __init__(
        self, base: Mapping[str, list], length: int, fresh: Mapping[str, list], dropped: list
    ):
        step = (length, fresh, dropped)
        self._made: dict[str, list] = {}
        self._later: dict[str, Callable[[], list]] = {}
        if isinstance(base, _Placed) and len(base._steps) < _STEPS:
            self._root, self._steps = base._root, (*base._steps, step)
            made = {n: (v, len(base._steps)) for n, v in base._made.items() if n in fresh}
            self._seeds = {**base._seeds, **made}
        else:
            self._root = {n: base[n] for n in fresh} if isinstance(base, _Placed) else base
            self._steps, self._seeds = (step,), {}

    def later(self, name: str, make: Callable[[], list]) -> None:
        """The list `name`, made by `make` when first read."""
        self._later[name] = make
        self._made.pop(name, None)

    def __getitem__(self, name: str) -> list:
        made = self._made.get(name)
        if made is None:
            if name in self._later:
                made = self._later[name]()
            else:
                made, start = self._seeds.get(name) or (self._root[name], 0)
                for _, fresh, dropped in self._steps[start:]:
                    made = _placed(made, fresh[name], dropped)
            self._made[name] = made
        return made

    def value(self, name: str, at: int) -> Any:
        """Row `at` of list `name`, without making the list."""
        made = self._made.get(name)
        if made is not None or name in self._later:
            return self[name][at]
        values, start = self._seeds.get(name) or (self._root[name], 0)
        for length, fresh, dropped in reversed(self._steps[start:]):
            added, at = _source(at, length, len(fresh[name]), dropped)
            if added:
                return fresh[name][at]
        return values[at]

    def __contains__(self, name: object) -> bool:
        return name in self._later or name in self._root

    def __iter__(self):
        return iter({**dict.fromkeys(self._root), **dict.fromkeys(self._later)})

    def __len__(self) -> int:
        return len({*self._root, *self._later})


def _listed(array: np.ndarray, null: np.ndarray) -> list:
    """A column's values as a list, None where `null`."""
    values = array.tolist()
    for at in np.flatnonzero(null).tolist():
        values[at] = None
    return values


class Stale(Exception):
    """The change log does not meet the copy held: read it again whole."""


class Columns:
    """A table's rows as named columns over the same rows, read from the database `alias`
    (where what only the database can say is looked up): what a FilterSet's mask narrows.
    A column is made when first read."""

    def __init__(self, alias: str, values: Mapping[str, list], length: int):
        self.alias = alias
        self._values = values
        self._columns: dict[str, Column] = {}
        self._length = length
        # Rows taken of other columns (take): each column is taken of theirs when first read.
        self._taken: tuple[Columns, np.ndarray] | None = None

    @classmethod
    def loaded(cls, alias: str, names: Sequence[str], arrays: list | None) -> Columns:
        """The columns `names` of a table as its load wrote them (Table.sql: one array
        per column, each NULL without rows)."""
        arrays = [_shared(a or []) for a in arrays or [None] * len(names)]
        return cls(alias, dict(zip(names, arrays, strict=True)), len(arrays[0]) if arrays else 0)

    def __len__(self) -> int:
        return self._length

    def __contains__(self, name: str) -> bool:
        return (
            name in self._values
            or name in self._columns
            or (self._taken is not None and name in self._taken[0])
        )

    def __getitem__(self, name: str) -> Column:
        column = self._columns.get(name)
        if column is None:
            if self._taken is not None:
                of, keep = self._taken
                column = of[name].take(keep)
            else:
                column = Column.of(self._values[name])
                column_made.send(sender=Columns, name=name)
            self._columns[name] = column
        return column

    def make_every(self) -> None:
        """Make every column of numbers, flags or text now (each is otherwise made when
        first read; one of JSON arrays, a row's values read by values(), is never made):
        what a process that forks workers does once, so that each worker starts with them
        (shared, until the copy moves) instead of making them on its first requests."""
        for name, values in self._values.items():
            first = next((v for v in values if v is not None), None)
            if not isinstance(first, list | dict):
                self[name]  # noqa: B018 - made and kept

    def values(self, name: str) -> list:
        """A column's values as loaded (JSON values)."""
        return self._values[name]

    def row(self, at: int) -> dict[str, Any]:
        """The values of one row, by column name."""
        if isinstance(self._values, _Placed):
            return {name: self._values.value(name, at) for name in self._values}
        return {name: values[at] for name, values in self._values.items()}

    def take(self, keep: np.ndarray) -> Columns:
        """The rows `keep` (a mask or positions) keeps: each column taken when first read
        (a reader reads few of them)."""
        taken = Columns(
            self.alias, {}, int(np.count_nonzero(keep)) if keep.dtype == bool else len(keep)
        )
        taken._taken = (self, keep)
        return taken

    def spliced(self, table: Table, changed: np.ndarray, arrays: list | None) -> Columns:
        """These rows without those of the drives `changed` (the key column table.key), and
        the rows `arrays` holds (Table.changed_sql: those drives' rows now) where they were
        (_placement), with table.ranks worked out again for every row. The columns made
        here are joined rather than made again; the values are new lists (this copy may be
        read meanwhile)."""
        plain = table.plain_names
        arrays = [a or [] for a in arrays or [None] * len(table.changed_names)]
        fresh = Columns.loaded(self.alias, plain, arrays[: len(plain)])
        dropped = (
            np.flatnonzero(np.isin(self[table.key].array, changed))
            if len(self) and len(changed)
            else np.zeros(0, np.intp)
        )
        index = _placement(len(self), dropped, len(fresh))
        drop = dropped.tolist()
        values = _Placed(self._values, len(self), fresh._values, drop)
        spliced = Columns(self.alias, values, len(index))
        for name in plain:
            made = self._columns.get(name)
            if made is not None and (joined := made.joined(fresh[name], index)) is not None:
                spliced._columns[name] = joined
        keep = np.ones(len(self), dtype=bool)
        keep[dropped] = False
        for at, (name, _) in enumerate(table.ranks):
            neighbours = arrays[len(plain) + 3 * at : len(plain) + 3 * at + 3]
            spliced._ranked(name, self, keep, index, table.key, *neighbours)
        return spliced

    def _ranked(
        self,
        name: str,
        held: Columns,
        keep: np.ndarray,
        index: np.ndarray,
        key: str,
        below: list,
        same: list,
        among: list,
    ) -> None:
        """Rank column `name` (dense ranks from 1, NULL without a value) of these rows,
        placed by `index` from the rows of `held` and then the new ones: the rows `keep`
        keeps of `held` are ordered by their ranks still (their values did not change),
        and each new row is placed by `below` (the key of the kept row with the greatest
        value not above its own, None: none), `same` (whether their values are equal) and
        `among` (its dense rank among the new rows; None: it has no value)."""
        ranks = held[name]
        old_rank = ranks.array.astype(np.int64)
        old_null = ~keep if ranks.null is None else ranks.null | ~keep
        fresh_null = np.array([a is None for a in among], dtype=bool)
        # Each new row's neighbour's rank, found by its key among the rows kept.
        kept = np.flatnonzero(keep)
        keys = held[key].array[kept]
        wanted = np.array([0 if b is None else b for b in below], dtype=np.int64)
        has_below = np.array([b is not None for b in below], dtype=bool) & ~fresh_null
        neighbour = np.zeros(len(wanted), dtype=np.int64)
        if has_below.any():
            by_key = np.argsort(keys, kind="stable")
            at = np.searchsorted(keys[by_key], wanted[has_below])
            found = by_key[np.minimum(at, len(keys) - 1)] if len(keys) else at
            if not len(keys) or not np.array_equal(keys[found], wanted[has_below]):
                raise Stale(f"{name}: a neighbour the copy does not hold")
            neighbour[has_below] = old_rank[kept[found]]
        equal = np.array([bool(s) for s in same], dtype=bool) & has_below
        # Kept rows at 2 x their rank; a new row at its neighbour's, or just after it (then
        # among the new rows there, by its own rank among them).
        order = np.array([0 if a is None else a for a in among], dtype=np.int64)
        spread = int(order.max(initial=0)) + 1
        first = np.where(equal, 2 * neighbour, 2 * neighbour + 1)
        placed = np.concatenate([2 * old_rank * spread, first * spread + np.where(equal, 0, order)])
        null = np.concatenate([old_null, fresh_null])
        rank = np.zeros(len(placed), dtype=np.int64)
        rank[~null] = np.unique(placed[~null], return_inverse=True)[1].reshape(-1) + 1
        rank, null = rank[index], null[index]
        self._values.later(name, functools.partial(_listed, rank, null))
        self._columns[name] = Column(rank, null if null.any() else None, None).normalized()

    # -- what filters' masks read (core.filters) ------------------------------------------

    def compare(self, name: str, lookup: str, value: Any) -> np.ndarray:
        """The rows whose `name` is `lookup` ("exact", "gte", "lte") `value`: text only for
        equality, and NULL never, as SQL compares."""
        column = self[name]
        text = column.codes is not None or isinstance(value, str)
        if text and lookup != "exact":
            raise ValueError(f"{name} is text, compared only for equality")
        code = (column.codes or {}).get(value) if text else None
        if value is None or (text and code is None):  # NULL, or a text no row holds
            return np.zeros(len(self), dtype=bool)
        if text:
            return column.array == code
        if column.array.dtype.kind in "biu" and not _INT64[0] <= value <= _INT64[1]:
            # Beyond every integer numpy holds: each compares with it as 0 does.
            found = np.full(len(self), _OPERATORS[lookup](0, value))
        else:
            found = _OPERATORS[lookup](column.array, value)
        return found if column.null is None else found & ~column.null

    def contains(self, name: str, text: str) -> np.ndarray:
        """The rows whose text `name` holds `text` as it is (ASCII: a byte of UTF-8 is an
        ASCII character only where the text has that character)."""
        column = self[name]
        holding = np.zeros(len(column.codes or ()) + 1, dtype=bool)  # the last: NULL's (-1)
        holding[:-1] = np.strings.find(column.texts(), text.encode()) >= 0
        return holding[column.array]

    def known(self, name: str) -> np.ndarray:
        """The rows whose `name` is not NULL."""
        column = self[name]
        return np.ones(len(self), dtype=bool) if column.null is None else ~column.null

    def isin(self, name: str, values: Iterable) -> np.ndarray:
        """The rows whose `name` is one of `values` (NULL never)."""
        column = self[name]
        found = np.isin(column.array, list(values))
        return found if column.null is None else found & ~column.null


@dataclass(frozen=True)
class Table:
    """A table of a copy: (name, SQL expression) pairs, over `rows` (a FROM clause and what
    follows it). `key`: the column naming the drive each row is of, by which a change is
    applied (core/sql/copy_changes.sql); without one, the table is read again whole each
    time (a small one). `ranks`: (name, SQL expression) pairs, each a column of every row's
    dense rank (from 1; NULL without a value) by that value among all rows."""

    name: str
    columns: tuple[tuple[str, str], ...]
    rows: str
    key: str = ""
    ranks: tuple[tuple[str, str], ...] = ()

    @property
    def plain_names(self) -> tuple[str, ...]:
        return tuple(name for name, _ in self.columns)

    @property
    def names(self) -> tuple[str, ...]:
        return (*self.plain_names, *(name for name, _ in self.ranks))

    @property
    def changed_names(self) -> tuple[str, ...]:
        """The arrays changed_sql reads: the columns, then each rank's three."""
        return (
            *self.plain_names,
            *(f"{name} {part}" for name, _ in self.ranks for part in ("below", "same", "among")),
        )

    def _selected(self) -> str:
        return ", ".join(f"{sql} AS c{i}" for i, (_, sql) in enumerate(self.columns))

    @property
    def sql(self) -> str:
        """The table as one JSON array of one array per column (each NULL without rows)."""
        ranks = [
            f"CASE WHEN {sql} IS NOT NULL THEN dense_rank() OVER (ORDER BY {sql}) END"
            for _, sql in self.ranks
        ]
        selected = ", ".join([self._selected()] + [f"{sql} AS r{i}" for i, sql in enumerate(ranks)])
        arrays = ", ".join(
            [f"json_agg(c{i})" for i in range(len(self.columns))]
            + [f"json_agg(r{i})" for i in range(len(ranks))]
        )
        return (
            f"(SELECT json_build_array({arrays})::text "
            f"FROM (SELECT {selected} FROM {self.rows}) AS {self.name})"
        )

    def changed_sql(self, drives: str) -> str:
        """The rows of the drives `drives` (an SQL array) as sql writes them, and for each
        rank, each row's place among the other drives' rows (Columns._ranked): the key of
        the row with the greatest value not above its own, whether they are equal, and its
        dense rank among these rows."""
        key = self.plain_names.index(self.key)
        key_sql = self.columns[key][1]
        values = "".join(f", {sql} AS v{i}" for i, (_, sql) in enumerate(self.ranks))
        among = "".join(
            f", CASE WHEN t.v{i} IS NOT NULL THEN dense_rank() OVER (ORDER BY t.v{i}) END AS a{i}"
            for i in range(len(self.ranks))
        )
        below = "".join(
            f"""
            LEFT JOIN LATERAL (
              SELECT u.k AS below, u.v = {self.name}.v{i} AS same
              FROM (SELECT {key_sql} AS k, {sql} AS v FROM {self.rows}) AS u
              WHERE u.v <= {self.name}.v{i} AND u.k <> ALL({drives})
              ORDER BY u.v DESC LIMIT 1) AS b{i} ON true"""
            for i, (_, sql) in enumerate(self.ranks)
        )
        arrays = ", ".join(
            [f"json_agg({self.name}.c{i})" for i in range(len(self.columns))]
            + [
                f"json_agg(b{i}.below), json_agg(b{i}.same), json_agg({self.name}.a{i})"
                for i in range(len(self.ranks))
            ]
        )
        return (
            f"(SELECT json_build_array({arrays})::text FROM ("
            f"SELECT t.*{among} FROM (SELECT {self._selected()}{values} FROM {self.rows}) AS t "
            f"WHERE t.c{key} = ANY({drives})) AS {self.name}{below})"
        )


@dataclass(frozen=True)
class Prelude:
    """A WITH query the tables of a copy read, `name` AS MATERIALIZED (`sql`); `key`, its
    column naming the drive each row is of (when the copy applies changes, only the changed
    drives' rows)."""

    name: str
    sql: str
    key: str


@dataclass(frozen=True)
class _Source:
    """What a copy was made of (made: what build made): its tables, and the latest version
    committed in the snapshot it was read in (the change log is read from there on)."""

    made: Any
    tables: dict[str, Columns]
    seen: int


# Every Copy declared, in the order their modules were imported (drives.catalog_index,
# results.entries_index): what a server warms before it forks (benchsite/warmup.py).
COPIES: list[Copy] = []

# Sent by a Copy around each read of its tables in this process (whole, or the changes since
# its version: not the version's own statement): `copy_reading` before, `copy_read` after with
# the `seconds` it took, statements included; both with the copy's `name`. The load
# benchmark's timing listens (loadtests/request_timing.py).
copy_reading = Signal()
copy_read = Signal()
# Sent by Columns when it makes a column (its first read in this copy), with its `name`: what
# a server's warm-up does before the fork, so that no request does (the load benchmark's
# timing counts them per request).
column_made = Signal()


class Copy:
    """A copy of `tables`, held per database the reads of `model` go to, current with the
    version `version_sql` reads (core.db.current_copy: its first column the version, its
    second whether this transaction has itself written what the copy holds; a read of the
    copy reads the version in the same statement). `name` is the copy's in the change log
    (core.versions.copy_triggers: the triggers of every table it reads must log it).
    `prelude` is a WITH query the tables may read. build(alias, version, tables) makes what
    a use gets: the tables' Columns, by name, with whatever its readers keep beside them.
    A change of more than `most_changed` drives reads it whole (each changed drive costs a
    lookup per rank). `prepare(made)` makes ahead what else readers of a copy make on their
    first reads of it (warm())."""

    def __init__(
        self,
        name: str,
        model: type[Model],
        version_sql: str,
        tables: Sequence[Table],
        build: Callable[[str, Any, dict[str, Columns]], Any],
        *,
        prelude: Prelude | None = None,
        most_changed: int = 500,
        prepare: Callable[[Any], None] | None = None,
    ):
        self.name, self.model, self.version_sql = name, model, version_sql
        self.tables, self.build, self.prepare = tables, build, prepare
        with_prelude = f"WITH {prelude.name} AS MATERIALIZED ({prelude.sql})" if prelude else ""
        self.load_sql = (
            f"{with_prelude}\nSELECT version.*, {COMMITTED_SQL}, "
            f"{', '.join(t.sql for t in tables)}\nFROM ({version_sql}) AS version"
        )
        # Since the version `{seen}`: the drives changed (NULL when the copy must be read
        # whole), then each table's rows of them (a table without drives, whole).
        drives = "(SELECT drives FROM _changes)::bigint[]"
        changed = f"""WITH _log AS MATERIALIZED (
  SELECT drives, whole FROM core_copychange WHERE copy = {literal(name)} AND version > {{seen}}),
_drives AS (SELECT ARRAY(SELECT DISTINCT unnest(drives) FROM _log ORDER BY 1) AS drives),
_whole AS (
  SELECT EXISTS (SELECT FROM _log WHERE whole)
    OR (SELECT horizon FROM core_copyhorizon) > {{seen}}
    OR (SELECT cardinality(drives) FROM _drives) > {most_changed} AS whole),
_changes AS MATERIALIZED (
  SELECT CASE WHEN w.whole THEN NULL ELSE d.drives END AS drives, w.whole
  FROM _drives d, _whole w)"""
        if prelude:
            changed += (
                f",\n{prelude.name} AS MATERIALIZED (SELECT * FROM ({prelude.sql}) AS "
                f"{prelude.name} WHERE {prelude.name}.{prelude.key} = ANY({drives}))"
            )
        self.changed_sql = (
            f"{changed}\nSELECT version.*, {COMMITTED_SQL}, _changes.whole, _changes.drives, "
            + ", ".join(t.changed_sql(drives) if t.key else t.sql for t in tables)
            + f"\nFROM ({version_sql}) AS version, _changes"
        )
        self.held: dict[str, Any] = {}
        self._sources: dict[str, _Source] = {}  # what each held copy was made of, by database
        self.reads = {"whole": 0, "changes": 0}  # how this process read it: what tests assert
        COPIES.append(self)

    def current(self) -> Any:
        """The current copy on the database `model` is read from: one prepared statement,
        and when the version moved, the change applied (or the copy read again whole)."""
        return current_copy(self.model, self.held, self.version_sql, self._read)

    def warm(self) -> Any:
        """The current copy (current()) with every column of its tables made
        (Columns.make_every), and what `prepare` makes: a server's master does this before
        it forks its workers."""
        made = self.current()
        source = self._sources.get(read_alias(self.model))
        if source is not None and source.made is made:
            for columns in source.tables.values():
                columns.make_every()
            if self.prepare is not None:
                self.prepare(made)
        return made

    def _read(self, alias: str, held: Any | None) -> Any:
        """The copy now on `alias` (_fetch), its read announced (copy_reading, copy_read)."""
        copy_reading.send(sender=Copy, name=self.name)
        started = time.perf_counter()
        made = self._fetch(alias, held)
        copy_read.send(sender=Copy, name=self.name, seconds=time.perf_counter() - started)
        return made

    def _fetch(self, alias: str, held: Any | None) -> Any:
        """The copy now on `alias`: `held` (None: none to keep up to date) with the changes
        since applied, or read whole."""
        source = self._sources.get(alias)
        if held is not None and source is not None and source.made is held:
            with connections[alias].cursor() as cursor:
                cursor.execute(self.changed_sql.replace("{seen}", str(int(source.seen))))
                version, written, seen, whole, drives, *texts = cursor.fetchone()
            if not whole and not written and version is not None:
                try:
                    made = self._keep(alias, version, seen, self._applied(source, drives, texts))
                except Stale:
                    pass
                else:
                    self.reads["changes"] += 1
                    return made
        with connections[alias].cursor() as cursor:
            cursor.execute(self.load_sql)
            version, written, seen, *texts = cursor.fetchone()
        self.reads["whole"] += 1
        tables = {
            table.name: Columns.loaded(alias, table.names, orjson.loads(text) if text else None)
            for table, text in zip(self.tables, texts, strict=True)
        }
        if written or version is None:
            return self.build(alias, version, tables)  # its own: kept by no one
        return self._keep(alias, version, seen, tables)

    def _applied(self, source: _Source, drives: list[int], texts: list) -> dict[str, Columns]:
        changed = np.array(drives, dtype=np.int64)
        tables = {}
        for table, text in zip(self.tables, texts, strict=True):
            arrays = orjson.loads(text) if text else None
            if table.key:
                tables[table.name] = source.tables[table.name].spliced(table, changed, arrays)
            else:
                alias = source.tables[table.name].alias
                tables[table.name] = Columns.loaded(alias, table.names, arrays)
        return tables

    def _keep(self, alias: str, version: Any, seen: int, tables: dict[str, Columns]) -> Any:
        made = self.build(alias, version, tables)
        self._sources[alias] = _Source(made, tables, seen)
        return made
