"""Two to four drives head to head (the compare page, its exports and the API's compare):
drive A is the reference every other is compared with."""

from __future__ import annotations

import collections
import dataclasses
import functools
import hashlib
import logging
import pickle
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

import lz4.frame
import orjson
from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.cache import cache
from django.core.signals import request_finished, request_started

from core.code_version import code_version
from core.db import JsonText, Shape, attach, prepared_rows, read_alias
from core.held import held
from core.shared_cache import CACHE_ERRORS, prepared_reads
from core.versions import CATALOG, WRITTEN, drive_scope, literal, read_versions
from drives.models import Drive, FirmwareVersion, Price
from drives.selectors import (
    SPECS_COLUMNS,
    SPECS_TABLES,
    SPECS_WIDTH,
    drive_with_specs,
)
from results import units
from results.curves import curve_label
from results.models import (
    HISTOGRAM_FIELDS,
    Citation,
    ConsistencySeries,
    Method,
    Result,
    Run,
    SaturationSeries,
    Suite,
    Test,
    TestBench,
    TrimValidation,
    method_label,
)
from results.selectors.common import (
    ENTRY_TAILS_SQL,
    PATTERN_ORDER,
    SERIES_POINTS,
    TEST_SHAPE,
    VALUE_DEFAULT_TEST,
    Figures,
    series_is_quick,
    test_order_key,
)
from results.spread import (
    BPS_SQL,
    IOPS_SQL,
    METHOD_SQL,
    NOT_COMPARED,
    Comparability,
    Verdict,
    verdict,
)
from results.sweeps import sweep_label

# -- head to head --------------------------------------------------------------------------


# How a measured run's figures were obtained, as the guard line says it.
_HOW = {Method.LOADGEN: "full length", Method.QUICK: "quick run", Method.IMPORT: "imported"}


@dataclass
class Side:
    """One drive of a comparison, with the runs it could be shown from and what is shown."""

    drive: Drive
    runs: list[Run]
    chosen_run: Run | None  # None: the latest result of every test
    results: dict[tuple[int, str], Figures] = field(default_factory=dict)
    consistency: dict[int, ConsistencySeries] = field(default_factory=dict)
    trim: dict[tuple[str, str], TrimValidation] = field(default_factory=dict)  # (test, pattern)
    saturation: dict[str, SaturationSeries] = field(default_factory=dict)  # by data pattern
    wsat: dict[str, SaturationSeries] = field(default_factory=dict)  # WSAT, by data pattern
    price: Price | None = None
    key: str = "a"  # which drive of the comparison: "a" (the reference), "b", "c" or "d"
    # What a page writes of it whatever it is compared with (its runs' provenance cards),
    # kept while it is held (held_sides).
    shown: dict = field(default_factory=dict, repr=False, compare=False)
    # Kept in the shared cache, or about to be (shared_sides): its entry is not written again.
    shared: bool = field(default=False, repr=False, compare=False)

    @functools.cached_property
    def tested(self) -> dict[str, tuple[Test, frozenset[str]]]:
        """Each test it has throughput figures in, by identifier: the test and the data
        patterns of its figures (worked out once while the side is held, not in every
        comparison that shows it)."""
        patterns: dict[str, set[str]] = {}
        tests: dict[str, Test] = {}
        for (identifier, pattern), f in self.results.items():
            tests[identifier] = f.result.test
            patterns.setdefault(identifier, set()).add(pattern)
        return {name: (tests[name], frozenset(found)) for name, found in patterns.items()}

    @functools.cached_property
    def shown_runs(self) -> list[Run]:
        """The runs the side's figures come from (read once the side is filled)."""
        ids = {f.result.run_id for f in self.results.values()}
        ids.update(s.run_id for s in self.consistency.values())
        ids.update(t.run_id for t in self.trim.values())
        ids.update(w.run_id for w in self.saturation.values())
        ids.update(w.run_id for w in self.wsat.values())
        return [r for r in self.runs if r.pk in ids]

    @functools.cached_property
    def method_key(self) -> frozenset[tuple[str, str, int | None]]:
        """How its throughput figures were obtained: (Method, tool, bench) of each."""
        return frozenset(
            (f.method, f.result.run.tool_name, f.result.run.bench_id) for f in self.results.values()
        )

    @functools.cached_property
    def provenance(self) -> str:
        """Its throughput figures' provenance in a phrase: "published: AnandTech, 2011,
        Iometer", "loadgen 0.1.0, full length, on Bench development VM"; runs joined by ";"."""
        phrases = []
        for run in self.shown_runs:
            methods = {f.method for f in self.results.values() if f.result.run_id == run.pk}
            if not methods:
                continue
            if run.source == Run.Source.PUBLISHED and run.citation is not None:
                words = [
                    f"published: {run.citation.publisher}",
                    str(run.citation.published_on.year),
                ]
                words += [run.tool_name] if run.tool_name else []
            else:
                words = [f"{run.tool_name} {run.tool_version}".strip()]
                words += [_HOW[m] for m in sorted(methods) if m in _HOW]
                if run.bench is not None:
                    words.append(f"on {run.bench}")
            phrases.append(", ".join(words))
        if self.drive.kind == Drive.Kind.VIRTUAL:
            phrases.append("a virtual disk")
        return "; ".join(phrases)

    @functools.cached_property
    def firmware(self) -> list[str]:
        return sorted({r.firmware.version for r in self.shown_runs if r.firmware})

    @property
    def price_per_gb(self) -> Decimal | None:
        if self.price is None or not self.drive.capacity_bytes:
            return None
        return self.price.amount / Decimal(self.drive.capacity_bytes / 10**9)

    def value_iops(self, test_id: str) -> float | None:
        """The IOPS the drive is priced by in a test: a compressing drive's worst case."""
        iops = [f.iops for (test, _), f in self.results.items() if test == test_id and f.iops]
        return min(iops) if iops else None

    def price_per_kiops(self, test_id: str) -> float | None:
        iops = self.value_iops(test_id)
        if self.price is None or iops is None:
            return None
        return float(self.price.amount) / (iops / 1000)


