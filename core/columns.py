"""Rows held in each server process as named columns, current with a version: the drive list
(drives.catalog_index) and what value views price (results.value_index).

A copy is declared as tables, each a list of (name, SQL expression) pairs over its rows; the
load statement follows from them, and each column is read by its name. Names of the columns
that filters compare are their fields as the ORM names them ("kind", "nand__cell_type"), so
that a FilterSet's mask reads them (core.filters.FilterSet.mask).

A copy is read again, whole, when its version moves (core.db.current_copy): one statement,
so one snapshot, in which each column travels as one JSON array (the table's rows in the
same order in every column, aggregated in one pass)."""

from __future__ import annotations

import operator
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import orjson
from django.db.models import Model

from core.db import current_copy

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


class Columns:
    """A table's rows as named columns over the same rows, read from the database `alias`
    (where what only the database can say is looked up): what a FilterSet's mask narrows.
    A column is made when first read."""

    def __init__(self, alias: str, values: Mapping[str, list], length: int):
        self.alias = alias
        self._values = values
        self._columns: dict[str, Column] = {}
        self._length = length

    @classmethod
    def loaded(cls, alias: str, names: Sequence[str], arrays: list | None) -> Columns:
        """The columns `names` of a table as its load wrote them (Table.sql: one array
        per column, each NULL without rows)."""
        arrays = [a or [] for a in arrays or [None] * len(names)]
        return cls(alias, dict(zip(names, arrays, strict=True)), len(arrays[0]) if arrays else 0)

    def __len__(self) -> int:
        return self._length

    def __contains__(self, name: str) -> bool:
        return name in self._values or name in self._columns

    def __getitem__(self, name: str) -> Column:
        column = self._columns.get(name)
        if column is None:
            column = self._columns[name] = Column.of(self._values[name])
        return column

    def values(self, name: str) -> list:
        """A column's values as loaded (JSON values)."""
        return self._values[name]

    def row(self, at: int) -> dict[str, Any]:
        """The values of one row, by column name."""
        return {name: values[at] for name, values in self._values.items()}

    def take(self, keep: np.ndarray) -> Columns:
        """The rows `keep` (a mask or positions) keeps, every column made."""
        taken = Columns(
            self.alias, {}, int(np.count_nonzero(keep)) if keep.dtype == bool else len(keep)
        )
        taken._columns = {name: self[name].take(keep) for name in (*self._values, *self._columns)}
        return taken

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

    def isin(self, name: str, values: Iterable) -> np.ndarray:
        """The rows whose `name` is one of `values` (NULL never)."""
        column = self[name]
        found = np.isin(column.array, list(values))
        return found if column.null is None else found & ~column.null


@dataclass(frozen=True)
class Table:
    """A table of a copy: (name, SQL expression) pairs, over `rows` (a FROM clause and what
    follows it; window functions may rank the rows)."""

    name: str
    columns: tuple[tuple[str, str], ...]
    rows: str

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(name for name, _ in self.columns)

    @property
    def sql(self) -> str:
        """The table as one JSON array of one array per column (each NULL without rows)."""
        selected = ", ".join(f"{sql} AS c{i}" for i, (_, sql) in enumerate(self.columns))
        arrays = ", ".join(f"json_agg(c{i})" for i in range(len(self.columns)))
        return (
            f"(SELECT json_build_array({arrays})::text "
            f"FROM (SELECT {selected} FROM {self.rows}) AS {self.name})"
        )


class Copy:
    """A copy of `tables`, held per database the reads of `model` go to, current with the
    version `version_sql` reads (core.db.current_copy: its first column the version, its
    second whether this transaction has itself written what the copy holds; the load reads
    the version in the same statement). `prelude` is a WITH clause the tables may read.
    build(alias, version, tables) makes what a use gets: the tables' Columns, by name, with
    whatever its readers keep beside them."""

    def __init__(
        self,
        model: type[Model],
        version_sql: str,
        tables: Sequence[Table],
        build: Callable[[str, Any, dict[str, Columns]], Any],
        *,
        prelude: str = "",
    ):
        self.model, self.version_sql, self.tables, self.build = model, version_sql, tables, build
        self.load_sql = (
            f"{prelude}\nSELECT version.*, {', '.join(t.sql for t in tables)}\n"
            f"FROM ({version_sql}) AS version"
        )
        self.held: dict[str, Any] = {}

    def current(self) -> Any:
        """The current copy on the database `model` is read from: one prepared statement,
        and the load again when the version moved."""
        return current_copy(self.model, self.held, self.version_sql, self.load_sql, self._build)

    def _build(self, alias: str, row: tuple) -> Any:
        version, _written, *tables = row
        return self.build(
            alias,
            version,
            {
                table.name: Columns.loaded(alias, table.names, orjson.loads(text) if text else None)
                for table, text in zip(self.tables, tables, strict=True)
            },
        )
