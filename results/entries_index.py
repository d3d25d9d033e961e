"""The leaderboard entries rankings rank and value views price, held in each server process
as columns: every entry the pages show (its drive not awaiting review), with its drive's
specs and latest price as the entries keep them; every USD price (for prices as of a date);
the throughput tests and the controllers a filter form offers; and the labels of the drives.

A ranking orders, filters (core.filters.FilterSet.mask) and pages a test's entries here, and
a value view filters, prices, walks the frontier of, samples and ranks ~10,000 drives, each
in well under a millisecond: a ranking's statements cost a leaderboard a third of its time,
and a value view's 5 ms, 20 ms with prices as of a date (each request's filters and test made
another statement and plan).

The copy is current: each use reads the versions of the scopes it depends on (core.versions:
the catalog, the rankings, the value views and the drive lists, moved on when a transaction
that wrote entries, prices, drives, makers, controllers or tests commits) and when they
moved, reads the rows of the drives changed since (core.columns.Copy, the log
results.versioned.ENTRIES_COPIED writes), in one statement (one snapshot). A transaction that
has itself written a versioned table (core.versions.WRITTEN) reads a copy of its own, made
from what it sees and kept by no one."""

from __future__ import annotations

import datetime
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
from django.conf import settings

from core.columns import Column, Columns, Copy, Prelude, Table
from core.links import page_urls
from core.versions import CATALOG, DRIVES, RANKINGS, VALUE, WRITTEN, literal, versions_sql
from drives.selectors import LABEL_COLUMNS, LABEL_TABLES, DriveLabel, label_of
from results.models import DRIVE_COPIES, LeaderboardEntry, Test, copy_field, method_label
from results.selectors.common import TEST_SHAPE
from results.spread import Spread
from results.tails import RANKED_PERCENTILE
from results.versioned import ENTRIES_COPY

DATE_BITS = 20  # a date's ordinal (date.toordinal) stays below 2**20 until the year 2871
VALUE_BLOCK_SIZE = 4096  # value views price the IOPS of the 4KB throughput tests

_VERSION_SQL = f"SELECT {versions_sql(CATALOG, RANKINGS, VALUE, DRIVES)}, {WRITTEN}"

# The entries the pages show (e), read by every table.
_PRELUDE = Prelude(
    "e",
    "SELECT e.* FROM results_leaderboardentry e WHERE NOT e.needs_review",
    key="drive_id",
)


def _drive_copies() -> tuple[list[tuple[str, str]], str]:
    """The entries' copies of their drive's specs (DRIVE_COPIES) as columns named as the
    drive filters name them on an entry, a related entry's slug beside its id (SlugFilter's
    mask reads it); and the joins to those entries' tables, each aliased as its field."""
    columns, joins = [], ""
    for path in DRIVE_COPIES:
        field = LeaderboardEntry._meta.get_field(copy_field(path))
        columns.append((field.name, f"e.{field.column}"))
        if field.is_relation:
            columns.append((f"{field.name}__slug", f"{field.name}.slug"))
            joins += (
                f" LEFT JOIN {field.related_model._meta.db_table} {field.name}"
                f" ON {field.name}.id = e.{field.column}"
            )
    return columns, joins


