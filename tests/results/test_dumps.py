"""The open-data dumps (results/dumps.py, `manage.py dump_data`): a dump of the demo catalog,
read back file by file with pyarrow, the csv module and json, says what the API says, row for
row and number for number (exactly); it holds no serial number nor its hash, lists withdrawn
runs as withdrawn and held and synthetic ones not at all; its manifest's checksums and counts
are its files'; a second dump the same day leaves the first as it was; the retention keeps
the newest; /data/ and /api/v1/dumps/ list the dumps and serve their files."""

import csv
import datetime
import gc
import hashlib
import io
import json
import os
import shutil
import tracemalloc
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from django.core.management import call_command
from django.db import transaction
from django.test import Client, override_settings
from schemathesis.specs.openapi.checks import response_schema_conformance

from core.versions import DUMPS, read_version
from results import dumps
from results.documents import serial_hash
from results.dumps import DumpName, dump_publish, dumps_listed
from results.models import Run
from results.selectors.rankings import Metric
from results.services import run_withdraw
from results.spread import Comparability
from results.synthetic import measured_document
from tests.api.test_schemathesis import keep_the_test_connection, schema  # noqa: F401
from tests.results.helpers import ingest

pytestmark = pytest.mark.django_db

SITE = "http://testserver"
SERIAL = "SN-SECRET-0042"
TODAY = datetime.datetime(2026, 5, 1, 3, 0, tzinfo=datetime.UTC)
# The API's lists, by table: where to read them (every page of them).
API_LISTS = {
    "tests": "/api/v1/tests/",
    "manufacturers": "/api/v1/manufacturers/",
    "controllers": "/api/v1/controllers/",
    "nand_types": "/api/v1/nand-types/",
    "drives": "/api/v1/drives/",
    "firmware": "/api/v1/firmware/",
    "prices": "/api/v1/prices/",
    "runs": "/api/v1/runs/",
    "results": "/api/v1/results/",
    "consistency": "/api/v1/consistency/",
    "trim": "/api/v1/trim/",
}


@pytest.fixture(scope="module")
def published(django_db_setup, django_db_blocker, tmp_path_factory):
    """The demo catalog with a run of every status (one withdrawn, one held, one synthetic,
    one whose document had a serial number), dumped once into a store of its own: loaded
    for the module in a transaction rolled back after it."""
    store = tmp_path_factory.mktemp("dumps")
    with (
        django_db_blocker.unblock(),
        transaction.atomic(),
        override_settings(BENCH_DUMP_DIR=store, BENCH_SITE_URL=SITE),
    ):
        call_command("load_demo", verbosity=0)
        document = measured_document(seed=7, manufacturer="Unitco", model="U1")
        document["target"]["serial"] = SERIAL
        serial_run = ingest(document)
        withdrawn = ingest(measured_document(seed=8, manufacturer="Gone", model="G1"))
        run_withdraw(run=withdrawn, reason="a private reason")
        held = ingest(measured_document(seed=9, manufacturer="Held", model="H1"))
        Run.objects.filter(pk=held.pk).update(status=Run.Status.HELD, held_reason="outlier")
        synthetic = ingest(measured_document(seed=10, manufacturer="Synth", model="Y1"))
        Run.objects.filter(pk=synthetic.pk).update(source=Run.Source.SYNTHETIC)
        dump = dump_publish(store=store, now=TODAY)
        yield {
            "store": store,
            "dump": dump,
            "folder": store / dump.name,
            "serial_run": serial_run,
            "withdrawn": withdrawn,
            "held": held,
            "synthetic": synthetic,
        }
        transaction.set_rollback(True)


@pytest.fixture
def client():
    return Client()


# -- reading a dump back ------------------------------------------------------------------


def api_items(client, path: str, **query) -> list[dict]:
    """Every item of an API list, page after page."""
    items, url, params = [], path, {"limit": 500, **query}
    while url:
        response = client.get(url, params)
        assert response.status_code == 200, (url, response.content[:300])
        body = response.json()
        items += body["results"]
        url, params = body["next"], {}
    return items


