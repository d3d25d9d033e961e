import json
from pathlib import Path

import pytest
from django.conf import settings

from drives.models import Drive, FirmwareVersion, Manufacturer
from drives.services import AMBIGUOUS_DRIVE, NO_SUCH_SLUG
from results import documents, plausibility
from results.documents import DocumentRejected
from results.models import (
    Citation,
    ConsistencySeries,
    LeaderboardEntry,
    Result,
    Run,
    TestBench,
    TrimValidation,
)
from results.services import run_ingest, run_withdraw, runs_delete
from results.steady_state import steady_state
from results.synthetic import measured_document
from tests.factories import DriveFactory, ManufacturerFactory, with_changes
from tests.results.helpers import published

pytestmark = pytest.mark.django_db
GB = 10**9

ROOT = Path(settings.BASE_DIR)
SAMPLES = sorted((ROOT / "results" / "schema" / "samples").glob("*.json"))
DEMO_DOCUMENTS = sorted((ROOT / "demo" / "runs").glob("*.json"))
WRITTEN_MODELS = [
    Manufacturer,
    Drive,
    FirmwareVersion,
    TestBench,
    Citation,
    Run,
    Result,
    ConsistencySeries,
    TrimValidation,
]


def row_counts() -> dict[str, int]:
    return {model.__name__: model.objects.count() for model in WRITTEN_MODELS}


def rejected(document, submitter=None) -> list[documents.DocumentProblem]:
    """Ingest a document that must fail; check it wrote nothing; return the problems."""
    before = row_counts()
    raw = document if isinstance(document, (bytes, str)) else json.dumps(document)
    with pytest.raises(DocumentRejected) as caught:
        run_ingest(document=raw, submitter=submitter)
    assert row_counts() == before, "a rejected document left rows behind"
    assert caught.value.problems, "a rejection must say why"
    return caught.value.problems


def only(problems) -> tuple[str, str]:
    assert len(problems) == 1, problems
    return problems[0].pointer, problems[0].message


# -- documents that must go in ----------------------------------------------------------------
@pytest.mark.parametrize("path", SAMPLES + DEMO_DOCUMENTS, ids=lambda p: p.name)
def test_every_sample_and_demo_document_ingests(path):
    outcome = run_ingest(document=path.read_bytes(), submitter=None)
    assert outcome.created
    run = outcome.run
    parsed = json.loads(path.read_text())
    assert run.results.count() == len(parsed.get("results", []))
    assert run.consistency_series.count() == len(parsed.get("consistency", []))
    assert run.trim_validations.count() == len(parsed.get("trim", []))
    assert run.saturation_series.count() == len(parsed.get("saturation", []))
    assert run.document == path.read_text()
    assert run.source == parsed["source"]["kind"]


def test_full_document_is_stored_in_base_units(document, raw, django_user_model):
    reviewer = django_user_model.objects.create_user("reviewer")
    run = run_ingest(document=raw, submitter=reviewer).run
    assert run.submitter == reviewer
    assert run.drive.manufacturer.name == "Maker"
    assert run.firmware.version == "1.0"
    assert run.bench.cpu == "Test CPU"
    assert run.suite.name == "desktop-2011"
    assert run.started_at.isoformat() == "2026-11-21T10:00:00+00:00"
    assert run.results.count() == 10
    first = document["results"][0]
    stored = run.results.get(test__identifier=first["test"], pattern=first["pattern"])
    assert stored.bytes_per_second == first["bytes_per_second"]
    assert stored.latency_percentiles_ns["99.9"] == first["latency_ns"]["percentiles"]["99.9"]
    series = run.consistency_series.get(spare_area_percent=25)
    iops = document["consistency"][1]["iops"]
    assert series.iops == iops
    window = steady_state(iops).window  # the SNIA PTS rule's (tests/results/test_steady_state)
    start, end = window.start_s, window.end_s
    assert (series.steady_state_start_s, series.steady_state_end_s) == (start, end)
    assert series.steady_min_iops == min(iops[start:end])
    assert series.steady_mean_iops == pytest.approx(sum(iops[start:end]) / (end - start))


def test_short_consistency_series_uses_the_last_30_percent(document):
    document["consistency"] = [
        {"test": "consistency-4k-qd32", "spare_area_percent": 0, "iops": [100] * 7 + [10, 20, 30]}
    ]
    series = run_ingest(document=json.dumps(document), submitter=None).run.consistency_series.get()
    assert (series.steady_state_start_s, series.steady_min_iops) == (7, 10)
    assert series.steady_mean_iops == pytest.approx(20)


