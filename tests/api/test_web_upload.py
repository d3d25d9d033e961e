"""The upload form at /bench/upload/: a signed-in reviewer pastes a document or picks a file
(a document or fio's output); each problem is shown with its JSON pointer; success lands on
the run on its drive's page; CSRF is enforced; sign-in at /accounts/login/."""

import json
import re
from html import unescape
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

from results.documents import MEANING_OF_REFUSED
from results.models import Run
from results.synthetic import measured_document

pytestmark = pytest.mark.django_db

UPLOAD = "/bench/upload/"
FIO_OUTPUT = Path(__file__).parent.parent / "results" / "fio" / "fio-3.33-standard.json"


@pytest.fixture
def signed_in(reviewer) -> Client:
    client = Client()
    client.force_login(reviewer)
    return client


def problems(html: str) -> list[tuple[str, str]]:
    """(pointer, message) of each problem the page lists."""
    found = re.findall(
        r'<code class="pointer">(.*?)</code>: <span class="message">(.*?)</span>', html, re.S
    )
    return [(unescape(p), unescape(m)) for p, m in found]


def test_the_form_is_shown_to_a_reviewer(signed_in):
    html = signed_in.get(UPLOAD).content.decode()
    assert 'enctype="multipart/form-data"' in html
    assert 'name="csrfmiddlewaretoken"' in html
    assert 'name="document"' in html and 'name="file"' in html
    # The limit in the site's MB (10^6 bytes): 8,388,608 bytes, not "8.0 MB" (2^20).
    assert "At most 8.4 MB." in html


def test_a_pasted_document_lands_on_its_run(signed_in):
    response = signed_in.post(
        UPLOAD, {"document": json.dumps(measured_document(series_seconds=300))}
    )
    run = Run.objects.get()
    assert response.status_code == 302
    assert response["Location"] == f"/bench/runs/{run.pk}/"
    assert signed_in.get(response["Location"]).status_code == 200


def test_a_fio_file_with_its_drive(signed_in):
    file = SimpleUploadedFile("out.json", FIO_OUTPUT.read_bytes(), "application/json")
    response = signed_in.post(
        UPLOAD, {"file": file, "manufacturer": "Bench Test", "model": "fio target"}
    )
    assert response.status_code == 302, response.content.decode()[:2000]
    run = Run.objects.get()
    assert run.tool_name == "fio" and run.drive.model == "fio target"


def test_each_problem_is_shown_at_its_pointer(signed_in):
    document = measured_document(series_seconds=300)
    document["drive_state"] = "<b>melted</b>"
    document["results"][0]["iops"] = True
    response = signed_in.post(UPLOAD, {"document": json.dumps(document)})
    assert response.status_code == 400
    html = response.content.decode()
    shown = dict(problems(html))
    assert "/drive_state" in shown and "must be one of" in shown["/drive_state"]
    assert "/results/0/iops" in shown and "boolean" in shown["/results/0/iops"]
    assert "<b>melted</b>" not in html  # escaped, never markup
    assert Run.objects.count() == 0


def test_bad_json_and_fio_without_a_drive_are_shown(signed_in):
    html = signed_in.post(UPLOAD, {"document": '{"a": 1, "a": 2}'}).content.decode()
    assert (
        "/",
        'the document is not valid JSON: the key "a" appears twice in one object',
    ) in problems(html)
    file = SimpleUploadedFile("out.json", FIO_OUTPUT.read_bytes(), "application/json")
    html = signed_in.post(UPLOAD, {"file": file}).content.decode()
    assert problems(html)[0][0] == "/drive"


def test_nothing_or_both_is_a_form_error(signed_in):
    response = signed_in.post(UPLOAD, {})
    assert response.status_code == 400
    assert "paste a result document or choose a file" in response.content.decode()
    file = SimpleUploadedFile("run.json", b"{}")
    response = signed_in.post(UPLOAD, {"document": "{}", "file": file})
    assert "not both" in response.content.decode()


def test_a_file_over_the_limit_is_refused_with_the_limit(signed_in, settings):
    settings.BENCH_MAX_DOCUMENT_BYTES = 100
    file = SimpleUploadedFile("run.json", b" " * 200)
    html = signed_in.post(UPLOAD, {"file": file}).content.decode()
    assert "the limit is 100 bytes" in html


def test_csrf_is_enforced(reviewer):
    client = Client(enforce_csrf_checks=True)
    client.force_login(reviewer)
    document = json.dumps(measured_document(series_seconds=300))
    assert client.post(UPLOAD, {"document": document}).status_code == 403
    assert Run.objects.count() == 0
    html = client.get(UPLOAD).content.decode()
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', html).group(1)
    response = client.post(UPLOAD, {"document": document, "csrfmiddlewaretoken": token})
    assert response.status_code == 302
    assert Run.objects.count() == 1


def test_signing_in_leads_to_the_form(reviewer):
    client = Client()
    login = client.get(UPLOAD)
    assert login.status_code == 302 and login["Location"].startswith("/accounts/login/")
    assert client.get(login["Location"]).status_code == 200
    response = client.post(
        "/accounts/login/",
        {"username": "rita", "password": "a-long-test-password-41", "next": UPLOAD},
    )
    assert response.status_code == 302 and response["Location"] == UPLOAD
    assert client.get(UPLOAD).status_code == 200


def test_a_signed_in_reader_is_told_they_are_not_a_reviewer(reader):
    client = Client()
    client.force_login(reader)
    response = client.get(UPLOAD)
    assert response.status_code == 403
    assert "is not one" in response.content.decode()


def test_the_form_shares_the_upload_throttle(signed_in, settings):
    from django.core.cache import cache

    cache.clear()
    rates = {**settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"], "uploads": "1/hour"}
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": rates}
    first = signed_in.post(UPLOAD, {"document": json.dumps(measured_document(series_seconds=300))})
    assert first.status_code == 302
    document = measured_document(seed=2, model="Again", series_seconds=300)
    second = signed_in.post(UPLOAD, {"document": json.dumps(document)})
    assert second.status_code == 429
    assert "too many uploads" in second.content.decode()
    assert Run.objects.count() == 1
    cache.clear()


def test_a_run_held_for_review_is_stored_and_says_why(signed_in):
    first = measured_document(series_seconds=300)
    assert signed_in.post(UPLOAD, {"document": json.dumps(first)}).status_code == 302
    far = measured_document(series_seconds=300, seed=2)
    far["results"] = [{**far["results"][0], "iops": far["results"][0]["iops"] * 20}]
    for figure in ("bytes_per_second", "bytes", "io_count", "latency_ns"):  # they would disagree
        far["results"][0].pop(figure, None)
    response = signed_in.post(UPLOAD, {"document": json.dumps(far)})
    assert response.status_code == 200
    html = unescape(response.content.decode())
    held = Run.objects.get(status=Run.Status.HELD)
    assert "Stored, and held for review" in html and f"Run #{held.pk} of" in html
    assert held.held_reason and held.held_reason.splitlines()[0] in html


def test_a_schema_and_a_meaning_problem_are_shown_with_what_waits_for_the_schema(signed_in):
    document = measured_document(series_seconds=300)
    document["colour"] = "red"
    document["results"][0]["test"] = "no-such-test"
    response = signed_in.post(UPLOAD, {"document": json.dumps(document)})
    assert response.status_code == 400
    html = response.content.decode()
    assert [p for p, _ in problems(html)] == ["/colour", "/results/0/test"]
    assert f'<p class="problems-note">{MEANING_OF_REFUSED}</p>' in unescape(html)
