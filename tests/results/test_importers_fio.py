"""The fio importer (results/importers/fio.py): real fio runs converted and stored with
run_ingest; saved outputs of several fio versions and modes; the mapping rules one by one;
and every class of bad output rejected with a JSON pointer into fio's document."""

import copy
import json
import math
import shutil
import subprocess
from decimal import Decimal
from pathlib import Path

import pytest
from django.conf import settings
from django.urls import reverse
from hypothesis import HealthCheck, given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st

from results import documents
from results.documents import DocumentRejected, TestSpec
from results.importers import fio
from results.importers.fio import fio_document, fio_ingest, is_fio_output
from results.models import Result, Run

FIXTURES = Path(__file__).parent / "fio"
CATALOG = json.loads((Path(settings.BASE_DIR) / "results/schema/catalog.json").read_text())
SPECS = {
    t["id"]: TestSpec(t["id"], t["kind"], t["block_size"], t["queue_depth"])
    for t in CATALOG["tests"]
}
BLOCK_SIZES = {t["id"]: t["block_size"] for t in CATALOG["tests"]}
OPERATIONS = {t["id"]: t["operation"] for t in CATALOG["tests"]}
DRIVE = {"manufacturer": "Bench Test", "model": "fio target"}


def load(name: str) -> dict:
    return json.loads((FIXTURES / name).read_text())


def convert(source) -> fio.FioConversion:
    """fio_document on a fixture name, a tree or raw output. What comes out must be a
    document that run_ingest accepts: the schema and the meaning checks, with the catalog."""
    if isinstance(source, dict):
        raw = json.dumps(source)
    elif isinstance(source, str) and source.startswith("fio-"):
        raw = (FIXTURES / source).read_bytes()
    else:
        raw = source
    conversion = fio_document(fio_json=raw, drive=DRIVE)
    try:
        documents.validate(conversion.document, SPECS)
    except DocumentRejected as invalid:
        pytest.fail(f"the conversion is not a document run_ingest accepts: {invalid}")
    return conversion


def rejected(source) -> list[documents.DocumentProblem]:
    with pytest.raises(DocumentRejected) as caught:
        convert(source)
    assert caught.value.problems, "a rejection must say why"
    return caught.value.problems


def outcomes(conversion: fio.FioConversion) -> dict:
    """Job name -> (test, pattern) when mapped, else the reason."""
    found: dict = {m.job: (m.test, m.pattern) for m in conversion.mapped}
    found.update({u.job: u.reason for u in conversion.unmapped})
    return found


def assert_outcomes(conversion: fio.FioConversion, expected: dict) -> None:
    """Every job as expected: (test, pattern) when mapped, else a part of its reason."""
    found = outcomes(conversion)
    assert set(found) == set(expected)
    for job, outcome in expected.items():
        if isinstance(outcome, tuple):
            assert found[job] == outcome, (job, found[job])
        else:
            assert isinstance(found[job], str) and outcome in found[job], (job, found[job])


def percentile_name(key: str) -> str:
    return format(Decimal(key).normalize() + 0, "f")


def assert_result_is_fios(result: dict, job: dict, conversion_job: fio.MappedJob) -> None:
    """The stored figures are fio's: counts, bytes, rates, and clat (schema version 1)."""
    side = job[OPERATIONS[conversion_job.test]]
    block_size = BLOCK_SIZES[result["test"]]
    assert result["bytes"] == side["io_bytes"]
    assert result["io_count"] * block_size == side["io_bytes"]
    assert result["duration_ns"] == side["runtime"] * 1_000_000
    assert math.floor(result["bytes_per_second"]) == side["io_bytes"] * 1000 // side["runtime"]
    if "bw_bytes" in side:
        assert math.floor(result["bytes_per_second"]) == side["bw_bytes"]
    if result["io_count"] == side["total_ios"]:
        assert result["iops"] == pytest.approx(side["iops"], abs=1e-6)
    else:  # ramp_time: I/Os in flight when the ramp ended completed in the measured time
        assert abs(result["io_count"] - side["total_ios"]) <= result["queue_depth"]
        assert result["iops"] == result["io_count"] * 1000 / side["runtime"]
    clat, latency = side["clat_ns"], result["latency_ns"]
    assert (latency["min"], latency["max"]) == (clat["min"], clat["max"])
    assert latency["mean"] == clat["mean"] and latency["stddev"] == clat["stddev"]
    expected = {
        percentile_name(key): min(max(value, clat["min"]), clat["max"])
        for key, value in clat.get("percentile", {}).items()
        if Decimal(key) == Decimal(key).quantize(Decimal("0.0001"))
    }
    assert latency.get("percentiles", {}) == expected


# -- real fio -----------------------------------------------------------------------------
def fio_binary() -> str:
    path = shutil.which("fio")
    assert path, "fio is not installed: `make test-python` installs Debian's fio package"
    return path


def io_uring_works(binary: str) -> bool:
    engines = subprocess.run(
        [binary, "--enghelp"], capture_output=True, text=True, timeout=30, check=True
    ).stdout.split()
    disabled = Path("/proc/sys/kernel/io_uring_disabled")
    return "io_uring" in engines and (not disabled.exists() or disabled.read_text().strip() == "0")