def test_same_document_twice_gives_the_same_run(raw):
    first = run_ingest(document=raw, submitter=None)
    counts = row_counts()
    second = run_ingest(document=raw, submitter=None)
    assert (first.created, second.created) == (True, False)
    assert second.run.pk == first.run.pk
    assert row_counts() == counts


def test_same_content_with_other_spacing_is_the_same_document(document):
    first = run_ingest(document=json.dumps(document), submitter=None)
    second = run_ingest(document=json.dumps(document, indent=4, sort_keys=True), submitter=None)
    assert not second.created and second.run.pk == first.run.pk


def test_second_run_of_a_drive_reuses_catalog_rows(document):
    run_ingest(document=json.dumps(document), submitter=None)
    counts = row_counts()
    again = with_changes(
        document, started_at="2026-11-22T10:00:00Z", finished_at="2026-11-22T11:00:00Z"
    )
    assert run_ingest(document=json.dumps(again), submitter=None).created
    after = row_counts()
    for model in ("Manufacturer", "Drive", "FirmwareVersion", "TestBench"):
        assert after[model] == counts[model]
    assert after["Run"] == counts["Run"] + 1


def test_drive_matching_is_case_insensitive(document):
    maker = ManufacturerFactory(name="Maker")
    drive = DriveFactory(manufacturer=maker, model="Model X", capacity_bytes=256 * 10**9)
    document["drive"]["manufacturer"] = "MAKER"
    document["drive"]["model"] = "model x"
    assert run_ingest(document=json.dumps(document), submitter=None).run.drive == drive


# -- documents that must be refused, writing nothing -------------------------------------------
def test_not_json():
    assert only(rejected(b'{"schema_version": 1,')) == (
        "",
        documents.NOT_JSON.format(
            detail="Expecting property name enclosed in double quotes at line 1, column 22"
        ),
    )


def test_not_utf8():
    assert only(rejected(b'{"a": "\xff"}')) == ("", documents.NOT_UTF8)


@pytest.mark.parametrize("text", ["[1, 2]", '"run"', "3"])
def test_not_an_object(text):
    assert only(rejected(text)) == ("", documents.NOT_AN_OBJECT)


def test_duplicate_keys(raw):
    text = raw.decode().replace('"status": "complete"', '"status": "complete", "status": "failed"')
    pointer, message = only(rejected(text))
    duplicate = documents.DUPLICATE_KEY.format(key='"status"')
    assert (pointer, message) == ("", documents.NOT_JSON.format(detail=duplicate))


def test_wrong_schema_version(document):
    assert only(rejected(with_changes(document, schema_version=6))) == (
        "/schema_version",
        documents.UNSUPPORTED_VERSION.format(version=6, supported="1, 2, 3, 4 and 5"),
    )


def test_missing_field(document):
    del document["drive"]["model"]  # manufacturer and model, or the slug, name a drive
    assert only(rejected(document)) == (
        "/drive",
        documents.NEEDS_ONE_OF.format(fields="manufacturer/model, slug"),
    )


def test_missing_top_level_field(document):
    del document["results"]
    assert only(rejected(document)) == ("", documents.MISSING_FIELD.format(field="results"))


def test_wrong_type(document):
    document["results"][2]["iops"] = "fast"
    assert only(rejected(document)) == (
        "/results/2/iops",
        documents.WRONG_TYPE.format(expected="a number", actual="a string"),
    )


def test_unknown_field(document):
    document["drive"]["colour"] = "blue"
    assert only(rejected(document)) == (
        "/drive/colour",
        documents.UNKNOWN_FIELD.format(field='"colour"'),
    )


@pytest.mark.parametrize("constant", ["NaN", "Infinity", "-Infinity"])
def test_nan_and_infinity_literals(raw, constant):
    text = raw.decode().replace('"iops": ', f'"iops": {constant}, "x": ', 1)
    assert only(rejected(text)) == (
        "",
        documents.NOT_JSON.format(detail=documents.NON_JSON_CONSTANT.format(constant=constant)),
    )


def test_number_too_large_to_be_finite(document):
    # Valid JSON, but it reads as infinity: a measurement cannot be infinite.
    document["results"][0]["bytes_per_second"] = "HUGE"
    text = json.dumps(document).replace('"HUGE"', "1e999")
    assert only(rejected(text)) == ("/results/0/bytes_per_second", documents.NOT_FINITE)