LATENCY_KINDS_DIFFER = "latencies of different kinds (see each side's): not compared"
_CLASSES = dict(Comparability.CHOICES)
# Why no drive is the best where their figures are of two comparability classes.
NO_BEST_ACROSS = (
    f"none: {_CLASSES[Comparability.QUICK]} are not compared with {_CLASSES[Comparability.FULL]}"
)


# The drives of a comparison, in order: A is the reference the others are compared with.
SIDE_KEYS = ("a", "b", "c", "d")
MAX_SIDES = len(SIDE_KEYS)


class RepeatedDrive(ValueError):
    """Three or four drives compared, one of them twice (two may be the same drive)."""


def against_a(v: Verdict, key: str) -> Verdict:
    """A verdict of drive A against another (results.spread.verdict names that one "b") as
    said of that drive: `key` wins where "b" did, and "B's" variation is `key`'s."""
    if key == "b":
        return v
    return dataclasses.replace(
        v,
        winner=key if v.winner == "b" else v.winner,
        reason=v.reason.replace("B's", f"{key.upper()}'s"),
    )


def best_of(sides: list, against: list[Verdict] | None = None) -> int | None:
    """Which of the sides' rule sides (results.spread.Side, None where a drive has no
    figure) is better than every other that has one by the winner rule, a real difference
    each time: its index; None when none is, or fewer than two have a figure. The rule
    compares no two classes (results.spread.Comparability): where the figures are of two,
    none is the best. `against`: the verdicts of the first side against each other, where
    the caller has them (the rule's winner is the same whichever side is named first)."""
    present = [i for i, s in enumerate(sides) if s is not None]
    if len(present) < 2:
        return None
    if against is None:
        against = [verdict(sides[0], other) for other in sides[1:]]

    def beats(i: int, j: int) -> bool:
        if i == 0:
            return against[j - 1].winner == "a"
        if j == 0:
            return against[i - 1].winner == "b"
        return verdict(sides[i], sides[j]).winner == "a"

    for i in present:
        if all(beats(i, j) for j in present if j != i):
            return i
    return None


@dataclass(slots=True)
class PatternRow:
    """Every drive's figures in one data pattern (A first, None where a drive was not
    tested), each drive's verdict against A by the winner rule (results.spread.verdict:
    "a", the drive's key, "tie", "untested", "not_compared" across comparability classes,
    or "" when a side was not tested; A's own empty), and the drive better than every other,
    if one is (`best`, its key, else "")."""

    pattern: str
    figures: list[Figures | None]
    verdicts: list[Verdict] = field(init=False)
    best: str = field(init=False)
    rule: list = field(init=False)  # what the winner rule reads of each drive's figures
    # The drives' figures are of two comparability classes, which the winner rule does not
    # compare (charts then name each bar's class).
    classes_differ: bool = field(init=False)

    def __post_init__(self) -> None:
        self.rule = rule = [f.rule_side if f else None for f in self.figures]
        self.classes_differ = len({side.comparability for side in rule if side is not None}) > 1
        against = [verdict(rule[0], other) for other in rule[1:]]
        self.verdicts = [Verdict()] + [
            against_a(v, key) for key, v in zip(SIDE_KEYS[1:], against, strict=False)
        ]
        best = best_of(rule, against)
        self.best = "" if best is None else SIDE_KEYS[best]

    @property
    def no_best_reason(self) -> str:
        """Why no drive is the best, when it is that their classes differ (else "")."""
        return NO_BEST_ACROSS if not self.best and self.classes_differ else ""

    @property
    def latency_verdicts(self) -> list[Verdict]:
        """Each drive's mean latency against A's (A's own empty), by the winner rule on the
        rates the latencies stand for (Figures.latency_rule_side): A or the drive, a tie, or
        why the difference was not tested (latencies of two kinds are not one figure); none
        when a side has none."""
        a = self.figures[0]
        return [Verdict()] + [
            against_a(_latency_verdict(a, f), key)
            for key, f in zip(SIDE_KEYS[1:], self.figures[1:], strict=False)
        ]


def _latency_verdict(a: Figures | None, other: Figures | None) -> Verdict:
    sides = [f.latency_rule_side if f else None for f in (a, other)]
    if None in sides:
        return Verdict()
    judged = verdict(*sides)  # across comparability classes: not compared, first
    if judged.winner != NOT_COMPARED and a.result.latency_kind != other.result.latency_kind:
        return Verdict("untested", reason=LATENCY_KINDS_DIFFER)
    return judged


# What a figure was measured with and under, for "what differs" (issue 48): each parameter's
# name and how it is read ("" where it is not said), from a side's run (the same for every
# figure of the run: read once a comparison) or from its figures. Declared once: the page, the
# exports and the API show TestRows.parameters.
def _bench(field_name: str) -> Callable[[Run], str]:
    return lambda run: getattr(run.bench, field_name) if run.bench_id else ""


RUN_PARAMETERS: tuple[tuple[str, Callable[[Run], str]], ...] = (
    ("tool", lambda run: " ".join(filter(None, (run.tool_name, run.tool_version)))),
    ("engine", lambda run: run.engine),
    ("test bench", _bench("name")),
    ("CPU", _bench("cpu")),
    ("OS", _bench("os")),
    ("kernel", _bench("kernel")),
    ("link", _bench("link")),
    ("firmware", lambda run: run.firmware.version if run.firmware_id else ""),
    ("drive state", lambda run: run.get_drive_state_display()),
)


def _run_parameters(run: Run) -> tuple[str, ...]:
    """A run's RUN_PARAMETERS values as text (NOT_STATED for "")."""
    return tuple(read(run) or NOT_STATED for _, read in RUN_PARAMETERS)


def _span(span: int | None) -> str:
    return units.binary(span, "GiB") if span else "whole drive"


def _depth_text(depth: tuple[int, int]) -> str:
    queue_depth, jobs = depth
    return f"QD{queue_depth}" + (f" × {jobs} jobs" if jobs > 1 else "")