REAL_JOBS = """
[global]
filename={target}
size=16M
direct=1
time_based
runtime=1
ioengine=libaio
zero_buffers=0

[randread-4k-qd3]
rw=randread
bs=4k
iodepth=3

[randwrite-4k-qd32]
stonewall
rw=randwrite
bs=4k
iodepth=32
ioengine={uring}

[randwrite-4x8-compressible]
stonewall
rw=randwrite
bs=4k
iodepth=8
numjobs=4
group_reporting
buffer_compress_percentage=50

[seqwrite-128k-psync]
stonewall
rw=write
bs=128k
ioengine=psync
refill_buffers=1

[randwrite-512-psync]
stonewall
rw=randwrite
bs=512
ioengine=psync

[randrw]
stonewall
runtime=200ms
rw=randrw
iodepth=3

[randread-8k]
stonewall
runtime=200ms
rw=randread
bs=8k
iodepth=3

[randwrite-qd16]
stonewall
runtime=200ms
rw=randwrite
iodepth=16

[clones]
stonewall
runtime=200ms
rw=randread
iodepth=3
numjobs=2
"""
REAL_EXPECTED = {
    "randread-4k-qd3": ("randread-4k-qd3", "unspecified"),
    "randwrite-4k-qd32": ("randwrite-4k-qd32-8g", "incompressible"),
    "randwrite-4x8-compressible": ("randwrite-4k-qd32-8g", "compressible"),
    "seqwrite-128k-psync": ("seqwrite-128k-qd1", "incompressible"),
    # one I/O at a time: one point of SNIA's latency test (LAT)
    "randwrite-512-psync": ("randwrite-512-qd1-lat", "incompressible"),
    "randrw": "rw=randrw is not a standard test",
    # 8KiB random reads are measured at QD1 only (the latency test, randread-8k-qd1-lat)
    "randread-8k": "queue depth 3 (iodepth=3): no standard 8KiB random read test at it",
    "randwrite-qd16": "queue depth 16 (iodepth=16): no standard 4KiB random write test",
    "clones": fio.CLONES_APART.format(numjobs=2),
}


@pytest.fixture(scope="module")
def real_run(tmp_path_factory) -> dict:
    """One real fio run (about six seconds): five jobs that map, five entries that do not."""
    binary = fio_binary()
    work = tmp_path_factory.mktemp("fio")
    engine = "io_uring" if io_uring_works(binary) else "libaio"
    (work / "jobs.fio").write_text(REAL_JOBS.format(target=work / "target.bin", uring=engine))
    output = work / "out.json"
    version = subprocess.run(
        [binary, "--version"], capture_output=True, text=True, timeout=30, check=True
    ).stdout.strip()
    subprocess.run(
        [binary, "--output-format=json", f"--output={output}", str(work / "jobs.fio")],
        capture_output=True,
        timeout=120,
        check=True,
    )
    return {"raw": output.read_bytes(), "version": version, "engine": engine}


@pytest.mark.django_db
def test_real_fio_run_is_stored_with_fios_figures(real_run):
    tree = json.loads(real_run["raw"])
    imported = fio_ingest(fio_json=real_run["raw"], drive=DRIVE, submitter=None)
    assert imported.outcome.created
    assert_outcomes(imported.conversion, REAL_EXPECTED)
    assert len(imported.conversion.unmapped) == 5  # randrw, 8k, QD16 and the two clones

    run = Run.objects.get(pk=imported.outcome.run.pk)
    assert (run.tool_name, run.tool_version) == ("fio", real_run["version"].removeprefix("fio-"))
    assert run.engine == ", ".join(dict.fromkeys(["libaio", real_run["engine"], "psync"]))
    assert run.source == Run.Source.MEASURED
    assert run.started_at < run.finished_at
    document = json.loads(run.document)
    for name in ("randread-4k-qd3", "randwrite-4x8-compressible", "seqwrite-128k-psync"):
        assert f"--name={name}" in document["tool"]["command_line"]
    assert "--name=randrw" not in document["tool"]["command_line"]

    stored = {(r.test.identifier, r.pattern): r for r in Result.objects.filter(run=run)}
    assert len(stored) == len(imported.conversion.mapped) == 5
    for mapped in imported.conversion.mapped:
        job = tree["jobs"][mapped.index]
        row = stored[(mapped.test, mapped.pattern)]
        as_document = {
            "test": mapped.test,
            "bytes": row.bytes,
            "io_count": row.io_count,
            "duration_ns": row.duration_ns,
            "bytes_per_second": row.bytes_per_second,
            "iops": row.iops,
            "queue_depth": row.queue_depth,
            "latency_ns": {
                "min": row.latency_min_ns,
                "max": row.latency_max_ns,
                "mean": row.latency_mean_ns,
                "stddev": row.latency_stddev_ns,
                "percentiles": row.latency_percentiles_ns,
            },
        }
        assert_result_is_fios(as_document, job, mapped)
        assert row.span_bytes == 16 * 2**20
        assert "ran 1 s, not" in " ".join(row.deviations)  # shown as a deviation
    assert stored[("randwrite-4k-qd32-8g", "compressible")].queue_depth == 32  # 4 x 8


@pytest.mark.django_db
def test_the_same_fio_output_twice_is_one_run(real_run):
    first = fio_ingest(fio_json=real_run["raw"], drive=DRIVE, submitter=None)
    again = fio_ingest(fio_json=real_run["raw"].decode(), drive=DRIVE, submitter=None)
    assert first.outcome.created and not again.outcome.created
    assert again.outcome.run.pk == first.outcome.run.pk
    assert Run.objects.count() == 1


