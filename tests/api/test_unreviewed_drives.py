"""A drive an upload created is marked "unreviewed" wherever it appears (its page, the
catalog, compare, the picker, the API's drives) and enters the rankings and value views only
once staff approve it in the admin; its figures show on its own pages meanwhile."""

import pytest
from django.contrib.auth.models import User
from django.core.cache import cache
from django.urls import reverse

from drives.models import Drive
from results.models import LeaderboardEntry
from results.synthetic import measured_document
from tests.api.conftest import post_document
from tests.factories import PriceFactory

pytestmark = pytest.mark.django_db
TEST = "randread-4k-qd3"
BADGE = '<span class="tag unreviewed"'


def _everywhere(client, drive: Drive, other: Drive) -> dict[str, str]:
    """Every page and API read that shows a drive, or ranks and prices it."""
    return {
        "page": client.get(drive.get_absolute_url()).content.decode(),
        "catalog": client.get("/", {"q": drive.model}).content.decode(),
        "compare": client.get(f"/bench/compare/{drive.slug}/{other.slug}/").content.decode(),
        "picker": client.get(
            "/bench/compare/pick/", {"a": drive.model, "side": "a"}
        ).content.decode(),
        "ranking": client.get(f"/bench/tests/{TEST}/").content.decode(),
        "value": client.get("/bench/value/", {"test": TEST}).content.decode(),
        "api ranking": client.get(f"/api/v1/tests/{TEST}/leaderboard/").content.decode(),
        "api value": client.get("/api/v1/value/", {"test": TEST}).content.decode(),
    }


def test_an_uploaded_drive_is_marked_and_unranked_until_staff_approve_it(api, client):
    known = post_document(api, measured_document(model="Known One", series_seconds=300))
    assert known.status_code == 201
    Drive.objects.filter(model="Known One").update(needs_review=False)  # reviewed before
    other = Drive.objects.get(model="Known One")
    response = post_document(api, measured_document(model="Fresh One", seed=2, series_seconds=300))
    assert response.status_code == 201
    drive = Drive.objects.get(model="Fresh One")
    for d in (drive, other):
        PriceFactory(drive=d, amount="99.00")
    assert drive.needs_review and LeaderboardEntry.objects.filter(drive=drive).exists()

    cache.clear()
    shown = _everywhere(client, drive, other)
    for name in ("page", "catalog", "compare", "picker"):
        assert "Fresh One" in shown[name] and BADGE in shown[name], name
    for name in ("ranking", "value", "api ranking", "api value"):
        assert drive.slug not in shown[name] and other.slug in shown[name], name
    listed = {d["slug"]: d for d in client.get("/api/v1/drives/").json()["results"]}
    assert listed[drive.slug]["needs_review"] is True
    assert listed[other.slug]["needs_review"] is False
    assert client.get(f"/api/v1/drives/{drive.slug}/").json()["needs_review"] is True

    admin = User.objects.create_superuser("ada", password="a-long-test-password-41")
    staff = client.__class__()
    staff.force_login(admin)
    approved = staff.post(
        reverse("admin:drives_drive_changelist"),
        {"action": "mark_reviewed", "_selected_action": [drive.pk]},
    )
    assert approved.status_code == 302
    shown = _everywhere(client, drive, other)  # no cache cleared: the approval moved them
    for name, html in shown.items():
        assert BADGE not in html or name not in ("page", "catalog", "compare", "picker"), name
    for name in ("ranking", "value", "api ranking", "api value"):
        assert drive.slug in shown[name], name
    assert client.get(f"/api/v1/drives/{drive.slug}/").json()["needs_review"] is False
