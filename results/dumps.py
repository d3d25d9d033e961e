"""The open data (issue 47): dumps of everything the site publishes, for analysis
(Parquet), spreadsheets (CSV) and the raw result documents (JSON Lines), each with a
manifest (manifest.json) that gives every file's SHA-256 and row count, the dump's schema
version and date, the data's licence and how to cite the dump.

What a dump holds is what the API lists, read through the API's own selectors and written
by its own serializers (TABLES), so a dump and the API cannot say different things:

- the catalog: tests, manufacturers, controllers, NAND types, drives, firmware, prices;
- runs: every published run with its provenance, and every withdrawn one, listed with
  when it was withdrawn (`status` withdrawn, `withdrawn_at`) rather than left out; never a
  run held for review nor a synthetic one;
- results (the results API: every published result, the rate not given derived from the
  other), consistency series (without their points), TRIM validations;
- leaderboard: every ranking the leaderboard API gives, unfiltered: each throughput test
  by each metric, in each comparability class (full-length runs and published figures, or
  quick runs), with its rank;
- documents.jsonl: each listed run's result document as submitted, one a line, without
  the drive's serial number or its hash (strip_serials).

A dump is written into a temporary folder of the store, every file made read-only, and
renamed in one step to its name: the date (UTC) it was taken, e.g. 2026-05-01, or for a
second dump the same day 2026-05-01.2 (and so on): a published dump never changes. The
store's `latest` link names the newest. Each table is read in one snapshot of the database
(a repeatable-read transaction), so the files agree with each other.

Every table is streamed (Streaming): read through a server-side cursor or by pages, written
to its CSV and let go a batch at a time, its Parquet file a row group at a time, so a dump of
any catalog holds about one row group. What grows with a table is only the Parquet writer's
metadata of its row groups (the footer it writes as the file closes): about 1 KiB a column
for each ROW_GROUP rows, the format's own.
"""

from __future__ import annotations

import contextlib
import csv
import datetime
import fcntl
import functools
import hashlib
import io
import json
import os
import re
import secrets
import shutil
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson
import pyarrow as pa
import pyarrow.parquet as pq
from django.conf import settings
from django.db import connection, transaction
from django.db.models import Exists, OuterRef
from django.urls import reverse
from rest_framework import serializers

from core import versions
from drives.api import (
    ControllerViewSet,
    DriveSerializer,
    FirmwareSerializer,
    FirmwareViewSet,
    ManufacturerViewSet,
    NandTypeViewSet,
    PriceSerializer,
    PriceViewSet,
)
from drives.selectors import drive_rows_streamed
from results.api.reads import (
    ConsistencySerializer,
    ConsistencyViewSet,
    ResultSerializer,
    TestSerializer,
    TestViewSet,
    TrimSerializer,
    TrimViewSet,
)
from results.api.runs import OwnRunSerializer
from results.api.shapes import EntryShape
from results.filters import LeaderboardFilter, MethodFilter
from results.models import LeaderboardEntry, Run, Test
from results.selectors.common import entries
from results.selectors.rankings import Metric, ranking_batches
from results.selectors.runs import RUN_PROVENANCE, results_listed

