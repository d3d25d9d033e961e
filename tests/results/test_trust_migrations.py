"""The data migrations of trust at the door, run on rows as an older site stored them:
results 0038 marks the runs of the reviewed reference, 0039 withdraws the runs pooled on a
placeholder drive ("unknown unknown") and takes the drive out of the lists and rankings."""

import importlib
import json

import pytest
from django.apps import apps
from django.contrib.auth.models import Group

from drives.models import Drive, Manufacturer
from results.models import LeaderboardEntry, Run
from results.permissions import TRUSTED_GROUP
from results.services import leaderboard_refresh, run_ingest
from results.synthetic import measured_document
from tests.api.conftest import make_user

pytestmark = pytest.mark.django_db
reviewed_reference = importlib.import_module("results.migrations.0038_reviewed_reference")
placeholder_drives = importlib.import_module("results.migrations.0039_placeholder_drives")


def _stored(seed: int, submitter=None, **changes) -> Run:
    run = run_ingest(
        document=json.dumps(measured_document(seed=seed, model=f"M{seed}", series_seconds=60)),
        submitter=submitter,
    ).run
    Run.objects.filter(pk=run.pk).update(reviewed=False, **changes)  # as 0035 stored it
    return run


def test_the_reviewed_reference_is_what_staff_stood_behind():
    reviewer = make_user("rita", reviewer=True, trusted=True)
    staff = make_user("stan", staff=True)
    imported = _stored(1)
    by_staff = _stored(2, staff)
    approved = _stored(3, reviewer, held_reason="far from the others")
    uploaded = _stored(4, reviewer)
    held = _stored(5, reviewer, status="held", held_reason="far from the others")
    Group.objects.filter(name=TRUSTED_GROUP).delete()

    reviewed_reference.mark_reviewed(apps, None)

    reviewed = set(Run.objects.filter(reviewed=True).values_list("pk", flat=True))
    assert reviewed == {imported.pk, by_staff.pk, approved.pk}
    assert uploaded.pk not in reviewed and held.pk not in reviewed
    assert Group.objects.filter(name=TRUSTED_GROUP).exists()


def test_runs_pooled_on_a_placeholder_drive_are_withdrawn_with_the_reason():
    named = _stored(6)
    pooled = [_stored(7), _stored(8)]
    unknown = Manufacturer.objects.create(name="unknown", slug="unknown")
    placeholder = Drive.objects.create(
        manufacturer=unknown, model="unknown", slug="unknown-unknown"
    )
    LeaderboardEntry.objects.filter(run__in=pooled).delete()
    Run.objects.filter(pk__in=[r.pk for r in pooled]).update(drive=placeholder)
    leaderboard_refresh(drive_ids=[placeholder.pk])
    assert LeaderboardEntry.objects.filter(drive=placeholder).exists()

    placeholder_drives.withdraw_placeholders(apps, None)

    for run in Run.objects.filter(pk__in=[r.pk for r in pooled]):
        assert run.status == Run.Status.WITHDRAWN and run.withdrawn_at is not None
        assert "placeholder drive (unknown unknown)" in run.withdrawn_reason
    assert not LeaderboardEntry.objects.filter(drive=placeholder).exists()
    assert not Drive.objects.get(pk=placeholder.pk).listed
    assert Run.objects.get(pk=named.pk).status == Run.Status.PUBLISHED
    assert Drive.objects.get(pk=named.drive_id).listed
