"""A page for every run (/bench/runs/<id>/) and where each run falls among its drive's runs:
the page's provenance, figures, percentile and reproduce command; who sees a held or
withdrawn run and why; the document to download without the drive's serial; the API and
the upload pointing to the page; the percentile rule itself."""

import json
import logging
import re

import pytest
from django.urls import reverse
from hypothesis import given
from hypothesis import strategies as st

from results.models import Run
from results.services import run_approve, run_ingest, run_withdraw
from results.spread import percentile_rank, quantiles
from results.synthetic import measured_document
from tests.api.conftest import make_user, post_document, token_client

pytestmark = pytest.mark.django_db

SERIAL = "S3Z9NX0M123456"


def _runs(count: int, *, submitter=None) -> list[Run]:
    """`count` runs of one drive (Maker Model X), their rates drawn differently each."""
    return [
        run_ingest(
            document=json.dumps(measured_document(seed=seed)).encode(), submitter=submitter
        ).run
        for seed in range(1, count + 1)
    ]


def _text(response) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", response.content.decode()))


def test_a_run_page_shows_provenance_figures_and_the_command(client):
    run = _runs(1)[0]
    response = client.get(reverse("bench:run", args=[run.pk]))
    assert response.status_code == 200
    text = _text(response)
    assert f"Run #{run.pk} of {run.drive}" in text
    assert "4KB random read" in text and "the drive's only run of this test" in text
    assert "loadgen run --target /dev/DRIVE --destroy-data=/dev/DRIVE --suite desktop-2011:1" in (
        text
    )
    assert reverse("bench:run_document", args=[run.pk]) in response.content.decode()


def test_percentile_among_the_drives_runs(client):
    runs = _runs(5)
    rates = {
        r.pk: r.results.get(test__identifier="randread-4k-qd3", pattern="compressible").iops
        for r in runs
    }
    for run in runs:
        expected = percentile_rank(rates[run.pk], list(rates.values()))
        text = _text(client.get(reverse("bench:run", args=[run.pk])))
        assert f"percentile {expected:.0f} of 5 runs" in text
    slowest = min(rates, key=rates.get)
    assert "percentile 0 of 5 runs" in _text(client.get(reverse("bench:run", args=[slowest])))
    drive_page = client.get(reverse("bench:drive", args=[runs[0].drive.slug])).content.decode()
    assert 'id="standings"' in drive_page and "Where each run falls" in drive_page
    assert reverse("bench:run", args=[runs[0].pk]) in drive_page


def test_a_single_run_drive_has_no_distribution(client):
    run = _runs(1)[0]
    drive_page = client.get(reverse("bench:drive", args=[run.drive.slug])).content.decode()
    assert 'id="standings"' not in drive_page


def test_withdrawn_run_says_so_and_why_only_to_its_submitter(client):
    reviewer = make_user("rita", reviewer=True, trusted=True)
    run = _runs(2, submitter=reviewer)[0]
    run_withdraw(run=run, by=reviewer, reason="wrong drive named")
    url = reverse("bench:run", args=[run.pk])
    anonymous = _text(client.get(url))
    assert "Withdrawn on" in anonymous and "wrong drive named" not in anonymous
    client.force_login(reviewer)
    assert "wrong drive named" in _text(client.get(url))


def test_a_held_run_is_shown_only_to_its_submitter_and_staff(client):
    reviewer = make_user("rita", reviewer=True, trusted=True)
    staff = make_user("sam", staff=True)
    run = _runs(1, submitter=reviewer)[0]
    Run.objects.filter(pk=run.pk).update(status=Run.Status.HELD, held_reason="far from others")
    url = reverse("bench:run", args=[run.pk])
    assert client.get(url).status_code == 404
    assert client.get(reverse("bench:run_document", args=[run.pk])).status_code == 404
    for user in (reviewer, staff):
        client.force_login(user)
        assert "far from others" in _text(client.get(url))
    run_approve(run=Run.objects.get(pk=run.pk))
    client.logout()
    assert client.get(url).status_code == 200


def test_unknown_run_is_404(client):
    assert client.get("/bench/runs/999999/").status_code == 404
    assert client.get("/bench/runs/999999/document.json").status_code == 404


