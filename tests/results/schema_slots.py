"""Every field of the result-document schema, where a document holds it, and where the
database stores it: what the generative ingestion tests vary, and what the bounds test
compares with the columns."""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from django.apps import apps
from django.db import connection, transaction

from results import documents, histograms
from results.models import TestBench
from results.synthetic import measured_document

SCHEMA = documents.schema()
STAR = "*"  # any array index or object key in a path template


def resolve(node: dict) -> dict:
    while "$ref" in node:
        node = SCHEMA["$defs"][node["$ref"].rsplit("/", 1)[1]]
    return node


def children(node: dict) -> Iterator[tuple[str, dict]]:
    """(key or STAR, schema) of what a node holds, its oneOf/anyOf branches included."""
    node = resolve(node)
    for branch in [node, *node.get("oneOf", []), *node.get("anyOf", [])]:
        yield from branch.get("properties", {}).items()
    if isinstance(node.get("items"), dict):
        yield STAR, node["items"]
    if isinstance(node.get("additionalProperties"), dict):
        yield STAR, node["additionalProperties"]


def schema_leaves(node: dict | None = None, path: tuple = ()) -> Iterator[tuple[tuple, dict]]:
    """(path template, schema) of every scalar field the schema defines."""
    node = resolve(SCHEMA if node is None else node)
    kids = list(children(node))
    if not kids and path:
        yield path, node
    seen = set()
    for key, child in kids:
        resolved = resolve(child)
        if key in seen and not resolved.get("properties") and "type" not in resolved:
            continue  # a oneOf branch's `const` discriminator next to the other branch's
        seen.add(key)
        yield from schema_leaves(child, (*path, key))


def node_at(path: tuple) -> dict:
    """The schema of the value at a concrete document path."""
    node = resolve(SCHEMA)
    for part in path:
        options = [c for k, c in children(node) if k in (part, STAR)]
        typed = [c for c in options if "const" not in resolve(c)] or options
        node = resolve(typed[0])
    return node


def template(path: tuple) -> tuple:
    """The path template of a concrete path: indexes and free keys as STAR."""
    out, node = [], resolve(SCHEMA)
    for part in path:
        keys = {k for k, _ in children(node)}
        out.append(part if part in keys else STAR)
        node = node_at(path[: len(out)])
    return tuple(out)


# -- where the database keeps each field -----------------------------------------------------
# row: how to reach the row from the run and the field's path. An entry's row is the one of
# its index (rows are written in the document's order); "test" is the catalog row of an
# entry's test.
RELATED = {
    "results": "results",
    "consistency": "consistency_series",
    "trim": "trim_validations",
    "saturation": "saturation_series",
}


def entry_row(run, path: tuple):
    return getattr(run, RELATED[path[0]]).order_by("pk")[path[1]]