def leaderboard_items(client) -> list[dict]:
    """Every ranking of the leaderboard API unfiltered: each throughput test, each metric
    and each comparability class, every page."""
    items = []
    for test in api_items(client, "/api/v1/tests/"):
        if test["kind"] != "throughput":
            continue
        for metric, _ in Metric.CHOICES:
            for comparability, _ in Comparability.CHOICES:
                page = 1
                while True:
                    response = client.get(
                        f"/api/v1/tests/{test['identifier']}/leaderboard/",
                        {"metric": metric, "method": comparability, "page": page},
                    )
                    assert response.status_code == 200, response.content[:300]
                    body = response.json()
                    keys = {"test": body["test"], "metric": metric, "comparability": comparability}
                    items += [{**keys, **row} for row in body["rows"]]
                    if not body["has_next"]:
                        break
                    page += 1
    return items


def lookup(item: dict, column: str):
    value = item
    for part in column.split("."):
        value = value.get(part) if isinstance(value, dict) else None
    return value


def leaves(item: dict, columns: dict[str, str], prefix: str = "") -> set[str]:
    """The dotted paths of an API item's values (a JSON column's value is one leaf; a nested
    object that is null, the columns of its fields)."""
    paths = set()
    for key, value in item.items():
        path = f"{prefix}{key}"
        if isinstance(value, dict) and columns.get(path) != "json":
            paths |= leaves(value, columns, f"{path}.")
        elif value is None and path not in columns:
            paths |= {c for c in columns if c.startswith(f"{path}.")} or {path}
        else:
            paths.add(path)
    return paths


def expected(value, kind: str):
    """An API value as the dump's Parquet holds it."""
    if value is None:
        return None
    if kind == "json":
        return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    if kind == "date":
        return datetime.date.fromisoformat(value)
    if kind == "datetime":
        return datetime.datetime.fromisoformat(value)
    return value


def from_csv(cell: str, kind: str):
    """A CSV cell back as the API's value (the quote before text a spreadsheet would run as a
    formula taken off)."""
    if cell == "":
        return None
    if kind == "int":
        return int(cell)
    if kind == "float":
        return float(cell)
    if kind == "bool":
        return {"true": True, "false": False}[cell]
    if cell.startswith("'") and cell[1:].startswith(dumps.FORMULA_STARTS):
        return cell[1:]
    return cell


def read_table(folder: Path, table: dumps.Table) -> tuple[list[dict], list[dict]]:
    """The table's rows as its Parquet file and its CSV file hold them."""
    parquet = pq.read_table(folder / f"{table.name}.parquet")
    assert parquet.schema.names == [c.name for c in table.columns]
    for column in table.columns:
        assert parquet.schema.field(column.name).type == column.arrow, column.name
    with (folder / f"{table.name}.csv").open(newline="", encoding="utf-8") as text:
        reader = csv.reader(text)
        header = next(reader)
        assert header == [c.name for c in table.columns]
        rows = [dict(zip(header, row, strict=True)) for row in reader]
    return parquet.to_pylist(), rows


def test_every_table_reads_back_as_the_api_lists_it(published, client):
    folder, checked = published["folder"], {}
    for table in dumps.TABLES:
        kinds = {c.name: c.kind for c in table.columns}
        if table.name == "leaderboard":
            api = leaderboard_items(client)
            for item in api:
                del item["highlighted"]  # means nothing without ?highlight=
        else:
            api = api_items(client, API_LISTS[table.name])
        assert api, f"the demo has no {table.name}"
        parquet, rows = read_table(folder, table)
        if table.name == "runs":
            # The runs API's, and the withdrawn ones beside them, marked.
            assert [r["withdrawn_at"] for r in parquet if r["status"] == "published"] == [
                None
            ] * len(api)
            withdrawn = [r for r in parquet if r["status"] == "withdrawn"]
            assert published["withdrawn"].pk in [r["id"] for r in withdrawn]
            assert all(r["withdrawn_at"] is not None and r["url"] is None for r in withdrawn)
            parquet = [r for r in parquet if r["status"] == "published"]
            rows = [r for r in rows if r["status"] == "published"]
            api = [{**item, "withdrawn_at": None} for item in api]
        first = table.columns[0].name
        key = (
            (lambda r: (r["test"], r["metric"], r["comparability"], r["rank"], r["drive"]))
            if table.name == "leaderboard"
            else (lambda r, first=first: r[first])
        )
        api.sort(key=key)
        parquet.sort(key=key)
        rows.sort(key=lambda r: key({k: from_csv(v, kinds[k]) for k, v in r.items()}))
        assert len(parquet) == len(rows) == len(api), table.name
        for item in api:
            # Every field of the API's item is a column (one added to the API, not here,
            # fails), and every column is one of the API's fields.
            assert leaves(item, kinds) == set(kinds), table.name
        for item, stored, row in zip(api, parquet, rows, strict=True):
            for column, kind in kinds.items():
                value = lookup(item, column)
                assert stored[column] == expected(value, kind), (table.name, column, item)
                # CSV writes null and empty text alike (Parquet tells them apart).
                as_csv = expected(value, kind) if kind == "json" else value
                assert from_csv(row[column], kind) == (None if as_csv == "" else as_csv), (
                    table.name,
                    column,
                    row[column],
                    value,
                )
                if kind == "float" and value is not None:
                    assert type(stored[column]) is float
        checked[table.name] = len(api)
    assert checked["results"] > 100 and checked["leaderboard"] > 100, checked
    shown = {r["id"] for r in api_items(client, "/api/v1/runs/")}
    assert published["held"].pk not in shown and published["synthetic"].pk not in shown


