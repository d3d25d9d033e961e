"""A test's ranking (leaderboards, the API's leaderboard) and the test index."""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.ma  # noqa: F401 - np.unique imports it when first run (11 ms): in the master
from django.conf import settings
from django.db.models import F, Prefetch, Q, QuerySet, Window
from django.db.models.functions import Rank

from core.columns import Columns
from core.db import prepared_rows
from core.filters import FilterSet
from core.links import page_urls
from drives.selectors import DriveLabel, drive_labels
from results.entries_index import EntriesIndex, RankOrder, entries_index
from results.models import (
    DataPattern,
    LeaderboardEntry,
    Run,
    Suite,
    Test,
    method_label,
)
from results.selectors.common import missing_rates_reason, test_order_key
from results.spread import Spread
from results.tails import tail_label

# -- leaderboards --------------------------------------------------------------------------


class Metric:
    """What a ranking orders by. Latency one kind at a time: figures measured issue to
    completion, completion only (fio's clat), or as published articles state them, are
    never ordered together."""

    THROUGHPUT = "throughput"
    LATENCY = "latency"
    LATENCY_CLAT = "latency_clat"
    LATENCY_PUBLISHED = "latency_published"
    IOPS_MIN = "iops_min"
    # A tail: the group's p99.9 (results.tails) at the test's load, where its I/Os support
    # it (10,000 or more: results.spread.ios_needed).
    LATENCY_P999 = "latency_p999"
    CHOICES = [
        (THROUGHPUT, "MB/s and IOPS (higher is better)"),
        (LATENCY, "mean latency, measured issue to completion"),
        (LATENCY_CLAT, "mean latency, completion only (fio's clat)"),
        (LATENCY_PUBLISHED, "mean latency, as articles published it"),
        (IOPS_MIN, "IOPS of the slowest second (higher is better)"),
        (LATENCY_P999, "p99.9 latency, measured issue to completion (lower is better)"),
    ]
    LATENCIES = (LATENCY, LATENCY_CLAT, LATENCY_PUBLISHED)  # the mean's
    # The entries each latency metric ranks, as an ORM filter: what the ranking's masks
    # (_METRIC_ORDER) are held to by the tests.
    KINDS = {
        LATENCY: Q(latency_kind="lat") & ~Q(source="published"),
        LATENCY_CLAT: Q(latency_kind="clat"),
        LATENCY_PUBLISHED: Q(source="published"),
        LATENCY_P999: Q(latency_kind="lat") & ~Q(source="published"),
    }


_PATTERN_LABELS = dict(DataPattern.choices)
_SOURCE_LABELS = dict(Run.Source.choices)


@dataclass(slots=True)
class EntryRow:
    """A leaderboard entry as a ranking shows it: its figures and its drive's label."""

    id: int
    drive: DriveLabel
    pattern: str
    bytes_per_second: float | None
    iops: float | None
    iops_stddev: float | None
    iops_min: float | None
    read_iops: float | None  # a mixed test's reads and writes apart
    write_iops: float | None
    derived: str
    latency_mean_ns: float | None
    latency_kind: str
    quick: bool
    source: str
    run_id: int
    price_usd: float | None
    # Its group (results.spread): how obtained, how many results the figures are the mean of,
    # their range and coefficient of variation.
    method: str
    tool_name: str
    runs: int
    low_bps: float | None
    high_bps: float | None
    cv: float | None
    # Its group's tail (results.tails): the p99.9 its I/Os support, the I/Os, where from.
    latency_p999_ns: int | None
    latency_io_count: int | None
    tail: str
    histograms: int

    @property
    def tail_label(self) -> str:
        """Where its group's percentiles come from (results.tails.tail_label)."""
        return tail_label(
            tail=self.tail,
            runs=self.runs,
            histograms=self.histograms,
            tool=self.tool_name,
            published=self.source == Run.Source.PUBLISHED,
        )

    @property
    def missing_rates_reason(self) -> str | None:
        """Why neither rate is known (results.selectors.common), None when one is."""
        return missing_rates_reason(
            source=self.source, bytes_per_second=self.bytes_per_second, iops=self.iops
        )

    def get_pattern_display(self) -> str:
        return _PATTERN_LABELS.get(self.pattern, self.pattern)

    def get_source_display(self) -> str:
        return _SOURCE_LABELS.get(self.source, self.source)


@dataclass
class RankedEntry:
    rank: int
    entry: EntryRow
    highlighted: bool = False

    def as_item(self) -> dict[str, Any]:
        """The entry as a row of the leaderboard API and of the open-data dump's leaderboard
        (its shape: results.api.shapes.EntryShape)."""
        entry = self.entry
        return {
            "rank": self.rank,
            "drive": entry.drive.slug,
            "drive_name": str(entry.drive),
            "controller": entry.drive.controller or None,
            "pattern": entry.pattern,
            "bytes_per_second": entry.bytes_per_second,
            "iops": entry.iops,
            "iops_stddev": entry.iops_stddev,
            "iops_min": entry.iops_min,
            "read_iops": entry.read_iops,
            "write_iops": entry.write_iops,
            "derived": entry.derived or None,
            "missing_rates_reason": entry.missing_rates_reason,
            "method": entry.method,
            "method_label": method_label(entry.method, entry.tool_name),
            "tool": entry.tool_name,
            "spread": spread.as_dict() if (spread := Spread.of_entry(entry)) else None,
            "latency_mean_ns": entry.latency_mean_ns,
            "latency_p999_ns": entry.latency_p999_ns,
            "latency_io_count": entry.latency_io_count,
            "latency_tail": entry.tail_label or None,
            "quick": entry.quick,
            "source": entry.source,
            "run": entry.run_id,
            "price_usd": entry.price_usd,
            "highlighted": self.highlighted,
        }


