"""POST /api/v1/runs/<id>/withdraw/: the run leaves every page, ranking and list at once
(cached pages included: the write bumps the catalog version before the response), and stays
in the database with who withdrew it, when and why."""

import json
import re

import pytest
from django.core.cache import cache

from drives.models import Drive
from results.models import LeaderboardEntry, Result, Run
from results.services import run_ingest
from results.synthetic import measured_document
from tests.api.conftest import MY_RUNS, RUNS, make_user, token_client, withdraw_url

LEADERBOARD = "/bench/tests/randread-4k-qd3/"


@pytest.mark.django_db(transaction=True)
def test_a_withdrawn_run_leaves_pages_rankings_and_lists_at_once(settings, client):
    settings.BENCH_RESPONSE_CACHE = True  # anonymous pages are served from the cache
    cache.clear()
    rita = make_user("rita", reviewer=True, trusted=True)
    document = measured_document(model="Withdrawn Drive", series_seconds=300)
    run = run_ingest(document=json.dumps(document), submitter=rita).run
    Drive.objects.filter(pk=run.drive_id).update(needs_review=False)  # staff reviewed it
    drive = Drive.objects.get(pk=run.drive_id)
    page = f"/drives/{drive.slug}/"

    # Seen, and kept in the response cache.
    for _ in range(2):
        assert f'id="run-{run.pk}"' in client.get(page).content.decode()
        assert "Withdrawn Drive" in client.get(LEADERBOARD).content.decode()
        assert [r["id"] for r in client.get(RUNS).json()["results"]] == [run.pk]
    assert client.get(page).headers.get("X-Bench-Cache") == "hit"
    assert LeaderboardEntry.objects.filter(run=run).exists()

    response = token_client(rita).post(
        withdraw_url(run.pk), {"reason": "  the drive was mislabelled  "}, format="json"
    )
    assert response.status_code == 200, response.content
    assert response.json()["status"] == "withdrawn"

    assert f'id="run-{run.pk}"' not in client.get(page).content.decode()
    assert "Withdrawn Drive" not in client.get(LEADERBOARD).content.decode()
    assert client.get(RUNS).json()["results"] == []
    assert client.get(f"{RUNS}{run.pk}/").status_code == 404
    assert not LeaderboardEntry.objects.filter(run=run).exists()

    # Kept, with who, when and why.
    run.refresh_from_db()
    assert run.status == Run.Status.WITHDRAWN
    assert run.withdrawn_by == rita
    assert run.withdrawn_reason == "the drive was mislabelled"
    assert run.withdrawn_at is not None
    assert Result.objects.filter(run=run).exists()
    mine = token_client(rita).get(MY_RUNS).json()["results"]
    assert [(r["id"], r["status"], r["withdrawn_by"]) for r in mine] == [
        (run.pk, "withdrawn", "rita")
    ]
    cache.clear()


@pytest.mark.django_db
def test_withdrawing_twice_is_a_409(api, reviewer):
    run = run_ingest(
        document=json.dumps(measured_document(series_seconds=300)), submitter=reviewer
    ).run
    assert api.post(withdraw_url(run.pk), {"reason": "a"}, format="json").status_code == 200
    again = api.post(withdraw_url(run.pk), {"reason": "b"}, format="json")
    assert again.status_code == 409
    assert "withdrawn already" in again.json()["detail"]
    run.refresh_from_db()
    assert run.withdrawn_reason == "a"


@pytest.mark.django_db
def test_staff_withdraw_any_run_and_are_recorded(staff):
    run = run_ingest(document=json.dumps(measured_document(series_seconds=300)), submitter=None).run
    response = token_client(staff).post(withdraw_url(run.pk), {"reason": "spam"}, format="json")
    assert response.status_code == 200
    run.refresh_from_db()
    assert (run.withdrawn_by, run.withdrawn_reason) == (staff, "spam")


@pytest.mark.django_db
def test_withdrawing_a_missing_or_synthetic_run_is_a_404(staff):
    run = run_ingest(document=json.dumps(measured_document(series_seconds=300)), submitter=None).run
    Run.objects.filter(pk=run.pk).update(source=Run.Source.SYNTHETIC)
    client = token_client(staff)
    assert client.post(withdraw_url(run.pk), {"reason": "x"}, format="json").status_code == 404
    assert client.post(withdraw_url(999999), {"reason": "x"}, format="json").status_code == 404