def test_the_documents_are_the_runs_documents_without_serials(published):
    folder = published["folder"]
    lines = (folder / dumps.DOCUMENTS).read_bytes().splitlines()
    listed = [json.loads(line) for line in lines]
    runs = pq.read_table(folder / "runs.parquet").to_pylist()
    assert [d["run"] for d in listed] == sorted(r["id"] for r in runs)
    by_id = {r["id"]: r for r in runs}
    for line in listed:
        run = Run.objects.get(pk=line["run"])
        stored = json.loads(run.document)
        stored.get("target", {}).pop("serial_hash", None)
        assert line["document"] == stored
        assert line["status"] == run.status == by_id[run.pk]["status"]
        if run.status == Run.Status.WITHDRAWN:
            assert datetime.datetime.fromisoformat(line["withdrawn_at"]) == run.withdrawn_at
        else:
            assert line["withdrawn_at"] is None
    assert {published["held"].pk, published["synthetic"].pk}.isdisjoint(by_id)
    # The serial was stored hashed; neither it nor its hash is in any file of the dump.
    hashed = serial_hash(SERIAL)
    assert published["serial_run"].unit_hash == hashed
    assert json.loads(published["serial_run"].document)["target"]["serial_hash"] == hashed
    for path in folder.iterdir():
        content = path.read_bytes()
        assert SERIAL.encode() not in content and hashed.encode() not in content, path.name
        assert b"serial" not in content, path.name
        assert b"a private reason" not in content, path.name  # a withdrawal's reason is not told


def test_the_manifest_gives_each_file_its_checksum_and_rows(published):
    folder, dump = published["folder"], published["dump"]
    manifest = json.loads((folder / dumps.MANIFEST).read_text())
    assert manifest["name"] == dump.name == "2026-05-01"
    assert manifest["date"] == "2026-05-01" and manifest["sequence"] == 1
    assert manifest["schema_version"] == dumps.DUMP_SCHEMA_VERSION
    assert manifest["licence"]["id"] == "CC-BY-4.0"
    assert manifest["url"] == f"{SITE}/data/2026-05-01/"
    assert manifest["citation"] == (
        "Bench contributors (2026). Bench open data: storage drive benchmark results, dump of "
        f"2026-05-01. {SITE}/data/2026-05-01/. Licensed CC-BY-4.0."
    )
    files = {f["name"]: f for f in manifest["files"]}
    on_disk = {p.name for p in folder.iterdir()} - {dumps.MANIFEST}
    assert set(files) == on_disk
    assert len(on_disk) == 2 * len(dumps.TABLES) + 1
    for name, described in files.items():
        content = (folder / name).read_bytes()
        assert described["sha256"] == hashlib.sha256(content).hexdigest(), name
        assert described["bytes"] == len(content), name
        if described["format"] == "parquet":
            rows = pq.read_metadata(folder / name).num_rows
        elif described["format"] == "csv":
            rows = len(list(csv.reader(io.StringIO(content.decode())))) - 1
        else:
            rows = len(content.splitlines())
        assert described["rows"] == rows, name
    tables = {t["name"]: t for t in manifest["tables"]}
    assert [t.name for t in dumps.TABLES] == list(tables)
    for table in dumps.TABLES:
        assert tables[table.name]["rows"] == files[f"{table.name}.csv"]["rows"]
        assert tables[table.name]["columns"] == [
            {"name": c.name, "type": c.kind, "arrow": str(c.arrow)} for c in table.columns
        ]


