"""The drive list, held in each server process as columns: every drive with what the
catalog page and the API's drives list show of it (drives.selectors.CatalogRow), what their
filters compare, what their search matches, and its rank in each order a list can be read in.

A list narrows, counts, orders and pages ~10,000 drives here in a fraction of a
millisecond, where PostgreSQL took a millisecond to count and page them (each request's
filters and order make another statement) and another statement to read the page's rows.

The copy is current: each use reads the catalog's version (drives_catalogversion, moved on
when a transaction that wrote drives, makers, controllers, NAND types or prices commits;
migration 0011) and reads everything again when it moved, in one statement (one snapshot).
A transaction that has itself written those tables (`bench.drives_written`) reads a copy of
its own, made from what it sees and kept by no one.

What PostgreSQL decides stays PostgreSQL's: the orders are its ranks (its collation, NULL
last going up and first going down), the search matches its UPPER() of the search text.
A search word beyond ASCII, whose upper case only the database can say, is looked up there."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
import orjson
from django.db.models import Model

from core.db import current_copy
from core.links import page_urls
from core.versions import CATALOG, DRIVES, WRITTEN, versions_sql
from drives.filters import search_q, search_terms
from drives.models import Controller, Drive, Manufacturer, NandType

_VERSION_SQL = f"SELECT {versions_sql(CATALOG, DRIVES)}, {WRITTEN}"

# The orders a drive list can be read in (see selectors.DRIVE_ORDERS), ranked by PostgreSQL.
ORDERS = ("sort_name", "model", "capacity_bytes", "release_date", "manufacturer__name")
_RANKED = ("d.sort_name", "d.model", "d.capacity_bytes", "d.release_date", "m.name")

# Positions in a drive's row (_LOAD_SQL's array): what a CatalogRow is made of, then what
# filters compare and search matches.
_SLUG, _MAKER_SLUG, _CAPACITY, _KIND, _INTERFACE = 0, 1, 4, 7, 8
_CONTROLLER_SLUG, _NAND_SLUG, _CELL, _SYNTHETIC, _PRICE = 10, 13, 17, 21, 22
_ID, _MAKER_ID, _CONTROLLER_ID, _NAND_ID, _SEARCH, _RANKS = 23, 24, 25, 26, 27, 28

_LOAD_SQL = f"""
SELECT {versions_sql(CATALOG, DRIVES)},
       (SELECT json_agg(row ORDER BY id)::text FROM (
        SELECT d.id, json_build_array(
          d.slug, m.slug, m.name, d.model, d.capacity_bytes, d.part_number,
          d.hardware_revision, d.kind, d.interface, d.form_factor, c.slug, cv.name, c.model,
          n.slug, nv.name, n.process_nm, n.layers, n.cell_type, n.interface,
          d.dram_bytes, d.release_date, d.synthetic, p.amount::text,
          d.id, d.manufacturer_id, d.controller_id, d.nand_id, UPPER(d.search_text::text),
          {", ".join(f"dense_rank() OVER (ORDER BY {c})" for c in _RANKED)}) AS row
        FROM drives_drive d
        JOIN drives_manufacturer m ON m.id = d.manufacturer_id
        LEFT JOIN drives_controller c ON c.id = d.controller_id
        LEFT JOIN drives_manufacturer cv ON cv.id = c.vendor_id
        LEFT JOIN drives_nandtype n ON n.id = d.nand_id
        LEFT JOIN drives_manufacturer nv ON nv.id = n.vendor_id
        LEFT JOIN LATERAL (
          SELECT p.amount FROM drives_price p WHERE p.drive_id = d.id AND p.currency = 'USD'
          ORDER BY p.observed_on DESC, p.amount LIMIT 1) p ON true) drives)
