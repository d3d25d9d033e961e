"""Reads of results that span models, for pages and the API.

Every selector takes plain values or querysets (never a request) and costs a fixed number of
queries whatever the size of the catalog.
"""

from __future__ import annotations

import datetime
import functools
from dataclasses import dataclass, field
from decimal import Decimal

import orjson
from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import connections
from django.db.models import Prefetch, QuerySet

from drives.db import JsonText, Shape, attach, prepared_rows, read_alias
from drives.filters import FilterSet, Where
from drives.models import Controller, Drive, FirmwareVersion, NandType, Price
from drives.selectors import (
    CONTROLLER_CHOICES_JSON,
    SPECS_COLUMNS,
    SPECS_TABLES,
    SPECS_WIDTH,
    DriveLabel,
    controller_choices,
    drive_labels,
    drive_with_specs,
)
from results.models import (
    Citation,
    ConsistencySeries,
    DataPattern,
    LeaderboardEntry,
    Result,
    Run,
    SaturationSeries,
    Suite,
    Test,
    TestBench,
    TrimValidation,
)
from results.value_index import ValuePoint, value_index

PATTERN_ORDER = {DataPattern.COMPRESSIBLE: 0, DataPattern.INCOMPRESSIBLE: 1, "unspecified": 2}
VALUE_DEFAULT_TEST = "randwrite-4k-qd3-8g"
TIE_PERCENT = 0.5


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
    """Leaderboard entries the pages may show (synthetic ones only in the web benchmark)."""
    qs = LeaderboardEntry.objects.all()
    return qs if settings.BENCH_SHOW_SYNTHETIC else qs.filter(synthetic=False)


# -- figures -----------------------------------------------------------------------------


@dataclass(slots=True)
class Figures:
    """A throughput result's numbers, the missing one of MB/s and IOPS derived from the other
    through the test's fixed block size (and said so)."""

    result: Result
    bytes_per_second: float | None
    iops: float | None
    derived: str  # "", "iops" or "bytes_per_second"

    @classmethod
    def of(cls, result: Result, test: Test | None = None) -> Figures:
        """The figures of a result (of `test`, when the caller has it at hand)."""
        block = result.block_size or (test or result.test).block_size
        bps, iops, derived = result.bytes_per_second, result.iops, ""
        if iops is None and bps is not None:
            iops, derived = bps / block, "iops"
        elif bps is None and iops is not None:
            bps, derived = iops * block, "bytes_per_second"
        return cls(result, bps, iops, derived)

    @property
    def block_size(self) -> int:
        return self.result.block_size or self.result.test.block_size

    @property
    def quick(self) -> bool:
        """Measured for less than 90% of the test's duration: a quick (smoke) run."""
        ns = self.result.duration_ns
        return ns is not None and ns < 0.9 * self.result.test.duration_s * 1e9


# -- head to head --------------------------------------------------------------------------


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
    price: Price | None = None

    @functools.cached_property
    def shown_runs(self) -> list[Run]:
        """The runs the side's figures come from (read once the side is filled)."""
        ids = {f.result.run_id for f in self.results.values()}
        ids.update(s.run_id for s in self.consistency.values())
        ids.update(t.run_id for t in self.trim.values())
        ids.update(w.run_id for w in self.saturation.values())
        return [r for r in self.runs if r.pk in ids]

    @functools.cached_property
    def firmware(self) -> list[str]:
        return sorted({r.firmware.version for r in self.shown_runs if r.firmware})

    @property
    def price_per_gb(self) -> Decimal | None:
        if self.price is None or not self.drive.capacity_bytes:
            return None
        return self.price.amount / Decimal(self.drive.capacity_bytes / 10**9)

    def price_per_kiops(self, test_id: str) -> float | None:
        if self.price is None:
            return None
        best = [
            f.iops
            for (identifier, _), f in self.results.items()
            if identifier == test_id and f.iops
        ]
        # A compressing drive is priced by its worst case.
        return float(self.price.amount) / (min(best) / 1000) if best else None


@dataclass(slots=True)
class PatternPair:
    """Both sides' figures in one data pattern, and who wins: "a", "b", "tie" (within
    TIE_PERCENT) or "" (a side not tested), by how much the winner is faster, in %."""

    pattern: str
    a: Figures | None
    b: Figures | None
    winner: str = field(init=False, default="")
    difference_percent: float | None = field(init=False, default=None)

    def __post_init__(self) -> None:
        a = self.a.bytes_per_second if self.a else None
        b = self.b.bytes_per_second if self.b else None
        if a and b:
            self.difference_percent = pct = (max(a, b) / min(a, b) - 1) * 100
            self.winner = "tie" if pct < TIE_PERCENT else "a" if a > b else "b"


