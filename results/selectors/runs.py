"""Runs and results as the API lists them, and a submitter's own runs."""

from __future__ import annotations

import functools
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import orjson
from django.conf import settings
from django.db.models import JSONField, Prefetch, QuerySet, prefetch_related_objects

from core.db import prepared_rows
from drives.models import Drive
from results import permissions
from results.models import (
    RESULT_FIGURES,
    ConsistencySeries,
    Result,
    Run,
    SaturationSeries,
    Test,
    TrimValidation,
)
from results.reproduce import loadgen_command
from results.selectors.common import SERIES_POINTS, Figures, missing_rates_reason
from results.spread import (
    BPS_SQL,
    DERIVED_SQL,
    IOPS_SQL,
    METHOD_SQL,
    percentile_rank,
    quantiles,
)

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

# A listed result's columns, named as the API writes them: what its run, drive and test are
# called, and its figures as stored, but for its rates: the one not given is derived from
# the other, and `derived` names it (null: both given, or neither), as the compare and
# the leaderboards give them.
RESULT_LIST_COLUMNS = {
    "id": "r.id",
    "run": "r.run_id",
    "drive": "d.slug",
    "test": "t.identifier",
    "source": "run.source",
    **{name: f"r.{Result._meta.get_field(name).column}" for name in RESULT_FIGURES},
    "bytes_per_second": BPS_SQL,
    "iops": IOPS_SQL,
    "derived": f"NULLIF({DERIVED_SQL}, '')",
}
# A listed row's values: its columns, and why it has neither rate (missing_rates_reason).
RESULT_LIST_FIELDS = (*RESULT_LIST_COLUMNS, "missing_rates_reason")
# jsonb comes as text, and is read as Django's JSONField reads it.
_JSON_COLUMNS = tuple(
    name for name in RESULT_FIGURES if isinstance(Result._meta.get_field(name), JSONField)
)
# The statement's tables by model: a field path of Result (a filter's field_name) is the
# column of its last model's table here (run__drive__slug: d.slug).
_TABLES = {Result: "r", Run: "run", Drive: "d", Test: "t"}
# The test's results are read newest first from result_test_newest_idx (test, id) with its
# id as an array and the order on (test, id): an equality would make the test's place in
# the order redundant, and PostgreSQL would walk the primary key backwards past every other
# test's results (thousands of rows for a test that recent runs lack).
_BY_TEST = "test__identifier"
_TEST_CONDITION = "r.test_id = ANY(ARRAY(SELECT id FROM results_test WHERE identifier = {}))"
_RESULT_LIST_SQL = """
SELECT {columns}
FROM results_result r
JOIN results_run run ON run.id = r.run_id
JOIN drives_drive d ON d.id = run.drive_id
JOIN results_test t ON t.id = r.test_id
WHERE run.status = 'published'{where}
ORDER BY {order} LIMIT {limit}
"""


def _column(path: str) -> str:
    """The column of the statement that a field path of Result names."""
    model, *relations, name = Result, *path.split("__")
    for relation in relations:
        model = model._meta.get_field(relation).related_model
    return f"{_TABLES[model]}.{model._meta.get_field(name).column}"


def _condition(path: str) -> str:
    placeholder = f"%({path})s"
    if path == _BY_TEST:
        return _TEST_CONDITION.format(placeholder)
    return f"{_column(path)} = {placeholder}"


@functools.lru_cache(maxsize=1024)
def _result_list_sql(paths: tuple[str, ...], keyset: str, real: bool, limit: int) -> str:
    # The limit is written into the statement: as a parameter it would leave the generic
    # plan costed for a tenth of the table, and PostgreSQL would plan every execution anew
    # (0.4 ms, more than the read). A statement per page size; clients use a handful.
    where = [f" AND {_condition(path)}" for path in paths]
    if real:
        where.append(" AND run.source <> 'synthetic'")
    if keyset:
        where.append(f" AND r.id {'<' if keyset == 'before' else '>'} %(position)s")
    direction = "ASC" if keyset == "after" else "DESC"
    order = ["r.test_id", "r.id"] if _BY_TEST in paths else ["r.id"]
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
    where: Mapping[str, Any],
    limit: int,
    before: int | None = None,
    after: int | None = None,
) -> list[dict]:
    """Published results (the results API's list), newest first, as rows named by
    RESULT_LIST_FIELDS: up to `limit` of those older than `before` (a result's id), or
    the `limit` oldest of those newer than `after`, or the newest. `where`: the value each
    of some field paths of Result must equal ("run__drive__slug", as a filter's field_name
    names it). Synthetic runs stay out, as on the pages. One prepared statement of a
    handful (one for each set of fields and page size), whose plan PostgreSQL keeps after
    its first few executions: a list read thousands of times a second is neither compiled
    by the ORM nor planned each time."""
    keyset, position = ("before", before) if before is not None else ("after", after)
    if position is None:
        keyset = ""
    real = not settings.BENCH_SHOW_SYNTHETIC
    sql = _result_list_sql(tuple(sorted(where)), keyset, real, limit)
    _, rows = prepared_rows(Result, sql, {**where, "position": position})
    listed = []
    for row in rows:
        listed.append(values := dict(zip(RESULT_LIST_COLUMNS, row, strict=True)))
        for name in _JSON_COLUMNS:
            if values[name] is not None:
                values[name] = orjson.loads(values[name])
        values["missing_rates_reason"] = missing_rates_reason(
            source=values["source"],
            bytes_per_second=values["bytes_per_second"],
            iops=values["iops"],
        )
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