# Read raw from a figure (compared as read: formatted only where shown, where they differ).
FIGURE_PARAMETERS: tuple[tuple[str, Callable[[Figures], Any], Callable[[Any], str]], ...] = (
    (
        "how obtained",
        lambda f: (f.method, f.result.run.tool_name, f.result.run.source),
        lambda raw: method_label(raw[0], raw[1]) if raw[0] else Run.Source(raw[2]).label,
    ),
    (
        "duration",  # in whole seconds, as shown
        lambda f: round(f.result.duration_ns / 1e9) if f.result.duration_ns else None,
        lambda seconds: "" if seconds is None else units.seconds(seconds),
    ),
    (
        "queue depth",
        lambda f: (f.result.queue_depth or f.result.test.queue_depth, f.result.jobs),
        _depth_text,
    ),
    (
        "span",  # as shown, to three digits
        lambda f: _span(f.result.span_bytes or f.result.test.span_bytes),
        str,
    ),
    (
        "block size",
        lambda f: f.result.block_size or f.result.test.block_size,
        lambda size: f"{size // 1024} KiB",
    ),
    ("data pattern", lambda f: f.result.pattern, str),
)
# Every parameter, as read from a side's figures.
PARAMETERS: tuple[tuple[str, Callable[[Figures], str]], ...] = (
    *((name, lambda f, read=read: read(f.result.run)) for name, read in RUN_PARAMETERS),
    *((name, lambda f, raw=raw, text=text: text(raw(f))) for name, raw, text in FIGURE_PARAMETERS),
)
NOT_STATED = "not stated"
NOT_TESTED = "not tested"


@dataclass(frozen=True, slots=True)
class Difference:
    parameter: str
    values: tuple[str, ...]  # each side's, A first: its values in the test's rows, " / "

    @property
    def text(self) -> str:
        """As the page says it: "firmware (A 1.0; B 2.0)"."""
        sides = "; ".join(
            f"{key.upper()} {value}" for key, value in zip(SIDE_KEYS, self.values, strict=False)
        )
        return f"{self.parameter} ({sides})"


@dataclass(frozen=True, slots=True)
class Parameters:
    """What differs between the sides' figures of one test, and what is the same."""

    differ: tuple[Difference, ...]
    same: tuple[str, ...]

    @property
    def differ_text(self) -> str:
        return ", ".join(d.text for d in self.differ)

    @property
    def same_text(self) -> str:
        return ", ".join(self.same)


@dataclass
class TestRows:
    """One test: a row of every drive's figures for each data pattern."""

    test: Test
    rows: list[PatternRow]

    # Each run's RUN_PARAMETERS values, by its id: one dict for every test of a comparison.
    runs_read: dict[int, tuple[str, ...]] = field(default_factory=dict, repr=False)

    def _read(self, f: Figures) -> tuple:
        """Every PARAMETERS value of a side's figures, in order: its run's as text
        (NOT_STATED for ""), its own raw (FIGURE_PARAMETERS); kept with the figures while
        their side is held (Figures.shown)."""
        return held(f.shown, "parameters", self._parameters_of, f)

    def _parameters_of(self, f: Figures) -> tuple:
        run = f.result.run
        return held(self.runs_read, run.pk, _run_parameters, run) + tuple(
            raw(f) for _, raw, _ in FIGURE_PARAMETERS
        )

    @functools.cached_property
    def parameters(self) -> Parameters | None:
        """Each PARAMETERS' value on every side (its values over the test's rows, in order),
        and which differ: those whose values differ between the sides in a data pattern's row
        (in the rows where two sides or more have figures; where no row has, between the
        sides' values); None where fewer than two sides have figures. Each figure is read
        once, and a row whose sides read alike is not looked into parameter by parameter."""
        sides = len(self.rows[0].figures) if self.rows else 0
        tested: list[list[tuple]] = [[] for _ in range(sides)]
        differs = [False] * len(PARAMETERS)
        shared = False  # a row where two sides or more have figures
        for p in self.rows:
            values = []
            for found, f in zip(tested, p.figures, strict=True):
                if f is not None:
                    found.append(read := self._read(f))
                    values.append(read)
            if len(values) > 1:
                shared = True
                if len(set(values)) > 1:
                    for n, column in enumerate(zip(*values, strict=True)):
                        differs[n] = differs[n] or len(set(column)) > 1
        if sum(1 for found in tested if found) < 2:
            return None
        if not shared:
            differs = [
                len({frozenset(v[n] for v in found) for found in tested if found}) > 1
                for n in range(len(PARAMETERS))
            ]
        runs = len(RUN_PARAMETERS)
        differ, same = [], []
        for n, (name, _) in enumerate(PARAMETERS):
            if not differs[n]:
                same.append(name)
                continue
            text = (lambda v: v) if n < runs else FIGURE_PARAMETERS[n - runs][2]
            shown = tuple(
                " / ".join(dict.fromkeys(text(v[n]) or NOT_STATED for v in found))
                if found
                else NOT_TESTED
                for found in tested
            )
            differ.append(Difference(name, shown))
        return Parameters(tuple(differ), tuple(same))

    @property
    def has_rates(self) -> bool:
        """A side has MB/s or IOPS in some data pattern (else only latency: no bars)."""
        return any(
            f is not None and f.bytes_per_second is not None for p in self.rows for f in p.figures
        )

    @property
    def no_rates_reason(self) -> str:
        """Why no side has a rate (Figures.missing_rates_reason), the first one given."""
        return (
            next(
                (f.missing_rates_reason for p in self.rows for f in p.figures if f is not None),
                "",
            )
            or ""
        )

    @property
    def has_latency(self) -> bool:
        return any(
            f is not None
            and (f.result.latency_mean_ns is not None or f.result.latency_max_ns is not None)
            for p in self.rows
            for f in p.figures
        )


@dataclass
class Sweep:
    """A queue-depth sweep the drives may have points of (results.sweeps): its tests,
    shallowest first, each with every side's figures in every data pattern."""

    family: str
    name: str
    points: list[TestRows]

    @property
    def patterns(self) -> list[str]:
        found = {p.pattern for point in self.points for p in point.rows}
        return sorted(found, key=lambda p: PATTERN_ORDER.get(p, 9))


@dataclass
class Curve:
    """A response-time curve the drives may have points of (results.curves): its unpaced
    test (the maximum; None where no drive has it) and its points, lowest load first, each
    with every side's figures in every data pattern."""

    curve: str  # the identifier of its unpaced test
    name: str
    maximum: TestRows | None
    points: list[TestRows]

    @property
    def tests(self) -> list[TestRows]:
        """Its tests any drive has: the maximum, then the points."""
        return [*([self.maximum] if self.maximum else []), *self.points]

    @property
    def patterns(self) -> list[str]:
        found = {p.pattern for point in self.tests for p in point.rows}
        return sorted(found, key=lambda p: PATTERN_ORDER.get(p, 9))