DUMP_SCHEMA_VERSION = 1  # a column renamed, removed or retyped is a new version
MANIFEST = "manifest.json"
DOCUMENTS = "documents.jsonl"
LATEST = "latest"
LICENCE = {
    "id": "CC-BY-4.0",
    "name": "Creative Commons Attribution 4.0 International",
    "url": "https://creativecommons.org/licenses/by/4.0/",
}
# A dump's name: its date, and from the second dump of a day on its sequence number.
NAME = re.compile(r"(?P<date>[0-9]{4}-[0-9]{2}-[0-9]{2})(?:\.(?P<sequence>[1-9][0-9]{0,5}))?")
FILE_NAME = re.compile(r"[a-z_]+\.(?:parquet|csv|jsonl|json)")
MEDIA_TYPES = {
    "parquet": "application/vnd.apache.parquet",
    "csv": "text/csv; charset=utf-8",
    "jsonl": "application/jsonl; charset=utf-8",
    "json": "application/json",
}
BATCH = 2000  # rows read, serialized and written at a time
# Rows a Parquet row group holds (about, whole batches): what one file holds of Arrow's at most
# (about 5.5 MiB of results), and, per row group, what its writer keeps until it closes (about
# 1 KiB a column): 2,000,000 results, 123 row groups, 5 MB.
ROW_GROUP = 1 << 14
DOCUMENTS_BATCH = 200  # result documents read at a time (each up to a few MB)
CSV_BUFFER = 1 << 20  # bytes of CSV written at a time
STALE_TEMPORARY_S = 24 * 3600  # a temporary folder this old is a crashed dump's: removed
# Text cells a spreadsheet would run as a formula are written after a quote, as the API's
# CSV writes them (benchsite.api.csv_cell); numbers stay numbers.
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
# What a document may name a drive's unit by: never in a dump (strip_serials).
SERIAL_KEYS = frozenset({"serial", "serial_hash", "serial_number"})


# -- columns ---------------------------------------------------------------------------------
ARROW_TYPES = {
    "int": pa.int64(),
    "float": pa.float64(),
    "str": pa.string(),
    "bool": pa.bool_(),
    "date": pa.date32(),
    "datetime": pa.timestamp("us", tz="UTC"),
    "json": pa.string(),  # a mapping or a list, as JSON text
    "url": pa.string(),  # a link on the site, absolute
}


@dataclass(frozen=True, slots=True)
class Column:
    """A column of a table: the dotted path of its value in the API's item (a nested
    object's fields are columns of their own, as the API's CSV writes them) and its kind
    (ARROW_TYPES)."""

    name: str
    kind: str

    @property
    def arrow(self) -> pa.DataType:
        return ARROW_TYPES[self.kind]


_FIELD_KINDS: tuple[tuple[type[serializers.Field], str], ...] = (
    (serializers.BooleanField, "bool"),
    (serializers.IntegerField, "int"),
    (serializers.FloatField, "float"),
    (serializers.DecimalField, "float"),  # money: a JSON number, as every figure
    (serializers.DateTimeField, "datetime"),
    (serializers.DateField, "date"),
    (serializers.PrimaryKeyRelatedField, "int"),
    (serializers.DictField, "json"),
    (serializers.ListField, "json"),
    (serializers.JSONField, "json"),
    (serializers.ManyRelatedField, "json"),
    (serializers.URLField, "url"),
    (serializers.CharField, "str"),
    (serializers.ChoiceField, "str"),
    (serializers.RelatedField, "str"),  # a slug
)


def columns_of(
    serializer: serializers.Serializer, declared: dict[str, Any] | None = None, prefix: str = ""
) -> list[Column]:
    """The columns of a serializer's items, in its field order, derived from its fields: a
    nested serializer's fields as columns of their own; a field it writes by a method
    (SerializerMethodField) as `declared` says (a kind, or a mapping of its fields' kinds)."""
    declared = declared or {}
    columns: list[Column] = []
    for name, fld in serializer.fields.items():
        path = f"{prefix}{name}"
        if name in declared:
            kind = declared[name]
            if isinstance(kind, dict):
                columns += [Column(f"{path}.{sub}", k) for sub, k in kind.items()]
            elif kind is not None:
                columns.append(Column(path, kind))
            continue
        if isinstance(fld, serializers.ListSerializer):
            columns.append(Column(path, "json"))
        elif isinstance(fld, serializers.Serializer):
            columns += columns_of(fld, prefix=f"{path}.")
        else:
            kind = next((k for t, k in _FIELD_KINDS if isinstance(fld, t)), None)
            if kind is None:
                raise TypeError(f"{path}: no column kind for {type(fld).__name__}")
            columns.append(Column(path, kind))
    return columns


# -- tables ------------------------------------------------------------------------------------
# A table's rows: given how many to read at a time, the rows batch by batch, each batch read
# and written before the next is read (never the whole table at once).
Rows = Callable[[int], Iterator[list[dict[str, Any]]]]


