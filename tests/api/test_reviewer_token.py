"""Tokens: `manage.py reviewer_token USER` (and --revoke), and the admin's token pages; the
token stored only as its digest (django-rest-knox) and shown once, when it is made; DRF's
plain-text token table gone; the reviewer group from the migration; drives created by
uploads in the admin's review filter."""

import re
from io import StringIO

import pytest
from django.contrib.auth.models import Group, User
from django.core.management import CommandError, call_command
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from knox.models import AuthToken

from benchsite.api import INVALID_TOKEN
from drives.models import Drive
from results.management.commands.reviewer_token import REVOKED, SHOWN_ONCE
from results.models import Run
from results.permissions import REVIEWER_GROUP
from results.synthetic import measured_document
from tests.api.conftest import post_document, token_client
from tests.factories import DriveFactory

pytestmark = pytest.mark.django_db

ADMIN_TOKENS = "/admin/knox/authtoken/"


def issue(*args) -> str:
    out = StringIO()
    call_command("reviewer_token", *args, stdout=out, stderr=StringIO())
    return out.getvalue().strip()


def upload(token: str, seed: int = 1):
    client = token_client(None)
    client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    return post_document(client, measured_document(seed=seed, series_seconds=300))


def stored_token_text() -> str:
    """Every value of every stored token row, as text."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT * FROM knox_authtoken")
        return " ".join(str(value) for row in cursor.fetchall() for value in row)


def test_the_migration_creates_the_reviewer_group():
    assert Group.objects.filter(name=REVIEWER_GROUP).exists()


def test_drfs_plain_text_token_table_is_gone():
    assert "authtoken_token" not in connection.introspection.table_names()


@pytest.mark.django_db(transaction=True)
def test_the_migration_drops_drfs_token_table_where_it_was_made():
    with connection.cursor() as cursor:
        cursor.execute("CREATE TABLE authtoken_token (key varchar(40) PRIMARY KEY)")
        cursor.execute("INSERT INTO authtoken_token VALUES ('9944b09199c62bcf9418ad846dd0e4bb')")
        cursor.execute(
            "INSERT INTO django_migrations (app, name, applied) "
            "VALUES ('authtoken', '0001_initial', now())"
        )
    executor = MigrationExecutor(connection)
    executor.migrate([("results", "0036_hash_stored_serials")])
    MigrationExecutor(connection).migrate(executor.loader.graph.leaf_nodes())
    assert "authtoken_token" not in connection.introspection.table_names()
    with connection.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM django_migrations WHERE app = 'authtoken'")
        assert cursor.fetchone() == (0,)


def test_the_command_makes_a_reviewer_whose_token_uploads_and_is_stored_only_as_a_digest():
    user = User.objects.create_user("rita")
    key = issue("rita")
    assert re.fullmatch(r"[0-9a-f]{64}", key)
    assert user.groups.filter(name=REVIEWER_GROUP).exists()
    (row,) = AuthToken.objects.filter(user=user)
    assert row.digest != key and key not in stored_token_text()
    assert row.expiry is None  # an upload never fails for a token that ran out mid-run
    assert upload(key).status_code == 201
    second = issue("rita")  # a new token each time: the first keeps working
    assert second != key and second not in stored_token_text()
    assert AuthToken.objects.filter(user=user).count() == 2
    assert upload(second, seed=2).status_code == 201
    assert upload(key, seed=3).status_code == 201


def test_the_command_says_the_token_is_shown_once():
    User.objects.create_user("rita")
    out, err = StringIO(), StringIO()
    call_command("reviewer_token", "rita", stdout=out, stderr=err)
    assert err.getvalue().strip() == SHOWN_ONCE.format(username="rita")
    assert re.fullmatch(r"[0-9a-f]{64}\n", out.getvalue())


def test_revoke_stops_every_token_of_the_user():
    User.objects.create_user("rita")
    keys = [issue("rita"), issue("rita")]
    assert issue("rita", "--revoke") == REVOKED.format(count=2, username="rita")
    assert not AuthToken.objects.exists()
    for key in keys:
        response = upload(key)
        assert response.status_code == 401 and response["WWW-Authenticate"] == "Token"
    assert Run.objects.count() == 0
    with pytest.raises(CommandError, match="has no token"):
        issue("rita", "--revoke")


def test_a_wrong_token_is_a_401_that_asks_for_a_token():
    User.objects.create_user("rita")
    key = issue("rita")
    for wrong in (key[:-1] + ("0" if key[-1] != "0" else "1"), "0" * 64, key.upper()):
        response = upload(wrong)
        assert response.status_code == 401 and response["WWW-Authenticate"] == "Token"
        assert response.json() == {"detail": INVALID_TOKEN, "errors": []}
    assert Run.objects.count() == 0


def test_unknown_and_inactive_users_get_no_token():
    with pytest.raises(CommandError, match="there is no user"):
        issue("nobody")
    User.objects.create_user("gone", is_active=False)
    with pytest.raises(CommandError, match="not active"):
        issue("gone")
    assert not AuthToken.objects.exists()


def test_create_makes_the_reviewer_a_token_signs_in():
    key = issue("rita", "--create")
    rita = User.objects.get(username="rita")
    assert not rita.has_usable_password() and rita.groups.filter(name=REVIEWER_GROUP).exists()
    assert upload(key).status_code == 201
    assert issue("rita", "--create") != key  # there is one now: another token for them
    with pytest.raises(CommandError, match="rita the second"):
        issue("rita the second", "--create")  # not a user name the admin would take
    with pytest.raises(CommandError, match="there is no user"):
        issue("nobody", "--create", "--revoke")
    assert User.objects.count() == 1


def test_the_admin_shows_a_token_once_when_made_and_never_again(client):
    admin = User.objects.create_superuser("admin", password="a-long-test-password-41")
    rita = User.objects.create_user("rita")
    rita.groups.add(Group.objects.get(name=REVIEWER_GROUP))
    client.force_login(admin)
    made = client.post(f"{ADMIN_TOKENS}add/", {"user": rita.pk, "expiry": ""}, follow=True)
    assert made.status_code == 200
    (key,) = re.findall(r"TOKEN ([0-9a-f]{64})", made.content.decode())
    assert upload(key).status_code == 201
    (row,) = AuthToken.objects.filter(user=rita)
    assert key not in stored_token_text()
    for url in (ADMIN_TOKENS, f"{ADMIN_TOKENS}{row.pk}/change/", f"{ADMIN_TOKENS}?q=rita"):
        response = client.get(url)
        assert response.status_code == 200 and key not in response.content.decode()
    response = client.post(f"{ADMIN_TOKENS}{row.pk}/delete/", {"post": "yes"})
    assert response.status_code == 302
    assert not AuthToken.objects.exists()
    assert upload(key, seed=2).status_code == 401


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
