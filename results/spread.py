"""Run-to-run spread, and when a difference between two drives is real (docs/methodology.md,
"Spread and the winner rule").

A figure shown for a drive is the mean of its group: the drive's results in one test and
data pattern obtained the same way (a Method; a published figure only with its own
article's), across the passes of a run (loadgen --repeat) and across runs. The group says
how many results it holds, their range and their coefficient of variation (CV: sample
standard deviation over mean). Two drives' figures differ for real only when the difference
is beyond what the runs' own variation explains: `verdict` is the one rule the compare page,
its exports and the API's compare apply. It judges two figures only within one comparability
class, the classes the rankings order apart (`Comparability`): never a quick run against a
full-length run or a published figure.

A latency percentile is evidence only where enough I/Os lie beyond it (`ios_needed`): the
same rule decides where every read shows one.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from decimal import Decimal

from core.pickled import ByFields
from results.models import Method
from results.units import count, percent

# How a result was obtained (a Method), in SQL over r the result, run its run and t its
# test: the leaderboard's entries and the head to head's chosen runs group by it.
QUICK_SQL = "COALESCE(r.duration_ns < 0.9 * t.duration_s * 1e9, false)"
METHOD_SQL = (
    f"CASE WHEN run.source = 'published' THEN 'published' WHEN {QUICK_SQL} THEN 'quick' "
    "WHEN run.source = 'synthetic' OR run.tool_name = 'loadgen' THEN 'loadgen' "
    "ELSE 'import' END"
)
# A result's rates, the missing one derived through the block size (in SQL, as above),
# and which one that is: "iops", "bytes_per_second", or "" (both given, or neither).
BPS_SQL = "COALESCE(r.bytes_per_second, r.iops * COALESCE(r.block_size, t.block_size))"
IOPS_SQL = "COALESCE(r.iops, r.bytes_per_second / COALESCE(r.block_size, t.block_size))"
DERIVED_SQL = (
    "CASE WHEN r.iops IS NULL AND r.bytes_per_second IS NOT NULL THEN 'iops' "
    "WHEN r.bytes_per_second IS NULL AND r.iops IS NOT NULL THEN 'bytes_per_second' "
    "ELSE '' END"
)


class Comparability:
    """The classes figures are ranked and compared within (docs/methodology.md, "Rankings":
    like with like): quick runs (measured for under 90% of the test's duration, QUICK_SQL;
    Figures.quick) on their own, and full-length runs (loadgen's and imports from any tool)
    with published figures (of any article and tool). A ranking orders one class
    (results.filters.MethodFilter offers these as its choices, on the entries' `quick`), and
    `verdict` judges no difference across two. A published figure whose article gives a
    duration under 90% of the test's is a quick one, as the rankings place it."""

    FULL, QUICK = "full", "quick"
    CHOICES = ((FULL, "full-length runs and published figures"), (QUICK, "quick runs"))

    @classmethod
    def of(cls, *, method: str, quick: bool) -> str:
        """The class of a figure of a group obtained by `method` (a Method), measured quick
        or not: a quick run's group (Method.QUICK) is quick by its method, any other figure
        by its own duration."""
        return cls.QUICK if quick or method == Method.QUICK else cls.FULL


# How a verdict that refuses to compare two classes names each side's figure: a quick run,
# else by its Method (a full-length run is loadgen's or an import's).
_CLASS_NOUNS = {
    Method.LOADGEN: "full-length run",
    Method.IMPORT: "full-length run",
    Method.PUBLISHED: "published figure",
}
QUICK_NOUN = "quick run"

# Above this CV a drive's runs of one test disagree enough to say so (PTS re-runs a test
# whose runs spread by more than 3.5%).
WIDE_CV = 0.035
# How many standard errors of the difference a lead must exceed: about 95% of the
# differences two drives of equal speed would show, when runs vary normally.
MARGIN_SIGMAS = 2.0


@dataclass(frozen=True, slots=True)
class Spread(ByFields):
    """A group of results of one drive: how many, their mean, range and CV (bytes/s)."""

    n: int
    mean: float
    low: float
    high: float
    cv: float | None  # None with one result

    @classmethod
    def of(cls, values: list[float]) -> Spread:
        """The spread of these rates (at least one, each above zero)."""
        n, mean = len(values), math.fsum(values) / len(values)
        cv = None
        if n > 1:
            variance = math.fsum((v - mean) ** 2 for v in values) / (n - 1)
            cv = math.sqrt(variance) / mean
        return cls(n, mean, min(values), max(values), cv)

    @classmethod
    def of_entry(cls, entry) -> Spread | None:
        """A leaderboard entry's group (its runs, mean bytes/s, low_bps, high_bps and cv);
        None without a rate."""
        if entry.bytes_per_second is None:
            return None
        return cls(entry.runs, entry.bytes_per_second, entry.low_bps, entry.high_bps, entry.cv)

    def as_dict(self) -> dict:
        """As the API gives it (bytes/s)."""
        return {
            "n": self.n,
            "mean_bytes_per_second": self.mean,
            "low_bytes_per_second": self.low,
            "high_bytes_per_second": self.high,
            "cv": self.cv,
            "wide": self.wide,
            "label": self.label,
        }

    @property
    def wide(self) -> bool:
        """Its runs disagree by more than WIDE_CV."""
        return self.cv is not None and self.cv > WIDE_CV

    @property
    def label(self) -> str:
        """ "± 2.1% (n = 3)", or "one run"."""
        if self.cv is None:
            return "one run"
        return f"± {percent(self.cv * 100)} (n = {count(self.n)})"


@dataclass(frozen=True, slots=True)
class Side(ByFields):
    """What the winner rule needs of one side's figure: its spread, how it was obtained
    (a Method), the test's measured run-to-run CV for loadgen (None: not measured) and
    whether it was measured quick (Figures.quick, as the rankings' entries have it)."""

    spread: Spread
    method: str
    method_cv: float | None
    quick: bool = False

    @property
    def comparability(self) -> str:
        """Its Comparability class."""
        return Comparability.of(method=self.method, quick=self.quick)

    @property
    def class_noun(self) -> str:
        """What the verdict calls its figure when it refuses to compare it with another
        class: "quick run", "full-length run" or "published figure"."""
        if self.comparability == Comparability.QUICK:
            return QUICK_NOUN
        return _CLASS_NOUNS.get(self.method, _CLASS_NOUNS[Method.LOADGEN])

    @property
    def variation(self) -> float | None:
        """The CV a single result of this side is taken to vary by: its own runs' (never
        less than the method's measured one, which a few runs can miss by chance), else the
        method's for a full-length loadgen result; None when neither is known."""
        method_cv = self.method_cv if self.method == Method.LOADGEN else None
        own = self.spread.cv
        if own is None:
            return method_cv
        return own if method_cv is None else max(own, method_cv)


@dataclass(frozen=True, slots=True)
class Verdict:
    """Who is faster: "a", "b", "tie" (the difference within the margin), "untested" (a
    side's variation unknown), NOT_COMPARED (the two figures are of different
    Comparability classes: no difference is given) or "" (a side has no figure); by how much
    the faster leads, in %, and the margin a real lead must pass, in %."""

    winner: str = ""
    difference_percent: float | None = None
    margin_percent: float | None = None
    reason: str = ""  # why a difference was not tested

    def as_dict(self) -> dict:
        """As the API gives it."""
        return {
            "winner": self.winner or None,
            "difference_percent": self.difference_percent,
            "margin_percent": self.margin_percent,
            "label": self.label or None,
        }

    @property
    def label(self) -> str:
        """How the page says it: "A +12.0%", "tie (within ±6.3%)", or why not tested."""
        if self.winner == "tie":
            return f"tie (within ±{percent(self.margin_percent)})"
        if self.winner in ("a", "b", "c", "d"):  # B, C or D: a drive against A
            return f"{self.winner.upper()} +{percent(self.difference_percent)}"
        return self.reason


NOT_COMPARED = "not_compared"  # a verdict's winner across Comparability classes
NOT_COMPARED_LABEL = "not compared: {a} against {b}"
NOT_TESTED_PUBLISHED = "one published figure each; difference not tested"
NOT_TESTED = "difference not tested: {which} run-to-run variation is unknown"


def verdict(a: Side | None, b: Side | None) -> Verdict:
    """The winner rule (docs/methodology.md): the difference of the two means, as the
    faster's lead over the slower in %, against MARGIN_SIGMAS standard errors of that
    difference, each side's standard error its variation over the square root of its n.
    Figures of two Comparability classes are not compared: NOT_COMPARED, naming each side's
    class, and no difference."""
    if a is None or b is None:
        return Verdict()
    if a.comparability != b.comparability:
        reason = NOT_COMPARED_LABEL.format(a=a.class_noun, b=b.class_noun)
        return Verdict(NOT_COMPARED, reason=reason)
    x, y = a.spread.mean, b.spread.mean
    difference = (max(x, y) / min(x, y) - 1) * 100
    va, vb = a.variation, b.variation
    if va is None or vb is None:
        if a.method == b.method == Method.PUBLISHED and a.spread.n == b.spread.n == 1:
            reason = NOT_TESTED_PUBLISHED
        else:
            which = "both sides'" if va is None and vb is None else "A's" if va is None else "B's"
            reason = NOT_TESTED.format(which=which)
        return Verdict("untested", difference, None, reason)
    margin = MARGIN_SIGMAS * math.sqrt(va**2 / a.spread.n + vb**2 / b.spread.n) * 100
    if difference <= margin:
        return Verdict("tie", difference, margin)
    return Verdict("a" if x > y else "b", difference, margin)


# Where a run falls among a drive's runs (the run page and the drive page's distribution):
# the percentiles its box is drawn from, its whiskers reaching the 2nd and the 98th.
QUANTILES = (2, 25, 50, 75, 98)


def quantiles(values: list[float]) -> tuple[float, ...]:
    """The QUANTILES percentiles of two or more values, each interpolated linearly between
    the two order statistics around it (the 0th percentile is the lowest value and the
    100th the highest, as statistics.quantiles' inclusive method and numpy's default), kept
    between them whatever the rounding, so that they never fall outside the values or out
    of order."""
    ordered = sorted(values)
    last = len(ordered) - 1
    found = []
    for q in QUANTILES:
        at, fraction = divmod(q * last, 100)
        low, high = ordered[at], ordered[min(at + 1, last)]
        found.append(min(max(low + (high - low) * fraction / 100, low), high))
    return tuple(found)


def percentile_rank(value: float, values: list[float]) -> float:
    """Where `value`, one of two or more `values`, falls among the others, in percent: the
    share of them below it, an equal one counted half (0: the lowest, 100: the highest,
    50: the middle or level with every other)."""
    others = len(values) - 1
    below = sum(v < value for v in values)
    level = sum(v == value for v in values) - 1
    return 100 * (below + level / 2) / others


# A latency percentile is shown where the I/Os measured support it: at least TAIL_IOS of them
# beyond it (docs/methodology.md, "Latency percentiles"). Fewer, and a "99.99%" is the
# maximum of a few thousand I/Os by another name.
TAIL_IOS = 10


@functools.lru_cache(maxsize=64)  # a handful of keys ("50", "99.9"); each read asks per figure
def ios_needed(percentile: str) -> int:
    """The I/Os a percentile ("99.9", as documents key them) needs: TAIL_IOS beyond it (20
    for the median, 1,000 for p99, 100,000 for p99.99). Decimal: 100 - 99.99 exactly."""
    return math.ceil(TAIL_IOS * 100 / (100 - Decimal(percentile)))


def percentile_unsupported(percentile: str, io_count: int | None) -> int | None:
    """The I/Os a percentile needs where a result's I/Os are fewer; None where they suffice
    or were not stated (a published figure's, its article's claim)."""
    needed = ios_needed(percentile)
    return needed if io_count is not None and io_count < needed else None