def test_a_second_dump_the_same_day_leaves_the_first_as_it_was(published):
    store, first = published["store"], published["folder"]
    before = {p.name: (p.read_bytes(), p.stat().st_mtime_ns) for p in first.iterdir()}
    assert all(p.stat().st_mode & 0o222 == 0 for p in first.iterdir())  # read-only
    second = dump_publish(store=store, now=TODAY + datetime.timedelta(hours=5))
    try:
        assert second.name == "2026-05-01.2" and second.sequence == 2
        assert {p.name: (p.read_bytes(), p.stat().st_mtime_ns) for p in first.iterdir()} == before
        assert (store / dumps.LATEST).resolve() == (store / second.name).resolve()
        assert [d.name for d in dumps_listed(store)] == ["2026-05-01.2", "2026-05-01"]
        # The same figures: only the manifest (its name, time and address) differs.
        for name in before:
            if name != dumps.MANIFEST:
                assert (store / second.name / name).read_bytes() == before[name][0], name
    finally:
        # The module's other tests read the first dump as the newest: the second goes.
        second_folder = store / "2026-05-01.2"
        for path in second_folder.iterdir():
            path.chmod(0o644)
        shutil.rmtree(second_folder)
        dumps._point_latest(store)


# -- the store: names and retention -----------------------------------------------------


def test_a_dump_name_is_its_date_and_sequence():
    assert str(DumpName(datetime.date(2026, 5, 1))) == "2026-05-01"
    assert DumpName.parse("2026-05-01.12") == DumpName(datetime.date(2026, 5, 1), 12)
    for wrong in ("2026-05-01.1", "2026-02-30", "2026-5-1", "2026-05-01.0", "latest", "x"):
        assert DumpName.parse(wrong) is None, wrong
    assert sorted(map(DumpName.parse, ["2026-05-02", "2026-05-01.10", "2026-05-01.2"])) == [
        DumpName(datetime.date(2026, 5, 1), 2),
        DumpName(datetime.date(2026, 5, 1), 10),
        DumpName(datetime.date(2026, 5, 2)),
    ]


def test_the_command_keeps_the_newest_dumps(tmp_path, test_catalog, settings):
    settings.BENCH_DUMP_DIR = tmp_path
    for day in (1, 2, 3):
        dump_publish(store=tmp_path, now=TODAY.replace(day=day))
    dump_publish(store=tmp_path, now=TODAY.replace(day=3))  # 2026-05-03.2
    crashed = tmp_path / ".tmp-0123456789abcdef"
    crashed.mkdir()
    (crashed / "results.csv").write_text("half")
    fresh = tmp_path / ".tmp-fedcba9876543210"  # a dump being written now
    fresh.mkdir()
    day_old = TODAY.timestamp() - dumps.STALE_TEMPORARY_S - 1
    os.utime(crashed, (day_old, day_old))
    out = io.StringIO()
    call_command("dump_data", "--prune-only", "--keep", "2", stdout=out)
    assert [d.name for d in dumps_listed()] == ["2026-05-03.2", "2026-05-03"]
    assert "removed dump 2026-05-02" in out.getvalue()
    assert "removed dump 2026-05-01" in out.getvalue()
    assert not crashed.exists() and fresh.exists()
    assert (tmp_path / dumps.LATEST).resolve() == (tmp_path / "2026-05-03.2").resolve()
    # A new dump by the command, then the retention: still the newest two.
    call_command("dump_data", "--keep", "2", stdout=out)
    listed = [d.name for d in dumps_listed()]
    assert len(listed) == 2 and listed[1] == "2026-05-03.2" and listed[0] != listed[1]
    with pytest.raises(Exception, match="at least 1"):
        call_command("dump_data", "--keep", "0")


def test_publishing_a_dump_moves_the_dumps_scope(tmp_path, test_catalog):
    before = read_version("default", [DUMPS])
    dump_publish(store=tmp_path, now=TODAY)
    # This test's transaction has written (the version row): read it as a reader would.
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("SELECT version FROM core_scopeversion WHERE scope = %s", [DUMPS])
        (after,) = cursor.fetchone()
    assert before is None or after > before


# -- /data/ and /api/v1/dumps/ ------------------------------------------------------------