@dataclass
class TestPair:
    test: Test
    pairs: list[PatternPair]

    @property
    def has_latency(self) -> bool:
        return any(
            f is not None
            and (f.result.latency_mean_ns is not None or f.result.latency_max_ns is not None)
            for p in self.pairs
            for f in (p.a, p.b)
        )


@dataclass
class Comparison:
    a: Side
    b: Side
    tests: list[TestPair]
    consistency_levels: list[int]
    trim_keys: list[tuple[Test, str]]  # TRIM test and data pattern, each compared apart
    value_test: str = VALUE_DEFAULT_TEST
    saturation_patterns: list[str] = field(default_factory=list)

    @property
    def price_per_kiops(self) -> tuple[float | None, float | None]:
        return self.a.price_per_kiops(self.value_test), self.b.price_per_kiops(self.value_test)


def series_is_quick(series: ConsistencySeries) -> bool:
    """Recorded for less than 90% of its test's duration (a quick smoke run)."""
    return series.points * series.interval_ns / 1e9 < 0.9 * series.test.duration_s


# -- the head-to-head statement ------------------------------------------------------------
# One statement gathers everything a comparison shows, written as JSON by PostgreSQL: both
# drives with their makers, controllers, NAND and latest USD price; their published runs with
# provenance, newest first; and for each side (a drive, and the run chosen for it, if it is
# one of the drive's) the latest result of every test (its leaderboard entries) or the
# chosen run's, the latest consistency series of every spare-area level, TRIM validation of
# every test and pattern, and write saturation of every pattern. The test catalog comes only
# when the process holds none as of the catalog's current version (_held_tests).
_PRICE = Shape(Price, "p")
_RUN = Shape(Run, "run", [f.name for f in Run._meta.concrete_fields if f.name != "document"])
_FIRMWARE = Shape(FirmwareVersion, "fw")
_CITATION = Shape(Citation, "ci")
_BENCH = Shape(TestBench, "tb")
_SUITE = Shape(Suite, "su")
_SUBMITTER = Shape(get_user_model(), "u", ["id", "username"])
_TEST = Shape(Test, "t")
# A run's relations, in the order the statement writes them after the run.
_RUN_RELATIONS = (
    ("firmware", _FIRMWARE),
    ("citation", _CITATION),
    ("bench", _BENCH),
    ("suite", _SUITE),
    ("submitter", _SUBMITTER),
)
# A result's fields the head to head shows (figures, latency, what its deviations name): not
# the completion latency (clat_*) nor the totals it was computed from, which stay deferred.
RESULT_UNREAD = (
    "io_count",
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
# A series without its points: with points=True they travel as their JSON text (below).
SERIES_POINTS = ("iops", "iops_text")
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

# The catalog's version (results 0020), when this transaction has not itself written it.
_CATALOG_VERSION = (
    "(SELECT version FROM results_catalogversion WHERE id = 1"
    " AND current_setting('bench.catalog_written', true) IS DISTINCT FROM 'on')"
)

_COMPARE_SQL = """
WITH side AS (
  SELECT v.key, d.id AS drive_id,
         (SELECT run.id FROM results_run run
          WHERE run.id = v.run AND run.drive_id = d.id AND run.status = 'published'
            {real_runs}) AS chosen
  FROM (VALUES ('a', %(a)s::text, %(run_a)s::bigint), ('b', %(b)s::text, %(run_b)s::bigint))
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
    SELECT json_agg(json_build_array(key, {result})) FROM (
      SELECT side.key, r.* FROM side
      JOIN results_leaderboardentry e ON e.drive_id = side.drive_id
      JOIN results_result r ON r.id = e.result_id
      WHERE side.chosen IS NULL
      UNION ALL
      SELECT side.key, r.* FROM side JOIN results_result r ON r.run_id = side.chosen
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
      SELECT DISTINCT ON (shown.key, w.pattern) shown.key,
             cardinality(w.bytes_per_interval) AS points, w.*
      FROM shown JOIN results_saturationseries w ON w.run_id = shown.id
      ORDER BY shown.key, w.pattern, shown.rank) w)
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
        "test": _TEST.array,
        "catalog": _CATALOG_VERSION,
        "result": _RESULT.array,
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
        "real_drives": "AND NOT d.synthetic" if real else "",
        "real_runs": "AND run.source <> 'synthetic'" if real else "",
    }
    sql = _COMPARE_SQL
    for name, text in shapes.items():
        sql = sql.replace("{" + name + "}", text)
    return sql


def compare(
    *, a: str, b: str, run_a: int | None = None, run_b: int | None = None, points: bool = True
) -> Comparison:
    """Two drives head to head: every throughput test either has (both data patterns),
    consistency series per spare-area level, TRIM validations, write saturation, specs and
    latest prices. Every consistency and saturation series says how many points it has
    (`points`; a consistency series also its seconds at 0 IOPS, `stalls`), and holds them
    with points=True: a consistency series as `iops_json`, the JSON text of its IOPS (its
    `iops` and `iops_text` fields are not read). A result's RESULT_UNREAD fields are not
    read either.

    By default each test shows the drive's latest result; run_a / run_b restrict a side to
    one of its runs (an unknown run falls back to the latest). One query.
    Raises Drive.DoesNotExist when either slug is unknown.
    """
    sql = _compare_sql(points=points, real=not settings.BENCH_SHOW_SYNTHETIC)
    alias = read_alias(Run)
    held = _held_tests.get(alias)
    params = {"a": a, "b": b, "run_a": run_a, "run_b": run_b, "tests_held": held and held.version}
    alias, rows = prepared_rows(Run, sql, params, alias=alias)
    doc = orjson.loads(rows[0][1])
    sides_found = {key: (drive_id, chosen) for key, drive_id, chosen in doc["sides"] or []}
    for key, slug in (("a", a), ("b", b)):
        if key not in sides_found:
            raise Drive.DoesNotExist(f"no drive {slug}")

    drives: dict[int, Drive] = {}
    prices: dict[int, Price | None] = {}
    for values in doc["drives"]:
        drive = drive_with_specs(values, alias)
        drives[drive.pk] = drive
        prices[drive.pk] = _PRICE.build(values[SPECS_WIDTH], alias)

    runs: dict[int, Run] = {}
    for values in doc["runs"] or []:
        run = _RUN.build(values[0], alias)
        related = run._state.fields_cache  # as attach() sets it, for a run's six relations
        for (relation, shape), row in zip(_RUN_RELATIONS, values[1:], strict=True):
            related[relation] = None if row is None else shape.build(row, alias)
        related["drive"] = drives[run.drive_id]
        runs[run.pk] = run
    if doc["tests"] is None:  # the catalog has not moved since the tests held were read
        tests = held.by_id
    else:
        tests = {t.pk: t for t in (_TEST.build(v, alias) for v in doc["tests"])}
        if doc["catalog"] is not None:
            _held_tests[alias] = _HeldTests(doc["catalog"], tests)

    sides = {}
    for key in ("a", "b"):
        drive_id, chosen = sides_found[key]
        drive = drives[drive_id]
        side = Side(
            drive=drive,
            runs=[r for r in runs.values() if r.drive_id == drive_id],
            chosen_run=runs.get(chosen),
            price=prices[drive_id],
        )
        if side.price is not None:
            attach(side.price, "drive", drive)
        sides[key] = side
    for key, values in doc["results"] or []:
        result = _RESULT.build(values, alias)
        test = tests[result.test_id]
        attach(result, "test", test)
        attach(result, "run", runs[result.run_id])
        sides[key].results[(test.identifier, result.pattern)] = Figures.of(result, test)
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
        sides[key].saturation[saturation.pattern] = saturation
    return _comparison(sides["a"], sides["b"])


UNSTATED = "unspecified"  # a published figure whose article does not say its data pattern
UNSTATED_NOTE = "data pattern not stated"  # said of such a figure compared with a stated one


def _stands_in(mine: set[str], other: set[str]) -> bool:
    """A side's figure without a stated data pattern is compared with each pattern the other
    side states (labelled so where it is shown), rather than called "not tested" beside
    them: when it is the side's only figure in the test and the other has no such figure."""
    return mine == {UNSTATED} and bool(other) and UNSTATED not in other


def _comparison(side_a: Side, side_b: Side) -> Comparison:
    """The comparison of two filled sides: their tests in order, each data pattern paired."""
    sides = (side_a, side_b)
    tests: dict[str, Test] = {}
    patterns: tuple[dict[str, set[str]], ...] = ({}, {})  # each side's, by test
    for side, found in zip(sides, patterns, strict=True):
        for (identifier, pattern), f in side.results.items():
            tests[identifier] = f.result.test
            found.setdefault(identifier, set()).add(pattern)
    pairs = []
    for test in sorted(tests.values(), key=test_order_key):
        found = [side.get(test.identifier, set()) for side in patterns]
        stands_in = [_stands_in(mine, other) for mine, other in (found, found[::-1])]
        rows = []
        for p in sorted(found[0] | found[1], key=lambda p: PATTERN_ORDER.get(p, 9)):
            if p == UNSTATED and any(stands_in):
                continue  # it stands in each row of a pattern the other side states
            figures = [
                s.results.get((test.identifier, UNSTATED if standing else p))
                for s, standing in zip(sides, stands_in, strict=True)
            ]
            rows.append(PatternPair(p, *figures))
        pairs.append(TestPair(test, rows))
    return Comparison(
        a=side_a,
        b=side_b,
        tests=pairs,
        consistency_levels=sorted(set(side_a.consistency) | set(side_b.consistency)),
        trim_keys=sorted(
            {(t.test, t.pattern) for side in sides for t in side.trim.values()},
            key=lambda k: (k[0].identifier, PATTERN_ORDER.get(k[1], 9)),
        ),
        saturation_patterns=sorted(
            set(side_a.saturation) | set(side_b.saturation), key=lambda p: PATTERN_ORDER.get(p, 9)
        ),
    )


# -- leaderboards --------------------------------------------------------------------------


class Metric:
    THROUGHPUT = "throughput"
    LATENCY = "latency"
    CHOICES = [(THROUGHPUT, "MB/s and IOPS (higher is better)"), (LATENCY, "mean latency")]


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
    derived: str
    latency_mean_ns: float | None
    latency_kind: str
    quick: bool
    source: str
    run_id: int
    price_usd: float | None

    def get_pattern_display(self) -> str:
        return _PATTERN_LABELS.get(self.pattern, self.pattern)

    def get_source_display(self) -> str:
        return _SOURCE_LABELS.get(self.source, self.source)


@dataclass
class RankedEntry:
    rank: int
    entry: EntryRow
    highlighted: bool = False


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
    f"SELECT {_TEST.array} FROM results_test t WHERE t.identifier = %s AND t.kind = %s"
)
_BOARD_CHOICES_SQL = f"SELECT ({_THROUGHPUT_TEST_SQL}), {CONTROLLER_CHOICES_JSON}"