# -- saved outputs of several versions and modes -------------------------------------------
STANDARD = {
    "randread-4k-qd3": ("randread-4k-qd3", "unspecified"),
    "randwrite-4k-qd3": ("randwrite-4k-qd3-8g", "incompressible"),
    "randwrite-4k-qd32-compressible": ("randwrite-4k-qd32-8g", "compressible"),
    "seqread-128k-psync": ("seqread-128k-qd1", "unspecified"),
    "seqwrite-128k-refill": ("seqwrite-128k-qd1", "incompressible"),
    "randrw": "rw=randrw is not a standard test",
    "randread-8k": "queue depth 3 (iodepth=3): no standard 8KiB random read test at it",
    "randwrite-qd16": "queue depth 16 (iodepth=16): no standard 4KiB random write test",
    "buffered": "direct=0: the standard tests bypass the page cache",
}
EXPECTED = {
    "fio-3.1-standard.json": STANDARD,  # no bw_bytes, no latency sample counts (N)
    "fio-3.28-standard.json": STANDARD,
    "fio-3.33-standard.json": STANDARD,
    "fio-3.41-standard.json": STANDARD,
    "fio-3.33-engines-json-plus.json": {
        "randwrite-4x8": ("randwrite-4k-qd32-8g", "compressible"),
        "uring-randread-qd3": "iodepth=3, which fio 3.33 rounds up to 4 for io_uring",
        "uring-randwrite-qd32": ("randwrite-4k-qd32-8g", "unspecified"),  # zero_buffers hidden
        "seqread-2m-bs-split": ("seqread-2m-qd1", "unspecified"),
    },
    "fio-3.41-engines.json": {
        "randwrite-4x8": ("randwrite-4k-qd32-8g", "compressible"),
        "uring-randread-qd3": ("randread-4k-qd3", "unspecified"),
        "uring-randwrite-qd32": ("randwrite-4k-qd32-8g", "incompressible"),
        "seqread-2m-bs-split": ("seqread-2m-qd1", "unspecified"),
    },
    "fio-3.33-shared.json": {
        "clones": fio.CLONES_APART.format(numjobs=2),
        "reader": fio.CONCURRENT.format(others="'writer'"),
        "writer": fio.CONCURRENT.format(others="'reader'"),
        "alone": ("seqread-128k-qd1", "unspecified"),
    },
    "fio-3.33-client.json": {
        "seqwrite-128k": ("seqwrite-128k-qd1", "incompressible"),
        "randread-4k-qd3": ("randread-4k-qd3", "unspecified"),
        "All clients": fio.ALL_CLIENTS,
    },
    "fio-3.33-steadystate.json": {
        "randwrite-qd32-iops-20pct": ("randwrite-4k-qd32-8g", "incompressible"),
        "randwrite-qd3-bw-slope-0.001pct": ("randwrite-4k-qd3-8g", "incompressible"),
    },
    "fio-3.33-unified.json": {
        "unified": fio.MIXED_REPORT,
        "seqwrite": ("seqwrite-128k-qd1", "incompressible"),
    },
}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_saved_fio_outputs_map_as_expected(name):
    conversion = convert(name)
    jobs = load(name).get("jobs") or load(name)["client_stats"]
    assert len(conversion.mapped) + len(conversion.unmapped) == len(jobs)
    assert_outcomes(conversion, EXPECTED[name])


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_saved_fio_outputs_keep_fios_figures(name):
    tree = load(name)
    jobs = tree.get("jobs") or tree["client_stats"]
    conversion = convert(name)
    results = {(r["test"], r["pattern"]): r for r in conversion.document["results"]}
    for mapped in conversion.mapped:
        assert_result_is_fios(results[(mapped.test, mapped.pattern)], jobs[mapped.index], mapped)


@pytest.mark.django_db
@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_saved_fio_outputs_ingest(name):
    imported = fio_ingest(fio_json=(FIXTURES / name).read_bytes(), drive=DRIVE, submitter=None)
    assert imported.outcome.created
    assert imported.outcome.run.results.count() == len(imported.conversion.mapped)


def test_provenance_comes_from_fios_output():
    tree = load("fio-3.33-standard.json")
    document = convert("fio-3.33-standard.json").document
    assert document["tool"]["name"] == "fio" and document["tool"]["version"] == "3.33"
    assert document["tool"]["engine"] == document["parameters"]["engine"] == "libaio, psync"
    assert document["tool"]["command_line"].startswith(
        "fio --size=16M --direct=1 --runtime=1 --ioengine=libaio --zero_buffers=0 "
        "--filename=/tmp/bench-fio-fixtures/target.bin --name=randread-4k-qd3 --rw=randread"
    )
    finished = documents.parse_time(document["finished_at"])
    started = documents.parse_time(document["started_at"])
    assert finished.timestamp() * 1000 == tree["timestamp_ms"]
    elapsed = max(job["elapsed"] for job in tree["jobs"])
    assert (finished - started).total_seconds() == elapsed
    assert document["source"] == {"kind": "measured"} and document["drive"] == DRIVE
    assert document["parameters"]["patterns"] == ["compressible", "incompressible"]
    assert "host" not in document


def test_fio_3_36_and_later_give_the_start_of_the_first_job():
    tree = load("fio-3.41-standard.json")
    document = convert("fio-3.41-standard.json").document
    first = min(job["job_start"] for job in tree["jobs"])
    assert documents.parse_time(document["started_at"]).timestamp() * 1000 == first


def test_client_mode_names_the_host_and_times_the_run_by_its_jobs():
    tree = load("fio-3.33-client.json")
    document = convert("fio-3.33-client.json").document
    assert document["host"] == {"hostname": "127.0.0.1"}
    finished = documents.parse_time(document["finished_at"])
    started = documents.parse_time(document["started_at"])
    assert finished.timestamp() == tree["timestamp"]
    groups: dict = {}
    for job in tree["client_stats"][:-1]:  # the last one sums the clients
        groups[job["groupid"]] = max(groups.get(job["groupid"], 0), job["job_runtime"])
    assert (finished - started).total_seconds() * 1000 == sum(groups.values())


def test_two_hosts_are_two_drives():
    tree = load("fio-3.33-client.json")
    tree["client_stats"][1]["hostname"] = "bench-2"
    ((where, message),) = [(p.pointer, p.message) for p in rejected(tree)]
    assert where == "" and message == fio.MANY_HOSTS.format(count=2, hosts="127.0.0.1, bench-2")


