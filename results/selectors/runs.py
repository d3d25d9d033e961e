"""Runs and results as the API lists them, and a submitter's own runs."""

from __future__ import annotations

import functools

import orjson
from django.conf import settings
from django.db.models import Prefetch, QuerySet

from core.db import prepared_rows
from results.models import (
    ConsistencySeries,
    Result,
    Run,
    SaturationSeries,
    TrimValidation,
)
from results.selectors.common import (
    SERIES_POINTS,
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
