"""Trust at the door (results.plausibility): every figure a document carries, of every kind
the schema declares, pushed past each of its bounds is refused or held, never published;
no sequence of one reviewer's uploads moves a ranked figure past the hold bound; a partial
result is held like a whole one; an unnamed drive and a drive block that contradicts the
catalog are refused."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from drives.models import PLACEHOLDER_NAMES, Drive
from drives.services import CLAIM_DIFFERS
from results import plausibility
from results.documents import SECTION_OF_KIND, UNNAMED_DRIVE, pointer, schema
from results.models import LeaderboardEntry, Run
from results.services import run_ingest
from results.synthetic import measured_document
from tests.api.conftest import post_document, rows

pytestmark = pytest.mark.django_db
PROPERTY = settings(
    max_examples=12,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
DRIVE = {"manufacturer": "Trust", "model": "Door", "interface": "sata-6g", "kind": "ssd"}
CAPACITY = 256 * 10**9
MIXED = "randrw70-4k-qd32-8g"


def _mixed() -> dict[str, Any]:
    seconds, reads, writes, depth = 180, 700_000, 300_000, 32
    iops = (reads + writes) / seconds
    mean = depth / iops * 1e9

    def side(count: int) -> dict[str, Any]:
        return {
            "io_count": count,
            "bytes": count * 4096,
            "bytes_per_second": count * 4096 / seconds,
            "iops": count / seconds,
            "latency_ns": {"mean": mean, "min": int(mean / 4), "max": int(mean * 30)},
        }

    return {
        "test": MIXED,
        "pattern": "incompressible",
        "block_size": 4096,
        "queue_depth": depth,
        "span_bytes": 8 * 2**30,
        "duration_ns": seconds * 10**9,
        "io_count": reads + writes,
        "bytes": (reads + writes) * 4096,
        "bytes_per_second": iops * 4096,
        "iops": iops,
        "iops_stddev": iops / 10,
        "iops_min": iops * 0.8,
        "latency_ns": {
            "mean": mean,
            "stddev": mean / 3,
            "min": int(mean / 4),
            "max": int(mean * 30),
        },
        "clat_ns": {"mean": mean * 0.9, "min": int(mean / 5), "max": int(mean * 29)},
        "rwmixread": 70,
        "read": side(reads),
        "write": side(writes),
    }


def _saturation() -> list[dict[str, Any]]:
    series = [500_000_000] * 5 + [100_000_000] * 5
    wsat = [300_000_000] * 4 + [100_000_000] * 8
    return [
        {
            "test": "write-saturation-128k-qd32",
            "pattern": "incompressible",
            "span_bytes": sum(series),
            "block_size": 131072,
            "queue_depth": 32,
            "interval_ns": 10**9,
            "duration_ns": 10 * 10**9,
            "bytes_written": sum(series),
            "mean_bytes_per_second": sum(series) / 10,
            "initial_bytes_per_second": 5e8,
            "threshold_fraction": 0.5,
            "exhausted": True,
            "exhausted_at_s": 5,
            "bytes_before_exhausted": 5 * 500_000_000,
            "bytes_per_second_before": 5e8,
            "bytes_per_second_after": 1e8,
            "bytes_per_interval": series,
        },
        {
            "test": "wsat-4k-qd32",
            "pattern": "incompressible",
            "span_bytes": sum(wsat) // 4,
            "block_size": 4096,
            "queue_depth": 32,
            "interval_ns": 10**9,
            "duration_ns": 12 * 10**9,
            "bytes_written": sum(wsat),
            "mean_bytes_per_second": sum(wsat) / 12,
            "initial_bytes_per_second": 3e8,
            "threshold_fraction": 0.7,
            "exhausted": False,
            "target_bytes": sum(wsat),
            "time_cap_ns": 86_400 * 10**9,
            "stopped_by": "bytes",
            "halved_at_s": 5,
            "bytes_before_halved": 4 * 300_000_000 + 100_000_000,
            "bytes_per_interval": wsat,
        },
    ]


def document(seed: int = 1, **drive: Any) -> dict[str, Any]:
    """A measured run of every kind of entry (four corners, a mixed test, consistency,
    write saturation and WSAT, TRIM), each member the schema declares present, of a
    SATA 6 Gb/s drive of 256 GB."""
    doc = measured_document(seed=seed, series_seconds=300, capacity_bytes=CAPACITY)
    doc["schema_version"] = 4
    doc["drive"] = {**DRIVE, "capacity_bytes": CAPACITY, **drive}
    doc["parameters"].pop("suite")
    for result in doc["results"]:
        result["iops_stddev"] = result["iops"] / 10
        result["iops_min"] = result["iops"] * 0.8
        mean = result["latency_ns"]["mean"]  # none shorter than its block's time on the link
        result["latency_ns"] = {
            "mean": mean,
            "stddev": mean / 5,
            "min": int(mean * 0.8),
            "max": int(mean * 3),
            "percentiles": {"50": int(mean * 0.95), "99": int(mean * 2)},
        }
    doc["results"].append(_mixed())
    doc["saturation"] = _saturation()
    doc["trim"] = [
        {
            "test": "trim-validation",
            "pattern": "incompressible",
            "span_bytes": 2**30,
            "torture_seconds": 600,
            "discard_method": "blkdiscard",
            "clean_bytes_per_second": 4e8,
            "after_torture_bytes_per_second": 1e8,
            "after_trim_bytes_per_second": 3.9e8,
        }
    ]
    return doc


@pytest.fixture
def catalog_drive() -> Drive:
    """The drive, with a reviewed reference in every test: imported by staff."""
    run_ingest(document=json.dumps(document(seed=100)), submitter=None)
    return Drive.objects.get(model="Door")


def status(response) -> str:
    """'refused', or the status the stored run has."""
    if response.status_code == 400:
        return "refused"
    assert response.status_code == 201, response.content
    return Run.objects.get(pk=response.json()["run"]["id"]).status


# -- every declared member, pushed past each bound ------------------------------------------
def _numbers(value: Any, path: tuple) -> list[tuple]:
    """The paths of the numbers within a member's value (the member itself, a series'
    points, a latency's figures and percentiles)."""
    if isinstance(value, bool):
        return []
    if isinstance(value, int | float):
        return [path]
    if isinstance(value, dict):
        return [p for k, v in value.items() for p in _numbers(v, (*path, k))]
    if isinstance(value, list):
        return [p for i, v in enumerate(value[:2]) for p in _numbers(v, (*path, i))]
    return []


