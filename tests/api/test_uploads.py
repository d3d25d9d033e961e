"""POST /api/v1/runs/: a result document in, a run out; the same document again is the same
run; Idempotency-Key; new and ambiguous drives; the runs lists."""

import json

import pytest
from django.test import override_settings

from drives.models import Drive
from results.documents import MEANING_OF_REFUSED
from results.models import IdempotencyKey, Run
from tests.api.conftest import MY_RUNS, RUNS, post_document, rows
from tests.factories import DriveFactory, ManufacturerFactory

pytestmark = pytest.mark.django_db


def test_a_new_document_is_a_new_run_at_its_location(api, reviewer, document):
    response = post_document(api, document)
    assert response.status_code == 201, response.content
    body = response.json()
    run = Run.objects.get()
    assert body["created"] is True
    assert body["run"]["id"] == run.pk
    assert response["Location"] == body["run"]["url"] == f"http://testserver{RUNS}{run.pk}/"
    assert body["run"]["page"].endswith(f"/bench/runs/{run.pk}/")
    assert run.submitter == reviewer
    assert run.document == json.dumps(document)  # the body exactly as sent
    assert api.get(response["Location"]).json()["id"] == run.pk


def test_the_same_document_again_is_the_first_run(api, document):
    first = post_document(api, document)
    # The same content spelled differently: other key order and spacing.
    again = post_document(api, json.dumps(document, indent=2, sort_keys=True))
    assert (first.status_code, again.status_code) == (201, 200)
    assert again.json()["created"] is False
    assert again.json()["run"]["id"] == first.json()["run"]["id"]
    assert again["Location"] == first["Location"]
    assert Run.objects.count() == 1


def test_a_multipart_upload_takes_the_file(api, document):
    from django.core.files.uploadedfile import SimpleUploadedFile

    file = SimpleUploadedFile("run.json", json.dumps(document).encode(), "application/json")
    response = api.post(RUNS, {"document": file}, format="multipart")
    assert response.status_code == 201, response.content
    assert Run.objects.count() == 1


def test_idempotency_key_gives_the_first_response_again(api, document):
    first = post_document(api, document, HTTP_IDEMPOTENCY_KEY="upload-1")
    Run.objects.update(tool_version="changed")  # the replay is the stored response
    again = post_document(api, document, HTTP_IDEMPOTENCY_KEY="upload-1")
    assert (first.status_code, again.status_code) == (201, 201)
    assert again.json() == first.json()
    assert again["Location"] == first["Location"]
    assert IdempotencyKey.objects.count() == 1 and Run.objects.count() == 1


def test_a_replay_after_a_withdrawal_says_the_run_is_withdrawn(api, reviewer, document):
    """Replayed after its run was withdrawn, an upload gets the run as it is now, as the same
    upload without a key does: withdrawn, with no link to it."""
    from results.services import run_withdraw

    first = post_document(api, document, HTTP_IDEMPOTENCY_KEY="upload-1")
    run_withdraw(run=Run.objects.get(), by=reviewer, reason="wrong drive")
    again = post_document(api, document, HTTP_IDEMPOTENCY_KEY="upload-1")
    plain = post_document(api, document)
    assert again.status_code == first.status_code == 201 and plain.status_code == 200
    assert again.json()["run"] == plain.json()["run"]
    assert again.json()["run"]["status"] == "withdrawn" and again.json()["run"]["url"] is None
    assert "Location" not in again and "Location" not in plain
    assert Run.objects.count() == 1


def test_idempotency_key_with_another_body_is_refused(api, document):
    post_document(api, document, HTTP_IDEMPOTENCY_KEY="upload-1")
    other = dict(document, drive_state="fresh")
    before = rows()
    response = post_document(api, other, HTTP_IDEMPOTENCY_KEY="upload-1")
    assert response.status_code == 422
    assert "upload-1" in response.json()["detail"]
    assert "different request" in response.json()["detail"]
    assert rows() == before


def test_idempotency_keys_are_per_user(api, other_reviewer, document):
    from tests.api.conftest import token_client

    post_document(api, document, HTTP_IDEMPOTENCY_KEY="k")
    response = post_document(
        token_client(other_reviewer), dict(document, drive_state="fresh"), HTTP_IDEMPOTENCY_KEY="k"
    )
    assert response.status_code == 201


def test_a_rejected_upload_keeps_no_idempotency_key(api, document):
    bad = dict(document, status="running")
    assert post_document(api, bad, HTTP_IDEMPOTENCY_KEY="k").status_code == 400
    assert IdempotencyKey.objects.count() == 0
    assert post_document(api, document, HTTP_IDEMPOTENCY_KEY="k").status_code == 201


@pytest.mark.parametrize("key", ["", " ", "  \t ", "x" * 256, "naïve", "tab\there", "a\x00"])
def test_a_bad_idempotency_key_is_a_400(api, document, key):
    response = post_document(api, document, HTTP_IDEMPOTENCY_KEY=key)
    assert response.status_code == 400
    assert response.json()["errors"][0]["pointer"] == "/headers/Idempotency-Key"
    assert Run.objects.count() == 0


