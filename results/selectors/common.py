"""What the selectors of every page family share: the order of tests and runs, the
entries pages may show, a throughput result's figures, how rows travel as JSON."""

from __future__ import annotations

import datetime
from dataclasses import dataclass, field
from typing import Any

from django.conf import settings
from django.db.models import QuerySet

from core.db import Shape
from core.held import held
from core.pickled import ByFields
from results import tails
from results.models import (
    ConsistencySeries,
    DataPattern,
    LeaderboardEntry,
    Result,
    Run,
    TailSource,
    Test,
)
from results.spread import Comparability, Spread
from results.spread import Side as RuleSide

PATTERN_ORDER = {DataPattern.COMPRESSIBLE: 0, DataPattern.INCOMPRESSIBLE: 1, "unspecified": 2}
VALUE_DEFAULT_TEST = "randwrite-4k-qd3-8g"


def test_order_key(test: Test) -> tuple:
    """Four corners first (random before sequential, read before write), then by size."""
    kinds = {Test.Kind.THROUGHPUT: 0, Test.Kind.CONSISTENCY: 1, Test.Kind.TRIM: 2}
    return (
        kinds.get(test.kind, 9),
        test.access != Test.Access.RANDOM,
        test.block_size,
        test.operation != Test.Operation.READ,
        test.queue_depth,
        test.identifier,
    )


def run_recency(run: Run) -> tuple:
    """Sort key, newest first: when the run started, else when its source was published,
    else when it was ingested (the same rule as results.services.leaderboard_refresh)."""
    when = run.started_at
    if when is None and run.citation_id:
        when = datetime.datetime.combine(
            run.citation.published_on, datetime.time(), tzinfo=datetime.UTC
        )
    when = when or run.ingested_at
    return (-when.timestamp(), -run.pk)


def entries() -> QuerySet[LeaderboardEntry]:
    """Leaderboard entries the pages may show: none of a drive awaiting staff review (an
    upload created it), synthetic ones only in the web benchmark."""
    qs = LeaderboardEntry.objects.filter(needs_review=False)
    return qs if settings.BENCH_SHOW_SYNTHETIC else qs.filter(synthetic=False)


# -- figures -----------------------------------------------------------------------------

# Why a result gives neither rate (bytes/s nor IOPS, of which the one not given is derived
# from the other): it holds only latency (a result holds at least one figure), as its run's
# source gave it. Every read that shows a result's rates says so beside them.
LATENCY_ONLY_PUBLISHED = "the source published only latency for this test"
LATENCY_ONLY_MEASURED = "the run measured only latency for this test"
MISSING_RATES_REASONS = (LATENCY_ONLY_PUBLISHED, LATENCY_ONLY_MEASURED)


def missing_rates_reason(
    *, source: str, bytes_per_second: float | None, iops: float | None
) -> str | None:
    """Why a result of a run of `source` (a Run.Source) has these rates both None; None
    when it has one."""
    if bytes_per_second is not None or iops is not None:
        return None
    return LATENCY_ONLY_PUBLISHED if source == Run.Source.PUBLISHED else LATENCY_ONLY_MEASURED


# An entry's tail figures of each of tails.LATENCIES (the whole, then a mixed test's reads'
# and writes'), in the order GroupTail.of reads them: each latency's I/Os, percentiles, max.
TAIL_FIGURES = ("latency_io_count", "latency_percentiles_ns", "latency_max_ns")
ENTRY_TAILS_SQL = ", ".join(
    f"e.{tails.prefix(latency)}{figure}" for latency in tails.LATENCIES for figure in TAIL_FIGURES
)


@dataclass(frozen=True, slots=True)
class GroupTail(ByFields):
    """A leaderboard entry's group tail (results.tails), as the refresh wrote it: where its
    percentiles come from (TailSource), the group's size and how many of its results carry
    a histogram, and the percentiles, maximum and I/Os of the group (None where it has no
    tail of its own: an unmerged group's); a mixed test's reads' and writes' merged tails
    by direction (`directions`: only those merged)."""

    source: str
    runs: int
    histograms: int
    io_count: int | None
    percentiles: dict[str, int] | None
    max_ns: int | None
    directions: dict[str, tails.Merged] = field(default_factory=dict)

    @classmethod
    def of(cls, source: str, runs: int, histograms: int, figures: list) -> GroupTail:
        """From the entry's ENTRY_TAILS_SQL columns (`figures`), read in their order."""
        by_latency = {
            latency: figures[3 * i : 3 * i + 3] for i, latency in enumerate(tails.LATENCIES)
        }
        whole = by_latency.pop("")
        directions = {
            side: tails.Merged(*found)
            for side, found in by_latency.items()
            if found and found[1] is not None
        }
        return cls(source, runs, histograms, *whole, directions)

    @property
    def merged(self) -> bool:
        """Its figures are the merge of more than one result's histograms."""
        return self.source == TailSource.MERGED and self.runs > 1


