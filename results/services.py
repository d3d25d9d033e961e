"""Writes of the results app: ingesting a result document, withdrawing a run, issuing a
reviewer's API token."""

from __future__ import annotations

import dataclasses
import hashlib
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser, AbstractUser, Group
from django.db import IntegrityError, connection, transaction
from django.db.models import QuerySet
from django.utils import timezone
from knox.models import AuthToken

from drives.models import Drive, FirmwareVersion
from drives.services import DriveSpecProblem, drive_listed, drive_resolve, drive_reviewed
from results import documents, loadgen, permissions, plausibility, tails
from results.documents import (
    TEST_CATALOG,
    TEST_VARIATION,
    DocumentProblem,
    DocumentRejected,
    TestSpec,
)
from results.kinds import KINDS
from results.models import (
    Citation,
    IdempotencyKey,
    Run,
    Suite,
    SuiteTest,
    Test,
    TestBench,
)
from results.permissions import REVIEWER_GROUP, TRUSTED_GROUP
from results.spread import BPS_SQL, DERIVED_SQL, IOPS_SQL, METHOD_SQL, QUICK_SQL

UNKNOWN_SUITE = "unknown suite {name} version {version}"
ALREADY_WITHDRAWN = "run {pk} is already withdrawn"
NOT_HELD = "run {pk} is not held for review: it is {status}"
RUN_RELATIONS = ["drive", "firmware", "bench", "suite", "submitter", "citation"]


@dataclass(frozen=True)
class IngestOutcome:
    run: Run
    created: bool  # False: the same document was ingested before; nothing was written
    # What the submitter is told of the document beside its run: a loadgen older than its
    # suite version needs (results.loadgen.document_warnings). Never a reason to refuse it.
    warnings: tuple[str, ...] = ()


def _resolve_drive(spec: dict[str, Any], *, review: bool) -> Drive:
    """The catalog drive the document names (drives.services.drive_resolve), its problems
    as the document's. review: a drive created here is flagged for staff review."""
    try:
        return drive_resolve(spec=spec, review=review)
    except DriveSpecProblem as exc:
        where = documents.pointer("drive", exc.field) if exc.field else "/drive"
        raise DocumentRejected([DocumentProblem(where, exc.message)]) from exc


def _suite(spec: Mapping[str, Any] | None) -> Suite | None:
    """The suite the document's run belongs to (parameters.suite), None when it names none."""
    if spec is None:
        return None
    suite = Suite.objects.filter(name=spec["name"], version=spec["version"]).first()
    if suite is None:
        raise DocumentRejected([DocumentProblem("/parameters/suite", UNKNOWN_SUITE.format(**spec))])
    return suite


def _write(
    reading: documents.Reading,
    specs: Mapping[str, TestSpec],
    tests: dict[str, Test],
    suite: Suite | None,
    submitter,
) -> Run:
    """The run of a document read (documents.read), in a straight line: its drive resolved,
    its figures judged, the run and each kind's rows written, the read models refreshed."""
    document = reading.document
    drive = _resolve_drive(reading.drive, review=submitter is not None)
    trusted = permissions.is_trusted(submitter)
    held = plausibility.judge(reading, specs, tests, drive, trusted=trusted)
    firmware = None
    if reading.firmware:
        firmware, _ = FirmwareVersion.objects.get_or_create(drive=drive, version=reading.firmware)
    bench = None
    if reading.bench is not None:
        bench, _ = TestBench.objects.get_or_create(**reading.bench)
    citation = None
    if reading.citation is not None:
        identity = ("publisher", "title", "published_on")
        citation, _ = Citation.objects.get_or_create(
            **{k: reading.citation[k] for k in identity},
            defaults={k: v for k, v in reading.citation.items() if k not in identity},
        )
    run = Run(
        **reading.run,
        drive=drive,
        firmware=firmware,
        bench=bench,
        suite=suite,
        submitter=submitter,
        citation=citation,
        citation_locator=reading.citation_locator,
        document=reading.text,
        content_hash=reading.digest,
        status=Run.Status.HELD if held else Run.Status.PUBLISHED,
        held_reason="\n".join(held),
        reviewed=trusted,
    )
    # Field checks only: the related rows were just looked up, and uniqueness and the CHECK
    # constraints are the database's job (Django would spend a query on each).
    run.full_clean(exclude=RUN_RELATIONS, validate_unique=False, validate_constraints=False)
    run.save()
    if not drive.listed:  # every run of it had been withdrawn: listed again
        drive_listed(drive_id=drive.pk, listed=True)

    for kind in KINDS:
        kind.model.objects.bulk_create(
            kind.rows(run, document.get(kind.section, []), tests, document)
        )
    # A reviewer's run is judged against the drive's runs once its own are stored beside
    # them (grouped as every read groups them).
    outside = plausibility.outside_distribution(run) if submitter is not None else []
    if outside:
        run.status = Run.Status.HELD
        run.held_reason = "\n".join([*held, *outside])
        run.save(update_fields=["status", "held_reason"])
    leaderboard_refresh(drive_ids=[drive.pk])
    return run