def test_an_idempotency_key_is_read_as_http_reads_a_header(api, document):
    first = post_document(api, document, HTTP_IDEMPOTENCY_KEY="key with spaces")
    again = post_document(api, document, HTTP_IDEMPOTENCY_KEY="  key with spaces ")
    assert (first.status_code, again.status_code) == (201, 201)  # the first response again
    assert IdempotencyKey.objects.get().key == "key with spaces"


def test_a_new_drive_is_created_and_flagged_for_review(api, document):
    assert post_document(api, document).status_code == 201
    drive = Drive.objects.get()
    assert drive.needs_review
    assert (drive.manufacturer.name, drive.model) == ("Maker", "Model X")


def test_a_drive_in_the_catalog_is_not_flagged(api, document):
    maker = ManufacturerFactory(name="Maker")
    existing = DriveFactory(manufacturer=maker, model="Model X", capacity_bytes=256 * 10**9)
    assert post_document(api, document).status_code == 201
    assert Run.objects.get().drive == existing
    assert not Drive.objects.get().needs_review


def test_an_ambiguous_drive_is_a_400_naming_the_candidates(api, document):
    maker = ManufacturerFactory(name="Maker")
    DriveFactory(manufacturer=maker, model="Model X", capacity_bytes=128 * 10**9)
    DriveFactory(manufacturer=maker, model="Model X", capacity_bytes=512 * 10**9)
    del document["drive"]["capacity_bytes"]
    before = rows()
    response = post_document(api, document)
    assert response.status_code == 400
    errors = response.json()["errors"]
    assert errors[0]["pointer"] == "/drive"
    assert "Maker Model X 128GB" in errors[0]["message"]
    assert "Maker Model X 512GB" in errors[0]["message"]
    assert rows() == before


def test_the_runs_list_shows_provenance_and_leaves_withdrawn_and_synthetic_out(api, document):
    from results.services import run_ingest, run_withdraw
    from results.synthetic import measured_document

    shown = Run.objects.get(pk=post_document(api, document).json()["run"]["id"])
    hidden = run_ingest(
        document=json.dumps(measured_document(seed=2, model="Gone", series_seconds=300)),
        submitter=None,
    ).run
    run_withdraw(run=hidden, reason="wrong drive")
    # A run of a synthetic drive (seed_scale's), and a synthetic run of a real drive.
    synthetic = run_ingest(
        document=json.dumps(measured_document(seed=3, model="Fake", series_seconds=300)),
        submitter=None,
    ).run
    Drive.objects.filter(pk=synthetic.drive_id).update(synthetic=True)
    synthetic_run = run_ingest(
        document=json.dumps(measured_document(seed=4, model="Real", series_seconds=300)),
        submitter=None,
    ).run
    Run.objects.filter(pk=synthetic_run.pk).update(source=Run.Source.SYNTHETIC)

    listed = api.get(RUNS).json()
    ids = [r["id"] for r in listed["results"]]
    assert ids == [shown.pk]
    entry = listed["results"][0]
    assert entry["submitter"] == "rita"
    assert entry["tool"] == {
        "name": "loadgen",
        "version": shown.tool_version,
        "engine": shown.engine,
    }
    assert entry["drive"]["slug"] == shown.drive.slug
    assert entry["bench"]["name"] == shown.bench.name
    assert entry["started_at"] is not None
    assert api.get(f"{RUNS}{hidden.pk}/").status_code == 404
    assert api.get(f"{RUNS}{synthetic.pk}/").status_code == 404
    assert api.get(f"{RUNS}{synthetic_run.pk}/").status_code == 404
    assert api.get(RUNS, {"drive": shown.drive.slug}).json()["results"][0]["id"] == shown.pk
    assert api.get(RUNS, {"drive": "no-such-drive"}).json()["results"] == []
    assert api.get(RUNS, {"source": "nonsense"}).status_code == 400


def test_published_figures_carry_their_citation(api):
    from tests.results.helpers import published

    run = published(
        manufacturer="Intel",
        model="X25-M",
        url="https://example.com/review",
        results=[{"test": "seqread-128k-qd1", "pattern": "unspecified", "bytes_per_second": 2.5e8}],
    )
    entry = api.get(f"{RUNS}{run.pk}/").json()
    assert entry["citation"]["publisher"] == "Site"
    assert entry["citation"]["url"] == "https://example.com/review"
    assert entry["submitter"] is None


def test_my_runs_lists_my_uploads_with_their_status(api, reviewer, other_reviewer, document):
    from results.services import run_withdraw
    from results.synthetic import measured_document
    from tests.api.conftest import token_client

    mine = post_document(api, document).json()["run"]["id"]
    gone = post_document(api, measured_document(seed=5, model="Y", series_seconds=300))
    gone = Run.objects.get(pk=gone.json()["run"]["id"])
    run_withdraw(run=gone, reason="mislabelled drive", by=reviewer)
    post_document(token_client(other_reviewer), measured_document(seed=6, series_seconds=300))

    listed = {r["id"]: r for r in api.get(MY_RUNS).json()["results"]}
    assert set(listed) == {mine, gone.pk}
    assert listed[mine]["status"] == "published"
    assert listed[gone.pk]["status"] == "withdrawn"
    assert listed[gone.pk]["withdrawn_reason"] == "mislabelled drive"
    assert listed[gone.pk]["withdrawn_by"] == "rita"
    assert listed[gone.pk]["url"] is None  # gone from the public API