@dataclass
class Comparison:
    """Two to four drives compared, A (the first side) the reference."""

    sides: list[Side]
    tests: list[TestRows]  # every throughput test but the sweeps' and the curves'
    consistency_levels: list[int]
    trim_keys: list[tuple[Test, str]]  # TRIM test and data pattern, each compared apart
    value_test: str = VALUE_DEFAULT_TEST
    saturation_patterns: list[str] = field(default_factory=list)
    wsat_patterns: list[str] = field(default_factory=list)
    sweeps: list[Sweep] = field(default_factory=list)
    curves: list[Curve] = field(default_factory=list)

    @functools.cached_property
    def names(self) -> list[str]:
        """Each drive's name, A first (made once: every chart of the comparison names them)."""
        return [str(side.drive) for side in self.sides]

    @property
    def throughput(self) -> list[TestRows]:
        """Every throughput test any drive has: the tests, then each sweep's points, then
        each curve's tests."""
        return [
            *self.tests,
            *(point for sweep in self.sweeps for point in sweep.points),
            *(one for curve in self.curves for one in curve.tests),
        ]

    @property
    def guard(self) -> tuple[str, ...] | None:
        """Each side's provenance, when the sides' throughput figures differ in method,
        tool or test bench (the page says so near its top); None when they do not. Every
        side's, in order, once two with figures differ."""
        keys = {s.method_key for s in self.sides if s.results}
        return tuple(s.provenance for s in self.sides) if len(keys) > 1 else None

    @property
    def value_iops(self) -> tuple[float | None, ...]:
        """Each side's IOPS in the value test, which its price per 1,000 IOPS is of."""
        return tuple(s.value_iops(self.value_test) for s in self.sides)


# -- the head-to-head statement ------------------------------------------------------------
# One statement gathers everything a comparison shows, written as JSON by PostgreSQL: both
# drives with their makers, controllers, NAND and latest USD price; their published runs with
# provenance, newest first; and for each side (a drive, and the run chosen for it, if it is
# one of the drive's) the latest result of every test (its leaderboard entries) or the
# chosen run's, the latest consistency series of every spare-area level, TRIM validation of
# every test and pattern, and write saturation of every pattern. The test catalog comes only
# when the process holds none as of the catalog's current version (_held_tests).
# Kept as SQL, not ORM queries: the same reads as Drive.objects.with_specs(), runs with
# select_related, results, series, TRIM and saturation through the ORM (seven queries) made
# the uncached compare page 4.1x as slow and its API 5.0-5.6x, measured paired in one
# process on the demo catalog and seed_scale (issue 30's bar: 1.15x).
_PRICE = Shape(Price, "p")
_RUN = Shape(Run, "run", [f.name for f in Run._meta.concrete_fields if f.name != "document"])
_FIRMWARE = Shape(FirmwareVersion, "fw")
_CITATION = Shape(Citation, "ci")
_BENCH = Shape(TestBench, "tb")
_SUITE = Shape(Suite, "su")
_SUBMITTER = Shape(get_user_model(), "u", ["id", "username"])
# A run's relations, in the order the statement writes them after the run.
_RUN_RELATIONS = (
    ("firmware", _FIRMWARE),
    ("citation", _CITATION),
    ("bench", _BENCH),
    ("suite", _SUITE),
    ("submitter", _SUBMITTER),
)
# A result's fields the head to head shows (figures, latency, what its deviations name, the
# I/Os its percentiles rest on): not its histograms, the completion latency (clat_*) nor the
# bytes, which stay deferred.
RESULT_UNREAD = (
    *HISTOGRAM_FIELDS,
    "bytes",
    "clat_mean_ns",
    "clat_stddev_ns",
    "clat_min_ns",
    "clat_max_ns",
    "clat_percentiles_ns",
)
_RESULT = Shape(
    Result, "r", [f.name for f in Result._meta.concrete_fields if f.name not in RESULT_UNREAD]
)
_SERIES = Shape(
    ConsistencySeries,
    "s",
    [f.name for f in ConsistencySeries._meta.concrete_fields if f.name not in SERIES_POINTS],
)
_TRIM = Shape(TrimValidation, "tv")
_SATURATION_FIELDS = [f.name for f in SaturationSeries._meta.concrete_fields]
_SATURATION = {
    True: Shape(SaturationSeries, "w", _SATURATION_FIELDS),
    False: Shape(
        SaturationSeries, "w", [f for f in _SATURATION_FIELDS if f != "bytes_per_interval"]
    ),
}
# The order of run_recency, in SQL: newest first.
_RECENCY = (
    "COALESCE(run.started_at, ci.published_on::timestamptz, run.ingested_at) DESC, run.id DESC"
)

# The version the tests held are current with: the catalog's (core.versions), when this
# transaction has not itself written. The only version the head to head reads.
_CATALOG_VERSION = (
    f"(SELECT version FROM core_scopeversion WHERE scope = {literal(CATALOG)} AND NOT {WRITTEN})"
)