def _quantity(path: tuple) -> plausibility.Quantity | None:
    member = plausibility.declared()[path[0]]
    for step in path[2:]:
        if isinstance(step, int) or member.items:
            continue
        member = member.members.get(step) or member.members.get("*")
        if member is None:
            return None
    return member.quantity


def declared_slots() -> list[tuple]:
    """Every number of the base document whose member declares a checked quantity."""
    doc = document()
    slots = []
    for section in SECTION_OF_KIND.values():
        for index, entry in enumerate(doc.get(section, [])):
            for path in _numbers(entry, (section, index)):
                quantity = _quantity(path)
                if quantity is not None and quantity.kind not in ("setting", "interval"):
                    slots.append(path)
    return slots


def _set(doc: dict, path: tuple, value: Any) -> None:
    node = doc
    for step in path[:-1]:
        node = node[step]
    node[path[-1]] = type(node[path[-1]])(value)


def _get(doc: dict, path: tuple) -> Any:
    node = doc
    for step in path:
        node = node[step]
    return node


SLOTS = declared_slots()


def test_the_base_document_of_an_untrusted_reviewer_is_published(newcomer, catalog_drive):
    """So that every push below can fail: unpushed, the document lands published."""
    assert status(post_document(newcomer, document(seed=2))) == Run.Status.PUBLISHED


def test_every_kind_of_entry_has_declared_members_pushed():
    kinds = {_quantity(path).kind for path in SLOTS}
    assert kinds >= {"rate", "sample_rate", "spread", "count", "series", "extent", "latency"}
    assert {path[0] for path in SLOTS} == set(SECTION_OF_KIND.values())


# Which way a figure of each kind has a bound to push it past: up, every kind (the line
# rate, the capacity, its neighbours); down, a test's mean rate (one I/O a second), counts
# and durations (their rate), spreads and latencies (what their neighbours allow) but a
# latency's least, which may be as short as the drive allows.
DOWN = {"rate", "count", "duration", "spread", "latency"}


def _pushes(path: tuple) -> list[float]:
    kind = _quantity(path).kind
    if kind == "rate":  # below one I/O a second
        return [1e6, 1e-6]
    down = kind in DOWN and path[-1] != "min"
    return [1e6, 1e-3] if down else [1e6]


PUSHES = [(path, factor) for path in SLOTS for factor in _pushes(path)]