def test_percentiles_are_clamped_into_min_and_max_and_fine_ones_left_out():
    tree = load("fio-3.41-engines.json")
    side = tree["jobs"][1]["read"]["clat_ns"]
    side["percentile"]["99.999990"] = side["percentile"]["99.990000"]  # five decimals
    side["percentile"]["100.000000"] = side["max"] + 500  # a bucket's midpoint above max
    results = convert(tree).document["results"]
    latency = next(r for r in results if r["test"] == "randread-4k-qd3")["latency_ns"]
    assert "99.99999" not in latency["percentiles"] and "99.99" in latency["percentiles"]
    assert latency["percentiles"]["100"] == side["max"]


SAMPLE_DOCUMENT = json.loads(
    (Path(settings.BASE_DIR) / "results/schema/samples/measured-loadgen-quick.json").read_text()
)


def test_is_fio_output_tells_fio_from_a_result_document():
    for output in FIXTURES.glob("fio-*"):
        raw = output.read_bytes()
        assert is_fio_output(raw), output.name
        assert is_fio_output(b"\xef\xbb\xbf" + raw), output.name
        if output.suffix == ".json":
            assert is_fio_output(json.dumps(json.loads(raw))), output.name
    assert not is_fio_output(json.dumps(SAMPLE_DOCUMENT, indent=2))


@hypothesis_settings(max_examples=100, deadline=None)
@given(data=st.data(), text=st.sampled_from(["fio version", '"fio version": "fio-3.33"']))
def test_fio_version_inside_a_result_document_does_not_make_it_fio(data, text):
    """The words in any string of a document, or as a key of any of its objects."""
    document = copy.deepcopy(SAMPLE_DOCUMENT)
    places = [path for path in leaf_paths(document) if isinstance(_at(document, path), str)]
    objects = list(_object_paths(document))
    if data.draw(st.booleans()):
        path = data.draw(st.sampled_from(places))
        _at(document, path[:-1])[path[-1]] = text
    else:
        path = data.draw(st.sampled_from(objects))
        _at(document, path)["fio version"] = text
    for indent in (None, 2):
        assert not is_fio_output(json.dumps(document, indent=indent))


def _at(tree, path):
    for key in path:
        tree = tree[key]
    return tree


def _object_paths(tree, path=()):
    if isinstance(tree, dict):
        yield path
        for key, value in tree.items():
            yield from _object_paths(value, (*path, key))
    elif isinstance(tree, list):
        for index, value in enumerate(tree):
            yield from _object_paths(value, (*path, index))


# -- the mapping rules, one by one (on fio 3.41's output, which shows every option) --------
def changed(name: str, job: str, options: dict, global_options: dict | None = None) -> dict:
    """A saved output with some of one job's options (and of the global ones) changed;
    None removes an option."""
    tree = load(name)
    entry = next(j for j in tree["jobs"] if j["jobname"] == job)
    for target, changes in (
        (entry["job options"], options),
        (tree["global options"], global_options or {}),
    ):
        for option, value in changes.items():
            if value is None:
                target.pop(option, None)
            else:
                target[option] = value
    return tree


RANDREAD = ("randread-4k-qd3", "unspecified")
RULES = [
    # (job, its options changed, global options changed, outcome or the start of the reason)
    ("randread-4k-qd3", {"rw": "randread:8"}, {}, "rw=randread:8: the ':N' suffix"),
    ("randread-4k-qd3", {"ioengine": "null"}, {}, "ioengine=null is not a block I/O engine"),
    ("randread-4k-qd3", {"ioengine": "mmap"}, {}, "ioengine=mmap is not a block I/O engine"),
    ("randread-4k-qd3", {"direct": "0"}, {}, "direct=0: the standard tests bypass"),
    ("randread-4k-qd3", {}, {"direct": None}, "direct is not set (fio's default: buffered)"),
    ("randread-4k-qd3", {"buffered": "0"}, {"direct": None}, RANDREAD),
    ("randread-4k-qd3", {"buffered": "1"}, {}, "buffered=1: the standard tests bypass"),
    ("randread-4k-qd3", {"rate": "10m"}, {}, "rate=10m: caps the bandwidth"),
    ("randread-4k-qd3", {"rate_iops": "0"}, {}, RANDREAD),
    ("randread-4k-qd3", {"thinktime": "10"}, {}, "thinktime=10: pauses between I/Os"),
    ("randread-4k-qd3", {"random_distribution": "zipf:1.2"}, {}, "random_distribution=zipf"),
    ("randread-4k-qd3", {"random_distribution": "random"}, {}, RANDREAD),
    ("randread-4k-qd3", {"percentage_random": "50"}, {}, "percentage_random=50: part"),
    ("randread-4k-qd3", {"zonemode": "strided", "zonesize": "1m"}, {}, "zonemode=strided"),
    ("randread-4k-qd3", {"bssplit": "4k/50:8k/50"}, {}, "bssplit=4k/50:8k/50: mixes"),
    ("randwrite-4k-qd3", {"verify": "md5"}, {}, "verify=md5: writes carry checksums"),
    ("randwrite-4k-qd3", {"fsync": "1"}, {}, "fsync=1: flushes between writes"),
    ("randwrite-4k-qd3", {"sync": "1"}, {}, "sync=1: synchronous (O_SYNC) writes"),
    # Sizes as fio reads them: with kb_base=1024, "k" and "kb" are 1024 and "KiB" is 1000.
    ("randread-4k-qd3", {"bs": "4KiB"}, {}, "bs=4KiB: no standard random read test at 4000"),
    ("randread-4k-qd3", {"bs": "4KiB", "kb_base": "1000"}, {}, RANDREAD),
    ("randread-4k-qd3", {"bs": "4kb"}, {}, RANDREAD),
    ("randread-4k-qd3", {"bs": "0x1000"}, {}, RANDREAD),
    ("randread-4k-qd3", {"bs": None}, {}, RANDREAD),  # fio's default: 4k
    ("randread-4k-qd3", {"bs": "4k,128k"}, {}, RANDREAD),  # reads, then writes
    ("randread-4k-qd3", {"bs": "128k,4k"}, {}, "bs=128k,4k: no standard random read test"),
    ("randread-4k-qd3", {"bs": ",8k"}, {}, RANDREAD),  # reads keep the default
    ("randread-4k-qd3", {"bs": "lots"}, {}, "bs=lots could not be read"),
    ("randread-4k-qd3", {"nrfiles": "2"}, {}, "nrfiles=2: a standard test runs on one"),
    ("randread-4k-qd3", {"filename": "/tmp/a:/tmp/b"}, {}, "filename names 2 files"),
    ("randread-4k-qd3", {"iodepth": "abc"}, {}, "iodepth=abc could not be read"),
    # Queue depth: synchronous engines run at 1; numjobs summed by group_reporting add up.
    # (so this job, run at QD3, is taken for the QD1 latency test, whose Little's law it fails)
    (
        "randread-4k-qd3",
        {"ioengine": "psync"},
        {},
        "IOPS x mean latency puts 3.0 I/Os in flight, more than its queue depth 1",
    ),
    # Span: a fixed-span test needs one no larger than its own; whole-drive tests take any.
    ("randwrite-4k-qd3", {"size": "16g"}, {}, "span 16GiB (size=16g) is larger than the 8GiB"),
    ("randwrite-4k-qd3", {}, {"size": None}, "randwrite-4k-qd3-8g writes within an LBA span"),
    ("randwrite-4k-qd3", {"size": "50%"}, {}, "randwrite-4k-qd3-8g writes within an LBA span"),
    ("randwrite-4k-qd3", {"size": "8g"}, {}, ("randwrite-4k-qd3-8g", "incompressible")),
    ("randread-4k-qd3", {}, {"size": None}, RANDREAD),
    # What a job's figures say about it: a QD32 run is not a QD3 one (Little's law).
    (
        "randwrite-4k-qd32-compressible",
        {"iodepth": "3", "buffer_compress_percentage": None},
        {},
        "IOPS x mean latency puts",
    ),
]