def run_ingest(*, document: bytes | str, submitter: AbstractBaseUser | None) -> IngestOutcome:
    """Validate a result document and store it as one run, all or nothing.

    Idempotent: a document whose canonical content was ingested before returns the
    existing run with created=False and writes nothing. A version 1 or 2 document's serial
    number is stored only as its salted hash (documents.hash_serial); the content hash is
    the submitted document's, so that the same document sent again finds its run, also one
    stored before serials were hashed (migration 0036). A drive the catalog does not hold
    is created from the document's drive block; with a submitter (an upload) it is flagged
    for staff review (Drive.needs_review). A document measured by a loadgen older than its
    suite version needs is stored, with a warning (IngestOutcome.warnings). Raises
    DocumentRejected with
    every problem found (JSON pointer and message) when the document is not acceptable;
    then nothing is written.
    """
    tests = {t.identifier: t for t in Test.objects.all()}
    specs = documents.test_specs(tests)
    reading = documents.read(document, specs, max_bytes=settings.BENCH_MAX_DOCUMENT_BYTES)
    warnings = tuple(loadgen.document_warnings(reading.document))
    existing = Run.objects.filter(content_hash=reading.digest).first()
    if existing is not None:
        return IngestOutcome(existing, created=False, warnings=warnings)
    suite = _suite(reading.suite)
    try:
        with transaction.atomic():
            run = _write(reading, specs, tests, suite, submitter)
    except IntegrityError:
        # A concurrent upload of the same document won the race: answer with its run.
        existing = Run.objects.filter(content_hash=reading.digest).first()
        if existing is None:
            raise
        return IngestOutcome(existing, created=False, warnings=warnings)
    return IngestOutcome(run, created=True, warnings=warnings)


def run_approve(*, run: Run) -> Run:
    """Publish a run held for review (results.plausibility): it enters the rankings and its
    drive's latest figures, and its drive's reviewed reference (Run.reviewed); a drive it
    named that awaited review is reviewed with it. Its reasons for the hold are kept.
    Raises ValueError when the run is not held. Who may approve is the caller's check
    (staff)."""
    with transaction.atomic():
        run = Run.objects.select_for_update().get(pk=run.pk)
        if run.status != Run.Status.HELD:
            raise ValueError(NOT_HELD.format(pk=run.pk, status=run.get_status_display()))
        run.status = Run.Status.PUBLISHED
        run.reviewed = True  # staff vouched for it: part of its drive's reference now
        run.save(update_fields=["status", "reviewed"])
        drive_reviewed(drive_id=run.drive_id)
        leaderboard_refresh(drive_ids=[run.drive_id])
    return run