"""

# What the filters compare (drives.filters.Columns), by the field they name on a drive.
_TEXT_FIELDS = {"kind": _KIND, "interface": _INTERFACE, "nand__cell_type": _CELL}
_ID_FIELDS = {"manufacturer": _MAKER_ID, "controller": _CONTROLLER_ID, "nand": _NAND_ID}
_SLUGS = {
    Manufacturer: (_MAKER_SLUG, _MAKER_ID),
    Controller: (_CONTROLLER_SLUG, _CONTROLLER_ID),
    NandType: (_NAND_SLUG, _NAND_ID),
}
_HELD_ORDERS = 64  # orders kept per copy (a client may combine the fields in many ways)


class CatalogIndex:
    """One snapshot of the drive list (see the module's docstring)."""

    def __init__(self, alias: str, loaded: tuple):
        version, drives = loaded  # _LOAD_SQL's row
        self.alias, self.version = alias, version
        rows = self.rows = orjson.loads(drives) if drives else []  # in the order of ids
        count = len(rows)
        self.slugs = {row[_SLUG]: i for i, row in enumerate(rows)}
        self.synthetic = np.fromiter((row[_SYNTHETIC] for row in rows), bool, count)
        self.real = ~self.synthetic
        self.codes: dict[str, dict[str, int]] = {}
        self.columns: dict[str, np.ndarray] = {}
        for field, at in _TEXT_FIELDS.items():
            codes = self.codes[field] = {}
            self.columns[field] = np.fromiter(
                (-1 if row[at] is None else codes.setdefault(row[at], len(codes)) for row in rows),
                np.int64,
                count,
            )
        for field, at in _ID_FIELDS.items():
            self.columns[field] = np.fromiter(
                (-1 if row[at] is None else row[at] for row in rows), np.int64, count
            )
        # The slugs of the makers, controllers and NAND types drives name (another names none).
        self.ids: dict[type[Model], dict[str, int]] = {
            model: {row[slug]: row[pk] for row in rows if row[slug] is not None}
            for model, (slug, pk) in _SLUGS.items()
        }
        self.pks = np.fromiter((row[_ID] for row in rows), np.int64, count)
        self.capacity = np.fromiter((row[_CAPACITY] or 0 for row in rows), np.int64, count)
        self.has_capacity = np.fromiter((row[_CAPACITY] is not None for row in rows), bool, count)
        # The search texts, upper case, as UTF-8 (an ASCII word's bytes are found in them
        # where its characters are: no other character's bytes hold an ASCII byte).
        self.texts = np.array([row[_SEARCH].encode() for row in rows], dtype=np.bytes_)
        self.ranks = {
            name: np.fromiter((row[_RANKS + k] for row in rows), np.int64, count)
            for k, name in enumerate(ORDERS)
        }
        self.ranks["pk"] = np.arange(count, dtype=np.int64)
        self._orders: dict[tuple[str, ...], np.ndarray] = {}
        self._made: dict[tuple[Callable, str], dict[int, object]] = {}

    def page(
        self,
        keep: np.ndarray | None,
        order: Sequence[str],
        offset: int,
        limit: int,
        *,
        real: bool,
        row: Callable,
    ) -> tuple[int, list]:
        """How many drives `keep` (a mask, None: all) holds, real ones only (real), and
        `limit` of them from `offset` in `order`, each made by row(values, url)."""
        ordered = self.order(tuple(order))
        if real:
            keep = self.real if keep is None else keep & self.real
        if keep is not None:
            ordered = ordered[keep[ordered]]
        total = len(ordered)
        start = min(offset, total)
        return total, self.made(ordered[start : start + limit].tolist(), row)

    def find(self, slug: str, *, real: bool, row: Callable) -> object | None:
        """The drive of this slug, made by row(values, url) (None: none, or not real)."""
        at = self.slugs.get(slug)
        if at is None or (real and self.synthetic[at]):
            return None
        return self.made([at], row)[0]

    def order(self, order: tuple[str, ...]) -> np.ndarray:
        """Every drive's position, in `order` (names of ORDERS and "pk", "-" for
        descending). Made once per copy and order."""
        made = self._orders.get(order)
        if made is None:
            keys = []
            for name in reversed(order):  # lexsort's last key is the first
                rank = self.ranks[name.removeprefix("-")]
                keys.append(-rank if name.startswith("-") else rank)
            made = np.lexsort(keys) if keys else np.arange(len(self.rows))
            if len(self._orders) >= _HELD_ORDERS:
                self._orders.clear()
            self._orders[order] = made
        return made

    def made(self, positions: list[int], row: Callable) -> list:
        """The drives at these positions, each made by row(values, url) once per copy, per
        `row` and per way of writing links (the script prefix, see page_urls)."""
        url = page_urls("bench:drive")
        made = self._made.setdefault((row, url("-")), {})
        found = []
        for at in positions:
            value = made.get(at)
            if value is None:
                value = made[at] = row(self.rows[at], url)
            found.append(value)
        return found

    # -- drives.filters.Columns -----------------------------------------------------------

    def compare(self, field_name: str, lookup: str, value) -> np.ndarray:
        column = self.capacity if field_name == "capacity_bytes" else self.columns[field_name]
        if field_name in _TEXT_FIELDS:
            if lookup != "exact":
                raise ValueError(f"{field_name} is compared only for equality")
            value = self.codes[field_name].get(value, -2)  # -1 is NULL, -2 no drive's
        if value is None:  # as SQL compares with NULL
            return np.zeros(len(self.rows), dtype=bool)
        if lookup == "exact":
            found = column == value
        else:
            found = column >= value if lookup == "gte" else column <= value
        # Unknown capacities are held as 0, ids and texts that are NULL as -1: never equal.
        return found & self.has_capacity if field_name == "capacity_bytes" else found

    def slug_id(self, model: type[Model], slug: str) -> int | None:
        return self.ids[model].get(slug)

    def search(self, text: str) -> np.ndarray:
        terms = search_terms(text)
        if not text.isascii():  # upper case beyond ASCII is the database's to say
            found = Drive.objects.using(self.alias).filter(search_q(text)).values_list("pk")
            ids = np.fromiter((pk for (pk,) in found), np.int64)
            return np.isin(self.pks, ids)
        keep = np.ones(len(self.rows), dtype=bool)
        for name, term in terms:
            if name == "search_text":
                keep &= self._containing(term)
            else:
                low, high, word = term
                within = self.has_capacity & (self.capacity >= low) & (self.capacity <= high)
                keep &= within | self._containing(word)
        return keep

    def _containing(self, word: str) -> np.ndarray:
        """The drives whose search text holds `word` (ASCII), as SQL's UPPER() LIKE does."""
        return np.strings.find(self.texts, word.upper().encode()) >= 0


_held: dict[str, CatalogIndex] = {}


def catalog_index() -> CatalogIndex:
    """The current copy on the database drives are read from. One prepared statement, and
    one more to read it all again when the catalog changed."""
    return current_copy(Drive, _held, _VERSION_SQL, _LOAD_SQL, CatalogIndex)