def test_negative_rate(document):
    document["results"][1]["bytes_per_second"] = -5.0
    assert only(rejected(document)) == (
        "/results/1/bytes_per_second",
        documents.NOT_POSITIVE.format(limit=0),
    )


def test_negative_trim_rate(document):
    document["trim"] = [
        {
            "test": "trim-validation",
            "clean_bytes_per_second": 1e8,
            "after_torture_bytes_per_second": 0,
            "after_trim_bytes_per_second": 1e8,
        }
    ]
    assert only(rejected(document)) == (
        "/trim/0/after_torture_bytes_per_second",
        documents.NOT_POSITIVE.format(limit=0),
    )


def test_unknown_test_id(document):
    document["results"][3]["test"] = "randread-4k-qd64"
    assert only(rejected(document)) == (
        "/results/3/test",
        documents.UNKNOWN_TEST.format(test='"randread-4k-qd64"'),
    )


def test_test_in_the_wrong_section(document):
    document["results"][0]["test"] = "consistency-4k-qd32"
    pointer, message = only(rejected(document))
    assert pointer == "/results/0/test" and "belongs in 'consistency'" in message


def test_units_must_agree(document):
    document["results"][0]["bytes_per_second"] *= 1.5
    pointer, message = only(rejected(document))
    assert pointer == "/results/0/bytes_per_second" and "iops x block size" in message


def test_block_size_must_be_the_tests(document):
    document["results"][0]["block_size"] = 8192
    document["results"][0]["bytes_per_second"] = document["results"][0]["iops"] * 8192
    problems = rejected(document)
    assert (
        "/results/0/block_size",
        documents.BLOCK_SIZE_MISMATCH.format(value=8192, expected=4096, test="randread-4k-qd3"),
    ) in [(p.pointer, p.message) for p in problems]


def test_latency_order(document):
    document["results"][0]["latency_ns"]["min"] = 10**12
    problems = {(p.pointer, p.message) for p in rejected(document)}
    assert {
        ("/results/0/latency_ns", plausibility.LATENCY_ORDER),
        ("/results/0/latency_ns/percentiles", plausibility.PERCENTILE_ORDER),
    } <= problems  # and the spread such a range cannot have


def test_duplicate_result(document):
    document["results"].append(document["results"][0])
    pointer, message = only(rejected(document))
    assert pointer == f"/results/{len(document['results']) - 1}"
    assert message == documents.DUPLICATE_ENTRY.format(what="randread-4k-qd3 / compressible")


def test_incomplete_run(document):
    assert only(rejected(with_changes(document, status="incomplete"))) == (
        "/status",
        documents.NOT_COMPLETE_V1,
    )


def test_failed_run_needs_its_failure(document):
    # And, checked for meaning beside it (a member missing refuses nothing): a failed run
    # is not published, failure or not.
    problems = rejected(with_changes(document, status="failed"))
    assert [(p.pointer, p.message) for p in problems] == [
        ("", documents.MISSING_FIELD.format(field="failure")),
        ("/status", documents.NOT_COMPLETE.format(status="failed")),
    ]


def test_times_must_be_ordered(document):
    document["finished_at"] = "2026-11-20T00:00:00Z"
    assert only(rejected(document)) == ("/finished_at", documents.TIMES_ORDER)


def test_measured_run_needs_its_times(document):
    del document["started_at"]
    assert only(rejected(document)) == ("", documents.MISSING_FIELD.format(field="started_at"))


def test_published_run_needs_a_citation(document):
    document["source"] = {"kind": "published"}
    pointer, message = only(rejected(document))
    assert pointer == "/source" and message == documents.MISSING_FIELD.format(field="citation")


def test_empty_run(document):
    document["results"] = []
    del document["consistency"]
    assert only(rejected(document)) == ("", documents.NO_RESULTS)


def test_ambiguous_drive(document):
    maker = ManufacturerFactory(name="Maker")
    DriveFactory(
        manufacturer=maker, model="Model X", capacity_bytes=256 * 10**9, hardware_revision="rev A"
    )
    DriveFactory(
        manufacturer=maker, model="Model X", capacity_bytes=256 * 10**9, hardware_revision="rev B"
    )
    pointer, message = only(rejected(document))
    assert pointer == "/drive"
    assert message.startswith(AMBIGUOUS_DRIVE.split("(")[0].format(count=2))
    document["drive"]["hardware_revision"] = "rev B"
    run = run_ingest(document=json.dumps(document), submitter=None).run
    assert run.drive.hardware_revision == "rev B"