_COMPARE_SQL = """
WITH side AS (
  SELECT v.key, d.id AS drive_id,
         (SELECT run.id FROM results_run run
          WHERE run.id = v.run AND run.drive_id = d.id AND run.status = 'published'
            {real_runs}) AS chosen
  FROM (VALUES ('a', %(a)s::text, %(run_a)s::bigint), ('b', %(b)s::text, %(run_b)s::bigint),
               ('c', %(c)s::text, %(run_c)s::bigint), ('d', %(d)s::text, %(run_d)s::bigint))
    AS v (key, slug, run)
  JOIN drives_drive d ON d.slug = v.slug {real_drives}
),
shown AS (
  SELECT side.key, run.id, row_number() OVER (PARTITION BY side.key ORDER BY {recency}) AS rank
  FROM side
  JOIN results_run run ON run.drive_id = side.drive_id AND run.status = 'published' {real_runs}
    AND (side.chosen IS NULL OR run.id = side.chosen)
  LEFT JOIN results_citation ci ON ci.id = run.citation_id
),
series AS (
  SELECT DISTINCT ON (shown.key, s.spare_area_percent) shown.key, s.*
  FROM shown JOIN results_consistencyseries s ON s.run_id = shown.id
  ORDER BY shown.key, s.spare_area_percent, shown.rank
)
SELECT 0 AS n, json_build_object(
  'sides', (SELECT json_agg(json_build_array(key, drive_id, chosen)) FROM side),
  'drives', (
    SELECT json_agg(json_build_array({specs}, {price}))
    FROM {specs_tables}
    LEFT JOIN LATERAL (
      SELECT * FROM drives_price p WHERE p.drive_id = d.id AND p.currency = 'USD'
      ORDER BY p.observed_on DESC, p.amount LIMIT 1) p ON true
    WHERE d.id IN (SELECT drive_id FROM side)),
  'runs', (
    SELECT json_agg(json_build_array({run}, {firmware}, {citation}, {bench}, {suite},
                                     {submitter}) ORDER BY {recency})
    FROM results_run run
    LEFT JOIN drives_firmwareversion fw ON fw.id = run.firmware_id
    LEFT JOIN results_citation ci ON ci.id = run.citation_id
    LEFT JOIN results_testbench tb ON tb.id = run.bench_id
    LEFT JOIN results_suite su ON su.id = run.suite_id
    LEFT JOIN auth_user u ON u.id = run.submitter_id
    WHERE run.drive_id IN (SELECT drive_id FROM side) AND run.status = 'published' {real_runs}),
  'catalog', {catalog},
  'tests', CASE WHEN {catalog} = %(tests_held)s::bigint THEN NULL
           ELSE (SELECT COALESCE(json_agg({test}), '[]') FROM results_test t) END,
  'results', (
    SELECT json_agg(json_build_array(key, {result}, grp)) FROM (
      SELECT side.key, r.*,
             json_build_array(e.method, e.runs, e.bytes_per_second, e.iops, e.low_bps,
                              e.high_bps, e.cv, e.tail, e.histograms, {entry_tails}) AS grp
      FROM side
      JOIN results_leaderboardentry e ON e.drive_id = side.drive_id
      JOIN results_result r ON r.id = e.result_id
      WHERE side.chosen IS NULL
      UNION ALL (
      SELECT DISTINCT ON (side.key, r.test_id, r.pattern) side.key, r.*,
             json_build_array({method}, count(*) OVER w, avg({bps}) OVER w, avg({iops}) OVER w,
                              min({bps}) OVER w, max({bps}) OVER w,
                              stddev_samp({bps}) OVER w / NULLIF(avg({bps}) OVER w, 0))
      FROM side
      JOIN results_result r ON r.run_id = side.chosen
      JOIN results_run run ON run.id = r.run_id
      JOIN results_test t ON t.id = r.test_id
      WINDOW w AS (PARTITION BY side.key, r.test_id, r.pattern ORDER BY {bps}, r.id
                   ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING)
      ORDER BY side.key, r.test_id, r.pattern, r.partial, r.repeat DESC)
    ) r),
  'series', (
    SELECT json_agg(json_build_array(key, {series}) ORDER BY key, spare_area_percent)
    FROM series s),
  'trims', (
    SELECT json_agg(json_build_array(key, {trim})) FROM (
      SELECT DISTINCT ON (shown.key, tv.test_id, tv.pattern) shown.key, tv.*
      FROM shown JOIN results_trimvalidation tv ON tv.run_id = shown.id
      ORDER BY shown.key, tv.test_id, tv.pattern, shown.rank) tv),
  'saturation', (
    SELECT json_agg(json_build_array(key, {saturation}, points)) FROM (
      SELECT DISTINCT ON (shown.key, w.test_id, w.pattern) shown.key,
             cardinality(w.bytes_per_interval) AS points, w.*
      FROM shown JOIN results_saturationseries w ON w.run_id = shown.id
      ORDER BY shown.key, w.test_id, w.pattern, shown.rank) w)
)::text
{series_points}
ORDER BY n
"""


@dataclass(frozen=True, slots=True)
class _HeldTests:
    """The test catalog as of a catalog version, held by the process per database: a dozen
    rows every comparison names, which the compare statement then leaves out."""

    version: int
    by_id: dict[int, Test]


_held_tests: dict[str, _HeldTests] = {}
logger = logging.getLogger(__name__)


@functools.cache
def _compare_sql(*, points: bool, real: bool) -> str:
    shapes = {
        "specs_tables": SPECS_TABLES,
        "specs": SPECS_COLUMNS,
        "price": _PRICE.optional,
        "run": _RUN.array,
        "firmware": _FIRMWARE.optional,
        "citation": _CITATION.optional,
        "bench": _BENCH.optional,
        "suite": _SUITE.optional,
        "submitter": _SUBMITTER.optional,
        "test": TEST_SHAPE.array,
        "catalog": _CATALOG_VERSION,
        "result": _RESULT.array,
        "entry_tails": ENTRY_TAILS_SQL,
        "series": _SERIES.array,
        # Each series' points (the JSON text stored beside them) in a row of its own, in
        # the document's order: sent on as they are, never parsed or escaped as JSON.
        "series_points": (
            "UNION ALL SELECT row_number() OVER (ORDER BY key, spare_area_percent), iops_text "
            "FROM series"
            if points
            else ""
        ),
        "trim": _TRIM.array,
        "saturation": _SATURATION[points].array,
        "recency": _RECENCY,
        "method": METHOD_SQL,
        "bps": BPS_SQL,
        "iops": IOPS_SQL,
        "real_drives": "AND NOT d.synthetic" if real else "",
        "real_runs": "AND run.source <> 'synthetic'" if real else "",
    }
    sql = _COMPARE_SQL
    for name, text in shapes.items():
        sql = sql.replace("{" + name + "}", text)
    return sql


def _pack(side: Side) -> bytes:
    """A side as bytes: pickled (its held texts with it) and compressed."""
    return lz4.frame.compress(pickle.dumps(side, pickle.HIGHEST_PROTOCOL))


def _unpack(packed: bytes) -> Side:
    return pickle.loads(lz4.frame.decompress(packed))


