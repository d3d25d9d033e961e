"""An upload measured by a loadgen older than its suite version needs (results/loadgen.py):
stored, and said so in the API's answer, on the upload form and on the run's page."""

import json
import re

import pytest

from results import loadgen
from results.models import Run
from tests.api.conftest import make_user, post_document

pytestmark = pytest.mark.django_db


def _old(document: dict, version: str = "0.0.9") -> dict:
    return {**document, "tool": {**document["tool"], "version": version}}


def test_an_upload_by_an_older_loadgen_is_stored_with_a_warning(api, document, client, reviewer):
    """Its figures passed every check: stored and published, and the answer, the upload
    replayed and the run's page say which loadgen the suite needs."""
    assert document["parameters"]["suite"] == {"name": "desktop-2011", "version": 1}
    old = _old(document)
    response = post_document(api, old)
    assert response.status_code == 201, response.content
    body = response.json()
    run = Run.objects.get()
    assert run.status == Run.Status.PUBLISHED and run.tool_version == "0.0.9"
    (warning,) = body["warnings"]
    minimum = next(s.loadgen_min for s in loadgen.suite_needs() if s.name == "desktop-2011")
    assert warning.startswith(
        f"loadgen 0.0.9 is older than suite desktop-2011 version 1 needs (loadgen {minimum} "
    )
    assert "/bench/loadgen/" in warning
    again = post_document(api, old)
    assert again.status_code == 200 and again.json()["warnings"] == body["warnings"]
    page = client.get(f"/bench/runs/{run.pk}/").content.decode()
    assert re.search(r'id="tool-warnings"><li>loadgen 0\.0\.9 is older than suite', page)


def test_an_upload_by_a_recent_loadgen_has_no_warning(api, document, client):
    response = post_document(api, _old(document, loadgen.expected_version()))
    assert response.status_code == 201 and response.json()["warnings"] == []
    page = client.get(f"/bench/runs/{Run.objects.get().pk}/").content.decode()
    assert "tool-warnings" not in page


def test_the_upload_form_shows_the_warning_of_a_held_run(client, document):
    """A newcomer's upload is held (results.plausibility): the form says why, and what the
    loadgen that measured it is told."""
    client.force_login(make_user("nina", reviewer=True))
    response = client.post("/bench/upload/", {"document": json.dumps(_old(document))})
    assert response.status_code == 200
    html = response.content.decode()
    assert Run.objects.get().status == Run.Status.HELD
    assert 'id="tool-warnings"' in html and "loadgen 0.0.9 is older than suite" in html