def test_fifty_megabyte_document(raw):
    padding = b" " * (50 * 1024 * 1024)
    big = raw[:-1] + padding + b"}"
    pointer, message = only(rejected(big))
    assert pointer == ""
    assert message == documents.TOO_LARGE.format(
        size=len(big), limit=settings.BENCH_MAX_DOCUMENT_BYTES
    )


def test_every_problem_is_reported_at_once(document):
    document["results"][0]["iops"] = "fast"
    document["drive"]["model"] = 7
    del document["tool"]
    pointers = {p.pointer for p in rejected(document)}
    assert pointers == {"/results/0/iops", "/drive/model", ""}


# -- withdrawal -----------------------------------------------------------------------------
def test_withdrawn_run_is_kept_but_not_published(raw):
    run = run_ingest(document=raw, submitter=None).run
    run_withdraw(run=run, reason="wrong firmware")
    run.refresh_from_db()
    assert run.status == Run.Status.WITHDRAWN and run.withdrawn_at is not None
    assert not Run.objects.published().filter(pk=run.pk).exists()
    assert run.results.count() == 10
    with pytest.raises(ValueError):
        run_withdraw(run=run, reason="again")


RUN_ROWS = ["Run", "Result", "ConsistencySeries", "TrimValidation"]


def entries(drive_id: int) -> list[dict]:
    """The drive's leaderboard entries, every column but their own ids."""
    rows = LeaderboardEntry.objects.filter(drive_id=drive_id).order_by("test_id", "pattern")
    return [{k: v for k, v in row.items() if k != "id"} for row in rows.values()]


@pytest.mark.parametrize("kept", [0, 1, 2])
def test_deleting_runs_leaves_their_drive_as_it_was_before_them(kept):
    def ingest(seed: int, model: str = "Model X") -> Run:
        document = json.dumps(measured_document(seed=seed, model=model))
        return run_ingest(document=document, submitter=None).run

    other = ingest(1, model="Other")
    others = entries(other.drive_id)
    kept_runs = [ingest(seed) for seed in range(1, kept + 1)]
    before = {k: v for k, v in row_counts().items() if k in RUN_ROWS}
    alone = entries(kept_runs[0].drive_id) if kept_runs else []
    added = [ingest(seed) for seed in range(kept + 1, 4)]
    drive = added[0].drive_id
    assert entries(drive) != alone

    assert runs_delete(runs=Run.objects.filter(pk__in=[r.pk for r in added])) == len(added)

    assert {k: v for k, v in row_counts().items() if k in RUN_ROWS} == before
    assert entries(drive) == alone
    assert Drive.objects.get(pk=drive).listed == bool(kept)
    assert entries(other.drive_id) == others and Drive.objects.get(pk=other.drive_id).listed
    assert runs_delete(runs=Run.objects.none()) == 0


@pytest.mark.parametrize(
    "url",
    [
        "not a uri",
        "javascript:alert(document.cookie)",
        "JavaScript:alert(1)",
        " javascript:alert(1)",
        "data:text/html,<script>alert(1)</script>",
        "vbscript:msgbox(1)",
        "ftp://example.com/review",
        "https://example.com/a b",
        "https://example.com/\n",
        "//example.com/review",
    ],
)
def test_citation_url_must_be_http(url):
    path = Path(settings.BASE_DIR) / "demo/runs/2013-intel-ssd-530-240gb.json"
    document = json.loads(path.read_text())
    document["source"]["citation"]["url"] = url
    problems = rejected(document)
    assert {p.pointer for p in problems} == {"/source/citation/url"}
    assert documents.NOT_HTTP_URL in {p.message for p in problems}


def test_impossible_dates_are_refused(document):
    document["started_at"] = "2026-02-30T10:00:00Z"
    assert only(rejected(document))[0] == "/started_at"


def test_absurdly_nested_document():
    text = '{"results": ' + "[" * 100_000 + "]" * 100_000 + "}"
    assert only(rejected(text)) == (
        "",
        documents.NOT_JSON.format(detail=documents.TOO_DEEP),
    )