def outcome_of(tree: dict, job: str):
    """A job's outcome, also when no job maps and the whole output is refused."""
    try:
        return outcomes(convert(tree))[job]
    except DocumentRejected as refusal:
        index = next(i for i, entry in enumerate(tree["jobs"]) if entry["jobname"] == job)
        (message,) = [p.message for p in refusal.problems if p.pointer == f"/jobs/{index}"]
        return message.removeprefix(fio.NOTHING_MAPPED.format(job=job, reason=""))


@pytest.mark.parametrize(("job", "options", "global_options", "expected"), RULES)
def test_mapping_rule(job, options, global_options, expected):
    found = outcome_of(changed("fio-3.41-standard.json", job, options, global_options), job)
    if isinstance(expected, tuple):
        assert found == expected
    else:
        assert isinstance(found, str) and found.startswith(expected), found


PATTERNS = [
    # (fio version of the output, write job's options changed, global changes, pattern)
    ("3.41", {}, {"zero_buffers": None}, "incompressible"),  # fio's default buffers
    ("3.41", {"refill_buffers": ""}, {}, "incompressible"),
    ("3.41", {"zero_buffers": ""}, {}, "compressible"),  # a bare flag, shown from 3.39
    ("3.41", {"buffer_compress_percentage": "100"}, {}, "compressible"),
    ("3.41", {"buffer_pattern": "0xdeadbeef"}, {}, "compressible"),
    ("3.41", {"buffer_pattern": "'pattern.bin'"}, {}, "unspecified"),
    ("3.41", {"dedupe_percentage": "30", "buffer_compress_percentage": "50"}, {}, "unspecified"),
    ("3.41", {"scramble_buffers": "0"}, {}, "unspecified"),
    ("3.33", {}, {"zero_buffers": None}, "unspecified"),  # a bare zero_buffers is not shown
    ("3.33", {}, {}, "incompressible"),  # zero_buffers=0 shows it was not set
    ("3.33", {"buffer_compress_percentage": "50"}, {"zero_buffers": None}, "compressible"),
]


@pytest.mark.parametrize(("version", "options", "global_options", "pattern"), PATTERNS)
def test_write_pattern(version, options, global_options, pattern):
    tree = changed(f"fio-{version}-standard.json", "randwrite-4k-qd3", options, global_options)
    conversion = convert(tree)
    (mapped,) = [m for m in conversion.mapped if m.job == "randwrite-4k-qd3"]
    assert mapped.pattern == pattern, mapped.pattern_reason
    assert mapped.pattern_reason


def test_reads_are_unspecified_whatever_the_write_options():
    tree = changed("fio-3.41-standard.json", "randread-4k-qd3", {"refill_buffers": ""})
    (mapped,) = [m for m in convert(tree).mapped if m.job == "randread-4k-qd3"]
    assert (mapped.pattern, mapped.pattern_reason) == ("unspecified", fio.READ_PATTERN)


def test_numjobs_summed_by_group_reporting_add_up_to_the_queue_depth():
    tree = load("fio-3.41-engines.json")
    entry = tree["jobs"][0]
    assert entry["job options"]["numjobs"] == "4" and entry["job options"]["iodepth"] == "8"
    (result,) = [r for r in convert(tree).document["results"] if r["pattern"] == "compressible"]
    assert (result["test"], result["queue_depth"]) == ("randwrite-4k-qd32-8g", 32)
    entry["job options"]["numjobs"] = "2"
    assert outcomes(convert(tree))["randwrite-4x8"].startswith("queue depth 16 (numjobs=2 x ")


def test_two_jobs_of_one_test_and_pattern_are_both_left_out():
    tree = load("fio-3.41-standard.json")
    twin = copy.deepcopy(tree["jobs"][1])
    twin["jobname"], twin["groupid"] = "randwrite-4k-qd3-again", 99
    tree["jobs"].append(twin)
    found = outcomes(convert(tree))
    reason = fio.DUPLICATE_TEST.format(
        jobs="'randwrite-4k-qd3', 'randwrite-4k-qd3-again'",
        test="randwrite-4k-qd3-8g",
        pattern="incompressible",
    )
    assert found["randwrite-4k-qd3"] == found["randwrite-4k-qd3-again"] == reason