class _HeldSides:
    """Sides as built, held by the process, each under the version of what it depends on:
    its drive's scope and CATALOG (core.versions; the compare page's response depends on the
    same). A side is one drive's alone (its runs, results, groups, series, price), so a
    comparison reads only its sides not held, and a held side keeps what was worked out on
    it (its figures' texts, its provenance) for the next comparison that shows it.

    Two tiers. At most BENCH_COMPARE_SIDES sides are held as objects, the least recently
    used let go first. A side whose shared-cache entry the process wrote or read is also held
    packed, as those bytes (_pack: pickled and compressed, about a sixth of its size as
    objects, and nothing the garbage collector walks), in at most BENCH_COMPARE_PACKED_MB,
    the least recently used let go first: a side let go as objects is made again from its
    packed copy, in the process, instead of being read again from the shared cache or the
    catalog."""

    def __init__(self) -> None:
        self._sides: collections.OrderedDict[tuple, Side] = collections.OrderedDict()
        self._packed: collections.OrderedDict[tuple, bytes] = collections.OrderedDict()
        self._packed_bytes = 0
        self._lock = threading.Lock()

    def get(self, key: tuple) -> Side | None:
        with self._lock:
            side = self._sides.get(key)
            if side is not None:
                self._sides.move_to_end(key)
                return side
            packed = self._packed.get(key)
            if packed is None:
                return None
            self._packed.move_to_end(key)
        try:
            side = _unpack(packed)
        except Exception:  # never expected of a copy this code made: let go, read again
            logger.warning("a packed side could not be read; read again", exc_info=True)
            with self._lock:
                if self._packed.get(key) is packed:
                    self._packed_bytes -= len(self._packed.pop(key))
            return None
        self.put(key, side)
        return side

    def put(self, key: tuple, side: Side) -> None:
        with self._lock:
            self._sides[key] = side
            while len(self._sides) > settings.BENCH_COMPARE_SIDES:
                self._sides.popitem(last=False)

    def pack(self, key: tuple, packed: bytes) -> None:
        """Hold `packed` (the side of `key` as _pack writes it) as its packed copy."""
        budget = settings.BENCH_COMPARE_PACKED_MB * 2**20
        if len(packed) > budget:
            return
        with self._lock:
            self._packed_bytes += len(packed) - len(self._packed.pop(key, b""))
            self._packed[key] = packed
            while self._packed_bytes > budget:
                self._packed_bytes -= len(self._packed.popitem(last=False)[1])

    def clear(self) -> None:
        with self._lock:
            self._sides.clear()
            self._packed.clear()
            self._packed_bytes = 0


held_sides = _HeldSides()


class _SharedSides:
    """Sides as built, kept for every process in the shared cache (caches["default"]) under
    the key a process holds them by (held_sides: the version of what they depend on) and
    the code that built them (core.code_version). A process that does not hold a side
    reads it from there before it reads it from the catalog, so a side is built once for
    every worker, not once a worker (and again in each after it was let go).

    A side is kept once a process is asked for it again (`asked`: by a second comparison
    that shows it, or by the same one asked again), when that request has
    finished (request_finished): its page has written what it shows of it whatever it is
    compared with (Side.shown, Figures.shown), which the next process to read it uses as it
    is. A side asked for once, as most of a large catalog's are (each comparison then
    served from the response cache), costs no write: pickling and writing one took about a
    fifth of a comparison read afresh (3 of 15 ms in process), and in `make bench-load`'s
    first seconds, when every comparison is new, a fifth of the workers' time after their
    responses. A side asked for again is the one another process is likely to be asked
    for. One built outside a request (a command's) is not kept. An entry that cannot be
    read (the cache not answering, another code's) is a side not kept. Every entry written
    or read is also the side's packed copy in this process (held_sides.pack)."""

    PREFIX = "bench:side:"
    ASKED = 8192  # side keys a process remembers having been asked for, the oldest let go

    def __init__(self) -> None:
        self._built = threading.local()
        self._asked: collections.OrderedDict[tuple, None] = collections.OrderedDict()
        self._lock = threading.Lock()

    def asked(self, held_key: tuple) -> bool:
        """Whether this process was asked for the side of `held_key` before (now it has)."""
        with self._lock:
            before = held_key in self._asked
            self._asked[held_key] = None
            self._asked.move_to_end(held_key)
            while len(self._asked) > self.ASKED:
                self._asked.popitem(last=False)
        return before

    def key(self, held_key: tuple) -> str:
        text = repr((code_version(), *held_key))
        return self.PREFIX + hashlib.sha256(text.encode()).hexdigest()[:40]

    def get_many(self, held_keys: dict[str, tuple]) -> dict[str, tuple[Side, bytes]]:
        """The sides kept of `held_keys` (by side key), each made again from its entry, with
        the entry (the side packed)."""
        keys = {side: self.key(held) for side, held in held_keys.items()}
        try:
            with prepared_reads():
                found = cache.get_many(list(keys.values()))
        except CACHE_ERRORS:  # a cache that does not answer is skipped, not waited for
            logger.warning("shared cache unavailable; sides read from the catalog", exc_info=True)
            return {}
        sides = {}
        for side, key in keys.items():
            if key in found:
                try:
                    sides[side] = _unpack(found[key]), found[key]
                except Exception:
                    logger.warning("a kept side could not be read; read again", exc_info=True)
        return sides

    def forget(self) -> None:
        """Forget which sides this process was asked for (a test's other process)."""
        with self._lock:
            self._asked.clear()

    def keep(self, held_key: tuple, side: Side) -> None:
        """Keep `side` for every process once this thread's request has finished (outside
        a request, not at all), unless it is kept already."""
        pending = getattr(self._built, "sides", None)
        if pending is not None and not side.shared:
            side.shared = True
            pending[held_key] = side

    def request_started(self, **kwargs) -> None:
        self._built.sides = {}

    def request_finished(self, **kwargs) -> None:
        """The sides this thread built in the request that has finished, kept."""
        pending, self._built.sides = getattr(self._built, "sides", None), None
        if not pending:
            return
        try:
            packed = {key: _pack(side) for key, side in pending.items()}
        except Exception:  # a side changed while it was pickled
            logger.warning("sides not kept in the shared cache", exc_info=True)
            return
        for key, entry in packed.items():
            held_sides.pack(key, entry)
        try:
            cache.set_many(
                {self.key(key): entry for key, entry in packed.items()},
                timeout=settings.BENCH_SHARED_SIDES_S,
            )
        except Exception:  # the cache not answering
            logger.warning("sides not kept in the shared cache", exc_info=True)


