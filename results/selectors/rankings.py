"""A test's ranking (leaderboards, the API's leaderboard) and the test index."""

from __future__ import annotations

import dataclasses
import functools
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.db import connections
from django.db.models import Prefetch, Q, QuerySet

from core.db import prepared_rows, read_alias
from core.filters import FilterSet, Where
from drives.selectors import (
    CONTROLLER_CHOICES_JSON,
    DriveLabel,
    controller_choices,
    drive_labels,
)
from results.models import (
    DataPattern,
    LeaderboardEntry,
    Run,
    Suite,
    Test,
    method_label,
)
from results.selectors.common import (
    TEST_SHAPE,
    missing_rates_reason,
    test_order_key,
)
from results.spread import Spread
from results.tails import RANKED_PERCENTILE, tail_label

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
    # The entries each latency metric ranks: as the ranking's SQL (over e) writes it, and as
    # an ORM filter (tests hold the two together).
    KINDS = {
        LATENCY: (
            "e.latency_kind = 'lat' AND e.source <> 'published'",
            Q(latency_kind="lat") & ~Q(source="published"),
        ),
        LATENCY_CLAT: ("e.latency_kind = 'clat'", Q(latency_kind="clat")),
        LATENCY_PUBLISHED: ("e.source = 'published'", Q(source="published")),
        LATENCY_P999: (
            "e.latency_kind = 'lat' AND e.source <> 'published'",
            Q(latency_kind="lat") & ~Q(source="published"),
        ),
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


_THROUGHPUT_TEST_SQL = (
    f"SELECT {TEST_SHAPE.array} FROM results_test t WHERE t.identifier = %s AND t.kind = %s"
)
_BOARD_CHOICES_SQL = f"SELECT ({_THROUGHPUT_TEST_SQL}), {CONTROLLER_CHOICES_JSON}"


def throughput_test(identifier: str) -> Test | None:
    """The throughput test of this identifier (a leaderboard's), or None. One prepared
    statement."""
    alias, rows = prepared_rows(Test, _THROUGHPUT_TEST_SQL, [identifier, Test.Kind.THROUGHPUT])
    return TEST_SHAPE.build(rows[0][0], alias) if rows else None


def leaderboard_choices(identifier: str) -> tuple[Test | None, list[tuple[str, str]]]:
    """throughput_test(identifier), and the controllers a ranking's filter form offers
    (drives.selectors.controller_choices). One prepared statement."""
    alias, rows = prepared_rows(Test, _BOARD_CHOICES_SQL, [identifier, Test.Kind.THROUGHPUT])
    test, controllers = rows[0]
    return (TEST_SHAPE.build(test, alias) if test else None), controller_choices(controllers)


def throughput_tests() -> list[Test]:
    return sorted(Test.objects.filter(kind=Test.Kind.THROUGHPUT), key=test_order_key)


# A ranking's rows: entries of one test in the order of one figure, narrowed by a
# FilterSet's conditions on e (core.filters.FilterSet.where) and, for the highlighted drives
# ranked elsewhere, by slug; their drives' labels follow in a prepared statement (joined in
# here, planning the join cost more than the round trip). Planned for its parameters on every
# request: a generic plan made for the average filter walks the whole ranking for one that
# keeps few.
_BOARD_SQL = (
    "SELECT e.id, e.drive_id, "
    + ", ".join(
        f"e.{f.name}" for f in dataclasses.fields(EntryRow) if f.name not in ("id", "drive")
    )
    + """
FROM results_leaderboardentry e
WHERE e.test_id = %(test)s AND e.{field} IS NOT NULL{real}{where}{slugs}
ORDER BY e.{field} {direction} NULLS LAST, e.id
{limit}
"""
)
# Competition rank of the highlighted drives: one more than the entries strictly better,
# counted in one scan of the range better than the lowest-ranked of them.
_BETTER_SQL = """
SELECT {counts} FROM results_leaderboardentry e
WHERE e.test_id = %(test)s AND e.{field} {better} %(loosest)s{real}{where}
"""
_METRIC_ORDER = {  # the figure a metric ranks by, its order, and "better than"
    Metric.THROUGHPUT: ("bytes_per_second", "DESC", ">"),
    **{latency: ("latency_mean_ns", "ASC", "<") for latency in Metric.LATENCIES},
    Metric.IOPS_MIN: ("iops_min", "DESC", ">"),
    Metric.LATENCY_P999: ("latency_p999_ns", "ASC", "<"),
}


def _shown(real: bool, metric: str) -> str:
    """The condition that keeps out the entries of drives awaiting staff review, and the
    synthetic ones when they are out (as results.selectors.common.entries), and keeps the
    latency kind a latency metric ranks."""
    kind = Metric.KINDS.get(metric)
    return (
        " AND NOT e.needs_review"
        + (" AND NOT e.synthetic" if real else "")
        + (f" AND {kind[0]}" if kind else "")
    )


@functools.lru_cache(maxsize=512)
def _board_sql(metric: str, where: str, *, real: bool, chosen: bool) -> str:
    field, direction, _ = _METRIC_ORDER[metric]
    return _BOARD_SQL.format(
        field=field,
        direction=direction,
        real=_shown(real, metric),
        where=where,
        slugs=" AND e.drive_id IN (SELECT id FROM drives_drive WHERE slug = ANY(%(slugs)s))"
        if chosen
        else "",
        limit="" if chosen else "LIMIT %(limit)s OFFSET %(offset)s",
    )


def _board_rows(sql: str, params: dict) -> list[EntryRow]:
    with connections[read_alias(LeaderboardEntry)].cursor() as cursor:
        cursor.execute(sql, params)
        rows = cursor.fetchall()
    labels = drive_labels({row[1] for row in rows})
    return [EntryRow(pk, labels[drive], *figures) for pk, drive, *figures in rows]


def leaderboard(
    *,
    test: Test,
    filters: FilterSet | None = None,
    metric: str = Metric.THROUGHPUT,
    page: int = 1,
    page_size: int = 50,
    highlight: tuple[str, ...] = (),
) -> Leaderboard:
    """One test's ranking among the entries the pages show, narrowed by `filters` (a valid
    LeaderboardFilter, written as SQL: FilterSet.where), best first: one page of it, and
    where the highlighted drives rank, each with which latency its mean latency is. Equal
    figures share a rank, one more than the entries strictly better (competition ranking:
    1, 2, 2, 4), on the page and off it. Two queries (the entries, their drives' labels),
    one more when the page starts inside a tie, two more with highlighted drives ranked off
    the page."""
    where = filters.where("e") if filters is not None else Where()
    real = not settings.BENCH_SHOW_SYNTHETIC
    field, _, better = _METRIC_ORDER[metric]
    start = (page - 1) * page_size
    # From the entry before the page (after the first): whether the page's first entry ties
    # with the previous page's last, which then gives the rank they share.
    before = 1 if start else 0
    params = {
        **where.params,
        "test": test.pk,
        "limit": page_size + 1 + before,
        "offset": start - before,
    }
    window = _board_rows(_board_sql(metric, where.sql, real=real, chosen=False), params)
    previous, window = window[:before], window[before:]

    def better_counts(values: list[float]) -> tuple[int, ...]:
        """How many entries are strictly better than each of `values`: one scan."""
        counts = ", ".join(
            f"count(*) FILTER (WHERE e.{field} {better} %(v{i})s)" for i in range(len(values))
        )
        sql = _BETTER_SQL.format(
            counts=counts, field=field, better=better, real=_shown(real, metric), where=where.sql
        )
        loosest = min(values) if better == ">" else max(values)
        with connections[read_alias(LeaderboardEntry)].cursor() as cursor:
            cursor.execute(
                sql,
                {
                    **where.params,
                    "test": test.pk,
                    "loosest": loosest,
                    **{f"v{i}": v for i, v in enumerate(values)},
                },
            )
            return cursor.fetchone()

    rows: list[RankedEntry] = []
    for i, e in enumerate(window[:page_size]):
        value = getattr(e, field)
        if rows and getattr(rows[-1].entry, field) == value:
            rank = rows[-1].rank  # a tie shares its rank (competition ranking: 1, 2, 2, 4)
        elif not rows and previous and getattr(previous[0], field) == value:
            rank = better_counts([value])[0] + 1  # a tie from the page before
        else:
            rank = start + i + 1
        rows.append(RankedEntry(rank, e, e.drive.slug in highlight))
    elsewhere = []
    shown = {r.entry.drive.slug for r in rows}
    missing = [s for s in highlight if s not in shown]
    if missing:
        sql = _board_sql(metric, where.sql, real=real, chosen=True)
        wanted = _board_rows(sql, {**params, "slugs": missing})
        if wanted:
            counts_found = better_counts([getattr(e, field) for e in wanted])
            elsewhere = sorted(
                (RankedEntry(n + 1, e, True) for e, n in zip(wanted, counts_found, strict=True)),
                key=lambda r: r.rank,
            )
    return Leaderboard(
        test=test,
        metric=metric,
        rows=rows,
        page=page,
        page_size=page_size,
        has_next=len(window) > page_size,
        elsewhere=elsewhere,
    )


_COUNT_SQL = """
SELECT count(DISTINCT e.drive_id) FROM results_leaderboardentry e
WHERE e.test_id = %(test)s AND e.{field} IS NOT NULL{real}{where}
"""


def ranked_drives(*, test: Test, filters: FilterSet, metric: str = Metric.THROUGHPUT) -> int:
    """How many drives `leaderboard` ranks with these filters (a page that ranks none says
    how many another class of runs has). One query."""
    where = filters.where("e")
    field, _, _ = _METRIC_ORDER[metric]
    real = _shown(not settings.BENCH_SHOW_SYNTHETIC, metric)
    sql = _COUNT_SQL.format(field=field, real=real, where=where.sql)
    with connections[read_alias(LeaderboardEntry)].cursor() as cursor:
        cursor.execute(sql, {**where.params, "test": test.pk})
        return cursor.fetchone()[0]


_TOO_FEW_SQL = """
SELECT count(*) FROM results_leaderboardentry e
WHERE e.test_id = %(test)s AND e.latency_p999_ns IS NULL
  AND e.latency_percentiles_ns ? %(percentile)s{real}{where}
"""


def too_few_ios(*, test: Test, filters: FilterSet) -> int:
    """How many entries the p99.9 ranking (Metric.LATENCY_P999) leaves out with these filters
    for having a p99.9 over fewer I/Os than it needs (RANKED_IOS). One query."""
    where = filters.where("e")
    real = _shown(not settings.BENCH_SHOW_SYNTHETIC, Metric.LATENCY_P999)
    sql = _TOO_FEW_SQL.format(real=real, where=where.sql)
    with connections[read_alias(LeaderboardEntry)].cursor() as cursor:
        cursor.execute(sql, {**where.params, "test": test.pk, "percentile": RANKED_PERCENTILE})
        return cursor.fetchone()[0]


def suites_with_tests() -> QuerySet[Suite]:
    """Every suite with its tests in order, for the test index and the API. Two queries."""
    return Suite.objects.prefetch_related(
        Prefetch("tests", queryset=Test.objects.order_by("suitetest__position"))
    ).order_by("name", "version")