def test_the_serial_is_never_published(client, caplog):
    """A version 1 or 2 document may hold the drive's serial (loadgen 0.1 wrote it): it is
    stored only as its hash, and appears in no page, download, API response, export or log."""
    caplog.set_level(logging.DEBUG)
    document = measured_document()
    document["target"]["serial"] = SERIAL
    run = run_ingest(document=json.dumps(document).encode(), submitter=None).run
    other = run_ingest(
        document=json.dumps(measured_document(seed=5, model="Other")).encode(), submitter=None
    ).run
    assert SERIAL not in run.document
    download = client.get(reverse("bench:run_document", args=[run.pk]))
    assert download["Content-Disposition"].startswith("attachment")
    published = json.loads(download.content)
    assert "serial" not in published["target"]
    assert published["target"]["serial_hash"] == run.unit_hash
    assert published["results"] == document["results"]
    pages = [
        reverse("bench:run", args=[run.pk]),
        reverse("bench:drive", args=[run.drive.slug]),
        f"/api/v1/runs/{run.pk}/",
        "/api/v1/runs/",
        "/api/v1/results/",
        f"/api/v1/drives/{run.drive.slug}/",
        reverse("bench:compare", args=[run.drive.slug, other.drive.slug]),
        reverse("bench:compare_csv", args=[run.drive.slug, other.drive.slug]),
        reverse("bench:compare_markdown", args=[run.drive.slug, other.drive.slug]),
        f"/api/v1/compare/{run.drive.slug}/{other.drive.slug}/",
    ]
    for url in pages:
        response = client.get(url)
        assert response.status_code == 200, url
        assert SERIAL not in response.content.decode(), url
    assert SERIAL not in caplog.text


def test_the_api_and_the_upload_point_to_the_run_page(client):
    reviewer = make_user("rita", reviewer=True, trusted=True)
    response = post_document(token_client(reviewer), measured_document(seed=9))
    assert response.status_code == 201
    body = response.json()["run"]
    assert body["page"].endswith(f"/bench/runs/{body['id']}/")
    detail = client.get(f"/api/v1/runs/{body['id']}/").json()
    assert detail["page"] == body["page"]
    assert client.get(body["page"]).status_code == 200


values = st.lists(st.floats(min_value=1, max_value=1e10, allow_nan=False), min_size=2, max_size=40)


@given(values)
def test_quantiles_are_ordered_and_within_the_values(rates):
    q = quantiles(rates)
    assert list(q) == sorted(q)
    assert min(rates) <= q[0] and q[-1] <= max(rates)
    ordered = sorted(rates)
    middle = len(ordered) // 2
    median = ordered[middle] if len(ordered) % 2 else (ordered[middle - 1] + ordered[middle]) / 2
    assert q[2] == pytest.approx(median)


@given(values)
def test_percentile_rank_runs_from_the_lowest_to_the_highest(rates):
    ranks = [percentile_rank(r, rates) for r in rates]
    assert all(0 <= p <= 100 for p in ranks)
    for a, pa in zip(rates, ranks, strict=True):
        for b, pb in zip(rates, ranks, strict=True):
            assert (a < b) <= (pa < pb) and (a == b) <= (pa == pb)
    if len(set(rates)) == len(rates):
        assert min(ranks) == 0 and max(ranks) == 100
    if len(set(rates)) == 1:
        assert ranks == [50] * len(rates)


def v3_run(*, seed: int, unit: str, health: dict) -> Run:
    """A schema version 3 run of Maker Model X: its unit's serial hash and its health."""
    document = measured_document(seed=seed)
    document["schema_version"] = 3
    document["target"]["serial_hash"] = unit
    document["health"] = health
    return run_ingest(document=json.dumps(document).encode(), submitter=None).run


NVME = {
    "source": "nvme-smart-log",
    "before": {
        "taken_at": "2026-11-21T10:00:00Z",
        "temperature_celsius": 38,
        "percentage_used": 12,
        "data_written_bytes": 40 * 10**12,
    },
    "after": {
        "taken_at": "2026-11-21T11:30:00Z",
        "temperature_celsius": 51,
        "percentage_used": 12,
        "data_written_bytes": 40 * 10**12 + 512_000 * 1000,
    },
}


def test_health_before_and_after_and_the_units_runs(client):
    unit = "ab" * 16
    first = v3_run(seed=1, unit=unit, health=NVME)
    second = v3_run(seed=2, unit=unit, health={"source": "none", "reason": "a virtual device"})
    other = v3_run(seed=3, unit="cd" * 16, health=NVME)
    text = _text(client.get(reverse("bench:run", args=[first.pk])))
    assert "the temperature rose 13 °C during the run" in text
    assert "the drive counted 0.5 GB written during it" in text
    assert "started this run worn: 12% of its life used" in text
    assert f"Physical unit {unit[:8]}" in text and f"#{second.pk}" in text
    assert f"#{other.pk}" not in text.split("Physical unit")[1].split(".")[0]
    text = _text(client.get(reverse("bench:run", args=[second.pk])))
    assert "Not read: a virtual device." in text
    fresh = dict(NVME, before=dict(NVME["before"], percentage_used=2))
    text = _text(
        client.get(reverse("bench:run", args=[v3_run(seed=4, unit=unit, health=fresh).pk]))
    )
    assert "worn" not in text