def test_my_runs_needs_a_signed_in_user():
    from tests.api.conftest import token_client

    assert token_client(None).get(MY_RUNS).status_code == 401


def test_uploads_are_throttled_per_user(api, other_reviewer, document, settings):
    from django.core.cache import cache

    from results.synthetic import measured_document
    from tests.api.conftest import token_client

    cache.clear()
    rates = {**settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"], "uploads": "2/hour"}
    with override_settings(
        REST_FRAMEWORK={**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": rates}
    ):
        for seed in (1, 2):
            doc = measured_document(seed=seed, model=f"T{seed}", series_seconds=300)
            assert post_document(api, doc).status_code == 201
        third = post_document(api, measured_document(seed=3, model="T3", series_seconds=300))
        assert third.status_code == 429
        assert "Retry-After" in third
        assert api.get(RUNS).status_code == 200  # reads are not uploads
        other = token_client(other_reviewer)
        assert (
            post_document(other, measured_document(seed=4, series_seconds=300)).status_code == 201
        )
    assert Run.objects.count() == 3
    cache.clear()


@pytest.mark.parametrize("count", [1, 6])
def test_the_runs_lists_cost_a_fixed_number_of_queries(
    api, reviewer, count, django_assert_max_num_queries
):
    from results.synthetic import measured_document
    from tests.results.helpers import published

    for seed in range(count):
        post_document(api, measured_document(seed=seed, model=f"M{seed}", series_seconds=300))
        published(
            manufacturer="P",
            model=f"P{seed}",
            title=f"Review {seed}",
            results=[
                {"test": "seqread-128k-qd1", "pattern": "unspecified", "bytes_per_second": 1e8}
            ],
        )
    with django_assert_max_num_queries(10):
        assert len(api.get(RUNS).json()["results"]) == 2 * count
    with django_assert_max_num_queries(10):
        assert len(api.get(MY_RUNS).json()["results"]) == count
    with django_assert_max_num_queries(10):
        detail = api.get(f"{RUNS}{Run.objects.filter(submitter=reviewer).first().pk}/").json()
        assert len(detail["results"]) == 10 and len(detail["consistency"]) == 2


def test_an_idempotency_key_is_kept_for_a_day(api, document):
    from datetime import timedelta

    from django.utils import timezone

    post_document(api, document, HTTP_IDEMPOTENCY_KEY="daily")
    IdempotencyKey.objects.update(created_at=timezone.now() - timedelta(hours=25))
    other = dict(document, drive_state="fresh")
    response = post_document(api, other, HTTP_IDEMPOTENCY_KEY="daily")
    assert response.status_code == 201  # the old key was forgotten: a new upload
    assert IdempotencyKey.objects.get().run_id == response.json()["run"]["id"]


def test_my_runs_are_never_kept_by_shared_caches(api):
    response = api.get(MY_RUNS)
    assert response["Cache-Control"] == "private, no-cache"
    assert "Authorization" in response["Vary"]


@pytest.mark.parametrize(
    ("schema", "meaning", "reported", "note"),
    [
        # Both reported: the meaning checks ran on what the schema passed, and say so.
        (
            ("colour", "red"),
            ("results/0/test", "no-such-test"),
            ["/colour", "/results/0/test"],
            MEANING_OF_REFUSED,
        ),
        (
            ("results/1/queue_depth", 0),
            ("results/1/bytes", 1),
            ["/results/1/queue_depth", "/results/1/bytes"],
            MEANING_OF_REFUSED,
        ),
        # A member missing refuses nothing: every part was checked for meaning.
        (
            ("drive/model", None),
            ("results/0/test", "no-such-test"),
            ["/drive", "/results/0/test"],
            "",
        ),
        # The meaning problem is in what the schema refused: it waits, and the 400 says so.
        (
            ("started_at", "yesterday"),
            ("finished_at", "2000-01-01T00:00:00Z"),
            ["/started_at"],
            MEANING_OF_REFUSED,
        ),
    ],
)
def test_a_schema_and_a_meaning_problem_are_both_a_400(
    api, document, schema, meaning, reported, note
):
    for where, value in (meaning, schema):
        *path, last = where.split("/")
        target = document
        for key in path:
            target = target[int(key) if key.isdigit() else key]
        if value is None:
            del target[last]
        else:
            target[last] = value
    before = rows()
    response = post_document(api, document)
    assert response.status_code == 400
    body = response.json()
    assert [e["pointer"] for e in body["errors"]] == reported
    assert body["detail"].startswith(f"{len(reported)} problem(s): ")
    assert body["detail"].endswith(note)
    assert ("checked for meaning" in body["detail"]) == bool(note)
    assert rows() == before