@dataclass
class Leaderboard:
    test: Test
    metric: str
    rows: list[RankedEntry]
    page: int
    page_size: int
    has_next: bool
    elsewhere: list[RankedEntry]  # highlighted drives ranked outside this page

    @property
    def has_previous(self) -> bool:
        return self.page > 1


def throughput_test(identifier: str) -> Test | None:
    """The throughput test of this identifier (a leaderboard's), or None: read from the
    copy of the entries (results.entries_index), one prepared statement (its version)."""
    return entries_index().throughput_tests.get(identifier)


def leaderboard_choices(identifier: str) -> tuple[Test | None, list[tuple[str, str]], EntriesIndex]:
    """throughput_test(identifier), the controllers a ranking's filter form offers, and the
    copy they were read from, which `leaderboard` then ranks on. One prepared statement."""
    index = entries_index()
    return index.throughput_tests.get(identifier), index.controllers, index


def throughput_tests() -> list[Test]:
    return sorted(Test.objects.filter(kind=Test.Kind.THROUGHPUT), key=test_order_key)


def _latency(kind: str, *, published: bool | None = None) -> Callable[[Columns], np.ndarray]:
    """The entries a latency metric ranks: latency of one kind ("": any), and only
    published figures or none of them (None: either)."""

    def ranks(entries: Columns) -> np.ndarray:
        keep = np.ones(len(entries), dtype=bool)
        if kind:
            keep &= entries.compare("latency_kind", "exact", kind)
        if published is not None:
            mine = entries.compare("source", "exact", Run.Source.PUBLISHED)
            keep &= mine if published else ~mine
        return keep

    return ranks


# What each metric ranks by, in what order, and which entries: as masks over the copy of
# the entries (RankOrder), and the same entries as an ORM filter (Metric.KINDS; tests hold
# the two together).
_METRIC_ORDER = {
    Metric.THROUGHPUT: RankOrder("bytes_per_second", descending=True),
    Metric.LATENCY: RankOrder("latency_mean_ns", False, _latency("lat", published=False)),
    Metric.LATENCY_CLAT: RankOrder("latency_mean_ns", False, _latency("clat")),
    Metric.LATENCY_PUBLISHED: RankOrder("latency_mean_ns", False, _latency("", published=True)),
    Metric.IOPS_MIN: RankOrder("iops_min", descending=True),
    Metric.LATENCY_P999: RankOrder("latency_p999_ns", False, _latency("lat", published=False)),
}
# The entries a ranking shows, by id, as EntryRow's fields (the drive's id for its label).
_ROWS_SQL = (
    "SELECT "
    + ", ".join(
        "e.drive_id" if f.name == "drive" else f"e.{f.name}" for f in dataclasses.fields(EntryRow)
    )
    + " FROM results_leaderboardentry e WHERE e.id = ANY(%s)"
)


def _ranked_rows(index: EntriesIndex, at: np.ndarray, ranks: np.ndarray, highlight) -> list:
    """RankedEntry of the entries at these positions of the copy with their ranks, each
    highlighted where its drive's slug is in `highlight` (one deleted since the copy's
    snapshot is left out)."""
    rows = _rows(index, at.tolist())
    return [
        RankedEntry(rank, entry, entry.drive.slug in highlight)
        for rank, entry in zip(ranks.tolist(), rows, strict=True)
        if entry is not None
    ]


def _rows(index: EntriesIndex, at: list[int]) -> list[EntryRow | None]:
    """The entries at these positions of the copy, as a ranking shows them (None: deleted
    since the copy's snapshot): each read once per copy and way of writing links (the
    script prefix: page_urls), as the same entries come back request after request (one
    prepared statement for those not yet read)."""
    made = index.made.setdefault(f"ranking rows {page_urls('bench:drive')('-')}", {})
    ids = index.entries.values("id")
    missing = [ids[i] for i in at if ids[i] not in made]
    if missing:
        _, found = prepared_rows(LeaderboardEntry, _ROWS_SQL, [missing], alias=index.alias)
        labels = index.labels_of([row[1] for row in found])
        for pk, drive, *figures in found:
            made[pk] = EntryRow(pk, labels[drive], *figures)
    return [made.get(ids[i]) for i in at]