_COPIES, _COPIES_JOINS = _drive_copies()
# What rankings order by and which latency each is (results.selectors.rankings.RankOrder):
# a ranking reads the rest of a row it shows by its id, once per copy.
RANKED_FIGURES = (
    "bytes_per_second",
    "iops_min",
    "latency_mean_ns",
    "latency_kind",
    "latency_p999_ns",
)
_ENTRIES = Table(
    "entries",
    (
        ("id", "e.id"),
        ("test", "e.test_id"),
        ("test__queue_depth", "t.queue_depth"),  # the queue-depth filter's (results.filters)
        ("drive", "e.drive_id"),
        ("hash", "hashint8(e.drive_id)"),  # the sample's order (the same in every request)
        ("iops", "e.iops"),
        ("price", "e.price_usd"),
        ("observed", "COALESCE(e.price_observed_on - DATE '0001-01-01' + 1, 0)"),  # ordinal
        ("quick", "e.quick"),
        # Its group's spread (results.spread), the range in IOPS, and how it was obtained.
        ("runs", "e.runs"),
        ("cv", "e.cv"),
        ("low_iops", "e.low_bps / NULLIF(e.bytes_per_second, 0) * e.iops"),
        ("high_iops", "e.high_bps / NULLIF(e.bytes_per_second, 0) * e.iops"),
        ("method", "e.method"),
        ("tool", "e.tool_name"),
        ("iops_derived", "e.derived = 'iops'"),
        ("worst", "e.worst"),
        ("synthetic", "e.synthetic"),
        ("pattern", "e.pattern"),
        ("source", "e.source"),
        *((name, f"e.{name}") for name in RANKED_FIGURES),
        # Whether its group has a p99.9 at all (results.tails; ranked only over enough I/Os).
        ("p999_measured", f"e.latency_percentiles_ns ? {literal(RANKED_PERCENTILE)}"),
        *_COPIES,
    ),
    f"e JOIN results_test t ON t.id = e.test_id{_COPIES_JOINS}",
    key="drive",
)
# Every USD price, for prices as of a date.
_PRICES = Table(
    "prices",
    (
        ("drive", "p.drive_id"),
        ("observed", "p.observed_on - DATE '0001-01-01' + 1"),
        ("amount", "p.amount::float8"),
    ),
    "drives_price p WHERE p.currency = 'USD'",
    key="drive",
)
# The throughput tests (the ones rankings rank; value views price in those of 4KB), each as
# TEST_SHAPE's array, and every controller a filter form offers (slug, "vendor model"): what
# a form shows, read in the same snapshot as what it ranks or prices.
_TESTS = Table(
    "tests",
    (("rank", "row_number() OVER (ORDER BY t.identifier)"), ("shape", TEST_SHAPE.array)),
    "results_test t WHERE t.kind = 'throughput'",
)
_CONTROLLERS = Table(
    "controllers",
    (
        ("rank", "row_number() OVER (ORDER BY m.name, c.model)"),
        ("slug", "c.slug"),
        ("name", "m.name || ' ' || c.model"),
    ),
    "drives_controller c JOIN drives_manufacturer m ON m.id = c.vendor_id",
)
# The labels of the drives with entries (drives.selectors.label_of).
_LABELS = Table(
    "labels",
    (("drive", "d.id"), ("label", f"json_build_array({LABEL_COLUMNS})")),
    f"{LABEL_TABLES} WHERE d.id IN (SELECT drive_id FROM e)",
    key="drive",
)


@dataclass(slots=True)
class ValuePoint:
    """A priced entry as a value view shows it."""

    drive: DriveLabel
    iops: float
    price: float
    observed_on: datetime.date
    frontier: bool
    highlighted: bool
    quick: bool = False  # the figure comes from a quick (smoke) run
    iops_derived: bool = False  # the IOPS follow from a published MB/s (bytes/s ÷ block size)
    spread: Spread | None = None  # its group's, in IOPS
    method: str = ""  # its class (results.models.method_label)
    # What is worked out once for the point (core.held: its table rows, its scatter mark):
    # a point at the latest prices is the same object in every request that shows it.
    shown: dict = field(default_factory=dict, repr=False, compare=False)

    @property
    def per_gb(self) -> float | None:
        cap = self.drive.capacity_bytes
        return self.price / (cap / 1e9) if cap else None

    @property
    def per_kiops(self) -> float:
        return self.price / (self.iops / 1000)


@dataclass
class Priced:
    """What EntriesIndex.price found: how many drives it priced (`considered`); in price
    order (then the most IOPS first), the points a value view shows (frontier, highlighted,
    sample, cheapest); and each list's points, in order (the cheapest per GB only among
    drives with a capacity)."""

    considered: int
    points: list[ValuePoint]
    frontier: list[ValuePoint]
    cheapest_per_gb: list[ValuePoint]
    cheapest_per_kiops: list[ValuePoint]