def run_detail(*, pk: int, user=None) -> Run:
    """One published run of a real drive, or one held for review when `user` submitted it
    or is staff (results.permissions.may_see_own), with its provenance and what it
    measured: the throughput results, each with its `figures` (Figures: the rate not given
    derived from the other), and the consistency series, TRIM validations and write
    saturations without their per-second data. Raises Run.DoesNotExist (for a held run
    too, to anyone else, as for a withdrawn one). Five queries."""
    run = _real_runs().get(pk=pk)
    shown = run.status == Run.Status.PUBLISHED or (
        run.status == Run.Status.HELD and user is not None and permissions.may_see_own(user, run)
    )
    if not shown:
        raise Run.DoesNotExist(f"run {pk} is not published")
    return _measured(run)


def _real_runs() -> QuerySet[Run]:
    """Runs of real drives, whatever their status, with their provenance."""
    runs = Run.objects.real().select_related(*RUN_PROVENANCE, "withdrawn_by")
    if not settings.BENCH_SHOW_SYNTHETIC:
        runs = runs.filter(drive__synthetic=False)
    return runs


def _measured(run: Run) -> Run:
    """The run with what it measured, as run_detail gives it (four queries)."""
    prefetch_related_objects(
        [run],
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
    for result in run.results.all():
        result.figures = Figures.of(result, result.test)
    return run


# -- a run's page, and where each run of a drive falls among its others --------------------


@dataclass
class RunGroup:
    """A drive's runs in one throughput test, data pattern and way of measuring (a
    results.models.Method): each run's rate, the mean of its passes, by run id."""

    test_id: int
    test_name: str
    pattern: str
    method: str
    rates: dict[int, float] = field(default_factory=dict)
    units: dict[int, str] = field(default_factory=dict)  # run id -> its unit's serial hash
    reviewed: set[int] = field(default_factory=set)  # the runs of the reviewed reference

    @property
    def n(self) -> int:
        return len(self.rates)

    @functools.cached_property
    def quantiles(self) -> tuple[float, ...] | None:
        """Its QUANTILES (results.spread) percentiles, bytes/s; None with a single run."""
        return quantiles(list(self.rates.values())) if self.n > 1 else None

    def percentile(self, run_id: int) -> float | None:
        """Where this run falls among the group's others (results.spread.percentile_rank);
        None with a single run."""
        if self.n < 2:
            return None
        return percentile_rank(self.rates[run_id], list(self.rates.values()))


# Each published run's rate in each throughput test, pattern and method, its passes'
# mean; the run of the page among them whatever its status (where it would fall).
_RUN_RATES_SQL = f"""
SELECT t.id, t.name, r.pattern, {METHOD_SQL} AS method, r.run_id, run.unit_hash,
  run.reviewed, avg({BPS_SQL})
FROM results_result r
JOIN results_run run ON run.id = r.run_id
JOIN results_test t ON t.id = r.test_id
WHERE run.drive_id = %(drive)s AND (run.status = 'published' OR run.id = %(run)s)
  AND (NOT r.partial OR (run.id = %(run)s AND %(partial)s)) AND t.kind = 'throughput'
GROUP BY t.id, r.pattern, method, r.run_id, run.unit_hash, run.reviewed
HAVING avg({BPS_SQL}) IS NOT NULL
ORDER BY t.id, r.pattern, method, r.run_id"""


def run_groups(
    *, drive_id: int, run_id: int | None = None, partial: bool = False
) -> list[RunGroup]:
    """Every test, pattern and method in which the drive's published runs (and the run
    `run_id`, whatever its status) have a complete throughput result (partial: the run
    `run_id`'s partial ones too), with each run's rate and which runs are reviewed
    (Run.reviewed). One prepared statement."""
    _, rows = prepared_rows(
        Result, _RUN_RATES_SQL, {"drive": drive_id, "run": run_id, "partial": partial}
    )
    groups: dict[tuple[int, str, str], RunGroup] = {}
    for test_id, name, pattern, method, run, unit, reviewed, rate in rows:
        key = (test_id, pattern, method)
        group = groups.get(key) or groups.setdefault(key, RunGroup(test_id, name, pattern, method))
        group.rates[run] = float(rate)
        if reviewed:
            group.reviewed.add(run)
        if unit:
            group.units[run] = unit
    return list(groups.values())


# The health figures a run page shows, in order: (document key, what it is, unit).
HEALTH_FIGURES = (
    ("temperature_celsius", "temperature", "°C"),
    ("percentage_used", "life used (the drive's estimate)", "%"),
    ("available_spare_percent", "available spare", "%"),
    ("critical_warning", "critical warning bits", ""),
    ("data_written_bytes", "data written, all time", "bytes"),
    ("data_read_bytes", "data read, all time", "bytes"),
    ("lbas_written", "LBAs written, all time (the maker's unit)", ""),
    ("media_errors", "media errors", ""),
    ("reallocated_sectors", "reallocated sectors", ""),
    ("pending_sectors", "pending sectors", ""),
    ("power_on_hours", "power-on hours", ""),
    ("power_cycles", "power cycles", ""),
    ("unsafe_shutdowns", "unsafe shutdowns", ""),
)
WORN_PERCENT = 10  # life used at the start from which a run page marks the drive worn


@dataclass
class Health:
    """What a run's document (schema version 3) says of the drive's health: where it was
    read from, or why not; each figure before and after the run (HEALTH_FIGURES, those the
    device reported); and what changed."""

    source: str  # "nvme-smart-log", "ata-smart" or "none"
    reason: str
    rows: list[tuple[str, str, int | None, int | None]]  # what, unit, before, after

    @classmethod
    def of(cls, document: dict[str, Any]) -> Health | None:
        health = document.get("health")
        if not health:
            return None
        before, after = health.get("before") or {}, health.get("after") or {}
        rows = [
            (what, unit, before.get(key), after.get(key))
            for key, what, unit in HEALTH_FIGURES
            if key in before or key in after
        ]
        return cls(health["source"], health.get("reason", ""), rows)

    def _change(self, what: str) -> int | None:
        for name, _, before, after in self.rows:
            if name == what and before is not None and after is not None:
                return after - before
        return None

    @property
    def temperature_rise(self) -> int | None:
        return self._change("temperature")

    @property
    def written_during(self) -> int | None:
        """Bytes the drive counted written between the two readings (NVMe's counter)."""
        return self._change("data written, all time")

    @property
    def worn(self) -> int | None:
        """The life used at the start when it is WORN_PERCENT or more, else None."""
        for name, _, before, _after in self.rows:
            if name.startswith("life used") and before is not None and before >= WORN_PERCENT:
                return before
        return None


@dataclass
class RunPage:
    """One run as its page shows it: the run with what it measured (as run_detail gives
    it), where each of its results falls among the drive's runs (by test id and pattern),
    its document (as a reader may download it) and the command that repeats it."""

    run: Run
    standings: dict[tuple[int, str], RunGroup]
    document: dict[str, Any]
    command: str | None
    told: bool  # the viewer is its submitter or staff: why it was held or withdrawn
    same_unit: list[int]  # the drive's other published runs of the same physical unit
    key: str = ""  # the held run's key that opened the page (its links carry it on)

    @functools.cached_property
    def health(self) -> Health | None:
        return Health.of(self.document)

    @property
    def private(self) -> bool:
        """It shows what only the run's submitter and staff are told (a held run, why a run
        was withdrawn): never kept by a cache, nor indexed."""
        return self.told and self.run.status != Run.Status.PUBLISHED


def run_page(*, pk: int, user, key: str = "") -> RunPage:
    """The run `pk` of a real drive, published or withdrawn (its page says so), or held for
    review when `user` submitted it or is staff, or `key` is its key
    (results.permissions.held_key_opens). Six queries (five for a run whose unit is not
    known), and two for the submitter's account. Raises Run.DoesNotExist."""
    run = _real_runs().get(pk=pk)
    opened = permissions.held_key_opens(run, key)
    told = opened or permissions.may_see_own(user, run)
    if run.status == Run.Status.HELD and not told:
        raise Run.DoesNotExist(f"run {pk} is held for review")
    _measured(run)
    mine = {(r.test_id, r.pattern) for r in run.results.all()}
    standings = {
        (g.test_id, g.pattern): g
        for g in run_groups(drive_id=run.drive_id, run_id=run.pk)
        if pk in g.rates and (g.test_id, g.pattern) in mine
    }
    document = published_document(run)
    same_unit = []
    if run.unit_hash:
        same_unit = list(
            Run.objects.published()
            .filter(drive_id=run.drive_id, unit_hash=run.unit_hash)
            .exclude(pk=run.pk)
            .order_by("pk")
            .values_list("pk", flat=True)
        )
    command = loadgen_command(document)
    return RunPage(run, standings, document, command, told, same_unit, key if opened else "")


def published_document(run: Run) -> dict[str, Any]:
    """The run's document as readers may have it: as stored, which holds the drive's serial
    number only as its salted hash (results.documents.hash_serial)."""
    return json.loads(run.document)
