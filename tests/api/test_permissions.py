"""Every write against every kind of user: anonymous, a reader (signed in, not a reviewer),
the reviewer whose run it is, another reviewer, staff. Only reviewers upload; a run is
withdrawn by its submitter or staff. By token, and by session with CSRF."""

import json
from pathlib import Path

import pytest
from django.test import Client
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rest_framework.test import APIClient

from results.models import Run
from results.services import run_ingest
from results.synthetic import measured_document
from tests.api.conftest import (
    FIO_RUNS,
    MY_RUNS,
    RUNS,
    make_user,
    post_document,
    token_client,
    withdraw_url,
)

pytestmark = pytest.mark.django_db

FIO_OUTPUT = (
    Path(__file__).parent.parent / "results" / "fio" / "fio-3.33-standard.json"
).read_bytes()
FIO_DRIVE = "?manufacturer=Bench+Test&model=fio+target"
WHO = ["anonymous", "reader", "reviewer", "other reviewer", "staff"]


@pytest.fixture
def users(db) -> dict:
    return {
        "anonymous": None,
        "reader": make_user("rhea"),
        "reviewer": make_user("rita", reviewer=True, trusted=True),
        "other reviewer": make_user("otto", reviewer=True, trusted=True),
        "staff": make_user("stan", staff=True),
    }


@pytest.fixture
def ritas_run(users) -> Run:
    document = json.dumps(measured_document(seed=9, model="Ritas", series_seconds=300))
    return run_ingest(document=document, submitter=users["reviewer"]).run


UPLOAD = {"anonymous": 401, "reader": 403, "reviewer": 201, "other reviewer": 201, "staff": 403}


@pytest.mark.parametrize("who", WHO)
def test_upload(users, who):
    response = post_document(token_client(users[who]), measured_document(series_seconds=300))
    assert response.status_code == UPLOAD[who], response.content
    assert Run.objects.count() == (1 if UPLOAD[who] == 201 else 0)
    if who == "anonymous":
        assert response["WWW-Authenticate"] == "Token"


@pytest.mark.parametrize("who", WHO)
@pytest.mark.parametrize("url", [FIO_RUNS, RUNS])
def test_fio_upload(users, who, url):
    response = token_client(users[who]).generic(
        "POST", url + FIO_DRIVE, FIO_OUTPUT, content_type="application/json"
    )
    assert response.status_code == UPLOAD[who], response.content
    assert Run.objects.filter(tool_name="fio").count() == (1 if UPLOAD[who] == 201 else 0)


WITHDRAW = {"anonymous": 401, "reader": 403, "reviewer": 200, "other reviewer": 403, "staff": 200}


@pytest.mark.parametrize("who", WHO)
def test_withdraw(users, ritas_run, who):
    client = token_client(users[who])
    response = client.post(withdraw_url(ritas_run.pk), {"reason": "wrong drive"}, format="json")
    assert response.status_code == WITHDRAW[who], response.content
    ritas_run.refresh_from_db()
    if WITHDRAW[who] == 200:
        assert ritas_run.status == Run.Status.WITHDRAWN
        assert ritas_run.withdrawn_by == users[who]
    else:
        assert ritas_run.status == Run.Status.PUBLISHED


WEB_UPLOAD = {"anonymous": 302, "reader": 403, "reviewer": 302, "other reviewer": 302, "staff": 403}


@pytest.mark.parametrize("who", WHO)
def test_web_upload(users, who):
    client = Client()
    if users[who] is not None:
        client.force_login(users[who])
    document = json.dumps(measured_document(series_seconds=300))
    response = client.post("/bench/upload/", {"document": document})
    assert response.status_code == WEB_UPLOAD[who]
    if who == "anonymous":
        assert response["Location"].startswith("/accounts/login/?next=/bench/upload/")
    assert Run.objects.count() == (1 if who in ("reviewer", "other reviewer") else 0)


def test_session_uploads_need_the_csrf_token(users):
    client = APIClient(enforce_csrf_checks=True)
    client.force_login(users["reviewer"])
    body = json.dumps(measured_document(series_seconds=300))
    refused = client.generic("POST", RUNS, body, content_type="application/json")
    assert refused.status_code == 403
    assert "CSRF" in refused.json()["detail"]
    assert Run.objects.count() == 0
    client.get("/bench/upload/")  # the form sets the CSRF cookie
    token = client.cookies["csrftoken"].value
    accepted = client.generic(
        "POST", RUNS, body, content_type="application/json", HTTP_X_CSRFTOKEN=token
    )
    assert accepted.status_code == 201, accepted.content


def test_session_withdrawal_needs_the_csrf_token(users, ritas_run):
    client = APIClient(enforce_csrf_checks=True)
    client.force_login(users["reviewer"])
    refused = client.post(withdraw_url(ritas_run.pk), {"reason": "x"}, format="json")
    assert refused.status_code == 403
    ritas_run.refresh_from_db()
    assert ritas_run.status == Run.Status.PUBLISHED


def test_a_revoked_or_wrong_token_is_a_401(users):
    from knox.models import AuthToken

    client = token_client(users["reviewer"])
    AuthToken.objects.filter(user=users["reviewer"]).delete()
    assert post_document(client, measured_document(series_seconds=300)).status_code == 401
    wrong = APIClient()
    wrong.credentials(HTTP_AUTHORIZATION="Token " + "0" * 64)
    assert post_document(wrong, measured_document(series_seconds=300)).status_code == 401
    assert Run.objects.count() == 0


@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(
    # What an HTTP header can carry: latin-1.
    key=st.text(st.characters(max_codepoint=255), max_size=60)
    | st.sampled_from(["\x00", "a\x00b", "0" * 65, "é" * 64, "0" * 63 + "\x00", " ", ""])
)
def test_any_token_text_is_a_401_never_a_5xx(db, key):
    """Whatever a client puts after "Token ", a key that matches no token is a 401 in the
    API's error body, on reads and on writes, and nothing is written."""
    headers = {"HTTP_AUTHORIZATION": "Token " + key}
    for response in (
        APIClient().get("/api/v1/drives/", **headers),
        APIClient().get(MY_RUNS, **headers),
        post_document(APIClient(), measured_document(series_seconds=60), **headers),
    ):
        assert response.status_code in (401, 403), (key, response.status_code)
        assert set(response.json()) == {"detail", "errors"}
    assert Run.objects.count() == 0


def test_a_reviewer_removed_from_the_group_can_no_longer_upload(users):
    users["reviewer"].groups.clear()
    response = post_document(token_client(users["reviewer"]), measured_document(series_seconds=300))
    assert response.status_code == 403