@pytest.mark.django_db
def test_the_admin_action_records_who_withdrew(staff, client):
    staff.is_superuser = True
    staff.save()
    run = run_ingest(document=json.dumps(measured_document(series_seconds=300)), submitter=None).run
    client.force_login(staff)
    response = client.post(
        "/admin/results/run/",
        {"action": "withdraw_runs", "_selected_action": [run.pk]},
    )
    assert response.status_code == 302
    run.refresh_from_db()
    assert run.status == Run.Status.WITHDRAWN and run.withdrawn_by == staff


@pytest.mark.django_db
def test_run_ids_beyond_the_column_are_404s(staff):
    client = token_client(staff)
    huge = "9" * 30
    assert client.get(f"{RUNS}{huge}/").status_code == 404
    assert client.post(withdraw_url(huge), {"reason": "x"}, format="json").status_code == 404
    for odd in ("abc", "%C2%84", "1.5", "-1", "%D9%A3"):  # all JSON 404s, not the HTML one
        response = client.get(f"{RUNS}{odd}/")
        assert response.status_code == 404 and response["Content-Type"] == "application/json"


@pytest.mark.django_db
def test_another_reviewer_uploading_a_withdrawn_document_is_not_told_why(api, reviewer):
    """The same document again returns the first run, withdrawn too; why and by whom stay
    with its submitter and staff."""
    document = measured_document(series_seconds=300)
    run = run_ingest(document=json.dumps(document), submitter=reviewer).run
    api.post(withdraw_url(run.pk), {"reason": "private reason"}, format="json")
    otto = token_client(make_user("otto-2", reviewer=True, trusted=True))
    body = otto.post(RUNS, document, format="json").json()["run"]
    assert body["id"] == run.pk and body["status"] == "withdrawn"
    assert body["withdrawn_reason"] is None and body["withdrawn_by"] is None
    own = api.post(RUNS, document, format="json").json()["run"]
    assert own["withdrawn_reason"] == "private reason" and own["withdrawn_by"] == "rita"


@pytest.mark.django_db
def test_a_drive_whose_every_run_is_withdrawn_leaves_the_lists_and_search(client):
    """Its page stays, saying why; a run of it uploaded again lists it again. A drive of the
    catalog that never had a run stays listed."""
    rita = make_user("rita", reviewer=True, trusted=True)
    api = token_client(rita)
    first = run_ingest(
        document=json.dumps(measured_document(model="Gone Drive", series_seconds=300)),
        submitter=rita,
    ).run
    second = run_ingest(
        document=json.dumps(measured_document(model="Gone Drive", seed=2, series_seconds=300)),
        submitter=rita,
    ).run
    drive = Drive.objects.get(pk=first.drive_id)
    catalog_only = Drive.objects.create(
        manufacturer=drive.manufacturer, model="Gone Drive Sibling", slug="gone-sibling"
    )

    def listed() -> dict[str, set[str]]:
        return {
            "catalog": set(
                re.findall(r'href="/drives/([^/"]+)/"', client.get("/").content.decode())
            ),
            "api": {d["slug"] for d in client.get("/api/v1/drives/").json()["results"]},
            "search": {
                slug
                for slug in (drive.slug, catalog_only.slug)
                if slug
                in client.get("/bench/compare/pick/", {"a": "Gone", "side": "a"}).content.decode()
            },
        }

    for where, slugs in listed().items():
        assert {drive.slug, catalog_only.slug} <= slugs, where
    api.post(withdraw_url(first.pk), {"reason": "one of two"}, format="json")
    for where, slugs in listed().items():
        assert drive.slug in slugs, where  # one run left
    api.post(withdraw_url(second.pk), {"reason": "the last"}, format="json")
    for where, slugs in listed().items():
        assert drive.slug not in slugs and catalog_only.slug in slugs, where
    page = client.get(drive.get_absolute_url())
    assert (
        page.status_code == 200 and "Every run of this drive was withdrawn" in page.content.decode()
    )

    run_ingest(
        document=json.dumps(measured_document(model="Gone Drive", seed=3, series_seconds=300)),
        submitter=rita,
    )
    for where, slugs in listed().items():
        assert drive.slug in slugs, where
    assert "Every run of this drive" not in client.get(drive.get_absolute_url()).content.decode()