@pytest.fixture
def served(published, settings):
    settings.BENCH_DUMP_DIR = published["store"]
    settings.BENCH_SITE_URL = SITE
    return published


def test_the_data_page_lists_each_dump_with_its_files(served, client):
    page = client.get("/data/")
    assert page.status_code == 200
    html = page.content.decode()
    dump = served["dump"]
    assert "Creative Commons Attribution 4.0" in html and dump.citation in html
    for file in dump.files:
        assert f'href="/data/{dump.name}/{file.name}"' in html
        assert file.sha256 in html
    assert 'href="/data/"' in client.get("/").content.decode()  # in the navigation
    one = client.get(f"/data/{dump.name}/")
    assert one.status_code == 200 and dump.citation in one.content.decode()
    latest = client.get("/data/latest/")
    assert latest.status_code == 302 and latest["Location"] == f"/data/{dump.name}/"


def test_a_dump_file_is_served_with_its_type_and_cached_for_good(served, client):
    dump = served["dump"]
    for file in [*dump.files, dump.manifest]:
        response = client.get(f"/data/{dump.name}/{file.name}")
        assert response.status_code == 200, file.name
        assert response["Content-Type"] == file.media_type
        body = b"".join(response.streaming_content)
        assert hashlib.sha256(body).hexdigest() == file.sha256
        assert response["ETag"] == f'"{file.sha256}"'
        assert response["Cache-Control"] == "public, max-age=31536000, immutable"
        again = client.get(f"/data/{dump.name}/{file.name}", HTTP_IF_NONE_MATCH=response["ETag"])
        assert again.status_code == 304
    latest = client.get("/data/latest/results.parquet")
    assert latest.status_code == 200
    assert hashlib.sha256(b"".join(latest.streaming_content)).hexdigest() == (
        dump.file("results.parquet").sha256
    )
    assert latest["Cache-Control"] == "public, max-age=0, must-revalidate"
    assert latest["Content-Location"] == f"/data/{dump.name}/results.parquet"


@pytest.mark.parametrize(
    "path",
    [
        "/data/2025-01-01/results.csv",  # no such dump
        "/data/2026-05-01/nothing.csv",  # no such file
        "/data/2026-05-01/Results.CSV",
        "/data/2026-05-01/../2026-05-01/results.csv",
        "/data/2026-05-01/%2e%2e%2fsecret.json",
        "/data/2026-02-30/results.csv",  # no such date
        "/data/2026-05-01.1/results.csv",  # the first of a day has no sequence number
        "/data/2026-05-01/.lock",
        "/data/nightly/results.csv",
    ],
)
def test_anything_else_under_data_is_not_found(served, client, path):
    assert client.get(path).status_code == 404


def test_the_api_lists_the_dumps_as_their_manifests_describe_them(served, client):
    case = schema["/api/v1/dumps/"]["GET"].Case()
    response = case.call()
    assert response.status_code == 200
    case.validate_response(response, checks=[response_schema_conformance])
    body = response.json()
    dump = served["dump"]
    manifest = json.loads((served["folder"] / dumps.MANIFEST).read_text())
    assert body["count"] == 1 and body["licence"]["id"] == "CC-BY-4.0"
    # Addresses on the host the client asked (schemathesis asks localhost).
    assert body["latest"] == "http://localhost/data/latest/manifest.json"
    (listed,) = body["results"]
    assert listed["name"] == dump.name and listed["date"] == "2026-05-01"
    assert listed["citation"] == manifest["citation"]
    assert [(f["name"], f["rows"], f["bytes"], f["sha256"]) for f in listed["files"]] == [
        (f["name"], f["rows"], f["bytes"], f["sha256"]) for f in manifest["files"]
    ]
    for file in listed["files"]:
        assert file["url"] == f"http://localhost/data/{dump.name}/{file['name']}"
        assert client.get(file["url"].removeprefix("http://localhost")).status_code == 200


def test_the_api_lists_no_dump_before_the_first(client, tmp_path, settings):
    settings.BENCH_DUMP_DIR = tmp_path / "none yet"
    body = client.get("/api/v1/dumps/").json()
    assert body == {
        "count": 0,
        "licence": dumps.LICENCE,
        "latest": None,
        "results": [],
    }
    assert "No dump has been published yet" in client.get("/data/").content.decode()
    assert client.get("/data/latest/").status_code == 404
    assert client.get("/data/latest/manifest.json").status_code == 404