def run_withdraw(*, run: Run, reason: str, by: AbstractBaseUser | None = None) -> Run:
    """Hide a run from every page and ranking; its rows and document are kept, with when,
    why and by whom (None: a command) it was withdrawn. Raises ValueError when the run is
    withdrawn already. Who may withdraw is the caller's check (results.permissions)."""
    with transaction.atomic():
        run = Run.objects.select_for_update().get(pk=run.pk)
        if run.status == Run.Status.WITHDRAWN:
            raise ValueError(ALREADY_WITHDRAWN.format(pk=run.pk))
        run.status = Run.Status.WITHDRAWN
        run.withdrawn_at = timezone.now()
        run.withdrawn_reason = reason
        run.withdrawn_by = by
        run.full_clean(validate_unique=False)
        run.save(update_fields=["status", "withdrawn_at", "withdrawn_reason", "withdrawn_by"])
        if not Run.objects.filter(drive_id=run.drive_id).exclude(status=run.status).exists():
            drive_listed(drive_id=run.drive_id, listed=False)  # its last run withdrawn
        leaderboard_refresh(drive_ids=[run.drive_id])
    return run


def runs_delete(*, runs: QuerySet[Run]) -> int:
    """Delete these runs with every row of theirs, rebuild their drives' leaderboard entries
    and take a drive left without a shown run out of the lists, all in one transaction.
    Returns the number of runs deleted. For runs that never belonged on the site (a
    benchmark's own uploads, a fixture's); a run readers have seen is withdrawn instead
    (run_withdraw), which keeps its rows and document."""
    with transaction.atomic():
        drive_ids = sorted(set(runs.values_list("drive_id", flat=True)))
        if not drive_ids:
            return 0
        _, deleted = runs.delete()
        shown = set(
            Run.objects.filter(drive_id__in=drive_ids)
            .exclude(status=Run.Status.WITHDRAWN)
            .values_list("drive_id", flat=True)
        )
        for drive_id in drive_ids:
            if drive_id not in shown:
                drive_listed(drive_id=drive_id, listed=False)
        leaderboard_refresh(drive_ids=drive_ids)
    return deleted.get(Run._meta.label, 0)


# The class of the advisory locks that are upload turns (its second key the turn): "up".
UPLOAD_TURNS_LOCK = 0x7570


def upload_turn() -> int | None:
    """Wait for a turn to take an upload in, then hold it until the transaction ends: at
    most settings.BENCH_UPLOAD_TURNS uploads are taken in at once, in every server process
    (PostgreSQL advisory locks; 0, no limit). The turn taken, None without a limit.

    An upload's work is CPU: reading and checking its document, writing its rows, rebuilding
    its drive's rankings. Uploads taken in together each take a share of the CPUs that the
    readers' requests would have had, and the readers wait in the queue behind them; taken in
    turn, they wait for each other instead. Nothing a reader does takes a turn. Call it at
    the start of an upload's transaction, before its document is read."""
    turns = settings.BENCH_UPLOAD_TURNS
    if turns <= 0:
        return None
    if not connection.in_atomic_block:
        raise RuntimeError("an upload's turn lasts its transaction: take it in one")
    with connection.cursor() as cursor:
        for turn in range(turns - 1):  # a free one, if any; the last one waited for
            cursor.execute("SELECT pg_try_advisory_xact_lock(%s, %s)", [UPLOAD_TURNS_LOCK, turn])
            if cursor.fetchone()[0]:
                return turn
        cursor.execute("SELECT pg_advisory_xact_lock(%s, %s)", [UPLOAD_TURNS_LOCK, turns - 1])
    return turns - 1


def reviewer_token_issue(*, user: AbstractUser, trusted: bool = False) -> str:
    """Make the user a reviewer (trusted: one whose runs count in their drives' reviewed
    reference as they are published, results.permissions) and issue them a new API token,
    returned this once: the database keeps only its digest (django-rest-knox), so no one
    can read it back. Their earlier tokens keep working until revoked."""
    with transaction.atomic():
        for name in (REVIEWER_GROUP, TRUSTED_GROUP) if trusted else (REVIEWER_GROUP,):
            group, _ = Group.objects.get_or_create(name=name)
            user.groups.add(group)
        _, token = AuthToken.objects.create(user=user)
    return token


class IdempotencyConflict(Exception):
    """An Idempotency-Key used before with a different request."""


@dataclass(frozen=True)
class KeptResponse:
    status_code: int
    body: dict[str, Any]
    replayed: bool  # True: the first response to this key, given again; nothing was written
    run: Run  # the run it answered with (its state now: it may have been withdrawn since)