@pytest.mark.parametrize("path, factor", PUSHES, ids=[f"{pointer(*p)}x{f:g}" for p, f in PUSHES])
def test_a_declared_figure_pushed_past_its_bounds_is_never_published(
    newcomer, catalog_drive, path, factor
):
    doc = document(seed=3)
    doc["drive"] = {"slug": catalog_drive.slug, "manufacturer": "Trust", "model": "Door"}
    value = _get(doc, path)
    pushed = value * factor
    if isinstance(value, int):
        pushed = max(int(pushed), 0)
        if pushed == value:
            return
    _set(doc, path, pushed)
    before = rows()
    outcome = status(post_document(newcomer, doc))
    assert outcome in ("refused", Run.Status.HELD), (pointer(*path), value, pushed)
    if outcome == "refused":
        assert rows() == before


# -- the catalog decides ------------------------------------------------------------------
@pytest.mark.parametrize(
    "claim",
    [{"interface": i} for i in ("pcie-nvme", "sata-3g", "other", "pata")]
    + [{"kind": k} for k in ("virtual", "hdd")],
)
@pytest.mark.parametrize("by_slug", [False, True])
def test_a_drive_block_that_contradicts_the_catalog_is_refused_at_the_field(
    newcomer, catalog_drive, claim, by_slug
):
    """The issue's upload: the X25-E claimed "pcie-nvme" (or "virtual") with 3.5 GB/s."""
    doc = document(seed=4)
    doc["drive"] = {"manufacturer": "Trust", "model": "Door", **claim}
    if by_slug:
        doc["drive"]["slug"] = catalog_drive.slug
    for result in doc["results"]:
        result.update(bytes_per_second=3.5e9, iops=3.5e9 / result["block_size"])
    before = rows()
    response = post_document(newcomer, doc)
    assert response.status_code == 400, response.content
    (field,) = claim
    errors = response.json()["errors"]
    assert errors == [
        {
            "pointer": f"/drive/{field}",
            "message": CLAIM_DIFFERS.format(
                drive=catalog_drive,
                field=field,
                catalog=getattr(catalog_drive, field),
                claimed=claim[field],
            ),
        }
    ]
    assert rows() == before


# -- a reference no uploader can move -------------------------------------------------------
@given(factors=st.lists(st.floats(min_value=1.0, max_value=9.9), min_size=1, max_size=8))
@PROPERTY
def test_no_sequence_of_one_reviewers_uploads_moves_a_ranked_figure_past_the_bound(
    newcomer, catalog_drive, factors
):
    """The issue's walk: each upload 9.9x the drive's current figure. Whatever the
    sequence, the ranked figure stays within HOLD_FACTOR of the reviewed reference."""
    test = "randread-4k-qd3"
    entry = LeaderboardEntry.objects.get(
        drive=catalog_drive, test__identifier=test, pattern="incompressible"
    )
    reference = entry.iops
    for n, factor in enumerate(factors):
        current = LeaderboardEntry.objects.get(pk=entry.pk).iops
        doc = document(seed=10 + n)
        doc["results"] = [r for r in doc["results"] if r["test"] == test][1:]
        (result,) = doc["results"]
        iops = current * factor
        result.update(
            iops=iops,
            bytes_per_second=iops * 4096,
            io_count=int(iops * 180),
            bytes=int(iops * 180) * 4096,
            iops_stddev=iops / 10,
            iops_min=iops * 0.8,
        )
        result["latency_ns"] = {
            "mean": 3 / iops * 1e9,
            "min": int(0.6 / iops * 1e9),
            "max": int(120 / iops * 1e9),
        }
        for section in ("consistency", "saturation", "trim"):
            doc.pop(section)
        post_document(newcomer, doc)
        ranked = LeaderboardEntry.objects.get(pk=entry.pk).iops
        assert ranked < reference * plausibility.HOLD_FACTOR, (factors[: n + 1], ranked)


# -- partial results ------------------------------------------------------------------------
def _interrupted(doc: dict, *paths: tuple) -> dict:
    doc["schema_version"] = 4
    doc["status"] = "incomplete"
    for section, index in paths:
        doc[section][index]["partial"] = True
    return doc


def test_a_partial_result_far_from_the_reference_is_held(newcomer, catalog_drive):
    """The issue's upload: two partial results at 463x the Samsung SLC's median showed on
    its public drive page."""
    doc = _interrupted(document(seed=5), ("results", 0))
    result = doc["results"][0]
    result["io_count"] = result["io_count"] // 463
    result["bytes"] = result["io_count"] * 4096
    result["iops"] = result["io_count"] / 180
    result["bytes_per_second"] = result["iops"] * 4096
    result["iops_stddev"], result["iops_min"] = result["iops"] / 10, result["iops"] * 0.8
    result["latency_ns"] = {"mean": 3 / result["iops"] * 1e9}
    response = post_document(newcomer, doc)
    assert status(response) == Run.Status.HELD
    reasons = response.json()["run"]["held_reasons"]
    assert any(
        r.startswith("randread-4k-qd3, compressible: ")
        and " IOPS is " in r
        and "x below the drive's reviewed figures" in r
        for r in reasons
    ), reasons