def throughput_test(identifier: str) -> Test | None:
    """The throughput test of this identifier (a leaderboard's), or None. One prepared
    statement."""
    alias, rows = prepared_rows(Test, _THROUGHPUT_TEST_SQL, [identifier, Test.Kind.THROUGHPUT])
    return _TEST.build(rows[0][0], alias) if rows else None


def leaderboard_choices(identifier: str) -> tuple[Test | None, list[tuple[str, str]]]:
    """throughput_test(identifier), and the controllers a ranking's filter form offers
    (drives.selectors.controller_choices). One prepared statement."""
    alias, rows = prepared_rows(Test, _BOARD_CHOICES_SQL, [identifier, Test.Kind.THROUGHPUT])
    test, controllers = rows[0]
    return (_TEST.build(test, alias) if test else None), controller_choices(controllers)


_VALUE_TESTS_JSON = f"""(
  SELECT json_agg({_TEST.array} ORDER BY t.identifier) FROM results_test t
  WHERE t.kind = 'throughput' AND t.block_size = 4096)"""


def value_tests() -> list[Test]:
    """The 4KB throughput tests a value view can price IOPS in. One prepared statement."""
    alias, rows = prepared_rows(Test, f"SELECT {_VALUE_TESTS_JSON}")
    return [_TEST.build(v, alias) for v in rows[0][0] or []]


