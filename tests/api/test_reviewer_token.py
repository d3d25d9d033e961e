"""Tokens: `manage.py reviewer_token USER` (and --revoke), and the admin's token pages; the
reviewer group from the migration; drives created by uploads in the admin's review filter."""

from io import StringIO

import pytest
from django.contrib.auth.models import Group, User
from django.core.management import CommandError, call_command
from rest_framework.authtoken.models import Token

from drives.models import Drive
from results.models import Run
from results.permissions import REVIEWER_GROUP
from results.synthetic import measured_document
from tests.api.conftest import post_document, token_client
from tests.factories import DriveFactory

pytestmark = pytest.mark.django_db


def issue(*args) -> str:
    out = StringIO()
    call_command("reviewer_token", *args, stdout=out)
    return out.getvalue().strip()


def test_the_migration_creates_the_reviewer_group():
    assert Group.objects.filter(name=REVIEWER_GROUP).exists()


def test_the_command_makes_a_reviewer_whose_token_uploads():
    user = User.objects.create_user("rita")
    key = issue("rita")
    assert key == Token.objects.get(user=user).key
    assert user.groups.filter(name=REVIEWER_GROUP).exists()
    assert issue("rita") == key  # the same token again
    client = token_client(None)
    client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    assert post_document(client, measured_document(series_seconds=300)).status_code == 201


def test_revoke_stops_the_token():
    User.objects.create_user("rita")
    key = issue("rita")
    assert issue("rita", "--revoke") == "revoked the token of rita"
    assert not Token.objects.exists()
    client = token_client(None)
    client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    assert post_document(client, measured_document(series_seconds=300)).status_code == 401
    assert Run.objects.count() == 0
    with pytest.raises(CommandError, match="has no token"):
        issue("rita", "--revoke")


def test_unknown_and_inactive_users_get_no_token():
    with pytest.raises(CommandError, match="there is no user"):
        issue("nobody")
    User.objects.create_user("gone", is_active=False)
    with pytest.raises(CommandError, match="not active"):
        issue("gone")
    assert not Token.objects.exists()


def test_create_makes_the_reviewer_a_token_signs_in(client):
    key = issue("rita", "--create")
    rita = User.objects.get(username="rita")
    assert not rita.has_usable_password() and rita.groups.filter(name=REVIEWER_GROUP).exists()
    assert issue("rita", "--create") == key  # there is one now: the same token
    api = token_client(None)
    api.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    assert post_document(api, measured_document(series_seconds=300)).status_code == 201
    with pytest.raises(CommandError, match="rita the second"):
        issue("rita the second", "--create")  # not a user name the admin would take
    with pytest.raises(CommandError, match="there is no user"):
        issue("nobody", "--create", "--revoke")
    assert User.objects.count() == 1


def test_tokens_are_issued_and_revoked_in_the_admin(client):
    admin = User.objects.create_superuser("admin", password="a-long-test-password-41")
    rita = User.objects.create_user("rita")
    client.force_login(admin)
    assert client.get("/admin/authtoken/tokenproxy/").status_code == 200
    response = client.post("/admin/authtoken/tokenproxy/add/", {"user": rita.pk})
    assert response.status_code == 302
    assert Token.objects.filter(user=rita).exists()
    response = client.post(f"/admin/authtoken/tokenproxy/{rita.pk}/delete/", {"post": "yes"})
    assert response.status_code == 302
    assert not Token.objects.exists()


def test_drives_from_uploads_wait_for_review_in_the_admin(api, client):
    admin = User.objects.create_superuser("admin", password="a-long-test-password-41")
    known = DriveFactory(model="Known Drive")
    assert (
        post_document(api, measured_document(model="Brand New", series_seconds=300)).status_code
        == 201
    )
    new = Drive.objects.get(model="Brand New")
    assert new.needs_review and not known.needs_review
    client.force_login(admin)
    html = client.get("/admin/drives/drive/?needs_review__exact=1").content.decode()
    assert "Brand New" in html and "Known Drive" not in html
    client.post("/admin/drives/drive/", {"action": "mark_reviewed", "_selected_action": [new.pk]})
    new.refresh_from_db()
    assert not new.needs_review