@dataclass(frozen=True, slots=True)
class Table:
    """A table of a dump: its name (its files' stem), what a row is, its columns, and its
    rows, batch by batch, as the API's items (dicts)."""

    name: str
    description: str
    columns: list[Column]
    rows: Rows


def _batches(
    items: Iterable[Any], size: int, write: Callable[[list], list[dict]]
) -> Iterator[list[dict]]:
    batch: list = []
    for item in items:
        batch.append(item)
        if len(batch) == size:
            yield write(batch)
            batch = []
    if batch:
        yield write(batch)


def _writer(serializer: type[serializers.Serializer]) -> Callable[[list], list[dict]]:
    """What writes a batch of a table's rows as the API's items: the serializer's list, made
    once a table and called for each batch. Not `.data`, which would keep the batch in a
    reference cycle with its serializer: freed only when the garbage collector comes by,
    not as soon as the batch is written."""
    return serializer(many=True).to_representation


def _listed(queryset, serializer: type[serializers.Serializer]) -> Rows:
    """The items of an API list: its queryset, read through a server-side cursor (the
    queryset's iterator), written by its serializer."""

    def rows(batch: int) -> Iterator[list[dict]]:
        return _batches(queryset().iterator(chunk_size=batch), batch, _writer(serializer))

    return rows


def _viewset_queryset(viewset: type) -> Callable[[], Any]:
    """A read-only API list's queryset, as its viewset reads it for a list."""

    def queryset():
        view = viewset()
        view.action = "list"
        view.request = None
        return view.get_queryset()

    return queryset


def _drives(batch: int) -> Iterator[list[dict]]:
    """The drives API's list (drive_page's, the catalog's order), all of it, read from the
    database as it goes (not from the process's copy of the list, which holds every drive)."""
    write = _writer(DriveSerializer)
    for rows in drive_rows_streamed(batch=batch):
        yield write(rows)


def runs_dumped():
    """The runs a dump lists: the runs API's (published, of real drives: runs_listed's
    rule) and the withdrawn ones, oldest first; never a held or synthetic run."""
    runs = (
        Run.objects.real()
        .filter(status__in=[Run.Status.PUBLISHED, Run.Status.WITHDRAWN])
        .select_related(*RUN_PROVENANCE)
    )
    if not settings.BENCH_SHOW_SYNTHETIC:
        runs = runs.filter(drive__synthetic=False)
    return runs.order_by("pk")


# The runs API's item, with when a run was withdrawn (null while it is published). Why and
# by whom stay with the run's submitter and staff, as on its page.
RUN_HIDDEN = ("held_reasons", "withdrawn_reason", "withdrawn_by")


def _run_rows(batch: int) -> Iterator[list[dict]]:
    serialize = _writer(OwnRunSerializer)

    def write(runs: list[Run]) -> list[dict]:
        items = serialize(runs)
        return [{k: v for k, v in item.items() if k not in RUN_HIDDEN} for item in items]

    return _batches(runs_dumped().defer("document").iterator(chunk_size=batch), batch, write)


RUN_METHOD_FIELDS = {
    "url": "url",
    "page": "url",
    "firmware": "str",
    "submitter": "str",
    **dict.fromkeys(RUN_HIDDEN),
}


def _results(batch: int) -> Iterator[list[dict]]:
    """The results API's list (results_listed), oldest first, all of it."""
    write, after = _writer(ResultSerializer), 0
    while True:
        rows = results_listed(where={}, limit=batch, after=after)[::-1]
        if not rows:
            return
        yield write(rows)
        after = rows[-1]["id"]


# The leaderboard's rows: each ranking's entries (the API's rows, RankedEntry.as_item) with
# what ranks them; `highlighted` means nothing without a highlight.
LEADERBOARD_KEYS = {"test": "str", "metric": "str", "comparability": "str"}