IDEMPOTENCY_KEY_TTL = timedelta(hours=24)
KEY_REUSED = (
    "the Idempotency-Key {key} was used {when} for a different request (another body or "
    "query string); use a new key for a new upload"
)


def upload_idempotent(
    *,
    user: AbstractBaseUser,
    key: str,
    fingerprint: str,
    upload: Callable[[], tuple[Run, int, dict[str, Any]]],
) -> KeptResponse:
    """Run upload() once per (user, key): it ingests (run_ingest) and returns the run, the
    status code and the response body, which are kept in the database. The same key with the
    same fingerprint (a hash of the request) gets that response again without calling
    upload(); with another fingerprint, IdempotencyConflict. Requests with one key wait for
    each other (an advisory lock), in every server process. A key is kept for
    IDEMPOTENCY_KEY_TTL; an upload that raises (a rejected document) keeps nothing."""
    lock_id = int.from_bytes(
        hashlib.sha256(f"idempotency:{user.pk}:{key}".encode()).digest()[:8], "big", signed=True
    )
    with transaction.atomic():
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_xact_lock(%s)", [lock_id])
        found = IdempotencyKey.objects.filter(user=user, key=key).first()
        if found is not None and found.created_at < timezone.now() - IDEMPOTENCY_KEY_TTL:
            found.delete()
            found = None
        if found is not None:
            if found.fingerprint != fingerprint:
                raise IdempotencyConflict(
                    KEY_REUSED.format(
                        key=documents.quote(key), when=f"{found.created_at:%Y-%m-%d %H:%M} UTC"
                    )
                )
            return KeptResponse(found.status_code, found.response, replayed=True, run=found.run)
        run, status_code, body = upload()
        IdempotencyKey.objects.create(
            user=user,
            key=key,
            fingerprint=fingerprint,
            run=run,
            status_code=status_code,
            response=body,
        )
    return KeptResponse(status_code, body, replayed=False, run=run)