shared_sides = _SharedSides()
request_started.connect(shared_sides.request_started, dispatch_uid="results.shared_sides")
request_finished.connect(shared_sides.request_finished, dispatch_uid="results.shared_sides")


def compare(
    slugs: Sequence[str], runs: Sequence[int | None] = (), *, points: bool = True
) -> Comparison:
    """Two to four drives head to head, the first (A) the reference: every throughput test
    any has (both data patterns; a queue-depth sweep's tests as its points,
    Comparison.sweeps), consistency series per spare-area level, TRIM validations, write
    saturation, specs and latest prices. Every consistency and saturation series says how
    many points it has (`points`; a consistency series also its seconds at 0 IOPS,
    `stalls`), and holds them with points=True: a consistency series as `iops_json`, the
    JSON text of its IOPS (its `iops` and `iops_text` fields are not read). A result's
    RESULT_UNREAD fields are not read either.

    By default each test shows the drive's latest result; `runs` (one for each slug, in
    order, None for the latest) restricts a side to one of its runs (an unknown run falls
    back to the latest). The sides the process holds at their current version
    (held_sides) are not read again: one statement reads the versions, one the others,
    whatever their number. Raises ValueError for fewer than two or more than MAX_SIDES
    drives, Drive.DoesNotExist when a slug is unknown, else RepeatedDrive when three or
    four drives name one twice (two may be the same drive).
    """
    if not 2 <= len(slugs) <= MAX_SIDES:
        raise ValueError(f"two to {MAX_SIDES} drives are compared, not {len(slugs)}")
    runs = [*runs, *([None] * (len(slugs) - len(runs)))]
    real = not settings.BENCH_SHOW_SYNTHETIC
    alias = read_alias(Run)
    keys = SIDE_KEYS[: len(slugs)]
    versions = None
    if settings.BENCH_COMPARE_SIDES:
        versions = read_versions(alias, [CATALOG, *(drive_scope(slug) for slug in slugs)])
    held: dict[str, tuple | None] = {}
    sides: dict[str, Side | None] = {}
    for key, slug, run in zip(keys, slugs, runs, strict=True):
        version = versions and max(versions[CATALOG], versions[drive_scope(slug)])
        held[key] = version and (alias, key, slug, run, points, real, version)
        sides[key] = held[key] and held_sides.get(held[key])
    unheld = {key: held[key] for key in keys if held[key] and sides[key] is None}
    again = set()
    if settings.BENCH_SHARED_SIDES_S:
        again = {key for key in keys if held[key] and shared_sides.asked(held[key])}
        for key, (side, packed) in (shared_sides.get_many(unheld) if unheld else {}).items():
            sides[key] = side
            held_sides.put(held[key], side)
            held_sides.pack(held[key], packed)
    wanted = {
        key: (slug, run)
        for key, slug, run in zip(keys, slugs, runs, strict=True)
        if sides[key] is None
    }
    if wanted:
        read = _read_sides(alias, wanted, points=points, real=real)
        for key, slug in zip(keys, slugs, strict=True):
            if key not in wanted:
                continue
            if key not in read:
                raise Drive.DoesNotExist(f"no drive {slug}")
            sides[key] = read[key]
            if held[key]:
                held_sides.put(held[key], read[key])
    for key in again:
        shared_sides.keep(held[key], sides[key])
    # Checked once every slug is known: an unknown drive is missing, named twice or not.
    if len(slugs) > 2 and len(set(slugs)) < len(slugs):
        raise RepeatedDrive("a drive named twice among " + ", ".join(slugs))
    return _comparison([sides[key] for key in keys])


# PostgreSQL plans a prepared statement's first five executions for their parameters, then
# settles on one plan when that is no costlier (the PREPARE documentation): planning the head
# to head's statement takes longer than running it (3.3 against 2 ms; the plan it settles on
# runs in 1.4).
CUSTOM_PLANS = 5


def warm() -> bool:
    """The head to head's statements, with points and without (the page's, and the
    exports' and API's), run on this process's connection to the database reads go to until
    PostgreSQL has settled on its plan for each (CUSTOM_PLANS), and the test catalog held:
    what a server's worker does before its first request (benchsite.warmup). A worker's
    first comparisons otherwise planned the statement each time (a first comparison took
    89-143 ms, 50 of them in the database, against 25-35 for the next), in every worker at
    once when a server starts under load. Of two listed drives, the first by slug; False when
    the catalog has no two."""
    drives = Drive.objects.filter(listed=True)  # each with a run shown (results.services)
    real = not settings.BENCH_SHOW_SYNTHETIC
    if real:
        drives = drives.filter(synthetic=False)
    slugs = list(drives.order_by("slug").values_list("slug", flat=True)[:2])
    if len(slugs) < 2:
        return False
    wanted = {"a": (slugs[0], None), "b": (slugs[1], None)}
    for points in (True, False):
        for _ in range(CUSTOM_PLANS + 1 if settings.BENCH_DB_PREPARE else 1):
            _read_sides(read_alias(Run), wanted, points=points, real=real)
    return True