class _TestRows:
    """The entries of one test a value view may price, as columns: every drive's worst case
    or every entry, the synthetic ones or not."""

    def __init__(self, columns: Columns):
        self.columns = columns  # what a FilterSet's mask narrows
        self.drive = columns["drive"].array
        self.iops = columns["iops"].floats()
        self.price = columns["price"].floats()
        self.observed = columns["observed"].array
        self.quick, self.derived = columns["quick"].array, columns["iops_derived"].array
        self.runs, self.cv = columns["runs"].array, columns["cv"].floats()
        self.low, self.high = columns["low_iops"].floats(), columns["high_iops"].floats()
        # Each row's class (results.models.method_label), labelled once per copy.
        labels = {}
        self.method = [
            labels.get(key) or labels.setdefault(key, method_label(*key))
            for key in zip(_texts(columns["method"]), _texts(columns["tool"]), strict=True)
        ]
        self.capacity = columns["capacity_bytes"].floats()
        self._spreads: dict[int, Spread] = {}
        # The points at the latest prices (EntriesIndex.price), made once per copy: by row,
        # whether on the frontier and highlighted, and the label (its links' prefix).
        self.points: dict[tuple[int, bool, bool, int], ValuePoint] = {}
        # Orders that do not change with the filters: the sample's (the lowest hashes of
        # the drives' ids, the same drives in every request), and the latest prices' (price,
        # then the most IOPS, then the drive: the order the frontier is walked in).
        self.sample_order = np.lexsort((self.drive, columns["hash"].array))
        priced = np.flatnonzero(~np.isnan(self.price))
        self.price_order = priced[
            np.lexsort((self.drive[priced], -self.iops[priced], self.price[priced]))
        ]
        # The cheapest per GB and per 1,000 IOPS at the latest prices, likewise.
        self.cheapest_orders = []
        for ratio in self.ratios(self.price):
            ranked = _smallest(ratio, self.drive, len(self.drive))
            self.cheapest_orders.append(ranked[np.isfinite(ratio[ranked])])

    def spreads(self, rows: list[int]) -> list[Spread]:
        """The spreads of these rows, in IOPS: made once per copy, as the same points come
        back request after request."""
        made, spreads = self._spreads, []
        for row in rows:
            spread = made.get(row)
            if spread is None:
                cv = self.cv[row]
                spread = made[row] = Spread(
                    int(self.runs[row]),
                    float(self.iops[row]),
                    float(self.low[row]),
                    float(self.high[row]),
                    None if np.isnan(cv) else float(cv),
                )
            spreads.append(spread)
        return spreads

    def ratios(self, price: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Price per byte of capacity and per IOPS, NaN where a drive has no capacity or
        no price (sorted last, as SQL sorts NULL)."""
        with np.errstate(divide="ignore", invalid="ignore"):
            per_byte = price / self.capacity
            per_iops = price / self.iops
        for ratio in (per_byte, per_iops):
            ratio[~np.isfinite(ratio)] = np.nan
        return per_byte, per_iops


@dataclass(frozen=True)
class RankOrder:
    """What a ranking orders a test's entries by: a figure (`field`, a column of the
    entries), best first when higher (`descending`) or lower, and which entries it ranks
    (`ranks`: a mask over the entries' Columns, None for every one with the figure)."""

    field: str
    descending: bool
    ranks: Callable[[Columns], np.ndarray] | None = None


class Ranked:
    """One test's entries a RankOrder ranks, best first (then by id): their positions among
    the copy's entries (`at`), their columns in that order (what a filter's mask narrows)
    and the key each is ranked by (ascending: the better first; equal keys tie)."""

    __slots__ = ("at", "columns", "key")

    def __init__(self, entries: Columns, keep: np.ndarray, order: RankOrder):
        at = np.flatnonzero(keep)
        value = entries[order.field].floats()[at]
        key = -value if order.descending else value
        ranked = np.lexsort((entries["id"].array[at], key))
        self.at, self.key = at[ranked], key[ranked]
        self.columns = entries.take(self.at)


class EntriesIndex:
    """One snapshot of the entries rankings rank and value views price (see the module's
    docstring), and what their forms offer: `tests` (the 4KB throughput tests a value view
    prices in), every throughput test by identifier (`throughput_tests`) and `controllers`
    ((slug, name), by name). Its Test instances are the copy's, shared by every request
    that reads it: read, never changed."""

    def __init__(self, alias: str, version: int | None, tables: dict[str, Columns]):
        self.alias, self.version = alias, version
        tests = tables["tests"]
        throughput: list[Test] = [
            TEST_SHAPE.build(shape, alias)
            for _, shape in sorted(zip(tests.values("rank"), tests.values("shape"), strict=True))
        ]
        self.throughput_tests = {t.identifier: t for t in throughput}
        self.tests = [t for t in throughput if t.block_size == VALUE_BLOCK_SIZE]
        held = tables["controllers"]
        self.controllers: list[tuple[str, str]] = [
            (slug, name)
            for _, slug, name in sorted(
                zip(held.values("rank"), held.values("slug"), held.values("name"), strict=True)
            )
        ]
        self.entries = tables["entries"]
        labels = tables["labels"]
        self.labels = dict(zip(labels.values("drive"), labels.values("label"), strict=True))
        self.slugs = {label[1]: pk for pk, label in self.labels.items()}
        self._labels: dict[str, dict[int, DriveLabel]] = {}
        self._rows: dict[tuple[int, bool, bool], _TestRows] = {}
        self._ranked: dict[tuple[int, RankOrder, bool], Ranked] = {}
        # What a reader makes of this snapshot's rows, once (a ranking's rows, by position),
        # under a key that names it.
        self.made: dict[str, dict] = {}
        # Prices by drive, then date, then the highest first: the last of a drive's prices
        # on or before a date is its price as of that date (the lowest of that day's).
        prices = tables["prices"]
        key = (prices["drive"].array.astype(np.int64) << DATE_BITS) | prices["observed"].array
        amount = prices["amount"].floats()
        order = np.lexsort((-amount, key))
        self.price_key = key[order].astype(np.int64)
        self.price_amount = amount[order]

    def price(
        self,
        *,
        test_id: int,
        filters=None,
        as_of: datetime.date | None = None,
        worst: bool = True,
        real: bool = True,
        highlight: tuple[str, ...] = (),
        sample: int = 0,
        cheapest: int = 10,
    ) -> Priced:
        """The value view of one test (see selectors.value_frontier): its entries narrowed
        by `filters` (a valid FilterSet on leaderboard entries), each drive once (its worst
        case, or the one pattern the filters name: worst=False), priced at the latest USD
        price or as of a date; the frontier in price order, the highlighted drives, the
        `sample` with the lowest hashes of their ids and the `cheapest` per GB and per 1,000
        IOPS."""
        rows = self.rows(test_id, worst=worst, real=real)
        narrowed = filters.mask(rows.columns) if filters is not None else None
        keep = np.ones(len(rows.drive), dtype=bool) if narrowed is None else narrowed
        amount, observed = rows.price, rows.observed
        if as_of is not None:  # priced where kept
            kept = np.flatnonzero(keep)
            amount = np.full(len(keep), np.nan)
            observed = np.zeros(len(keep), dtype=np.int64)
            amount[kept], observed[kept] = self._as_of(rows.drive[kept], as_of)
        keep &= ~np.isnan(amount)
        if as_of is None:
            order = rows.price_order[keep[rows.price_order]]
        else:
            kept = np.flatnonzero(keep)
            order = kept[np.lexsort((rows.drive[kept], -rows.iops[kept], amount[kept]))]

        # The frontier: in price order, each drive faster than every drive before it.
        iops = rows.iops[order]
        frontier = order[iops > np.concatenate(([0.0], np.maximum.accumulate(iops)[:-1]))]
        highlighted = {self.slugs[s] for s in highlight if s in self.slugs}
        if as_of is None:
            cheapest_lists = [ranked[keep[ranked]][:cheapest] for ranked in rows.cheapest_orders]
        else:
            cheapest_lists = []
            for ratio in rows.ratios(amount):
                ranked = order[_smallest(ratio[order], rows.drive[order], cheapest)]
                cheapest_lists.append(ranked[np.isfinite(ratio[ranked])])
        picked = np.unique(
            np.concatenate(
                [
                    frontier,
                    order[np.isin(rows.drive[order], list(highlighted))],
                    rows.sample_order[keep[rows.sample_order]][: max(sample, 0)],
                    *cheapest_lists,
                ]
            )
        )
        # In price order (then the most IOPS first), as the frontier is walked.
        position = np.empty(len(keep), dtype=np.int64)
        position[order] = np.arange(len(order))
        picked = picked[np.argsort(position[picked])]
        on_frontier = np.zeros(len(keep), dtype=bool)
        on_frontier[frontier] = True
        drives = rows.drive[picked].tolist()
        labels = self.labels_of(drives)
        iops = rows.iops[picked].tolist()
        # At the latest prices, a point is made once per copy (rows.points) and comes back
        # in every request that shows it, with what was worked out for it (ValuePoint.shown).
        made = rows.points if as_of is None else {}
        points = {}
        for drive, row, rate, price, seen, on in zip(
            drives,
            picked.tolist(),
            iops,
            amount[picked].tolist(),
            observed[picked].tolist(),
            on_frontier[picked].tolist(),
            strict=True,
        ):
            label = labels[drive]
            key = (row, on, drive in highlighted, id(label))
            point = made.get(key)
            if point is None:
                point = made[key] = ValuePoint(
                    label,
                    rate,
                    price,
                    datetime.date.fromordinal(seen),
                    on,
                    key[2],
                    bool(rows.quick[row]),
                    bool(rows.derived[row]),
                    rows.spreads([row])[0],
                    rows.method[row],
                )
            points[drive] = point

        def listed(positions: np.ndarray) -> list[ValuePoint]:
            return [points[d] for d in rows.drive[positions].tolist()]

        return Priced(
            considered=len(order),
            points=list(points.values()),
            frontier=listed(frontier),
            cheapest_per_gb=listed(cheapest_lists[0]),
            cheapest_per_kiops=listed(cheapest_lists[1]),
        )

    def rows(self, test_id: int, *, worst: bool, real: bool) -> _TestRows:
        """The test's entries that have IOPS: only each drive's worst case (worst), only
        real drives' (real). Made once per copy."""
        key = (test_id, worst, real)
        made = self._rows.get(key)
        if made is None:
            mine = self.of_test(test_id, real) & self.entries.known("iops")
            if worst:
                mine &= self.entries["worst"].array
            made = self._rows[key] = _TestRows(self.entries.take(mine))
        return made

    def ranked(self, test_id: int, order: RankOrder, *, real: bool) -> Ranked:
        """The test's entries `order` ranks, with its figure, best first; only real drives'
        (real). Made once per copy."""
        key = (test_id, order, real)
        made = self._ranked.get(key)
        if made is None:
            mine = self.of_test(test_id, real) & self.entries.known(order.field)
            if order.ranks is not None:
                mine &= order.ranks(self.entries)
            made = self._ranked[key] = Ranked(self.entries, mine, order)
        return made

    def of_test(self, test_id: int, real: bool) -> np.ndarray:
        """The rows of the test's entries (only real drives': real)."""
        mine = self.entries.compare("test", "exact", test_id)
        if real:
            mine &= ~self.entries["synthetic"].array
        return mine

    def labels_of(self, ids) -> dict[int, DriveLabel]:
        """The labels of these drives (each must have an entry here), by id: made once
        per copy and per way of writing links (the script prefix, see page_urls)."""
        url = page_urls("bench:drive")
        made = self._labels.setdefault(url("-"), {})
        labels = {}
        for pk in ids:
            label = made.get(pk)
            if label is None:
                label = made[pk] = label_of(self.labels[pk], url)
            labels[pk] = label
        return labels

    def _as_of(self, drives: np.ndarray, day: datetime.date) -> tuple[np.ndarray, np.ndarray]:
        """Each drive's USD price as of `day` (NaN: none yet) and the day it was seen."""
        wanted = (drives << DATE_BITS) | day.toordinal()
        at = np.searchsorted(self.price_key, wanted, side="right") - 1
        found = at >= 0
        at = np.maximum(at, 0)
        if len(self.price_key):
            found &= (self.price_key[at] >> DATE_BITS) == drives
        else:
            found[:] = False
        amount = np.full(len(drives), np.nan)
        amount[found] = self.price_amount[at[found]]
        observed = np.zeros(len(drives), dtype=np.int64)
        observed[found] = self.price_key[at[found]] & ((1 << DATE_BITS) - 1)
        return amount, observed


def _texts(column: Column) -> list[str]:
    """A text column's rows as text ("" for NULL)."""
    texts = [t.decode() for t in column.texts()]
    return ["" if code < 0 else texts[code] for code in column.array.tolist()]


def _smallest(values: np.ndarray, drives: np.ndarray, count: int) -> np.ndarray:
    """The positions of the `count` smallest `values` (NaN last), ties by drive."""
    if count <= 0 or not len(values):
        return np.zeros(0, dtype=np.int64)
    key = np.where(np.isnan(values), np.inf, values)
    if len(key) > count:
        candidates = np.flatnonzero(key <= np.partition(key, count - 1)[count - 1])
    else:
        candidates = np.arange(len(key))
    return candidates[np.lexsort((drives[candidates], key[candidates]))][:count]


def _prepare(index: EntriesIndex) -> None:
    """Every test's entries as a value view reads them (EntriesIndex.rows, each drive's worst
    case and every entry): tens of milliseconds each, made ahead by a server's warm-up."""
    for test in index.tests:
        for worst in (True, False):
            index.rows(test.pk, worst=worst, real=not settings.BENCH_SHOW_SYNTHETIC)


_COPY = Copy(
    ENTRIES_COPY,
    LeaderboardEntry,
    _VERSION_SQL,
    [_ENTRIES, _PRICES, _LABELS, _TESTS, _CONTROLLERS],
    EntriesIndex,
    prelude=_PRELUDE,
    prepare=_prepare,
)
_held = _COPY.held  # this process's copies, by database


def entries_index() -> EntriesIndex:
    """The current copy on the database LeaderboardEntry is read from. One prepared
    statement, and one more when what it holds changed: the changed drives' rows
    (core.columns.Copy)."""
    return _COPY.current()