def test_a_new_group_without_stonewall_ran_beside_the_group_before():
    tree = changed(
        "fio-3.41-standard.json", "randwrite-4k-qd3", {"stonewall": None, "new_group": ""}
    )
    found = outcomes(convert(tree))
    assert found["randwrite-4k-qd3"] == fio.CONCURRENT.format(others="'randread-4k-qd3'")
    assert found["randread-4k-qd3"] == fio.CONCURRENT.format(others="'randwrite-4k-qd3'")


def test_jobs_on_two_drives_are_refused():
    tree = changed("fio-3.41-standard.json", "randread-4k-qd3", {"filename": "/dev/sdz"})
    ((where, message),) = [(p.pointer, p.message) for p in rejected(tree)]
    assert where == "" and message.startswith("the mappable jobs ran on 2 targets (/dev/sdz:")


def test_files_in_one_directory_are_one_drive():
    tree = changed(
        "fio-3.41-standard.json", "randread-4k-qd3", {"filename": "/tmp/bench-fio-fixtures/b"}
    )
    assert outcomes(convert(tree))["randread-4k-qd3"] == RANDREAD


def test_an_option_fio_wrote_twice_counts_as_its_last_setting():
    text = (FIXTURES / "fio-3.41-standard.json").read_text()
    first = '"bs" : "4k",'
    assert text.count(first) > 1
    text = text.replace(first, '"bs" : "8k",\n        "bs" : "4k",', 1)
    assert outcomes(convert(text))["randread-4k-qd3"] == RANDREAD


def test_nothing_mapped_is_refused_with_every_jobs_reason():
    tree = load("fio-3.33-unified.json")
    del tree["jobs"][1]
    ((where, message),) = [(p.pointer, p.message) for p in rejected(tree)]
    assert where == "/jobs/0"
    assert message == fio.NOTHING_MAPPED.format(job="unified", reason=fio.MIXED_REPORT)


# -- bad output: each class, then properties over many -------------------------------------
def mutate(name: str, change) -> dict:
    tree = load(name)
    change(tree)
    return tree


def setter(*path_and_value):
    *path, value = path_and_value

    def change(tree):
        target = tree
        for key in path[:-1]:
            target = target[key]
        if value is DELETE:
            del target[path[-1]]
        else:
            target[path[-1]] = value

    return change


DELETE = object()
STANDARD_33 = "fio-3.33-standard.json"
READ_IOS = load(STANDARD_33)["jobs"][0]["read"]["total_ios"]
BAD_TREES = [
    # (change, pointer, message)
    (
        setter("fio version", "fio-2.21"),
        "/fio version",
        fio.UNSUPPORTED_VERSION.format(version="fio-2.21"),
    ),
    (
        setter("fio version", "bench-1"),
        "/fio version",
        fio.UNREADABLE_VERSION.format(version="bench-1"),
    ),
    (setter("fio version", DELETE), "", fio.NOT_FIO.format(detail="no 'fio version'")),
    (setter("jobs", []), "/jobs", fio.NO_JOBS),
    (setter("jobs", DELETE), "", fio.MISSING.format(field="jobs")),
    (
        setter("jobs", 0, "read", "clat_ns", DELETE),
        "/jobs/0/read",
        fio.MISSING.format(field="clat_ns"),
    ),
    (setter("jobs", 0, "write", DELETE), "/jobs/0", fio.MISSING.format(field="write")),
    (
        setter("jobs", 0, "read", "runtime", 0),
        "/jobs/0/read/runtime",
        fio.ZERO_RUNTIME.format(ios=READ_IOS),
    ),
    (
        setter("jobs", 0, "error", 5),
        "/jobs/0/error",
        fio.JOB_FAILED.format(job="randread-4k-qd3", error=5, detail=" (Input/output error)"),
    ),
    (
        setter("jobs", 0, "read", "total_ios", True),
        "/jobs/0/read/total_ios",
        fio.WRONG_TYPE.format(expected="a whole number, 0 or more"),
    ),
    (
        setter("jobs", 0, "read", "total_ios", -1),
        "/jobs/0/read/total_ios",
        fio.WRONG_TYPE.format(expected="a whole number, 0 or more"),
    ),
    (
        setter("jobs", 0, "read", "iops", "fast"),
        "/jobs/0/read/iops",
        fio.WRONG_TYPE.format(expected="a number, 0 or more"),
    ),
    (setter("jobs", 0, "read", "io_bytes", 2**70), "/jobs/0/read/io_bytes", fio.BEYOND_64_BITS),
    (setter("jobs", 0, "read", "iops", math.nan), "/jobs/0/read/iops", fio.NOT_A_NUMBER),
    (setter("jobs", 0, "jobname", "a\x00b"), "/jobs/0/jobname", fio.NOT_TEXT),
    (setter("jobs", 0, "jobname", "\ud800"), "/jobs/0/jobname", fio.NOT_TEXT),
    (
        setter("jobs", 0, "job options", "bs", 4096),
        "/jobs/0/job options/bs",
        fio.WRONG_TYPE.format(expected="text"),
    ),
    (setter("jobs", 0, "read", "bw_bytes", 1), "/jobs/0/read/bw_bytes", "bw_bytes 1 contradicts"),
    (setter("jobs", 0, "read", "iops", 1.5), "/jobs/0/read/iops", "iops 1.5 contradicts"),
    (
        setter("jobs", 0, "read", "clat_ns", "mean", 1e12),
        "/jobs/0/read/clat_ns/mean",
        "mean 1000000000000.0 is outside",
    ),
    (
        setter("jobs", 0, "read", "clat_ns", "percentile", "x", 5),
        "/jobs/0/read/clat_ns/percentile/x",
        fio.NOT_A_PERCENTILE.format(key="x"),
    ),
    (
        setter("jobs", 0, "read", "clat_ns", "percentile", "99.990000", 1),
        "/jobs/0/read/clat_ns/percentile",
        fio.PERCENTILE_ORDER,
    ),
    (setter("timestamp_ms", 5000), "/timestamp_ms", fio.NOT_A_TIME.format(value=5)),
    (
        setter("jobs", 0, "elapsed", 10**12),
        "/jobs/0/elapsed",
        fio.NOT_A_DURATION.format(value=10**12),
    ),
]


