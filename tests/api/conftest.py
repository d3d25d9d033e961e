"""Users of every kind the write permissions tell apart, and API clients signed in as them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from django.conf import settings
from django.contrib.auth.models import Group, User
from knox.models import AuthToken
from rest_framework.test import APIClient

from results.permissions import REVIEWER_GROUP, TRUSTED_GROUP
from results.synthetic import measured_document

SAMPLES = Path(settings.BASE_DIR) / "results" / "schema" / "samples"
RUNS = "/api/v1/runs/"
FIO_RUNS = "/api/v1/runs/fio/"
MY_RUNS = "/api/v1/me/runs/"


def withdraw_url(pk: int) -> str:
    return f"{RUNS}{pk}/withdraw/"


def make_user(
    username: str, *, reviewer: bool = False, staff: bool = False, trusted: bool = False
) -> User:
    """A user; a reviewer may upload, a trusted reviewer's runs count in their drives'
    reviewed reference as they are published (results.permissions)."""
    user = User.objects.create_user(username, password="a-long-test-password-41")
    user.is_staff = staff
    user.save()
    for wanted, name in ((reviewer, REVIEWER_GROUP), (trusted, TRUSTED_GROUP)):
        if wanted:
            group, _ = Group.objects.get_or_create(name=name)  # flushed by transactional tests
            user.groups.add(group)
    return user


def token_client(user: User | None) -> APIClient:
    client = APIClient()
    if user is not None:
        _, token = AuthToken.objects.create(user=user)
        client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    return client


def post_document(client: APIClient, document, url: str = RUNS, **extra):
    body = document if isinstance(document, bytes | str) else json.dumps(document)
    return client.generic("POST", url, body, content_type="application/json", **extra)


@pytest.fixture
def reviewer(db) -> User:
    """An established reviewer, whom staff trust."""
    return make_user("rita", reviewer=True, trusted=True)


@pytest.fixture
def other_reviewer(db) -> User:
    return make_user("otto", reviewer=True, trusted=True)


@pytest.fixture
def newcomer(db) -> APIClient:
    """A reviewer staff have not marked trusted, by token: holds judge their uploads."""
    return token_client(make_user("nina", reviewer=True))


@pytest.fixture
def reader(db) -> User:
    return make_user("rhea")


@pytest.fixture
def staff(db) -> User:
    return make_user("stan", staff=True)


@pytest.fixture
def api(reviewer) -> APIClient:
    """The reviewer's client, by token."""
    return token_client(reviewer)


@pytest.fixture
def document() -> dict:
    return measured_document(series_seconds=300)


@pytest.fixture
def loadgen_sample() -> bytes:
    return (SAMPLES / "measured-loadgen-quick.json").read_bytes()


def rows() -> dict[str, int]:
    """Rows of every table an upload writes."""
    from drives.models import Drive, FirmwareVersion, Manufacturer
    from results.models import (
        Citation,
        ConsistencySeries,
        IdempotencyKey,
        Result,
        Run,
        SaturationSeries,
        TestBench,
        TrimValidation,
    )

    models = [
        Drive,
        FirmwareVersion,
        Manufacturer,
        Citation,
        ConsistencySeries,
        IdempotencyKey,
        Result,
        Run,
        SaturationSeries,
        TestBench,
        TrimValidation,
    ]
    return {m.__name__: m.objects.count() for m in models}


@pytest.fixture(autouse=True)
def _uploads_unthrottled(settings):
    """Tests send many uploads in a moment; test_uploads_are_throttled_per_user sets a rate."""
    rates = {**settings.REST_FRAMEWORK.get("DEFAULT_THROTTLE_RATES", {}), "uploads": "100000/hour"}
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": rates}