def value_choices() -> tuple[list[Test], list[tuple[str, str]]]:
    """value_tests(), and the controllers a value view's filter form offers. One prepared
    statement."""
    alias, rows = prepared_rows(Test, f"SELECT {_VALUE_TESTS_JSON}, {CONTROLLER_CHOICES_JSON}")
    tests, controllers = rows[0]
    return [_TEST.build(v, alias) for v in tests or []], controller_choices(controllers)


def throughput_tests() -> list[Test]:
    return sorted(Test.objects.filter(kind=Test.Kind.THROUGHPUT), key=test_order_key)


# A ranking's rows: entries of one test in the order of one figure, narrowed by a
# FilterSet's conditions on e (drives.filters.Where) and, for the highlighted drives ranked
# elsewhere, by slug; their drives' labels follow in a prepared statement (joined in here,
# planning the join cost more than the round trip). Planned for its parameters on every
# request: a generic plan made for the average filter walks the whole ranking for one that
# keeps few.
_BOARD_SQL = """
SELECT e.id, e.drive_id, e.pattern, e.bytes_per_second, e.iops, e.derived,
       e.latency_mean_ns, e.latency_kind, e.quick, e.source, e.run_id, e.price_usd
FROM results_leaderboardentry e
WHERE e.test_id = %(test)s AND e.{field} IS NOT NULL{real}{where}{slugs}
ORDER BY e.{field} {direction} NULLS LAST, e.id
{limit}
"""
# Competition rank of the highlighted drives: one more than the entries strictly better,
# counted in one scan of the range better than the lowest-ranked of them.
_BETTER_SQL = """
SELECT {counts} FROM results_leaderboardentry e
WHERE e.test_id = %(test)s AND e.{field} {better} %(loosest)s{real}{where}
"""
_METRIC_ORDER = {  # the figure a metric ranks by, its order, and "better than"
    Metric.THROUGHPUT: ("bytes_per_second", "DESC", ">"),
    Metric.LATENCY: ("latency_mean_ns", "ASC", "<"),
}