@pytest.mark.parametrize(("change", "where", "message"), BAD_TREES)
def test_bad_output_is_refused_with_a_pointer(change, where, message):
    problems = rejected(mutate(STANDARD_33, change))
    assert [p.pointer for p in problems] == [where]
    assert problems[0].message.startswith(message)


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        (b"hello", fio.NOT_FIO.format(detail="no JSON object in it")),
        (b"3;fio-3.33;job;0;0;0;0", fio.NOT_FIO.format(detail="no JSON object in it")),
        (b'{"fio version": "fio-3.33"', "fio's output is not valid JSON: "),
        (b'{"fio version": "\xff"}', documents.NOT_UTF8),
        (b"[" * 100_000, fio.NOT_FIO.format(detail="no JSON object in it")),
        (b"{" + b'"a":[' * 100_000, "fio's output is not valid JSON: "),
    ],
)
def test_text_that_is_not_fio_json_is_refused(raw, message):
    (problem,) = rejected(raw)
    assert problem.pointer == "" and problem.message.startswith(message)


def test_a_result_document_is_not_fio_output():
    sample = Path(settings.BASE_DIR) / "results/schema/samples/measured-loadgen-quick.json"
    (problem,) = rejected(sample.read_bytes())
    assert problem.message == fio.NOT_FIO.format(detail="no 'fio version'")


def test_fios_nan_is_named_by_its_pointer():
    value = '"stddev": 987654.25'
    text = json.dumps(
        mutate(STANDARD_33, setter("jobs", 2, "write", "lat_ns", "stddev", 987654.25))
    )
    assert text.count(value) == 1
    for token, message in [
        ("nan", fio.NOT_A_NUMBER),
        ("-nan", fio.NOT_A_NUMBER),
        ("inf", fio.NOT_A_NUMBER),
        ("-inf", fio.NOT_A_NUMBER),
        ("NaN", fio.NOT_A_NUMBER),
        ("1e999", fio.NOT_FINITE),
    ]:
        (problem,) = rejected(text.replace(value, f'"stddev": {token}'))
        assert (problem.pointer, problem.message) == ("/jobs/2/write/lat_ns/stddev", message)


def test_values_nested_deeper_than_fio_writes_are_refused():
    deep: list = []
    for _ in range(40):
        deep = [deep]
    (problem,) = rejected(mutate(STANDARD_33, setter("jobs", 0, "extra", deep)))
    assert problem.message == fio.NOT_JSON.format(detail=documents.TOO_DEEP)
    assert problem.pointer.startswith("/jobs/0/extra/0/0")


def test_a_failed_job_in_fios_stdout_is_refused():
    (problem,) = rejected((FIXTURES / "fio-3.33-error.stdout").read_bytes())
    assert problem.pointer == "/jobs/0/error"
    assert problem.message == fio.JOB_FAILED.format(
        job="unaligned", error=22, detail=" (Invalid argument)"
    )


def test_two_outputs_in_one_file_are_refused():
    raw = (FIXTURES / STANDARD_33).read_bytes()
    (problem,) = rejected(raw + b"\n" + raw)
    assert problem.message == fio.TWO_OUTPUTS


def test_a_repeated_key_outside_the_options_is_refused():
    text = (FIXTURES / STANDARD_33).read_text()
    text = text.replace('"groupid" : 0,', '"groupid" : 0,\n      "groupid" : 1,', 1)
    (problem,) = rejected(text)
    assert problem.pointer == "/jobs/0/groupid"
    assert problem.message == documents.DUPLICATE_KEY.format(key="groupid")


def test_output_over_the_size_limit_is_refused(settings):
    settings.BENCH_MAX_DOCUMENT_BYTES = 1000
    (problem,) = rejected((FIXTURES / STANDARD_33).read_bytes())
    assert problem.message.startswith("the document is ")


def test_text_before_and_after_fios_json_is_skipped():
    raw = (FIXTURES / STANDARD_33).read_bytes()
    noted = b"note: both iodepth >= 1 and synchronous I/O engine are selected\n" + raw
    assert convert(noted).document == convert(raw).document
    assert convert(raw + b"\nfio: file hash not empty on exit\n").document == convert(raw).document


def test_utf16_with_its_mark_and_control_characters_in_names_are_read():
    text = (FIXTURES / STANDARD_33).read_text()
    assert convert(text.encode("utf-16")).document == convert(text).document  # PowerShell's >
    tabbed = text.replace('"jobname" : "randrw"', '"jobname" : "rand\trw"')  # fio escapes no tab
    assert "rand\trw" in outcomes(convert(tabbed))


def leaf_paths(tree, path=()) -> list[tuple]:
    """Every place in a tree: containers and their items."""
    found = [path] if path else []
    if isinstance(tree, dict):
        for key, value in tree.items():
            found.extend(leaf_paths(value, (*path, key)))
    elif isinstance(tree, list):
        for index, value in enumerate(tree):
            found.extend(leaf_paths(value, (*path, index)))
    return found


def resolves(tree, where: str) -> bool:
    """Whether a JSON pointer names a place in the tree."""
    if where == "":
        return True
    target = tree
    for part in where[1:].split("/"):
        part = part.replace("~1", "/").replace("~0", "~")
        if isinstance(target, list) and part.isdigit() and int(part) < len(target):
            target = target[int(part)]
        elif isinstance(target, dict) and part in target:
            target = target[part]
        else:
            return False
    return True