def _read_sides(
    alias: str, wanted: dict[str, tuple[str, int | None]], *, points: bool, real: bool
) -> dict[str, Side]:
    """The sides of `wanted` (by side key: the drive's slug and the run chosen, or None),
    each filled, read by one statement; a side whose slug is unknown is missing."""
    sql = _compare_sql(points=points, real=real)
    held = _held_tests.get(alias)
    params = {
        **{key: wanted.get(key, (None, None))[0] for key in SIDE_KEYS},
        **{f"run_{key}": wanted.get(key, (None, None))[1] for key in SIDE_KEYS},
        # A version the catalog never has (they count up from 1) when none is held: one
        # type for the parameter either way, so that the statement is prepared once.
        "tests_held": held.version if held else -1,
    }
    alias, rows = prepared_rows(Run, sql, params, alias=alias)
    doc = orjson.loads(rows[0][1])
    sides_found = {key: (drive_id, chosen) for key, drive_id, chosen in doc["sides"] or []}

    drives: dict[int, Drive] = {}
    prices: dict[int, Price | None] = {}
    for values in doc["drives"] or []:
        drive = drive_with_specs(values, alias)
        drives[drive.pk] = drive
        prices[drive.pk] = _PRICE.build(values[SPECS_WIDTH], alias)

    runs: dict[int, Run] = {}
    for values in doc["runs"] or []:
        run = _RUN.build(values[0], alias)
        for (relation, shape), row in zip(_RUN_RELATIONS, values[1:], strict=True):
            attach(run, relation, None if row is None else shape.build(row, alias))
        attach(run, "drive", drives[run.drive_id])
        runs[run.pk] = run
    if doc["tests"] is None:  # the catalog has not moved since the tests held were read
        tests = held.by_id
    else:
        tests = {t.pk: t for t in (TEST_SHAPE.build(v, alias) for v in doc["tests"])}
        if doc["catalog"] is not None:
            _held_tests[alias] = _HeldTests(doc["catalog"], tests)

    sides = {}
    for key, (drive_id, chosen) in sides_found.items():
        drive = drives[drive_id]
        side = Side(
            drive=drive,
            runs=[r for r in runs.values() if r.drive_id == drive_id],
            chosen_run=runs.get(chosen),
            price=prices[drive_id],
            key=key,
        )
        if side.price is not None:
            attach(side.price, "drive", drive)
        sides[key] = side
    for key, values, group in doc["results"] or []:
        result = _RESULT.build(values, alias)
        test = tests[result.test_id]
        attach(result, "test", test)
        attach(result, "run", runs[result.run_id])
        figures = Figures.of(result, test, group=group)
        sides[key].results[(test.identifier, result.pattern)] = figures
    series_rows = doc["series"] or []
    texts = [text for _, text in rows[1:]] if points else [None] * len(series_rows)
    for (key, values), text in zip(series_rows, texts, strict=True):
        series = _SERIES.build(values, alias)
        attach(series, "test", tests[series.test_id])
        series.iops_json = JsonText(text) if text is not None else None
        series.quick = series_is_quick(series)
        sides[key].consistency[series.spare_area_percent] = series
    for key, values in doc["trims"] or []:
        trim = _TRIM.build(values, alias)
        attach(trim, "test", tests[trim.test_id])
        sides[key].trim[(trim.test.identifier, trim.pattern)] = trim
    for key, values, count in doc["saturation"] or []:
        saturation = _SATURATION[points].build(values, alias)
        attach(saturation, "test", tests[saturation.test_id])
        saturation.points = count
        kind = sides[key].wsat if saturation.is_wsat else sides[key].saturation
        kind[saturation.pattern] = saturation
    return sides


UNSTATED = "unspecified"  # a published figure whose article does not say its data pattern
UNSTATED_NOTE = "data pattern not stated"  # said of such a figure compared with a stated one


def _stands_in(mine: set[str], other: set[str]) -> bool:
    """A side's figure without a stated data pattern is compared with each pattern the other
    side states (labelled so where it is shown), rather than called "not tested" beside
    them: when it is the side's only figure in the test and the other has no such figure."""
    return mine == {UNSTATED} and bool(other) and UNSTATED not in other


def _depth(test: TestRows) -> int:
    return test.test.queue_depth


def _load(test: TestRows) -> int:
    return test.test.load_percent


def _comparison(sides: list[Side]) -> Comparison:
    """The comparison of two to four filled sides: their tests in order, each data pattern
    set side by side."""
    tests: dict[str, Test] = {}
    for side in sides:
        tests.update((name, test) for name, (test, _) in side.tested.items())
    # Each side's data patterns, by test.
    patterns = tuple({name: found for name, (_, found) in side.tested.items()} for side in sides)
    found_tests = []
    runs_read: dict[int, tuple[str, ...]] = {}  # each run's parameters, read once (TestRows)
    for test in sorted(tests.values(), key=test_order_key):
        found = [side.get(test.identifier, frozenset()) for side in patterns]
        stands_in = [
            _stands_in(mine, set().union(*(o for j, o in enumerate(found) if j != i)))
            for i, mine in enumerate(found)
        ]
        rows = []
        for p in sorted(set().union(*found), key=lambda p: PATTERN_ORDER.get(p, 9)):
            if p == UNSTATED and any(stands_in):
                continue  # it stands in each row of a pattern the other side states
            figures = [
                s.results.get((test.identifier, UNSTATED if standing else p))
                for s, standing in zip(sides, stands_in, strict=True)
            ]
            rows.append(PatternRow(p, figures))
        found_tests.append(TestRows(test, rows, runs_read))
    points: dict[str, list[TestRows]] = {}
    for one in found_tests:
        if one.test.family:
            points.setdefault(one.test.family, []).append(one)
    sweeps = [
        Sweep(family, sweep_label(found[0].test.name), sorted(found, key=_depth))
        for family, found in points.items()
    ]
    curve_tests: dict[str, list[TestRows]] = {}
    for one in found_tests:
        if one.test.curve:
            curve_tests.setdefault(one.test.curve, []).append(one)
    curves = []
    for curve, found in sorted(curve_tests.items(), key=lambda c: test_order_key(c[1][0].test)):
        maximum = next((one for one in found if not one.test.load_percent), None)
        loads = sorted((one for one in found if one.test.load_percent), key=_load)
        curves.append(Curve(curve, curve_label(found[0].test.name), maximum, loads))
    return Comparison(
        sides=sides,
        tests=[one for one in found_tests if not one.test.family and not one.test.curve],
        sweeps=sweeps,
        curves=curves,
        consistency_levels=sorted(set().union(*(side.consistency for side in sides))),
        trim_keys=sorted(
            {(t.test, t.pattern) for side in sides for t in side.trim.values()},
            key=lambda k: (k[0].identifier, PATTERN_ORDER.get(k[1], 9)),
        ),
        saturation_patterns=sorted(
            set().union(*(side.saturation for side in sides)),
            key=lambda p: PATTERN_ORDER.get(p, 9),
        ),
        wsat_patterns=sorted(
            set().union(*(side.wsat for side in sides)), key=lambda p: PATTERN_ORDER.get(p, 9)
        ),
    )