# -- the examples, one each (the generated tests cover their classes) -----------------
def test_a_second_document_for_a_non_ascii_manufacturer_finds_it(document):
    document["drive"]["manufacturer"] = "ÖKO Speicher"
    first = run_ingest(document=json.dumps(document), submitter=None).run
    document["drive"].update(manufacturer="öko speicher", firmware="2.0")
    second = run_ingest(document=json.dumps(document), submitter=None).run
    assert second.drive == first.drive
    assert Manufacturer.objects.filter(name_key="öko speicher").count() == 1


def test_a_new_model_reusing_a_part_number_is_a_problem_at_the_part_number(document):
    document["drive"]["part_number"] = "PN-1"
    run_ingest(document=json.dumps(document), submitter=None)
    document["drive"]["model"] = "Another Model"
    assert only(rejected(document))[0] == "/drive/part_number"


def test_consistency_repeated_in_two_patterns_is_a_duplicate(document):
    document["consistency"][1].update(spare_area_percent=0, pattern="compressible")
    assert only(rejected(document)) == (
        "/consistency/1",
        documents.DUPLICATE_ENTRY.format(what="consistency-4k-qd32 / 0"),
    )


def test_trim_without_a_pattern_and_unspecified_are_a_duplicate(document):
    rates = {
        "clean_bytes_per_second": 3e8,
        "after_torture_bytes_per_second": 1e8,
        "after_trim_bytes_per_second": 2.9e8,
    }
    document["trim"] = [
        {"test": "trim-validation", **rates},
        {"test": "trim-validation", "pattern": "unspecified", **rates},
    ]
    assert only(rejected(document)) == (
        "/trim/1",
        documents.DUPLICATE_ENTRY.format(what="trim-validation / unspecified"),
    )


def test_a_result_whose_only_figure_is_a_latency_stddev_has_no_metric(document):
    document["results"][0] = {
        "test": "randread-4k-qd3",
        "pattern": "compressible",
        "latency_ns": {"stddev": 5.0},
    }
    pointer, message = only(rejected(document))
    assert pointer == "/results/0" and message.startswith("needs at least one of: ")


def test_a_name_longer_than_its_column(document):
    document["drive"]["manufacturer"] = "M" * 201
    assert only(rejected(document)) == ("/drive/manufacturer", documents.TOO_LONG.format(limit=200))
    document["drive"]["manufacturer"] = "M" * 200
    assert run_ingest(
        document=json.dumps(document), submitter=None
    ).run.drive.manufacturer.name == ("M" * 200)


def test_a_virtual_device(document):
    document["drive"]["kind"] = "virtual"
    assert run_ingest(document=json.dumps(document), submitter=None).run.drive.kind == "virtual"


@pytest.mark.parametrize("depth", [8, 100, 500, 990, 5000])
@pytest.mark.parametrize("opener, closer", [('{"a": ', "}"), ("[", "]")], ids=["objects", "arrays"])
@pytest.mark.parametrize("tail", ["", ', "x": "\\u0000"'], ids=["plain", "with-nul"])
def test_a_deeply_nested_document_is_refused_not_a_crash(depth, opener, closer, tail):
    assert rejected('{"results": ' + opener * depth + "1" + closer * depth + tail + "}")


def test_a_document_names_a_catalog_drive_by_its_slug():
    """The slug picks the drive where manufacturer and model alone are ambiguous; an unknown
    slug, one that is not a slug, or one of another drive is the document's problem, at
    /drive/slug or at the field that disagrees."""
    figures = [{"test": "randread-4k-qd3", "pattern": "unspecified", "iops": 5000}]
    small = published(manufacturer="Intel", model="X25-M", results=figures, capacity_bytes=80 * GB)
    published(manufacturer="Intel", model="X25-M", results=figures, capacity_bytes=160 * GB)
    run = published(manufacturer="Intel", model="X25-M", results=figures, slug=small.drive.slug)
    assert run.drive == small.drive
    document = json.loads(run.document)
    del document["drive"]["slug"]
    document["tool"]["name"] = "Iometer 2"  # another document, not a replay of the last
    pointer, message = only(rejected(document))
    assert pointer == "/drive" and f"(slug {small.drive.slug})" in message
    document["drive"]["slug"] = "no-such-drive"
    assert only(rejected(document)) == ("/drive/slug", NO_SUCH_SLUG.format(slug="no-such-drive"))
    document["drive"]["slug"] = "not a slug!"
    pointer, message = only(rejected(document))
    assert pointer == "/drive/slug" and "must be a drive's slug" in message
    document["drive"].update(slug=small.drive.slug, capacity_bytes=160 * GB)
    assert only(rejected(document))[0] == "/drive/capacity_bytes"