PROPERTY_SOURCES = ["fio-3.33-client.json", "fio-3.41-engines.json"]
TREES = {name: load(name) for name in PROPERTY_SOURCES}
PLACES = [(name, path) for name in PROPERTY_SOURCES for path in leaf_paths(TREES[name])]
JSON_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats()
    | st.text(max_size=8)
    | st.sampled_from(["\ud800", "a\x00", "4k", "randwrite", "fio-2.1", "0"]),
    lambda children: (
        st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=6), children, max_size=3)
    ),
    max_leaves=6,
)
PROPERTY_SETTINGS = hypothesis_settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)


def converted_or_refused_with_pointers(tree_or_raw, tree) -> None:
    """The property: a conversion run_ingest accepts (convert checks it), or a refusal
    whose every problem names a place in fio's document. Never another exception."""
    try:
        fio_document(
            fio_json=json.dumps(tree_or_raw) if isinstance(tree_or_raw, dict) else tree_or_raw,
            drive=DRIVE,
        )
    except DocumentRejected as refusal:
        assert refusal.problems
        for problem in refusal.problems:
            assert problem.message
            assert tree is None or resolves(tree, problem.pointer), problem
    else:
        convert(tree_or_raw)


@PROPERTY_SETTINGS
@given(place=st.sampled_from(PLACES), value=JSON_VALUES)
def test_any_value_anywhere_is_converted_or_refused_with_a_pointer(place, value):
    name, path = place
    tree = copy.deepcopy(TREES[name])
    target = tree
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    converted_or_refused_with_pointers(tree, tree)


@PROPERTY_SETTINGS
@given(place=st.sampled_from(PLACES))
def test_any_field_removed_is_converted_or_refused_with_a_pointer(place):
    name, path = place
    tree = copy.deepcopy(TREES[name])
    target = tree
    for key in path[:-1]:
        target = target[key]
    del target[path[-1]]
    converted_or_refused_with_pointers(tree, tree)


RAW = {name: (FIXTURES / name).read_bytes() for name in PROPERTY_SOURCES}


@PROPERTY_SETTINGS
@given(
    name=st.sampled_from(PROPERTY_SOURCES),
    cut=st.floats(min_value=0, max_value=1),
    junk=st.binary(max_size=4),
)
def test_damaged_bytes_are_converted_or_refused(name, cut, junk):
    raw = RAW[name]
    at = int(len(raw) * cut)
    converted_or_refused_with_pointers(raw[:at] + junk + raw[at + len(junk) :], None)
    converted_or_refused_with_pointers(raw[:at], None)


@PROPERTY_SETTINGS
@given(
    place=st.sampled_from(PLACES),
    digits=st.integers(min_value=19, max_value=20_000),
    sign=st.sampled_from(["", "-"]),
)
def test_integers_of_any_length_anywhere_are_converted_or_refused(place, digits, sign):
    """Numbers past 64 bits, and past the 4,300 digits Python turns into an int at all."""
    name, path = place
    tree = copy.deepcopy(TREES[name])
    target = tree
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = "__number__"
    raw = json.dumps(tree).replace('"__number__"', sign + "7" * digits)
    converted_or_refused_with_pointers(raw, None)


def test_fios_steady_state_is_kept_as_fios():
    """fio's steadystate verdicts (criterion, window, attained or not) come with the result
    they belong to, as fio's: a job that met its criterion (fio stopped it early) and one
    that did not, both as fio wrote them, trailing zeros dropped."""
    conversion = convert("fio-3.33-steadystate.json")
    found = {r["test"]: r["fio_steadystate"] for r in conversion.document["results"]}
    jobs = {j["jobname"]: j["steadystate"] for j in load("fio-3.33-steadystate.json")["jobs"]}
    assert jobs["randwrite-qd32-iops-20pct"]["ss"] == "iops:20.000000%"
    assert found["randwrite-4k-qd32-8g"] == {
        "criterion": "iops:20%",
        "window_s": jobs["randwrite-qd32-iops-20pct"]["duration"],
        "attained": True,
        "value": jobs["randwrite-qd32-iops-20pct"]["criterion"],  # "17.538401%": no zeros
    }
    slope = found["randwrite-4k-qd3-8g"]
    assert slope["criterion"] == "bw_slope:0.001%" and slope["attained"] is False
    assert slope["window_s"] == 4
    # A document without fio's steadystate has no such member.
    plain = convert("fio-3.33-standard.json").document["results"]
    assert all("fio_steadystate" not in r for r in plain)


@pytest.mark.django_db
def test_fios_steady_state_is_stored_and_shown_as_fios(client):
    imported = fio_ingest(
        fio_json=(FIXTURES / "fio-3.33-steadystate.json").read_bytes(), drive=DRIVE, submitter=None
    )
    run = imported.outcome.run
    stored = {r.test.identifier: r for r in run.results.select_related("test")}
    assert stored["randwrite-4k-qd32-8g"].fio_steadystate["attained"] is True
    assert stored["randwrite-4k-qd3-8g"].fio_steadystate["attained"] is False
    html = client.get(reverse("bench:run", args=[run.pk])).content.decode()
    assert "fio steady state (criterion iops:20%, 4 s window): attained" in html
    assert "fio steady state (criterion bw_slope:0.001%, 4 s window): not attained" in html
    assert "SNIA" not in html.split("fio steady state")[1].split("</small>")[0]
    listed = client.get(f"/api/v1/results/?run={run.pk}").json()
    verdicts = {r["test"]: r["fio_steadystate"] for r in listed["results"]}
    assert verdicts["randwrite-4k-qd32-8g"]["criterion"] == "iops:20%"
    assert verdicts["randwrite-4k-qd3-8g"]["attained"] is False