# The latest published whole (not partial) result of each drive, test and data pattern.
# "Latest" prefers a full-length result to a quick one, then the newest run: when it
# started, else when its source was published, else when it was ingested
# (results.selectors.run_recency, the same rule for the series and TRIM validations a
# comparison shows), then its last pass (repeat). Its figures are the mean of its group
# (docs/methodology.md, "Spread and the winner rule": the drive's results in the test and
# pattern obtained the same way, a published figure only with its own run's), with the
# group's size, range and coefficient of variation. Each drive's slowest pattern in a test
# is marked `worst`; every entry carries the drive's latest USD price, which a trigger on
# drives_price keeps current (results/sql/price_sync.sql), and copies of its specs, which
# triggers give it and keep current (results.copies). Only the entries that change are
# written (and those no longer backed by a result deleted), so an ingest that changes no
# ranking moves no ranking's version (core.versions), and an entry keeps its id while it
# stands.
# What an entry holds, each column with the SQL that computes it: of each candidate result
# (`latest`, over r the result, run, t its test, d its drive), of its group, then of the
# drive's entries in the test and its price (`fresh`). The statement's column lists are made
# from these.
_LATEST_COLUMNS = (
    ("drive_id", "run.drive_id"),
    ("test_id", "r.test_id"),
    ("pattern", "r.pattern"),
    ("result_id", "r.id"),
    ("run_id", "run.id"),
    ("source", "run.source"),
    ("synthetic", "d.synthetic"),
    ("derived", DERIVED_SQL),
    ("latency_mean_ns", "r.latency_mean_ns"),
    ("latency_kind", "CASE WHEN r.latency_mean_ns IS NULL THEN '' ELSE r.latency_kind END"),
    ("quick", QUICK_SQL),
    ("iops_stddev", "r.iops_stddev"),
    ("iops_min", "r.iops_min"),
    ("read_iops", "r.read_iops"),
    ("write_iops", "r.write_iops"),
    ("method", METHOD_SQL),
    ("tool_name", "run.tool_name"),
)
# Of the group, over g its results' rates (each the missing one derived, as in `latest`).
# Sums of floats in a stated order: the same rows give the same last digit, whatever order
# the table holds them in.
_GROUP_COLUMNS = (
    ("bytes_per_second", "avg(g.bps ORDER BY g.bps)"),
    ("iops", "avg(g.iops ORDER BY g.iops)"),
    ("runs", "count(*)"),
    ("low_bps", "min(g.bps)"),
    ("high_bps", "max(g.bps)"),
    ("cv", "stddev_samp(g.bps ORDER BY g.bps) / NULLIF(avg(g.bps ORDER BY g.bps), 0)"),
    ("histograms", "count(*) FILTER (WHERE g.has_histogram)"),
)
# Of the group's tail (results.tails), over `latest`, `grouped` and `tail`: the merge of its
# histograms where every result has one (worked out in Python from results.histograms
# before the statement, and given to it by the latest result's id), else a group of one's
# own percentiles as its tool wrote them, else none. A percentile is ranked only where its
# I/Os support it (results.spread.ios_needed).
_TAIL_SQL = {
    "tail": (
        "CASE WHEN tail.percentiles IS NOT NULL THEN 'merged' "
        "WHEN latest.own_percentiles IS NULL THEN '' "
        "WHEN grouped.runs > 1 THEN 'unmerged' ELSE 'result' END"
    ),
    "latency_io_count": (
        "CASE WHEN tail.percentiles IS NOT NULL THEN tail.io_count "
        "WHEN grouped.runs = 1 AND latest.own_percentiles IS NOT NULL THEN latest.io_count END"
    ),
    "latency_percentiles_ns": (
        "CASE WHEN tail.percentiles IS NOT NULL THEN tail.percentiles "
        "WHEN grouped.runs = 1 THEN latest.own_percentiles END"
    ),
    "latency_max_ns": (
        "CASE WHEN tail.percentiles IS NOT NULL THEN tail.max_ns "
        "WHEN grouped.runs = 1 THEN latest.own_max END"
    ),
    # A mixed test's reads' and writes' (tails.LATENCIES): merged alone, where every result
    # carries their histogram.
    **{
        f"{p}latency_{figure}": f"tail.{p}{merged}"
        for p in map(tails.prefix, tails.LATENCIES[1:])
        for figure, merged in (
            ("io_count", "io_count"),
            ("percentiles_ns", "percentiles"),
            ("max_ns", "max_ns"),
        )
    },
}
# How the merged tails are given to the statement: a row by latest result, each latency's
# merge (tails.Merged) under its prefix.
_TAIL_RECORD = "result_id bigint, " + ", ".join(
    f"{p}io_count bigint, {p}percentiles jsonb, {p}max_ns bigint"
    for p in map(tails.prefix, tails.LATENCIES)
)
_TAIL_COLUMNS = (
    *_TAIL_SQL.items(),
    (
        "latency_p999_ns",
        f"CASE WHEN ({_TAIL_SQL['latency_io_count']}) >= {tails.RANKED_IOS} THEN "
        f"round((({_TAIL_SQL['latency_percentiles_ns']}) ->> "
        f"'{tails.RANKED_PERCENTILE}')::numeric)::bigint END",
    ),
)
_FRESH_COLUMNS = (
    (
        "worst",
        "row_number() OVER (PARTITION BY drive_id, test_id "
        "ORDER BY bytes_per_second NULLS LAST, pattern) = 1",
    ),
    ("price_usd", "price.amount"),
    ("price_observed_on", "price.observed_on"),
)
_CANDIDATES_SQL = """
WITH candidate AS (
  SELECT {latest},
    {bps} AS bps, {iops} AS iops,
    CASE WHEN run.source = 'published' THEN run.id END AS own_run,
    COALESCE(run.started_at, c.published_on::timestamptz, run.ingested_at) AS recency,
    r.repeat, r.latency_histogram IS NOT NULL AS has_histogram, r.io_count,
    r.latency_percentiles_ns AS own_percentiles, r.latency_max_ns AS own_max
  FROM results_result r
  JOIN results_run run ON run.id = r.run_id
  JOIN results_test t ON t.id = r.test_id
  JOIN drives_drive d ON d.id = run.drive_id
  LEFT JOIN results_citation c ON c.id = run.citation_id
  WHERE run.status = 'published' AND t.kind = 'throughput' AND NOT r.partial {where}
),
latest AS (
  SELECT DISTINCT ON (drive_id, test_id, pattern) *
  FROM candidate
  ORDER BY drive_id, test_id, pattern, quick, recency DESC, run_id DESC, repeat DESC
)"""
# The histograms of each latest result's group whose every result carries one, each with its
# latency's exact min and max, of each of tails.LATENCIES (a direction's min is not stored,
# DIRECTION_FIGURES): merged in Python (results.tails), then given to the statement.
_MEMBER_SQL = ", ".join(
    f"r.{p}latency_histogram, {'NULL' if p else 'r.latency_min_ns'}, r.{p}latency_max_ns"
    for p in map(tails.prefix, tails.LATENCIES)
)
_HISTOGRAMS_SQL = f"""
SELECT latest.result_id,
       json_agg(json_build_array({_MEMBER_SQL}) ORDER BY r.id)
FROM latest
JOIN candidate g ON (g.drive_id, g.test_id, g.pattern, g.method) =
                    (latest.drive_id, latest.test_id, latest.pattern, latest.method)
  AND g.own_run IS NOT DISTINCT FROM latest.own_run
JOIN results_result r ON r.id = g.result_id
GROUP BY latest.result_id
HAVING bool_and(g.has_histogram)
"""
_LEADERBOARD_SQL = """,
grouped AS (
  SELECT drive_id AS g_drive, test_id AS g_test, pattern AS g_pattern, method AS g_method,
         own_run AS g_own, {grouped}
  FROM candidate g
  GROUP BY drive_id, test_id, pattern, method, own_run
),
fresh AS (
SELECT {chosen}, {group_values}, {tails}, {fresh}
FROM latest
JOIN grouped ON (g_drive, g_test, g_pattern, g_method) =
                (latest.drive_id, latest.test_id, latest.pattern, latest.method)
  AND g_own IS NOT DISTINCT FROM latest.own_run
LEFT JOIN jsonb_to_recordset(%(tails)s::jsonb) AS tail ({tail_record})
  ON tail.result_id = latest.result_id
LEFT JOIN LATERAL (SELECT amount::float8 AS amount, observed_on FROM drives_price
                   WHERE drive_id = latest.drive_id AND currency = 'USD'
                   ORDER BY observed_on DESC, amount LIMIT 1) price ON true
),
gone AS (
  DELETE FROM results_leaderboardentry e
  WHERE {entries} AND NOT EXISTS (
    SELECT FROM fresh f
    WHERE (f.drive_id, f.test_id, f.pattern) = (e.drive_id, e.test_id, e.pattern))
)
INSERT INTO results_leaderboardentry AS e ({columns})
SELECT {columns} FROM fresh
ON CONFLICT (drive_id, test_id, pattern) DO UPDATE SET ({columns}) = ROW({proposed})
WHERE ({stored}) IS DISTINCT FROM ({proposed})
"""