def _leaderboard(batch: int) -> Iterator[list[dict]]:
    # A test without an entry has empty rankings: not read (ten statements a test).
    ranked = LeaderboardEntry.objects.filter(test=OuterRef("pk"))
    tests = Test.objects.filter(Exists(ranked), kind=Test.Kind.THROUGHPUT).order_by("identifier")
    for test in tests:
        for metric, _ in Metric.CHOICES:
            for comparability, _ in MethodFilter.CHOICES:
                filters = LeaderboardFilter({"method": comparability}, queryset=entries())
                filters.is_valid()
                keys = {"test": test.identifier, "metric": metric, "comparability": comparability}
                for rows in ranking_batches(test=test, filters=filters, metric=metric, batch=batch):
                    yield [{**keys, **r.as_item()} for r in rows]


TABLES = (
    Table(
        "tests",
        "The test catalog (/api/v1/tests/)",
        columns_of(TestSerializer()),
        _listed(_viewset_queryset(TestViewSet), TestSerializer),
    ),
    Table(
        "manufacturers",
        "Drive and component makers (/api/v1/manufacturers/)",
        columns_of(ManufacturerViewSet.serializer_class()),
        _listed(_viewset_queryset(ManufacturerViewSet), ManufacturerViewSet.serializer_class),
    ),
    Table(
        "controllers",
        "SSD controllers (/api/v1/controllers/)",
        columns_of(ControllerViewSet.serializer_class()),
        _listed(_viewset_queryset(ControllerViewSet), ControllerViewSet.serializer_class),
    ),
    Table(
        "nand_types",
        "NAND flash types (/api/v1/nand-types/)",
        columns_of(NandTypeViewSet.serializer_class()),
        _listed(_viewset_queryset(NandTypeViewSet), NandTypeViewSet.serializer_class),
    ),
    Table(
        "drives",
        "Drives with their specs, controller, NAND and latest price (/api/v1/drives/)",
        columns_of(DriveSerializer()),
        _drives,
    ),
    Table(
        "firmware",
        "Firmware versions (/api/v1/firmware/)",
        columns_of(FirmwareSerializer()),
        _listed(_viewset_queryset(FirmwareViewSet), FirmwareSerializer),
    ),
    Table(
        "prices",
        "Prices over time (/api/v1/prices/)",
        columns_of(PriceSerializer()),
        _listed(_viewset_queryset(PriceViewSet), PriceSerializer),
    ),
    Table(
        "runs",
        "Runs with their provenance (/api/v1/runs/), and the withdrawn ones: status "
        "withdrawn, with withdrawn_at",
        columns_of(OwnRunSerializer(), RUN_METHOD_FIELDS),
        _run_rows,
    ),
    Table(
        "results",
        "Throughput results with their derived figures (/api/v1/results/)",
        columns_of(ResultSerializer()),
        _results,
    ),
    Table(
        "consistency",
        "Performance-consistency series, without their points (/api/v1/consistency/; the "
        "points are in the documents)",
        columns_of(ConsistencySerializer()),
        _listed(_viewset_queryset(ConsistencyViewSet), ConsistencySerializer),
    ),
    Table(
        "trim",
        "TRIM validations (/api/v1/trim/)",
        columns_of(TrimSerializer()),
        _listed(_viewset_queryset(TrimViewSet), TrimSerializer),
    ),
    Table(
        "leaderboard",
        "Every ranking of /api/v1/tests/<test>/leaderboard/ unfiltered: each throughput test "
        "by each metric (?metric=) in each comparability class (?method=), with its rank",
        [
            *(Column(name, kind) for name, kind in LEADERBOARD_KEYS.items()),
            *columns_of(EntryShape(), {"highlighted": None}),
        ],
        _leaderboard,
    ),
)


# -- writing a table ---------------------------------------------------------------------------
def absolute(url: str | None) -> str | None:
    """A link of the site as an absolute URL (BENCH_SITE_URL) where it is a path."""
    if url and url.startswith("/"):
        return settings.BENCH_SITE_URL + url
    return url