# -- memory: a dump streams its tables ------------------------------------------------------
# Two synthetic catalogs (seed_scale, counted as real, as the benchmarks count them; beside the
# module's demo catalog when it is loaded): the larger has ten times the drives, prices, runs,
# results, consistency series and documents of the smaller, and seven times the leaderboard
# entries. Each is dumped STREAMED_BATCH rows at a time, STREAMED_ROW_GROUP a Parquet row
# group: the most Python memory a table holds while a batch of it is read and written
# (tracemalloc, above what was held as the table began), and pyarrow's peak (a pool of the
# dump's own), must not grow with the rows by more than MEMORY_SLACK. Any one of those tables
# held whole would add far more: from about 100 KiB (the documents' 186 rows more) to 2 MiB
# (the results'), where streamed they differ by 30 KiB at most. The Parquet writer's metadata
# of each row group (the footer it writes as the file closes; about 1 KiB a column for each
# ROW_GROUP rows, the format's own) is neither Python's nor in pyarrow's pool: not counted.
SMALL_CATALOG = {"drives": 20, "results": 160, "series": 40, "points": 30}
LARGE_CATALOG = {**{name: n * 10 for name, n in SMALL_CATALOG.items()}, "points": 30}
STREAMED_BATCH = 8
STREAMED_ROW_GROUP = 4 * STREAMED_BATCH
MEMORY_SLACK = 64 * 1024  # bytes


def seed_scale(counts: dict[str, int]) -> None:
    call_command("seed_scale", *(f"--{k}={v}" for k, v in counts.items()), stdout=io.StringIO())


def dump_held(store: Path) -> tuple[dict[str, int], dict[str, int], int]:
    """A dump into `store`, STREAMED_BATCH rows at a time: each table's rows; the most Python
    memory held while one of its batches was read and written, above what was held as the
    table began (the garbage collected after each batch, so that it counts with the batch
    that made it, not later); and pyarrow's peak over the whole dump."""
    pool = pa.proxy_memory_pool(pa.default_memory_pool())
    began: dict[str, int] = {}
    most: dict[str, int] = {}

    def taken(table: str, rows: int) -> None:
        peak = tracemalloc.get_traced_memory()[1]  # since the batch before
        gc.collect()  # a full collection: what was held before the dump is frozen
        if rows == 0:  # the peak was the table before's closing (its Parquet footer)
            began[table] = most[table] = tracemalloc.get_traced_memory()[0]
        else:
            most[table] = max(most[table], peak)
        tracemalloc.reset_peak()

    gc.collect()
    gc.freeze()
    tracemalloc.start()
    try:
        streaming = dumps.Streaming(
            batch=STREAMED_BATCH, row_group=STREAMED_ROW_GROUP, memory_pool=pool, progress=taken
        )
        dump = dump_publish(store=store, now=TODAY, streaming=streaming)
    finally:
        tracemalloc.stop()
        gc.unfreeze()
    rows = {f.table: f.rows for f in dump.files}
    return rows, {t: most[t] - began[t] for t in most}, pool.max_memory()


def test_a_dump_holds_no_more_memory_for_ten_times_the_rows(tmp_path, test_catalog, settings):
    settings.BENCH_SHOW_SYNTHETIC = True
    seed_scale(SMALL_CATALOG)
    # What a first dump makes once (statements, caches, imports) is made before measuring.
    streaming = dumps.Streaming(batch=STREAMED_BATCH, row_group=STREAMED_ROW_GROUP)
    dump_publish(store=tmp_path / "first", streaming=streaming)
    small_rows, small, small_arrow = dump_held(tmp_path / "small")
    seed_scale(LARGE_CATALOG)
    large_rows, large, large_arrow = dump_held(tmp_path / "large")

    added = {t: large_rows[t] - small_rows[t] for t in small_rows}
    for table in ("drives", "prices", "runs", "results", "consistency", "leaderboard", "documents"):
        assert added[table] >= 20 * STREAMED_BATCH, (table, small_rows, large_rows)
    assert added["results"] >= 180 * STREAMED_BATCH  # hundreds of batches more
    for table, rows in small_rows.items():
        growth = large[table] - small[table]
        assert growth <= MEMORY_SLACK, (table, rows, large_rows[table], growth)
    assert large_arrow - small_arrow <= MEMORY_SLACK, (small_arrow, large_arrow)
