"""The drive list, held in each server process as columns (core.columns): every drive with
what the catalog page and the API's drives list show of it (drives.selectors.CatalogRow),
what their filters compare, what their search matches, and its rank in each order a list
can be read in.

A list narrows, counts, orders and pages ~10,000 drives here in a fraction of a
millisecond, where PostgreSQL took a millisecond to count and page them (each request's
filters and order make another statement) and another statement to read the page's rows.

The copy is current: each use reads the versions of the scopes it depends on (core.versions:
the catalog and the drive lists, moved on when a transaction that wrote drives, makers,
controllers, NAND types or prices commits) and when they moved, reads the rows of the drives
changed since (core.columns.Copy, the log drives.versioned.CATALOG_COPIED writes), in one
statement (one snapshot). A transaction that has itself written a versioned table
(core.versions.WRITTEN) reads a copy of its own, made from what it sees and kept by no one.

What PostgreSQL decides stays PostgreSQL's: the orders are its ranks (its collation), the
search matches its UPPER() of the search text. A search word beyond ASCII, whose upper case
only the database can say, is looked up there. A drive without a value (no capacity, no
release date) comes last in either direction, as every API list orders
(core.filters.StableOrderingFilter)."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence

import numpy as np
import orjson
from django.db import connections

from core.columns import Columns, Copy, Table
from core.db import read_alias
from core.links import page_urls
from core.versions import CATALOG, DRIVES, WRITTEN, versions_sql
from drives.models import Drive
from drives.versioned import CATALOG_COPY

_VERSION_SQL = f"SELECT {versions_sql(CATALOG, DRIVES)}, {WRITTEN}"

# The orders a drive list can be read in (see selectors.DRIVE_ORDERS), ranked by PostgreSQL.
ORDERS = {
    "sort_name": "d.sort_name",
    "model": "d.model",
    "capacity_bytes": "d.capacity_bytes",
    "release_date": "d.release_date",
    "manufacturer__name": "m.name",
}

# Every drive: what a CatalogRow is made of, what the filters compare (by the field they
# name on a drive; a related entry's by its slug) and what a search matches.
_DRIVES = Table(
    "drives",
    (
        ("id", "d.id"),
        ("slug", "d.slug"),
        ("manufacturer__slug", "m.slug"),
        ("manufacturer__name", "m.name"),
        ("model", "d.model"),
        ("capacity_bytes", "d.capacity_bytes"),
        ("part_number", "d.part_number"),
        ("hardware_revision", "d.hardware_revision"),
        ("kind", "d.kind"),
        ("interface", "d.interface"),
        ("form_factor", "d.form_factor"),
        ("controller__slug", "c.slug"),
        ("controller__vendor__name", "cv.name"),
        ("controller__model", "c.model"),
        ("nand__slug", "n.slug"),
        ("nand__vendor__name", "nv.name"),
        ("nand__process_nm", "n.process_nm"),
        ("nand__layers", "n.layers"),
        ("nand__cell_type", "n.cell_type"),
        ("nand__interface", "n.interface"),
        ("dram_bytes", "d.dram_bytes"),
        ("release_date", "d.release_date"),
        ("synthetic", "d.synthetic"),
        ("needs_review", "d.needs_review"),
        ("listed", "d.listed"),
        ("latest_price", "p.amount::text"),
        ("search_text", "UPPER(d.search_text::text)"),  # as icontains compares it
    ),
    """drives_drive d
    JOIN drives_manufacturer m ON m.id = d.manufacturer_id
    LEFT JOIN drives_controller c ON c.id = d.controller_id
    LEFT JOIN drives_manufacturer cv ON cv.id = c.vendor_id
    LEFT JOIN drives_nandtype n ON n.id = d.nand_id
    LEFT JOIN drives_manufacturer nv ON nv.id = n.vendor_id
    LEFT JOIN LATERAL (
      SELECT p.amount FROM drives_price p WHERE p.drive_id = d.id AND p.currency = 'USD'
      ORDER BY p.observed_on DESC, p.amount LIMIT 1) p ON true""",
    key="id",
    # NULL without a value: ordered last whichever the direction (CatalogIndex.order).
    ranks=tuple((f"rank {name}", sql) for name, sql in ORDERS.items()),
)
# Every controller as a filter form offers it: (slug, "vendor model"), in that name's order.
_CONTROLLERS = Table(
    "controllers",
    (
        ("slug", "c.slug"),
        ("name", "m.name || ' ' || c.model"),
        ("rank", "row_number() OVER (ORDER BY m.name, c.model)"),
    ),
    "drives_controller c JOIN drives_manufacturer m ON m.id = c.vendor_id",
)
_HELD_ORDERS = 64  # orders kept per copy (a client may combine the fields in many ways)


class CatalogIndex:
    """One snapshot of the drive list (see the module's docstring): `drives`, its columns,
    what a FilterSet's mask narrows; and `controllers`, the choices of the catalog's filter
    form ((slug, name) in order)."""

    def __init__(self, alias: str, version: int | None, tables: dict[str, Columns]):
        self.alias, self.version = alias, version
        drives = self.drives = tables["drives"]
        self.slugs = {slug: at for at, slug in enumerate(drives.values("slug"))}
        self.synthetic = drives["synthetic"].array
        self.listed = drives["listed"].array
        self.real = ~self.synthetic
        # Each order's ranks, and where a drive has no value (None: every drive has one).
        self.ranks = {name: drives[f"rank {name}"] for name in ORDERS}
        self.ranks["pk"] = drives["id"]
        held = tables["controllers"]
        self.controllers = [
            (slug, name)
            for _, slug, name in sorted(
                zip(held.values("rank"), held.values("slug"), held.values("name"), strict=True)
            )
        ]
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
        """How many listed drives `keep` (a mask, None: all) holds, real ones only (real),
        and `limit` of them from `offset` in `order`, each made by row(values, url)."""
        ordered = self.order(tuple(order))
        keep = self.listed if keep is None else keep & self.listed
        if real:
            keep = keep & self.real
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
        descending), those without a value after those with one in either direction (as
        core.filters.nulls_last orders a queryset). Made once per copy and order."""
        made = self._orders.get(order)
        if made is None and not len(self.ranks["pk"].array):
            # No drive: nothing to order (an empty column holds booleans, which a
            # descending key cannot negate).
            made = np.zeros(0, dtype=np.intp)
        if made is None:
            keys = []
            for name in reversed(order):  # lexsort's last key is the first
                ranks = self.ranks[name.removeprefix("-")]
                keys.append(-ranks.array if name.startswith("-") else ranks.array)
                if ranks.null is not None:
                    keys.append(ranks.null)  # before its ranks: NULLs last
            made = np.lexsort(keys or [self.ranks["pk"].array])
            if len(self._orders) >= _HELD_ORDERS:
                self._orders.clear()
            self._orders[order] = made
        return made

    def made(self, positions: list[int], row: Callable) -> list:
        """The drives at these positions, each made by row(values, url) (values: its
        columns, by name) once per copy, per `row` and per way of writing links (the
        script prefix, see page_urls)."""
        url = page_urls("bench:drive")
        made = self._made.setdefault((row, url("-")), {})
        found = []
        for at in positions:
            value = made.get(at)
            if value is None:
                value = made[at] = row(self.drives.row(at), url)
            found.append(value)
        return found


_COPY = Copy(CATALOG_COPY, Drive, _VERSION_SQL, [_DRIVES, _CONTROLLERS], CatalogIndex)
_held = _COPY.held  # this process's copies, by database


def catalog_index() -> CatalogIndex:
    """The current copy on the database drives are read from. One prepared statement, and
    one more when the catalog changed: the changed drives' rows (core.columns.Copy)."""
    return _COPY.current()


# What a drive's row is made of, without what only the copy needs (each order's rank, which
# ranks every drive; the search text): read a row at a time, as JSON as the copy holds it.
_ROW_COLUMNS = tuple((name, sql) for name, sql in _DRIVES.columns if name != "search_text")
_ORDER_SQL = {**ORDERS, "pk": "d.id"}


def drives_streamed(*, real: bool, order: Sequence[str], batch: int) -> Iterator[list[dict]]:
    """Every listed drive's values as the copy holds them (a CatalogIndex.page row's, by
    column name), real ones only (real), in `order` (as CatalogIndex.order orders: NULLs
    last either way), `batch` at a time, read through a server-side cursor: for a reader of
    the whole list (the open-data dump) that holds one batch, not every drive."""
    keys = [
        f"{_ORDER_SQL[name.removeprefix('-')]} "
        f"{'DESC' if name.startswith('-') else 'ASC'} NULLS LAST"
        for name in order
    ]
    values = ", ".join(sql for _, sql in _ROW_COLUMNS)
    where = "d.listed" + (" AND NOT d.synthetic" if real else "")
    names = [name for name, _ in _ROW_COLUMNS]
    sql = (
        f"SELECT json_build_array({values})::text FROM {_DRIVES.rows} WHERE {where} "
        f"ORDER BY {', '.join(keys) or 'd.id'}"
    )
    with connections[read_alias(Drive)].chunked_cursor() as cursor:
        cursor.execute(sql)
        while rows := cursor.fetchmany(batch):
            yield [dict(zip(names, orjson.loads(text), strict=True)) for (text,) in rows]