def _real(real: bool) -> str:
    """The condition that keeps synthetic entries out, when they are."""
    return " AND NOT e.synthetic" if real else ""


@functools.lru_cache(maxsize=512)
def _board_sql(metric: str, where: str, *, real: bool, chosen: bool) -> str:
    field, direction, _ = _METRIC_ORDER[metric]
    return _BOARD_SQL.format(
        field=field,
        direction=direction,
        real=_real(real),
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
    where: Where | None = None,
    metric: str = Metric.THROUGHPUT,
    page: int = 1,
    page_size: int = 50,
    highlight: tuple[str, ...] = (),
) -> Leaderboard:
    """One test's ranking among the entries the pages show, narrowed by `where` (a
    LeaderboardFilter's conditions on entries, see FilterSet.where), best first: one page of
    it, and where the highlighted drives rank, each with which latency its mean latency is.
    Two queries (the entries, their drives' labels), four with highlighted drives ranked off
    the page."""
    where = where or Where()
    real = not settings.BENCH_SHOW_SYNTHETIC
    start = (page - 1) * page_size
    params = {**where.params, "test": test.pk, "limit": page_size + 1, "offset": start}
    window = _board_rows(_board_sql(metric, where.sql, real=real, chosen=False), params)
    rows = [
        RankedEntry(start + i + 1, e, e.drive.slug in highlight)
        for i, e in enumerate(window[:page_size])
    ]
    elsewhere = []
    shown = {r.entry.drive.slug for r in rows}
    missing = [s for s in highlight if s not in shown]
    if missing:
        sql = _board_sql(metric, where.sql, real=real, chosen=True)
        wanted = _board_rows(sql, {**params, "slugs": missing})
        if wanted:
            field, _, better = _METRIC_ORDER[metric]
            values = [getattr(e, field) for e in wanted]
            counts = ", ".join(
                f"count(*) FILTER (WHERE e.{field} {better} %(v{i})s)" for i in range(len(wanted))
            )
            sql = _BETTER_SQL.format(
                counts=counts, field=field, better=better, real=_real(real), where=where.sql
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
                counts_found = cursor.fetchone()
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


def suites_with_tests() -> QuerySet[Suite]:
    """Every suite with its tests in order, for the test index and the API. Two queries."""
    return Suite.objects.prefetch_related(
        Prefetch("tests", queryset=Test.objects.order_by("suitetest__position"))
    ).order_by("name", "version")


# -- value -------------------------------------------------------------------------------


@dataclass
class ValueView:
    test: Test
    as_of: datetime.date | None
    considered: int  # drives with a result in the test and a price, after the filters
    points: list[ValuePoint]  # frontier, highlighted, cheapest lists and a sample, by price
    sample_size: int
    frontier: list[ValuePoint]  # in price order
    cheapest_per_gb: list[ValuePoint]  # among drives with a capacity
    cheapest_per_kiops: list[ValuePoint]


VALUE_TABLE_ROWS = 10
VALUE_SAMPLE = 200


def value_frontier(
    *,
    test: Test,
    filters: FilterSet | None = None,
    as_of: datetime.date | None = None,
    highlight: tuple[str, ...] = (),
    sample: int = VALUE_SAMPLE,
    worst_case: bool = True,
) -> ValueView:
    """Price against performance in one test among the entries the pages show, narrowed by
    `filters` (a valid ValueFilter): the value frontier (drives no other drive beats on both
    price and IOPS), the cheapest per GB and per 1,000 IOPS, the highlighted drives and a
    sample of `sample` drives for the scatter (those with the lowest hashes of their ids:
    spread as they are, the same in every request), each point with its drive and maker.
    Each drive counts once: its worst case (the default), or its entry in the one data
    pattern the filters name (worst_case=False). Prices are the latest, or as of a date.
    Computed on the process's copy of the priced entries (results.value_index): one
    prepared statement (the catalog's version), two with a search."""
    priced = value_index().price(
        test_id=test.pk,
        filters=filters,
        as_of=as_of,
        worst=worst_case,
        real=not settings.BENCH_SHOW_SYNTHETIC,
        highlight=highlight[:5],
        sample=sample,
        cheapest=VALUE_TABLE_ROWS,
    )
    return ValueView(
        test=test,
        as_of=as_of,
        considered=priced.considered,
        points=priced.points,
        sample_size=sample,
        frontier=priced.frontier,
        cheapest_per_gb=priced.cheapest_per_gb,
        cheapest_per_kiops=priced.cheapest_per_kiops,
    )


# -- drive pages and groups -----------------------------------------------------------------


@dataclass
class DrivePage:
    """A drive with everything published about it, grouped for display."""

    drive: Drive
    runs: list[Run]
    results: list[Figures] = field(default_factory=list)
    consistency: list[ConsistencySeries] = field(default_factory=list)
    trim: list[TrimValidation] = field(default_factory=list)
    saturation: list[SaturationSeries] = field(default_factory=list)
    prices: list[Price] = field(default_factory=list)


def drive_page(*, slug: str) -> DrivePage:
    """One drive's specs, firmware versions, price history and every published run with its
    results and provenance. Eight queries. Raises Drive.DoesNotExist."""
    drive = Drive.objects.real().with_specs().prefetch_related("firmware_versions").get(slug=slug)
    runs = sorted(
        Run.objects.published()
        .filter(drive=drive)
        .select_related("firmware", "bench", "citation", "suite", "submitter")
        .defer("document")
        .prefetch_related(
            Prefetch("results", queryset=Result.objects.select_related("test")),
            Prefetch(
                "consistency_series",
                queryset=ConsistencySeries.objects.select_related("test")
                .defer(*SERIES_POINTS)
                .order_by("spare_area_percent"),
            ),
            Prefetch("trim_validations", queryset=TrimValidation.objects.select_related("test")),
            Prefetch(
                "saturation_series",
                queryset=SaturationSeries.objects.select_related("test").order_by("pattern"),
            ),
        ),
        key=run_recency,
    )
    page = DrivePage(drive=drive, runs=runs)
    for run in runs:
        page.results.extend(Figures.of(r) for r in run.results.all())
        for series in run.consistency_series.all():
            series.quick = series_is_quick(series)
            page.consistency.append(series)
        page.trim.extend(run.trim_validations.all())
        page.saturation.extend(run.saturation_series.all())
    rank = {r.pk: i for i, r in enumerate(runs)}
    page.results.sort(
        key=lambda f: (
            test_order_key(f.result.test),
            PATTERN_ORDER.get(f.result.pattern, 9),
            rank[f.result.run_id],
        )
    )
    page.prices = list(Price.objects.filter(drive=drive).order_by("observed_on", "currency"))
    return page


KEY_TESTS = ("randread-4k-qd3", "randwrite-4k-qd3-8g", "seqread-128k-qd1", "seqwrite-128k-qd1")


@dataclass
class GroupRow:
    drive: Drive
    figures: dict[str, LeaderboardEntry]  # key test id -> its worst-case entry
    tests: list[str] = field(default_factory=list)

    @property
    def cells(self) -> list[LeaderboardEntry | None]:
        """The worst-case entry of each key test (None: not tested), in the group's column
        order."""
        return [self.figures.get(t) for t in self.tests]


@dataclass
class DriveGroup:
    """The drives of one controller or NAND type with their key results, one page of them."""

    title: str
    key_tests: list[Test]
    rows: list[GroupRow]
    page: int
    has_next: bool


def drive_group(
    *, drives: QuerySet[Drive], title: str, page: int = 1, page_size: int = 50
) -> DriveGroup:
    """`drives` (e.g. one controller's) with the key four-corner figures. Three queries."""
    start = (page - 1) * page_size
    window = list(
        drives.real()
        .with_specs()
        .order_by("sort_name", "capacity_bytes", "pk")[start : start + page_size + 1]
    )
    shown = window[:page_size]
    tests = sorted(Test.objects.filter(identifier__in=KEY_TESTS), key=test_order_key)
    order = [t.identifier for t in tests]
    rows = {d.pk: GroupRow(d, {}, order) for d in shown}
    for e in (
        entries()
        .filter(drive_id__in=rows, test__identifier__in=KEY_TESTS)
        .select_related("test")
        .order_by("bytes_per_second")
    ):
        rows[e.drive_id].figures.setdefault(e.test.identifier, e)
    return DriveGroup(
        title=title,
        key_tests=tests,
        rows=list(rows.values()),
        page=page,
        has_next=len(window) > page_size,
    )


def controller_by_slug(slug: str) -> Controller:
    return Controller.objects.select_related("vendor").get(slug=slug)


def nand_by_slug(slug: str) -> NandType:
    return NandType.objects.select_related("vendor").get(slug=slug)


RUN_PROVENANCE = ("drive__manufacturer", "firmware", "bench", "citation", "suite", "submitter")


def runs_listed(*, drive: str = "", source: str = "") -> QuerySet[Run]:
    """Published runs of real drives with their provenance, newest first (the runs API):
    what the drive pages show, withdrawn and synthetic runs left out. drive: a drive's
    slug; source: a Run.Source value."""
    runs = Run.objects.published().real().select_related(*RUN_PROVENANCE)
    if not settings.BENCH_SHOW_SYNTHETIC:
        runs = runs.filter(drive__synthetic=False)
    if drive:
        runs = runs.filter(drive__slug=drive)
    if source:
        runs = runs.filter(source=source)
    return runs.order_by("-ingested_at", "-pk")


# -- the results list (API) -----------------------------------------------------------------

LATENCY_PARTS = ("mean", "stddev", "min", "max", "percentiles")
# A listed result's columns, named as the API writes them, and the filters it may be read by.
RESULT_LIST_COLUMNS = {
    "id": "r.id",
    "run": "r.run_id",
    "drive": "d.slug",
    "test_identifier": "t.identifier",
    "source": "run.source",
    **{
        name: f"r.{name}"
        for name in (
            "pattern",
            "block_size",
            "queue_depth",
            "span_bytes",
            "duration_ns",
            "io_count",
            "bytes",
            "bytes_per_second",
            "iops",
            "latency_kind",
            "jobs",
            "partial",
            *(f"{kind}_{part}_ns" for kind in ("latency", "clat") for part in LATENCY_PARTS),
        )
    },
}
_PERCENTILE_COLUMNS = ("latency_percentiles_ns", "clat_percentiles_ns")
# The condition of each filter of the results list.
RESULT_LIST_FILTERS = {
    "id": "r.id = %(id)s",
    "drive": "d.slug = %(drive)s",
    # The test's results are read newest first from result_test_newest_idx (test, id) with
    # its id as an array and the order on (test, id): an equality would make the test's
    # place in the order redundant, and PostgreSQL would walk the primary key backwards past
    # every other test's results (thousands of rows for a test that recent runs lack).
    "test": "r.test_id = ANY(ARRAY(SELECT id FROM results_test WHERE identifier = %(test)s))",
    "source": "run.source = %(source)s",
    "run": "r.run_id = %(run)s",
    "pattern": "r.pattern = %(pattern)s",
}
_RESULT_LIST_SQL = """
SELECT {columns}
FROM results_result r
JOIN results_run run ON run.id = r.run_id
JOIN drives_drive d ON d.id = run.drive_id
JOIN results_test t ON t.id = r.test_id
WHERE run.status = 'published'{where}
ORDER BY {order} LIMIT {limit}
"""


@functools.lru_cache(maxsize=1024)
def _result_list_sql(filters: frozenset[str], keyset: str, real: bool, limit: int) -> str:
    # The limit is written into the statement: as a parameter it would leave the generic
    # plan costed for a tenth of the table, and PostgreSQL would plan every execution anew
    # (0.4 ms, more than the read). A statement per page size; clients use a handful.
    where = [f" AND {RESULT_LIST_FILTERS[name]}" for name in sorted(filters)]
    if real:
        where.append(" AND run.source <> 'synthetic'")
    if keyset:
        where.append(f" AND r.id {'<' if keyset == 'before' else '>'} %(position)s")
    direction = "ASC" if keyset == "after" else "DESC"
    order = ["r.test_id", "r.id"] if "test" in filters else ["r.id"]
    return (
        _RESULT_LIST_SQL.replace(
            "{columns}", ", ".join(f"{c} AS {n}" for n, c in RESULT_LIST_COLUMNS.items())
        )
        .replace("{where}", "".join(where))
        .replace("{order}", ", ".join(f"{column} {direction}" for column in order))
        .replace("{limit}", str(int(limit)))
    )


def results_listed(
    *,
    limit: int,
    before: int | None = None,
    after: int | None = None,
    id: int | None = None,
    drive: str | None = None,
    test: str | None = None,
    source: str | None = None,
    run: int | None = None,
    pattern: str | None = None,
) -> list[dict]:
    """Published results (the results API's list), newest first, as rows named by
    RESULT_LIST_COLUMNS: up to `limit` of those older than `before` (a result's id), or
    the `limit` oldest of those newer than `after`, or the newest. Filters left None do not
    narrow; synthetic runs stay out, as on the pages. One prepared statement of a handful
    (one for each set of filters and page size), whose plan PostgreSQL keeps after its first
    few executions: a list read thousands of times a second is neither compiled by the ORM
    nor planned each time."""
    filters = {
        name: value
        for name, value in (
            ("id", id),
            ("drive", drive),
            ("test", test),
            ("source", source),
            ("run", run),
            ("pattern", pattern),
        )
        if value not in (None, "")
    }
    keyset, position = ("before", before) if before is not None else ("after", after)
    if position is None:
        keyset = ""
    real = not settings.BENCH_SHOW_SYNTHETIC
    sql = _result_list_sql(frozenset(filters), keyset, real, limit)
    _, rows = prepared_rows(Result, sql, {**filters, "position": position})
    listed = []
    for row in rows:
        listed.append(values := dict(zip(RESULT_LIST_COLUMNS, row, strict=True)))
        for name in _PERCENTILE_COLUMNS:  # jsonb comes as text, as Django's JSONField reads it
            if values[name] is not None:
                values[name] = orjson.loads(values[name])
    return listed[::-1] if keyset == "after" else listed


def runs_of_submitter(*, user_id: int) -> QuerySet[Run]:
    """Every run this user uploaded, withdrawn ones too, newest first (their own list)."""
    return (
        Run.objects.filter(submitter_id=user_id)
        .select_related(*RUN_PROVENANCE, "withdrawn_by")
        .order_by("-ingested_at", "-pk")
    )


def run_for_withdrawal(*, pk: int) -> Run:
    """A run that a submitter or staff member may withdraw: any but synthetic. Raises
    Run.DoesNotExist."""
    return Run.objects.real().select_related("submitter").get(pk=pk)


def run_detail(*, pk: int) -> Run:
    """One published run of a real drive with its provenance and what it measured: the
    throughput results, and the consistency series, TRIM validations and write saturations
    without their per-second data. Raises Run.DoesNotExist."""
    return (
        runs_listed()
        .prefetch_related(
            Prefetch("results", queryset=Result.objects.select_related("test").order_by("pk")),
            Prefetch(
                "consistency_series",
                queryset=ConsistencySeries.objects.select_related("test")
                .defer(*SERIES_POINTS)
                .order_by("pk"),
            ),
            Prefetch(
                "trim_validations",
                queryset=TrimValidation.objects.select_related("test").order_by("pk"),
            ),
            Prefetch(
                "saturation_series",
                queryset=SaturationSeries.objects.select_related("test")
                .defer("bytes_per_interval")
                .order_by("pk"),
            ),
        )
        .get(pk=pk)
    )