ROWS: dict[str, Callable] = {
    "run": lambda run, path: run,
    "drive": lambda run, path: run.drive,
    "manufacturer": lambda run, path: run.drive.manufacturer,
    "firmware": lambda run, path: run.firmware,
    "bench": lambda run, path: run.bench,
    "suite": lambda run, path: run.suite,
    "citation": lambda run, path: run.citation,
    **{row: entry_row for row in ("result", "consistency", "trim", "saturation")},
    "test": lambda run, path: entry_row(run, path).test,
}
MODELS = {
    "run": ("results", "Run"),
    "drive": ("drives", "Drive"),
    "manufacturer": ("drives", "Manufacturer"),
    "firmware": ("drives", "FirmwareVersion"),
    "bench": ("results", "TestBench"),
    "suite": ("results", "Suite"),
    "citation": ("results", "Citation"),
    "result": ("results", "Result"),
    "consistency": ("results", "ConsistencySeries"),
    "trim": ("results", "TrimValidation"),
    "saturation": ("results", "SaturationSeries"),
    "test": ("results", "Test"),
}
# A mixed result's reads and writes as Result stores them (results.models.DIRECTION_FIGURES).
DIRECTION_COLUMNS = {
    ("results", STAR, side, *path): ("result", f"{side}_{column}")
    for side in ("read", "write")
    for path, column in (
        (("iops",), "iops"),
        (("latency_ns", "mean"), "latency_mean_ns"),
        (("latency_ns", "max"), "latency_max_ns"),
        (("latency_ns", "percentiles", STAR), "latency_percentiles_ns"),
    )
}
COLUMNS: dict[tuple, tuple[str, str]] = {
    **DIRECTION_COLUMNS,
    ("tool", "name"): ("run", "tool_name"),
    ("tool", "version"): ("run", "tool_version"),
    ("tool", "engine"): ("run", "engine"),
    ("started_at",): ("run", "started_at"),
    ("finished_at",): ("run", "finished_at"),
    ("drive", "manufacturer"): ("manufacturer", "name"),
    ("drive", "model"): ("drive", "model"),
    ("drive", "slug"): ("drive", "slug"),  # names a drive; never written
    ("drive", "capacity_bytes"): ("drive", "capacity_bytes"),
    ("drive", "part_number"): ("drive", "part_number"),
    ("drive", "hardware_revision"): ("drive", "hardware_revision"),
    ("drive", "firmware"): ("firmware", "version"),
    ("target", "serial_hash"): ("run", "unit_hash"),
    **{("bench", name): ("bench", name) for name in TestBench.FIELDS},
    ("parameters", "suite", "name"): ("suite", "name"),
    ("parameters", "suite", "version"): ("suite", "version"),
    ("source", "citation", "publisher"): ("citation", "publisher"),
    ("source", "citation", "title"): ("citation", "title"),
    ("source", "citation", "author"): ("citation", "author"),
    ("source", "citation", "published_on"): ("citation", "published_on"),
    ("source", "citation", "url"): ("citation", "url"),
    ("source", "citation", "rate_unit"): ("citation", "rate_unit"),
    ("source", "citation", "locator"): ("run", "citation_locator"),
    ("results", STAR, "test"): ("test", "identifier"),
    ("results", STAR, "block_size"): ("result", "block_size"),
    ("results", STAR, "queue_depth"): ("result", "queue_depth"),
    ("results", STAR, "span_bytes"): ("result", "span_bytes"),
    ("results", STAR, "duration_ns"): ("result", "duration_ns"),
    ("results", STAR, "io_count"): ("result", "io_count"),
    ("results", STAR, "bytes"): ("result", "bytes"),
    ("results", STAR, "bytes_per_second"): ("result", "bytes_per_second"),
    ("results", STAR, "iops"): ("result", "iops"),
    ("results", STAR, "iops_stddev"): ("result", "iops_stddev"),
    ("results", STAR, "iops_min"): ("result", "iops_min"),
    ("results", STAR, "latency_ns", "mean"): ("result", "latency_mean_ns"),
    ("results", STAR, "latency_ns", "stddev"): ("result", "latency_stddev_ns"),
    ("results", STAR, "latency_ns", "min"): ("result", "latency_min_ns"),
    ("results", STAR, "latency_ns", "max"): ("result", "latency_max_ns"),
    ("results", STAR, "latency_ns", "percentiles", STAR): ("result", "latency_percentiles_ns"),
    ("results", STAR, "clat_ns", "mean"): ("result", "clat_mean_ns"),
    ("results", STAR, "clat_ns", "stddev"): ("result", "clat_stddev_ns"),
    ("results", STAR, "clat_ns", "min"): ("result", "clat_min_ns"),
    ("results", STAR, "clat_ns", "max"): ("result", "clat_max_ns"),
    ("results", STAR, "clat_ns", "percentiles", STAR): ("result", "clat_percentiles_ns"),
    ("results", STAR, "jobs"): ("result", "jobs"),
    ("results", STAR, "repeat"): ("result", "repeat"),
    ("consistency", STAR, "test"): ("test", "identifier"),
    ("consistency", STAR, "spare_area_percent"): ("consistency", "spare_area_percent"),
    ("consistency", STAR, "span_bytes"): ("consistency", "span_bytes"),
    ("consistency", STAR, "interval_ns"): ("consistency", "interval_ns"),
    ("consistency", STAR, "iops", STAR): ("consistency", "iops"),
    # Not stored with the series: they must equal the test's, so the test's columns bound them.
    ("consistency", STAR, "block_size"): ("test", "block_size"),
    ("consistency", STAR, "queue_depth"): ("test", "queue_depth"),
    ("trim", STAR, "test"): ("test", "identifier"),
    ("trim", STAR, "span_bytes"): ("trim", "span_bytes"),
    ("trim", STAR, "torture_seconds"): ("trim", "torture_seconds"),
    ("trim", STAR, "clean_bytes_per_second"): ("trim", "clean_bytes_per_second"),
    ("trim", STAR, "after_torture_bytes_per_second"): ("trim", "after_torture_bytes_per_second"),
    ("trim", STAR, "after_trim_bytes_per_second"): ("trim", "after_trim_bytes_per_second"),
    ("saturation", STAR, "test"): ("test", "identifier"),
    ("saturation", STAR, "span_bytes"): ("saturation", "span_bytes"),
    ("saturation", STAR, "interval_ns"): ("saturation", "interval_ns"),
    ("saturation", STAR, "duration_ns"): ("saturation", "duration_ns"),
    ("saturation", STAR, "bytes_written"): ("saturation", "bytes_written"),
    ("saturation", STAR, "bytes_before_exhausted"): ("saturation", "bytes_before_exhausted"),
    ("saturation", STAR, "bytes_per_interval", STAR): ("saturation", "bytes_per_interval"),
    **{
        ("saturation", STAR, name): ("saturation", name)
        for name in (
            "mean_bytes_per_second",
            "initial_bytes_per_second",
            "threshold_fraction",
            "exhausted_at_s",
            "bytes_per_second_before",
            "bytes_per_second_after",
            "target_bytes",
            "time_cap_ns",
            "halved_at_s",
            "bytes_before_halved",
        )
    },
    # fio's own steady-state verdict: one JSON column of the result.
    **{
        ("results", STAR, "fio_steadystate", name): ("result", "fio_steadystate")
        for name in ("criterion", "window_s", "value")
    },
    # Not stored with the series: they must equal the test's, so the test's columns bound them.
    ("saturation", STAR, "block_size"): ("test", "block_size"),
    ("saturation", STAR, "queue_depth"): ("test", "queue_depth"),
    ("failure", "test"): ("test", "identifier"),
    ("parameters", "tests", STAR): ("test", "identifier"),
}
# Kept only in the stored document (Run.document, text): bounded by what loadgen writes
# (uint64 for its counters and sizes, a C int for errno) and by sane string lengths.
# Fields that name a catalog row rather than hold a value of the run: no maximal document
# holds one (it must name a row that exists); test_ingest and tests/drives/test_services
# test them.
SELECTORS = {("drive", "slug")}
DOCUMENT_ONLY = {
    ("failure", "message"),
    ("failure", "errno"),
    ("tool", "command_line"),
    *{("host", name) for name in ("hostname", "os", "kernel", "cpu", "cpu_count", "memory_bytes")},
    *{
        ("target", name)
        for name in (
            "path",
            "model",
            "firmware",
            "capacity_bytes",
            "logical_block_size",
            "physical_block_size",
            "link",  # also in the bench's link, with the interface (documents.bench_fields)
            "vendor",
        )
    },
    # The drive's health before and after the run: the run page reads it from the document.
    ("health", "reason"),
    *{
        ("health", when, name)
        for when in ("before", "after")
        for name in SCHEMA["$defs"]["health_snapshot"]["properties"]
    },
    ("parameters", "seed"),
    ("parameters", "engine"),
    ("parameters", "target_size_bytes"),
    ("parameters", "duration_scale"),
    ("parameters", "compressible_ratio"),
    ("parameters", "spare_area_percent", STAR),
    ("parameters", "jobs"),
    ("parameters", "repeat"),
    # Version 4's settings loadgen records so that the run page's command repeats the run
    # (results/reproduce.py): the document holds them, no column does.
    *{
        ("parameters", name)
        for name in (
            "qd_max",
            "round_s",
            "time_s",
            "rw",
            "rwmixread",
            "block_size",
            "queue_depth",
            "span_bytes",
        )
    },
    ("results", STAR, "rwmixread"),
    # Version 5: the histograms the site merges (results/histograms.py) are read from the
    # stored document, as are a paced result's rate and the --rate and --load it ran with.
    *{
        (*owner, kind, "histogram", "buckets", STAR, STAR)
        for owner in (("results", STAR), ("results", STAR, "read"), ("results", STAR, "write"))
        for kind in documents.LATENCY_KINDS
    },
    ("results", STAR, "rate_iops"),
    ("results", STAR, "load_percent"),
    ("parameters", "rate_iops"),
    ("parameters", "load_percent", STAR),
    # The reads and the writes of a mixed test: their sum is the result's columns, and
    # what pages show of each its <side>_* columns (DIRECTION_COLUMNS); the rest stays here.
    *{
        ("results", STAR, side, *field)
        for side in ("read", "write")
        for field in (
            ("io_count",),
            ("bytes",),
            ("bytes_per_second",),
            ("latency_ns", "stddev"),
            ("latency_ns", "min"),
            *(("clat_ns", name) for name in ("mean", "stddev", "min", "max")),
            ("clat_ns", "percentiles", STAR),
        )
    },
}
# Kept only as its salted hash (results.documents.hash_serial): the stored document's
# target.serial_hash and the run's unit_hash.
HASHED = {("target", "serial")}
# Names are stored trimmed of surrounding white space (drives.services.drive_resolve).
TRIMMED = {("drive", "manufacturer"), ("drive", "model")}
UINT64 = 2**64 - 1