def test_an_interrupted_run_holds_one_partial_entry(newcomer, catalog_drive):
    doc = _interrupted(document(seed=6), ("results", 0), ("consistency", 1))
    response = post_document(newcomer, doc)
    assert response.status_code == 400, response.content
    assert [e["pointer"] for e in response.json()["errors"]] == ["/consistency/1/partial"]


# -- no placeholder drives ------------------------------------------------------------------
@pytest.mark.parametrize("name", sorted(PLACEHOLDER_NAMES | {"-", "?", " ... ", "UNKNOWN"}))
def test_an_unnamed_drive_is_refused_at_the_drive(newcomer, name):
    doc = document(seed=7, manufacturer=name, model=name)
    for field in ("interface", "kind"):
        doc["drive"].pop(field)
    response = post_document(newcomer, doc)
    if not name.strip():  # the schema's "must not be blank" says it first
        assert response.status_code == 400
        return
    assert response.status_code == 400, response.content
    assert response.json()["errors"] == [
        {
            "pointer": f"/drive/{field}",
            "message": UNNAMED_DRIVE.format(field=field, value=json.dumps(name)),
        }
        for field in ("manufacturer", "model")
    ]
    assert not Drive.objects.filter(model=name).exists()


def test_an_unnamed_drive_takes_the_identity_the_tool_read(newcomer):
    doc = document(seed=8, manufacturer="unknown", model="unknown")
    doc["target"].update(vendor="Samsung", model="SSD 990 PRO 2TB", identified_by="nvme-identify")
    for field in ("interface", "kind"):
        doc["drive"].pop(field)
    response = post_document(newcomer, doc)
    assert response.status_code == 201, response.content
    drive = Run.objects.get(pk=response.json()["run"]["id"]).drive
    assert (drive.manufacturer.name, drive.model) == ("Samsung", "SSD 990 PRO 2TB")
    assert not Drive.objects.filter(model="unknown").exists()


def test_every_number_of_the_documents_entries_declares_its_quantity():
    """A figure added to the schema is checked only once it says what it is: this fails
    until it does."""
    undeclared = []

    def walk(node: dict, path: tuple, declared: bool) -> None:
        node_declared = declared or "x-quantity" in node
        ref = node.get("$ref")
        if ref:
            walk(schema()["$defs"][ref.rsplit("/", 1)[1]], path, node_declared)
            return
        if node.get("type") in ("number", "integer") and not node_declared:
            undeclared.append(pointer(*path))
        for name, sub in node.get("properties", {}).items():
            walk(sub, (*path, name), False)
        if isinstance(node.get("items"), dict):
            walk(node["items"], (*path, "*"), node_declared)
        if isinstance(node.get("additionalProperties"), dict):
            walk(node["additionalProperties"], (*path, "*"), node_declared)

    for section in SECTION_OF_KIND.values():
        walk(schema()["properties"][section], (section,), False)
    assert undeclared == []
    kinds = set()

    def collect(member: plausibility.Member) -> None:
        if member.quantity is not None:
            kinds.add(member.quantity.kind)
        for inner in member.members.values():
            collect(inner)

    for member in plausibility.declared().values():
        collect(member)
    assert kinds <= set(plausibility.KINDS)


@pytest.mark.parametrize("names", [{}, {"manufacturer": "unknown", "model": "unknown"}])
def test_a_slug_alone_names_the_drive(api, catalog_drive, names):
    """loadgen --drive slug=... writes "unknown" for the names it was not given: the slug
    names the catalog drive alone."""
    doc = document(seed=11)
    doc["drive"] = {"slug": catalog_drive.slug, **names}
    response = post_document(api, doc)
    assert response.status_code == 201, response.content
    assert Run.objects.get(pk=response.json()["run"]["id"]).drive == catalog_drive


def test_a_drive_block_without_slug_nor_names_is_refused(api):
    doc = document(seed=12)
    doc["drive"] = {"capacity_bytes": CAPACITY}
    response = post_document(api, doc)
    assert response.status_code == 400
    assert response.json()["errors"][0]["pointer"] == "/drive"