def _value(item: dict, column: Column) -> Any:
    value: Any = item
    for part in column.name.split("."):
        value = value.get(part) if isinstance(value, dict) else None
    if value is None:
        return None
    if column.kind == "json":
        return orjson.dumps(value, option=orjson.OPT_SORT_KEYS).decode()
    if column.kind == "url":
        return absolute(value)
    return value


def _arrow_value(value: Any, kind: str) -> Any:
    if value is None:
        return None
    if kind == "date":
        return datetime.date.fromisoformat(value) if isinstance(value, str) else value
    if kind == "datetime":
        return datetime.datetime.fromisoformat(value) if isinstance(value, str) else value
    if kind == "float":
        return float(value)
    return value


def csv_cell(value: Any) -> str:
    """A value as a CSV cell, as the API's CSV writes it: a number as its JSON, a boolean
    true or false, nothing for null, text that a spreadsheet would run as a formula after
    a quote."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return orjson.dumps(value).decode()
    text = str(value)
    return "'" + text if text.startswith(FORMULA_STARTS) else text


class _Checksummed(io.RawIOBase):
    """A file written through, counting its bytes and their SHA-256."""

    def __init__(self, path: Path) -> None:
        self.file = path.open("wb")
        self.sha256 = hashlib.sha256()
        self.size = 0

    def writable(self) -> bool:
        return True

    def write(self, data) -> int:
        data = bytes(data)
        self.file.write(data)
        self.sha256.update(data)
        self.size += len(data)
        return len(data)

    def close(self) -> None:
        if not self.file.closed:
            self.file.flush()
            os.fsync(self.file.fileno())
            self.file.close()
        super().close()


@dataclass
class Written:
    """A file of a dump, as its manifest lists it."""

    name: str
    table: str
    format: str
    rows: int
    bytes: int
    sha256: str

    def as_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "table": self.table,
            "format": self.format,
            "media_type": MEDIA_TYPES[self.format],
            "rows": self.rows,
            "bytes": self.bytes,
            "sha256": self.sha256,
        }


def _rebatched(batches: Iterator[list[dict]], size: int) -> Iterator[list[dict]]:
    """The rows of `batches` in batches of `size` (the last smaller)."""
    pending: list[dict] = []
    for batch in batches:
        pending += batch
        while len(pending) >= size:
            yield pending[:size]
            pending = pending[size:]
    if pending:
        yield pending


@dataclass(frozen=True, slots=True)
class Streaming:
    """How a dump streams its tables: rows read, converted and written `batch` at a time,
    `row_group` rows (whole batches) a Parquet row group, so that what it holds does not
    grow with the tables; pyarrow's allocations from `memory_pool` (None: pyarrow's
    default pool); and progress(table, rows), when given, called as each table begins
    (rows 0) and once each of its batches is written (rows: the table's so far), to watch a
    long dump."""

    batch: int = BATCH
    row_group: int = ROW_GROUP
    memory_pool: pa.MemoryPool | None = None
    progress: Callable[[str, int], None] | None = None

    def tell(self, table: str, rows: int) -> None:
        if self.progress is not None:
            self.progress(table, rows)


def _write_table(table: Table, folder: Path, streaming: Streaming) -> list[Written]:
    """The table as Parquet and CSV in `folder`, read once, a batch at a time: each batch is
    read, written to the CSV and let go before the next is read, its Arrow arrays kept until
    a row group's worth is written."""
    streaming.tell(table.name, 0)
    batch, pool = streaming.batch, streaming.memory_pool
    schema = pa.schema([pa.field(c.name, c.arrow) for c in table.columns])
    parquet_out = _Checksummed(folder / f"{table.name}.parquet")
    csv_out = _Checksummed(folder / f"{table.name}.csv")
    # Rows reach the file (and its checksum) a buffer at a time, not one call a row.
    text = io.TextIOWrapper(io.BufferedWriter(csv_out, CSV_BUFFER), encoding="utf-8", newline="")
    rows = 0
    grouped: list[pa.RecordBatch] = []  # the row group being made

    def write_row_group() -> None:
        group = pa.Table.from_batches(grouped, schema)
        parquet.write_table(group, row_group_size=max(group.num_rows, 1))
        grouped.clear()

    with pq.ParquetWriter(parquet_out, schema, compression="zstd", memory_pool=pool) as parquet:
        writer = csv.writer(text, lineterminator="\r\n")
        writer.writerow(c.name for c in table.columns)
        for items in _rebatched(table.rows(batch), batch):
            values = [[_value(item, c) for c in table.columns] for item in items]
            writer.writerows([csv_cell(v) for v in row] for row in values)
            arrays = [
                pa.array(
                    [_arrow_value(row[i], c.kind) for row in values], type=c.arrow, memory_pool=pool
                )
                for i, c in enumerate(table.columns)
            ]
            grouped.append(pa.RecordBatch.from_arrays(arrays, schema=schema))
            if sum(b.num_rows for b in grouped) >= streaming.row_group:
                write_row_group()
            rows += len(values)
            streaming.tell(table.name, rows)
        if grouped or not rows:
            write_row_group()
    text.close()
    parquet_out.close()
    return [
        Written(f"{table.name}.{fmt}", table.name, fmt, rows, out.size, out.sha256.hexdigest())
        for fmt, out in (("parquet", parquet_out), ("csv", csv_out))
    ]


def strip_serials(value: Any) -> Any:
    """A document without anything naming the drive's unit: its serial number, or the
    serial's salted hash (SERIAL_KEYS), wherever they are."""
    if isinstance(value, dict):
        return {k: strip_serials(v) for k, v in value.items() if k not in SERIAL_KEYS}
    if isinstance(value, list):
        return [strip_serials(v) for v in value]
    return value


def _write_documents(folder: Path, streaming: Streaming) -> Written:
    """Each listed run's document as submitted, serials stripped, one JSON object a line:
    {"run", "status", "withdrawn_at", "document"}, oldest run first; read a batch (at most
    DOCUMENTS_BATCH) at a time, and written one by one."""
    streaming.tell("documents", 0)
    out = _Checksummed(folder / DOCUMENTS)
    rows, batch = 0, min(streaming.batch, DOCUMENTS_BATCH)
    runs = runs_dumped().select_related(None).only("pk", "status", "withdrawn_at", "document")
    for run in runs.iterator(chunk_size=batch):
        line = {
            "run": run.pk,
            "status": run.status,
            "withdrawn_at": run.withdrawn_at,
            "document": strip_serials(json.loads(run.document)),
        }
        out.write(orjson.dumps(line, option=orjson.OPT_UTC_Z) + b"\n")
        rows += 1
        if rows % batch == 0:
            streaming.tell("documents", rows)
    if rows % batch:
        streaming.tell("documents", rows)
    out.close()
    return Written(DOCUMENTS, "documents", "jsonl", rows, out.size, out.sha256.hexdigest())


# -- a dump --------------------------------------------------------------------------------
@dataclass(frozen=True, order=True, slots=True)
class DumpName:
    date: datetime.date
    sequence: int = 1

    def __str__(self) -> str:
        day = self.date.isoformat()
        return day if self.sequence == 1 else f"{day}.{self.sequence}"

    @classmethod
    def parse(cls, text: str) -> DumpName | None:
        found = NAME.fullmatch(text)
        if found is None:
            return None
        try:
            day = datetime.date.fromisoformat(found["date"])
        except ValueError:
            return None
        sequence = int(found["sequence"] or 1)
        name = cls(day, sequence)
        return name if str(name) == text else None  # one name a dump: never 2026-05-01.1


def dump_url(name: str | DumpName) -> str:
    return absolute(reverse("bench:data_dump", args=[str(name)]))


def citation(name: DumpName) -> str:
    """How to cite a dump: who, the year, what, which dump, where, under what licence."""
    which = f"dump of {name.date.isoformat()}"
    if name.sequence > 1:
        which += f", number {name.sequence}"
    return (
        f"Bench contributors ({name.date.year}). Bench open data: storage drive benchmark "
        f"results, {which}. {dump_url(name)}. Licensed {LICENCE['id']}."
    )


@contextlib.contextmanager
def _snapshot() -> Iterator[None]:
    """One snapshot of the database for every read inside: a repeatable-read, read-only
    transaction (within a transaction already open, such as a test's, that one's)."""
    if connection.in_atomic_block:
        yield
        return
    with transaction.atomic():
        with connection.cursor() as cursor:
            cursor.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
        yield


@contextlib.contextmanager
def _store_lock(store: Path) -> Iterator[None]:
    """The store to this process alone while a dump is named or old ones pruned."""
    with (store / ".lock").open("a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def dump_publish(
    *, store: Path, now: datetime.datetime | None = None, streaming: Streaming = Streaming()
) -> Dump:
    """Write a dump of everything published into the store (a folder) and publish it under
    its name, the date of `now` (UTC, default: now), or with the next sequence number when
    that date has a dump already; then point `latest` at it. Every file is written in a
    temporary folder first and made read-only, and the folder renamed at once: a reader
    sees a whole dump or none, and a dump once published never changes. Its tables are
    streamed (Streaming)."""
    now = now or datetime.datetime.now(datetime.UTC)
    store.mkdir(parents=True, exist_ok=True)
    temporary = store / f".tmp-{secrets.token_hex(8)}"
    temporary.mkdir()
    try:
        with _snapshot():
            written = [w for table in TABLES for w in _write_table(table, temporary, streaming)]
            written.append(_write_documents(temporary, streaming))
        with _store_lock(store):
            taken = [n for n in map(DumpName.parse, _entries(store)) if n and n.date == now.date()]
            name = DumpName(now.date(), max(taken).sequence + 1 if taken else 1)
            manifest = _manifest(name, now, written)
            (temporary / MANIFEST).write_bytes(manifest)
            for path in temporary.iterdir():
                path.chmod(0o444)
            os.rename(temporary, store / str(name))
            _point_latest(store)
    except BaseException:
        shutil.rmtree(temporary, ignore_errors=True)
        raise
    _fsync_folder(store)
    versions.scopes_moved(versions.DUMPS)
    return Dump.read(store / str(name))


def _manifest(name: DumpName, now: datetime.datetime, written: list[Written]) -> bytes:
    by_table = {w.table: w.rows for w in written}
    manifest = {
        "name": str(name),
        "date": name.date.isoformat(),
        "sequence": name.sequence,
        "created_at": now.astimezone(datetime.UTC).isoformat().replace("+00:00", "Z"),
        "schema_version": DUMP_SCHEMA_VERSION,
        "url": dump_url(name),
        "licence": LICENCE,
        "citation": citation(name),
        "tables": [
            {
                "name": table.name,
                "description": table.description,
                "rows": by_table[table.name],
                "columns": [
                    {"name": c.name, "type": c.kind, "arrow": str(c.arrow)} for c in table.columns
                ],
            }
            for table in TABLES
        ],
        "files": [w.as_dict() for w in written],
    }
    return json.dumps(manifest, indent=2, ensure_ascii=False).encode() + b"\n"


def _entries(store: Path) -> list[str]:
    return [p.name for p in store.iterdir() if p.is_dir() and not p.is_symlink()]


def _point_latest(store: Path) -> None:
    """`latest` names the newest dump (a relative link, replaced in one step)."""
    names = sorted(n for n in map(DumpName.parse, _entries(store)) if n)
    link = store / LATEST
    if not names:
        link.unlink(missing_ok=True)
        return
    fresh = store / f".{LATEST}-{secrets.token_hex(4)}"
    fresh.symlink_to(str(names[-1]))
    os.replace(fresh, link)


def _fsync_folder(folder: Path) -> None:
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def dump_prune(*, store: Path, keep: int) -> list[str]:
    """Remove all but the `keep` newest dumps (at least one is kept), and temporary folders
    of dumps that crashed a day or more ago. Returns the names of the dumps removed."""
    if not store.is_dir():
        return []
    keep = max(keep, 1)
    removed = []
    with _store_lock(store):
        names = sorted((n for n in map(DumpName.parse, _entries(store)) if n), reverse=True)
        for name in names[keep:]:
            folder = store / str(name)
            for path in folder.iterdir():
                path.chmod(0o644)
            shutil.rmtree(folder)
            removed.append(str(name))
        for path in store.glob(".tmp-*"):
            if time.time() - path.stat().st_mtime > STALE_TEMPORARY_S:
                shutil.rmtree(path, ignore_errors=True)
        _point_latest(store)
    if removed:
        versions.scopes_moved(versions.DUMPS)
    return removed


# -- reading the store -----------------------------------------------------------------------
@dataclass(frozen=True)
class DumpFile:
    name: str
    table: str
    format: str
    media_type: str
    rows: int
    bytes: int
    sha256: str
    path: str  # its address on the site


@dataclass(frozen=True)
class Dump:
    """A published dump, as its manifest describes it."""

    name: str
    date: datetime.date
    sequence: int
    created_at: str
    schema_version: int
    licence: dict[str, str]
    citation: str
    tables: list[dict[str, Any]]
    files: list[DumpFile]
    manifest: DumpFile
    path: str  # its page on the site

    @property
    def bytes(self) -> int:
        return sum(f.bytes for f in self.files)

    def file(self, name: str) -> DumpFile | None:
        return next((f for f in self.files if f.name == name), None)

    @classmethod
    def read(cls, folder: Path) -> Dump:
        raw = (folder / MANIFEST).read_bytes()
        manifest = json.loads(raw)
        name = manifest["name"]

        def path(file: str) -> str:
            return reverse("bench:data_file", args=[name, file])

        return cls(
            name=name,
            date=datetime.date.fromisoformat(manifest["date"]),
            sequence=manifest["sequence"],
            created_at=manifest["created_at"],
            schema_version=manifest["schema_version"],
            licence=manifest["licence"],
            citation=manifest["citation"],
            tables=[{k: t[k] for k in ("name", "description", "rows")} for t in manifest["tables"]],
            files=[
                DumpFile(
                    **{k: f[k] for k in ("name", "table", "format", "media_type", "rows")},
                    bytes=f["bytes"],
                    sha256=f["sha256"],
                    path=path(f["name"]),
                )
                for f in manifest["files"]
            ],
            manifest=DumpFile(
                MANIFEST,
                "manifest",
                "json",
                MEDIA_TYPES["json"],
                len(manifest["files"]),
                len(raw),
                hashlib.sha256(raw).hexdigest(),
                path(MANIFEST),
            ),
            path=reverse("bench:data_dump", args=[name]),
        )


def dumps_listed(store: Path | None = None) -> list[Dump]:
    """The published dumps of the store (BENCH_DUMP_DIR), newest first."""
    store = store or Path(settings.BENCH_DUMP_DIR)
    if not store.is_dir():
        return []
    names = sorted((n for n in map(DumpName.parse, _entries(store)) if n), reverse=True)
    listed = []
    for name in names:
        try:
            stat = (store / str(name) / MANIFEST).stat()
        except FileNotFoundError:  # pruned meanwhile
            continue
        listed.append(_read(store / str(name), stat.st_ino, stat.st_mtime_ns))
    return listed


@functools.lru_cache(maxsize=256)
def _read(folder: Path, inode: int, mtime_ns: int) -> Dump:
    """A dump's manifest, read once: a published dump never changes (the file's identity
    is in the key all the same)."""
    return Dump.read(folder)


def dump_file_path(dump: str, file: str, store: Path | None = None) -> Path | None:
    """The file `file` of the dump named `dump` (or of the newest, LATEST) in the store,
    or None when there is no such dump or file."""
    store = store or Path(settings.BENCH_DUMP_DIR)
    if not FILE_NAME.fullmatch(file):
        return None
    if dump == LATEST:
        listed = dumps_listed(store)
        if not listed:
            return None
        dump = listed[0].name
    elif DumpName.parse(dump) is None:
        return None
    path = store / dump / file
    return path if path.is_file() else None