def is_http_url(value: str) -> bool:
    """The rule for links, written independently of core.links: http:// or https:// in
    any case, something after it, and no white space or control character anywhere."""
    scheme, sep, rest = value.partition("://")
    return (
        scheme.lower() in ("http", "https")
        and bool(sep)
        and bool(rest)
        and not any(c.isspace() or ord(c) < 0x20 or ord(c) == 0x7F for c in value)
    )


def model_field(where: tuple[str, str]):
    row, name = where
    return apps.get_model(*MODELS[row])._meta.get_field(name)


# -- documents with every optional field present -----------------------------------------------
def maximal_measured() -> dict:
    document = measured_document(series_seconds=40)
    document["results"] = [{**document["results"][0], "iops_stddev": 812.5, "iops_min": 9000.0}]
    document["consistency"] = [
        {
            **document["consistency"][0],
            "span_bytes": 2**30,
            "interval_ns": 1_000_000_000,
            "discard_method": "blkdiscard",
        }
    ]
    document["trim"] = [
        {
            "test": "trim-validation",
            "pattern": "incompressible",
            "span_bytes": 2**30,
            "torture_seconds": 60.5,
            "discard_method": "blkdiscard",
            "clean_bytes_per_second": 4e8,
            "after_torture_bytes_per_second": 1e8,
            "after_trim_bytes_per_second": 3.9e8,
        }
    ]
    document["failure"] = {"message": "none", "errno": 5, "test": "randread-4k-qd3"}
    document["tool"]["command_line"] = "loadgen run"
    document["drive"].update(
        part_number="PN-1", hardware_revision="rev A", kind="ssd", interface="pcie-nvme"
    )
    document["bench"] = {name: f"bench {name}" for name in TestBench.FIELDS}
    document["host"].update(os="Debian", memory_bytes=2**34)
    document["target"].update(model="Disk", serial="S1", firmware="F1")
    # What versions 2 and 3 added to the bench and the target, out of a version 1 document.
    version_1 = SCHEMA["$defs"]["version_1_members"]["properties"]
    versions_1_2 = SCHEMA["$defs"]["versions_1_2_members"]["properties"]
    for part in ("bench", "target"):
        for added in (version_1, versions_1_2):
            for name in added.get(part, {}).get("properties", {}):
                document[part].pop(name, None)
    document.pop("health", None)
    document["parameters"].update(
        tests=["randread-4k-qd3"],
        target_size_bytes=2**30,
        quick=False,
        compressible_ratio=2.0,
        ad_hoc=False,
    )
    return document