@dataclass(slots=True)
class Figures(ByFields):
    """A throughput result's numbers, the missing one of MB/s and IOPS derived from the other
    through the test's fixed block size (and said so). Read with its group (a leaderboard
    entry's, or a run's passes), they are the group's means, with its spread and the Method
    it was obtained by (results.spread)."""

    result: Result
    bytes_per_second: float | None
    iops: float | None
    derived: str  # "", "iops" or "bytes_per_second"
    spread: Spread | None = None
    method: str = ""
    tail: GroupTail | None = None  # its group's tail, where read with its entry
    # What is worked out from these figures (what the winner rule reads of them, their table
    # cell as a page shows it, ...), kept with them while their comparison side is held
    # (results.selectors.compare.held_sides).
    shown: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    @classmethod
    def of(cls, result: Result, test: Test | None = None, group: list | None = None) -> Figures:
        """The figures of a result (of `test`, when the caller has it at hand); `group`: its
        group's [method, n, mean bytes/s, mean IOPS, lowest and highest bytes/s, CV], then
        its tail's [source, results with a histogram, ENTRY_TAILS_SQL's figures] (an entry's:
        results.tails; a chosen run's passes have none, their tail is never merged on a
        read)."""
        block = result.block_size or (test or result.test).block_size
        bps, iops, derived = result.bytes_per_second, result.iops, ""
        if iops is None and bps is not None:
            iops, derived = bps / block, "iops"
        elif bps is None and iops is not None:
            bps, derived = iops * block, "bytes_per_second"
        if group is None:
            return cls(result, bps, iops, derived)
        method, n, *rates = group[:7]
        tail = None
        if len(group) > 7 and group[7]:
            tail = GroupTail.of(group[7], n, group[8], group[9:])
        if group[2] is None:
            return cls(result, bps, iops, derived, tail=tail)
        # Floats, as every figure: PostgreSQL's JSON writes a whole float8 as an integer
        # (31700000), which the API would then write unlike the same figure elsewhere.
        mean_bps, mean_iops, low, high, cv = (None if v is None else float(v) for v in rates)
        return cls(
            result, mean_bps, mean_iops, derived, Spread(n, mean_bps, low, high, cv), method, tail
        )

    @property
    def rule_side(self) -> RuleSide | None:
        """What the winner rule reads of these figures (None without a rate)."""
        return held(self.shown, "rule_side", self._rule_side)

    def _rule_side(self) -> RuleSide | None:
        if self.bytes_per_second is None:
            return None
        spread = self.spread or Spread.of([self.bytes_per_second])
        return RuleSide(spread, self.method, self.result.test.run_to_run_cv, self.quick)

    @property
    def latency_rule_side(self) -> RuleSide | None:
        """What the winner rule reads of the mean latency: the rate it stands for, its
        reciprocal. At a fixed queue depth mean latency is the depth over the IOPS (Little's
        law), so that reciprocal varies from run to run as the rate does: by the group's CV,
        else by the test's measured one for loadgen (None without a mean latency)."""
        return held(self.shown, "latency_rule_side", self._latency_rule_side)

    def _latency_rule_side(self) -> RuleSide | None:
        if not (mean := self.result.latency_mean_ns):
            return None
        rate, spread = 1e9 / mean, self.spread
        return RuleSide(
            Spread(spread.n if spread else 1, rate, rate, rate, spread.cv if spread else None),
            self.method,
            self.result.test.run_to_run_cv,
            self.quick,
        )

    @property
    def comparability(self) -> str:
        """The class it is ranked and compared within (results.spread.Comparability)."""
        return Comparability.of(method=self.method, quick=self.quick)

    @property
    def missing_rates_reason(self) -> str | None:
        """Why neither rate is known (missing_rates_reason), None when one is."""
        return missing_rates_reason(
            source=self.result.run.source,
            bytes_per_second=self.bytes_per_second,
            iops=self.iops,
        )

    @property
    def block_size(self) -> int:
        return self.result.block_size or self.result.test.block_size

    @property
    def quick(self) -> bool:
        """Measured for less than 90% of the test's duration: a quick (smoke) run."""
        ns = self.result.duration_ns
        return ns is not None and ns < 0.9 * self.result.test.duration_s * 1e9


def series_is_quick(series: ConsistencySeries) -> bool:
    """Recorded for less than 90% of its test's duration (a quick smoke run)."""
    return series.points * series.interval_ns / 1e9 < 0.9 * series.test.duration_s


TEST_SHAPE = Shape(Test, "t")
# A series without its points: with points=True they travel as their JSON text (below).
SERIES_POINTS = ("iops", "iops_text")