def leaderboard_refresh(*, drive_ids: list[int] | None) -> int:
    """Rebuild the leaderboard entries of these drives (None: of every drive) from their
    published runs. Returns the number of entries written."""
    with transaction.atomic(), connection.cursor() as cursor:
        if drive_ids is None:
            where, entries, params = "", "true", {}
        else:
            # One refresh of a drive at a time: a concurrent ingest for the same drive waits
            # here, then sees this one's rows (committed) and rebuilds them with its own.
            list(
                Drive.objects.select_for_update()
                .filter(pk__in=drive_ids)
                .order_by("pk")
                .values_list("pk", flat=True)
            )
            where = "AND run.drive_id = ANY(%(drives)s)"
            entries = "e.drive_id = ANY(%(drives)s)"
            params = {"drives": list(drive_ids)}
        cursor.execute(_candidates_sql(where) + _HISTOGRAMS_SQL, params)
        found = []
        for result_id, members in cursor.fetchall():
            row = {"result_id": result_id}
            for latency, tail in tails.merged_tails(members).items():
                if tail is not None:
                    p = tails.prefix(latency)
                    row.update({p + k: v for k, v in dataclasses.asdict(tail).items()})
            found.append(row)
        cursor.execute(
            _leaderboard_sql(where=where, entries=entries),
            {**params, "tails": json.dumps(found)},
        )
        return cursor.rowcount