def _shown(index: EntriesIndex, test: Test, metric: str, filters: FilterSet | None):
    """The test's entries `metric` ranks among those the pages show (the copy holds no
    drive awaiting review; synthetic drives' only while the site shows them), best first,
    and which of them `filters` keeps (positions in that order)."""
    real = not settings.BENCH_SHOW_SYNTHETIC
    ranked = index.ranked(test.pk, _METRIC_ORDER[metric], real=real)
    keep = filters.mask(ranked.columns) if filters is not None else None
    return ranked, (np.arange(len(ranked.at)) if keep is None else np.flatnonzero(keep))


def leaderboard(
    *,
    test: Test,
    filters: FilterSet | None = None,
    metric: str = Metric.THROUGHPUT,
    page: int = 1,
    page_size: int = 50,
    highlight: tuple[str, ...] = (),
    index: EntriesIndex | None = None,
) -> Leaderboard:
    """One test's ranking among the entries the pages show, narrowed by `filters` (a valid
    LeaderboardFilter, as a mask: FilterSet.mask), best first: one page of it, and where
    the highlighted drives rank, each with which latency its mean latency is. Equal figures
    share a rank, one more than the entries strictly better (competition ranking: 1, 2, 2,
    4), on the page and off it. Ranked on the process's copy of the entries
    (results.entries_index): one prepared statement (its version), none on the copy the
    page's choices were read from (`index`: leaderboard_choices); one more with a search,
    and one for the rows this copy has not shown before (_rows)."""
    index = index or entries_index()
    ranked, kept = _shown(index, test, metric, filters)
    keys = ranked.key[kept]
    start = (page - 1) * page_size
    shown = kept[start : start + page_size]
    # Competition rank: one more than the kept entries strictly better (a smaller key).
    ranks = np.searchsorted(keys, ranked.key[shown], side="left") + 1
    rows = _ranked_rows(index, ranked.at[shown], ranks, highlight)
    elsewhere = []
    shown_slugs = {r.entry.drive.slug for r in rows}
    missing = [index.slugs[s] for s in highlight if s not in shown_slugs and s in index.slugs]
    if missing:
        theirs = kept[np.isin(ranked.columns["drive"].array[kept], missing)]
        ranks = np.searchsorted(keys, ranked.key[theirs], side="left") + 1
        elsewhere = _ranked_rows(index, ranked.at[theirs], ranks, highlight)
    return Leaderboard(
        test=test,
        metric=metric,
        rows=rows,
        page=page,
        page_size=page_size,
        has_next=len(kept) > start + page_size,
        elsewhere=elsewhere,
    )


def ranking_batches(
    *, test: Test, filters: FilterSet, metric: str, batch: int
) -> Iterator[list[RankedEntry]]:
    """One test's whole ranking (every page of `leaderboard`'s, the same entries, order and
    ranks), read by the ORM (the filters' reference form) in batches of `batch`: for the
    open-data dump, a process that must not hold every entry. `filters`: a valid
    LeaderboardFilter on selectors.common.entries()."""
    order = _METRIC_ORDER[metric]
    figure = F(order.field)
    by = figure.desc() if order.descending else figure.asc()
    fields = ["drive_id" if f.name == "drive" else f.name for f in dataclasses.fields(EntryRow)]
    ranked = (
        filters.qs.filter(
            Metric.KINDS.get(metric, Q()), test=test, **{f"{order.field}__isnull": False}
        )
        .annotate(rank=Window(Rank(), order_by=by))
        .order_by(by, "id")
        .values_list("rank", *fields)
    )
    rows = ranked.iterator(chunk_size=batch)
    while chunk := list(itertools.islice(rows, batch)):
        labels = drive_labels({row[2] for row in chunk})
        yield [
            RankedEntry(rank, EntryRow(pk, labels[drive], *figures))
            for rank, pk, drive, *figures in chunk
        ]


def ranked_drives(*, test: Test, filters: FilterSet, metric: str = Metric.THROUGHPUT) -> int:
    """How many drives `leaderboard` ranks with these filters (a page that ranks none says
    how many another class of runs has)."""
    index = entries_index()
    ranked, kept = _shown(index, test, metric, filters)
    return len(np.unique(ranked.columns["drive"].array[kept]))


def too_few_ios(*, test: Test, filters: FilterSet) -> int:
    """How many entries the p99.9 ranking (Metric.LATENCY_P999) leaves out with these filters
    for having a p99.9 over fewer I/Os than it needs (RANKED_IOS): of the entries it would
    rank, those with a p99.9 (p999_measured) but none it ranks (latency_p999_ns)."""
    index = entries_index()
    entries = index.entries
    mine = index.of_test(test.pk, not settings.BENCH_SHOW_SYNTHETIC)
    mine &= _METRIC_ORDER[Metric.LATENCY_P999].ranks(entries)
    mine &= entries["p999_measured"].array & ~entries.known("latency_p999_ns")
    keep = filters.mask(entries)
    return int(np.count_nonzero(mine if keep is None else mine & keep))


def suites_with_tests() -> QuerySet[Suite]:
    """Every suite with its tests in order, for the test index and the API. Two queries."""
    return Suite.objects.prefetch_related(
        Prefetch("tests", queryset=Test.objects.order_by("suitetest__position"))
    ).order_by("name", "version")