def maximal_published() -> dict:
    return {
        "schema_version": 1,
        "status": "complete",
        "source": {
            "kind": "published",
            "citation": {
                "publisher": "Publisher",
                "title": "Title",
                "author": "Author",
                "published_on": "2010-04-28",
                "url": "https://example.com/review",
                "rate_unit": "MB/s",
                "rate_unit_bytes": 1000000,
                "locator": "table 1",
            },
        },
        "tool": {"name": "Iometer"},
        "drive": {"manufacturer": "Maker", "model": "Model P"},
        "drive_state": "unknown",
        "parameters": {"suite": {"name": "desktop-2010", "version": 1}},
        "results": [
            {"test": "randwrite-4k-qd3-8g", "pattern": "compressible", "bytes_per_second": 1.5e8}
        ],
    }


def _latency(low: int, high: int) -> dict:
    """A latency summary with every member: min <= mean <= max, the percentiles between."""
    return {
        "mean": (low + high) / 2,
        "stddev": (high - low) / 4,
        "min": low,
        "max": high,
        "percentiles": {"50": (low + high) // 2, "99.9": high - 1},
    }


def _completion(latency: dict) -> dict:
    """The completion part of a latency summary: each figure nine tenths of it."""
    part = {k: type(v)(v * 0.9) for k, v in latency.items() if k != "percentiles"}
    part["percentiles"] = {p: int(v * 0.9) for p, v in latency["percentiles"].items()}
    return part


def _direction(io_count: int, block_size: int, seconds: int, low: int) -> dict:
    latency = _latency(low, 40 * low)
    return {
        "io_count": io_count,
        "bytes": io_count * block_size,
        "bytes_per_second": io_count * block_size / seconds,
        "iops": io_count / seconds,
        "latency_ns": latency,
        "clat_ns": _completion(latency),
    }


def maximal_measured_v2() -> dict:
    """Version 2 with every member it added: clat_ns beside latency_ns, jobs, a mixed
    result with its reads and writes apart, a write saturation, a second pass (repeat),
    parameters.jobs, repeat and precondition; an interrupted run (status incomplete), so
    that partial may be present (on the mixed result: one entry at most is, the test the
    run was in when interrupted; versions 3 and 4 move it to a consistency series and the
    WSAT, so that each section's partial is a slot)."""
    document = maximal_measured()
    document["schema_version"] = 2
    document["status"] = "incomplete"
    document["bench"].update(kernel="bench kernel", link="bench link")
    document["target"].update(interface="nvme", link="PCIe 4.0 x4 (16.0 GT/s)")
    document["parameters"].update(
        jobs=2,
        repeat=2,
        precondition="fill",
        tests=["randread-4k-qd3", "consistency-4k-qd32", "write-saturation-128k-qd32"],
    )
    first = document["results"][0]
    first.update(
        jobs=2,
        repeat=2,
        clat_ns=_completion({"percentiles": {}, **first["latency_ns"]}),
    )
    # The site has no mixed catalog test (loadgen's are ad hoc, "adhoc-randrw70-..."), but
    # the schema and the checks take a mixed result under a catalog id: its members must be
    # stored, or refused, like any other.
    seconds, reads, writes = 180, 700_000, 300_000
    read, write = (
        _direction(reads, 4096, seconds, 50_000),
        _direction(writes, 4096, seconds, 60_000),
    )
    # The whole's latency spans its reads' and writes', its mean theirs by their I/Os.
    whole = _latency(50_000, 40 * 60_000)
    whole["mean"] = (reads * read["latency_ns"]["mean"] + writes * write["latency_ns"]["mean"]) / (
        reads + writes
    )
    mixed = {
        "test": "randread-4k-qd3",
        "pattern": "incompressible",
        "block_size": 4096,
        "queue_depth": 3,
        "span_bytes": 8 * 2**30,
        "duration_ns": seconds * 10**9,
        "io_count": reads + writes,
        "bytes": (reads + writes) * 4096,
        "bytes_per_second": (reads + writes) * 4096 / seconds,
        "iops": (reads + writes) / seconds,
        "latency_ns": whole,
        "clat_ns": _completion(whole),
        "jobs": 2,
        "rwmixread": 70,
        "read": read,
        "write": write,
        "partial": True,
    }
    document["results"].append(mixed)
    series = [10**9, 11 * 10**8, 105 * 10**7, 3 * 10**8, 3 * 10**8, 3 * 10**8, 3 * 10**8]
    document["saturation"] = [
        {
            "test": "write-saturation-128k-qd32",
            "pattern": "incompressible",
            "span_bytes": sum(series),
            "block_size": 131072,
            "queue_depth": 32,
            "interval_ns": 1_000_000_000,
            "duration_ns": 7_000_000_000,
            "discard_method": "punch-hole",
            "bytes_written": sum(series),
            "mean_bytes_per_second": sum(series) / 7,
            "initial_bytes_per_second": 1e9,
            "threshold_fraction": 0.7,
            "exhausted": True,
            "exhausted_at_s": 3.0,
            "bytes_before_exhausted": sum(series[:3]),
            "bytes_per_second_before": sum(series[:3]) / 3,
            "bytes_per_second_after": 3e8,
            "bytes_per_interval": series,
        }
    ]
    return document


def _health_snapshot(taken_at: str, celsius: int, written: int) -> dict:
    """A health snapshot with every figure the schema defines (NVMe's and ATA's alike)."""
    return {
        "taken_at": taken_at,
        "temperature_celsius": celsius,
        "critical_warning": 0,
        "available_spare_percent": 100,
        "available_spare_threshold_percent": 10,
        "percentage_used": 3,
        "data_read_bytes": 512_000 * 1000,
        "data_written_bytes": written,
        "power_on_hours": 1234,
        "power_cycles": 56,
        "unsafe_shutdowns": 2,
        "media_errors": 0,
        "reallocated_sectors": 0,
        "pending_sectors": 0,
        "lbas_written": written // 512,
    }


def maximal_measured_v3() -> dict:
    """Version 3 with every member it added: the drive's identity in target (its serial
    only as a hash) and its health before and after the run."""
    document = maximal_measured_v2()
    document["schema_version"] = 3
    document["results"][-1].pop("partial")
    document["consistency"][0]["partial"] = True
    document["target"].pop("serial")
    document["target"].update(
        vendor="Maker", serial_hash="0123456789abcdef0123456789abcdef", identified_by="sysfs"
    )
    document["health"] = {
        "source": "nvme-smart-log",
        "reason": "the controller did not answer after the run",
        "before": _health_snapshot("2026-11-21T10:00:00Z", 35, 512_000 * 10**6),
        "after": _health_snapshot("2026-11-21T10:10:00Z", 51, 512_000 * (10**6 + 4096)),
    }
    return document


def maximal_measured_v4() -> dict:
    """Version 4 with every member it added: a WSAT (SNIA PTS write saturation) with its
    target, time cap, what stopped it and its half-rate point; the settings loadgen records
    to repeat a run; and fio's own steady-state verdict on a result (a member of every
    version)."""
    document = maximal_measured_v3()
    document["schema_version"] = 4
    document["consistency"][0].pop("partial")
    document["parameters"]["tests"].append("wsat-4k-qd32")
    span = 2 * 10**9
    rounds = [12 * 10**8, 11 * 10**8, 10 * 10**8, 5 * 10**8, 4 * 10**8, 4 * 10**8, 4 * 10**8]
    minute = 60_000_000_000
    document["saturation"].append(
        {
            "test": "wsat-4k-qd32",
            "pattern": "incompressible",
            "span_bytes": span,
            "block_size": 4096,
            "queue_depth": 32,
            "interval_ns": minute,
            "duration_ns": 7 * minute,
            "discard_method": "blkdiscard",
            "partial": True,
            "bytes_written": sum(rounds),
            "mean_bytes_per_second": sum(rounds) / 420,
            "initial_bytes_per_second": 1.1e9 / 60,
            "threshold_fraction": 0.7,
            "exhausted": True,
            "exhausted_at_s": 180.0,
            "bytes_before_exhausted": sum(rounds[:3]),
            "bytes_per_second_before": sum(rounds[:3]) / 180,
            "bytes_per_second_after": sum(rounds[3:]) / 240,
            "target_bytes": 4 * span,
            "time_cap_ns": 86_400_000_000_000,
            "stopped_by": "interrupted",
            "halved_at_s": 240.0,
            "bytes_before_halved": sum(rounds[:4]),
            "bytes_per_interval": rounds,
        }
    )
    # The settings loadgen records for the run page's command (results/reproduce.py).
    document["parameters"].update(
        qd_max=64,
        round_s=60.0,
        time_s=86400.0,
        rw="randrw",
        rwmixread=70,
        block_size=4096,
        queue_depth=32,
        span_bytes=span,
    )
    document["results"][0]["fio_steadystate"] = {
        "criterion": "iops_slope:0.1%",
        "window_s": 60,
        "attained": True,
        "value": "0.05%",
    }
    return document


def _histogram(latency: dict, io_count: int) -> dict:
    """The histogram of a latency summary (results.histograms' encoding): its I/Os in
    the buckets of its min, its median and its max, two runs of buckets and an empty bucket
    inside the first."""
    low = histograms.bucket_index(latency["min"])
    high = histograms.bucket_index(latency["max"])
    assert high > low + 8, latency  # apart enough for two runs
    third = io_count // 3
    buckets = {str(low): [third, 0, io_count - 2 * third], str(high): [third]}
    return {"sub_bucket_bits": histograms.SUB_BUCKET_BITS, "unit": "ns", "buckets": buckets}


def maximal_measured_v5() -> dict:
    """Version 5 with every member it added: the histogram of every latency summary of
    every result (a mixed result's reads and writes included), and a paced result's rate
    and its fraction of the unpaced maximum, with --rate and --load recorded."""
    document = maximal_measured_v4()
    document["schema_version"] = 5
    for entry in document["results"]:
        for owner in [entry, *(entry[side] for side in documents.MIXED_SIDES if side in entry)]:
            for kind in documents.LATENCY_KINDS:
                if kind in owner:
                    owner[kind]["histogram"] = _histogram(owner[kind], owner["io_count"])
    document["results"][0].update(rate_iops=9000, load_percent=90)
    document["parameters"].update(rate_iops=9000, load_percent=[10, 90])
    return document


BASES = {
    "measured": maximal_measured,
    "published": maximal_published,
    "measured-v2": maximal_measured_v2,
    "measured-v3": maximal_measured_v3,
    "measured-v4": maximal_measured_v4,
    "measured-v5": maximal_measured_v5,
}
# The base each one was made from: the same field at the same place is the same slot.
EXTENDS = {
    "measured-v2": "measured",
    "measured-v3": "measured-v2",
    "measured-v4": "measured-v3",
    "measured-v5": "measured-v4",
}
# A mixed result's writes hold what its reads hold, checked by one loop over both
# (documents.MIXED_SIDES) and kept alike in the document: the reads' slots stand for them.
MIRRORED = ("results", STAR, "write")


def mirrored(key: tuple) -> bool:
    return key[: len(MIRRORED)] == MIRRORED


def leaves(value: Any, path: tuple = ()) -> Iterator[tuple[tuple, Any]]:
    """(path, value) of every scalar in a document, and every array item."""
    if isinstance(value, dict):
        for key, item in value.items():
            yield from leaves(item, (*path, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from leaves(item, (*path, index))
    else:
        yield path, value


def objects(value: Any, path: tuple = ()) -> Iterator[tuple]:
    """The path of every object in a document."""
    if isinstance(value, dict):
        yield path
        for key, item in value.items():
            yield from objects(item, (*path, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from objects(item, (*path, index))


@dataclass(frozen=True)
class Slot:
    base: str
    path: tuple
    node: dict = field(compare=False, hash=False)

    def __str__(self) -> str:
        return f"{self.base}:{documents.pointer(*self.path)}"

    @property
    def pointer(self) -> str:
        return documents.pointer(*self.path)

    @property
    def template(self) -> tuple:
        return template(self.path)

    def document(self, value: Any = None, *, set_value: bool = True) -> dict:
        document = BASES[self.base]()
        if set_value:
            put(document, self.path, value)
        return document


def put(document: dict, path: tuple, value: Any) -> None:
    target = document
    for part in path[:-1]:
        target = target[part]
    target[path[-1]] = value


def get(document: Any, path: tuple) -> Any:
    for part in path:
        document = document[part]
    return document


def slots() -> list[Slot]:
    """A slot for every scalar field the schema defines, as the maximal documents hold it:
    one per field, two per array or map of them (the first items stand for the rest). A
    base made from another adds none where that one (or the one it was made from) has a
    slot at the same place; the writes of a mixed result none (MIRRORED)."""
    found, per_template = [], {}
    for base, make in BASES.items():
        made_from = []
        while (base_of := EXTENDS.get(made_from[-1] if made_from else base)) is not None:
            made_from.append(base_of)
        for path, _ in leaves(make()):
            key = template(path)
            taken = per_template.setdefault(key, [])
            if any((origin, path) in taken for origin in made_from) or mirrored(key):
                continue
            if (STAR in key and len(taken) < 2) or not taken:
                taken.append((base, path))
                found.append(Slot(base, path, node_at(path)))
    return found


def is_free_string(node: dict) -> bool:
    return node.get("type") == "string" and "format" not in node and "maxLength" in node


# -- rows ------------------------------------------------------------------------------------
def tables() -> list[str]:
    return [
        model._meta.db_table
        for label in ("drives", "results")
        for model in apps.get_app_config(label).get_models(include_auto_created=True)
    ]


def row_counts() -> dict[str, int]:
    """Rows in every table of the catalog and the results, in one query."""
    names = tables()
    with connection.cursor() as cursor:
        cursor.execute("SELECT " + ", ".join(f'(SELECT count(*) FROM "{t}")' for t in names))
        return dict(zip(names, cursor.fetchone(), strict=True))


class rolled_back:
    """A savepoint undone at the end: each generated example starts from the same rows."""

    def __enter__(self):
        self.atomic = transaction.atomic()
        self.atomic.__enter__()
        return self

    def __exit__(self, *exc):
        transaction.set_rollback(True)
        return self.atomic.__exit__(*exc)


def deep(document: dict) -> dict:
    return copy.deepcopy(document)