def _candidates_sql(where: str) -> str:
    return _CANDIDATES_SQL.format(
        where=where,
        latest=", ".join(f"{sql} AS {name}" for name, sql in _LATEST_COLUMNS),
        bps=BPS_SQL,
        iops=IOPS_SQL,
    )


def _leaderboard_sql(*, where: str, entries: str) -> str:
    columns = [
        name for name, _ in (*_LATEST_COLUMNS, *_GROUP_COLUMNS, *_TAIL_COLUMNS, *_FRESH_COLUMNS)
    ]
    return _candidates_sql(where) + _LEADERBOARD_SQL.format(
        entries=entries,
        chosen=", ".join(f"latest.{name}" for name, _ in _LATEST_COLUMNS),
        tails=", ".join(f"{sql} AS {name}" for name, sql in _TAIL_COLUMNS),
        tail_record=_TAIL_RECORD,
        grouped=", ".join(f"{sql} AS {name}" for name, sql in _GROUP_COLUMNS),
        group_values=", ".join(f"grouped.{name}" for name, _ in _GROUP_COLUMNS),
        fresh=", ".join(f"{sql} AS {name}" for name, sql in _FRESH_COLUMNS),
        columns=", ".join(columns),
        stored=", ".join(f"e.{c}" for c in columns),
        proposed=", ".join(f"EXCLUDED.{c}" for c in columns),
    )


def suite_catalog_sync(
    *,
    catalog: dict[str, Any] | None = None,
    variation: dict[str, float] | None = None,
    using: str = "default",
) -> int:
    """Make the tests and suites in the database those of the test catalog
    (results/schema/catalog.json unless `catalog` is given): a test or suite it adds is
    created, one it names is written as it says, in one transaction; nothing it leaves out is
    deleted (results point at their test). Run after every `migrate` (results.apps), so adding
    a test is an entry in catalog.json, not a migration. Each test's measured run-to-run
    variation is written from results/schema/run-to-run.json (unless `variation` is given):
    a test it does not name has none. Returns how many tests and suites it wrote."""
    if catalog is None:
        catalog = json.loads(TEST_CATALOG.read_text())
    if variation is None:
        variation = json.loads(TEST_VARIATION.read_text())["tests"]
    written = 0
    with transaction.atomic(using=using):
        tests = {t.identifier: t for t in Test.objects.using(using)}
        for spec in catalog["tests"]:
            fields = {name: value for name, value in spec.items() if name != "id"}
            fields["run_to_run_cv"] = variation.get(spec["id"])
            test = tests.get(spec["id"])
            if test is None or any(getattr(test, k) != v for k, v in fields.items()):
                tests[spec["id"]], _ = Test.objects.using(using).update_or_create(
                    identifier=spec["id"], defaults=fields
                )
                written += 1
        for spec in catalog["suites"]:
            suite, created = Suite.objects.using(using).get_or_create(
                name=spec["name"], version=spec["version"], defaults={"title": spec["title"]}
            )
            changed = created
            if suite.title != spec["title"]:
                suite.title = spec["title"]
                suite.save(using=using, update_fields=["title"])
                changed = True
            wanted = [(tests[test_id].pk, n) for n, test_id in enumerate(spec["tests"], start=1)]
            members = SuiteTest.objects.using(using).filter(suite=suite)
            if [(st.test_id, st.position) for st in members.order_by("position")] != wanted:
                members.delete()
                SuiteTest.objects.using(using).bulk_create(
                    SuiteTest(suite=suite, test_id=test, position=n) for test, n in wanted
                )
                changed = True
            written += changed
    return written
