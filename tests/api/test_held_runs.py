"""Plausibility at the door (results.plausibility, results.documents): a rate no drive can
have is refused with its pointer; a plausible rate far from the drive's reviewed figures in
the same test is stored but held for staff review, out of the rankings and off the drive's
latest figures, until staff approve it (API and admin) or it is withdrawn."""

import json

import pytest
from django.urls import reverse

from drives.models import Drive
from results import plausibility
from results.models import LeaderboardEntry, Run
from results.selectors.compare import compare
from results.services import run_ingest
from tests.api.conftest import MY_RUNS, RUNS, make_user, post_document, rows, token_client

pytestmark = pytest.mark.django_db
TEST = "randwrite-4k-qd3-8g"


def published(figures: dict, *, title: str = "A review", **drive) -> dict:
    return {
        "schema_version": 1,
        "status": "complete",
        "source": {
            "kind": "published",
            "citation": {"publisher": "Site", "title": title, "published_on": "2011-04-01"},
        },
        "tool": {"name": "Iometer"},
        "drive": {"manufacturer": "Maker", "model": "Held One", **drive},
        "results": [{"test": TEST, "pattern": "incompressible", **figures}],
    }


def imported(document: dict) -> Run:
    """The document imported by staff (a command): the drive's reviewed reference."""
    return run_ingest(document=json.dumps(document), submitter=None).run


def problems(response) -> list[tuple[str, str]]:
    return [(e["pointer"], e["message"]) for e in response.json()["errors"]]


def test_mb_per_second_typed_as_bytes_per_second_is_refused(api):
    """The issue's upload: "bytes_per_second": 112 for a 4KB random write got a 201 and
    replaced the drive's figure with 0.00 MB/s."""
    before = rows()
    response = post_document(api, published({"bytes_per_second": 112}))
    assert response.status_code == 400, response.content
    assert problems(response) == [
        (
            "/results/0/bytes_per_second",
            plausibility.IMPLAUSIBLY_SLOW.format(iops=112 / 4096, block_size=4096),
        )
    ]
    assert rows() == before


@pytest.mark.parametrize(
    "interface, bps, refused",
    [
        ("sata-1.5g", 150e6, False),
        ("sata-1.5g", 151e6, True),
        ("sata-3g", 301e6, True),
        ("sata-6g", 600e6, False),
        ("sata-6g", 700e6, True),
        ("pata", 140e6, True),
        ("pcie-nvme", 7e9, False),
        ("pcie-nvme", 200e9, True),
        ("other", 100e9, False),
        ("other", 200e9, True),
        (None, 200e9, True),
    ],
)
def test_a_rate_above_the_interfaces_line_rate_is_refused(api, interface, bps, refused):
    before = rows()
    drive = {"interface": interface} if interface else {}
    response = post_document(api, published({"bytes_per_second": bps}, **drive))
    if not refused:
        assert response.status_code == 201, response.content
        return
    assert response.status_code == 400, response.content
    limit = plausibility.LINE_RATES.get(interface, plausibility.WIDEST_LINK)
    assert problems(response) == [
        (
            "/results/0/bytes_per_second",
            plausibility.ABOVE_LINE_RATE.format(
                rate=bps / 1e6, interface=interface or "its link", limit=limit / 1e6
            ),
        )
    ]
    assert rows() == before


def test_the_catalog_drives_interface_bounds_a_document_that_names_none(api):
    post_document(api, published({"iops": 20_000}, interface="sata-3g"))
    response = post_document(api, published({"bytes_per_second": 400e6}, title="Another"))
    assert response.status_code == 400
    assert "sata-3g" in problems(response)[0][1]


def test_a_virtual_disk_the_catalog_records_is_bounded_by_no_wire(api):
    imported(published({"bytes_per_second": 1e9}, interface="other", kind="virtual"))
    response = post_document(api, published({"bytes_per_second": 2e11}, title="Fast"))
    assert response.status_code == 201, response.content


def test_a_virtual_disk_an_upload_names_is_bounded_by_its_link(api):
    """Only a drive the catalog records as virtual is exempt: one an upload names awaits
    review, and what its document says lifts no bound."""
    response = post_document(
        api, published({"bytes_per_second": 2e9}, interface="sata-6g", kind="virtual")
    )
    assert response.status_code == 400, response.content
    assert problems(response)[0][0] == "/results/0/bytes_per_second"
    response = post_document(api, published({"bytes_per_second": 2e11}, kind="virtual"))
    assert response.status_code == 400, response.content


def test_a_figure_far_from_the_drives_others_is_held_until_staff_approve_it(api, client):
    imported(published({"iops": 5_000}))
    drive = Drive.objects.get(model="Held One")
    board = f"/bench/tests/{TEST}/"

    response = post_document(api, published({"iops": 60_000}, title="Twelve times"))
    assert response.status_code == 201, response.content
    run = response.json()["run"]
    assert run["status"] == "held"
    # Its address in the API answers its submitter (tests/api/test_held_run_access.py).
    assert run["url"].endswith(f"{RUNS}{run['id']}/") and response["Location"] == run["url"]
    (reason,) = run["held_reasons"]
    assert reason == plausibility.FAR_FROM_OTHERS.format(
        test=TEST,
        pattern="incompressible",
        value="60,000",
        unit="IOPS",
        factor=12,
        direction="above",
        median="5,000",
        count=1,
    )
    held = Run.objects.get(pk=run["id"])
    # Not ranked, not the drive's latest, not in the public lists; the submitter sees it.
    assert LeaderboardEntry.objects.get(drive=drive).iops == 5_000
    assert (
        compare([drive.slug, drive.slug]).sides[0].results[(TEST, "incompressible")].iops == 5_000
    )
    assert held.pk not in [r["id"] for r in client.get(RUNS).json()["results"]]
    mine = {r["id"]: r for r in api.get(MY_RUNS).json()["results"]}
    assert mine[held.pk]["status"] == "held" and mine[held.pk]["held_reasons"] == [reason]
    page = client.get(drive.get_absolute_url()).content.decode()
    assert "1 run held for review" in page and "60,000" not in page

    # Only staff approve; then it is ranked, as the newest run, and public.
    approve = f"{RUNS}{held.pk}/approve/"
    assert api.post(approve).status_code == 403
    assert client.post(approve).status_code in (401, 403)
    staff = token_client(make_user("stan", staff=True))
    approved = staff.post(approve)
    assert approved.status_code == 200, approved.content
    assert approved.json()["status"] == "published"
    assert LeaderboardEntry.objects.get(drive=drive).iops == 60_000
    assert "60,000" in client.get(board).content.decode()
    assert staff.post(approve).status_code == 409  # not held any more


def test_a_held_run_can_be_withdrawn_and_a_figure_within_range_is_not_held(api):
    imported(published({"iops": 5_000}))
    close = post_document(api, published({"iops": 45_000}, title="Nine times"))
    assert close.json()["run"]["status"] == "published"
    low = post_document(api, published({"iops": 400}, title="A tenth and less"))
    run = low.json()["run"]
    assert run["status"] == "held" and "below" in run["held_reasons"][0]
    withdrawn = api.post(f"{RUNS}{run['id']}/withdraw/", {"reason": "typo"}, format="json")
    assert withdrawn.status_code == 200 and withdrawn.json()["status"] == "withdrawn"


def test_staff_approve_held_runs_in_the_admin(api, client):
    imported(published({"iops": 5_000}))
    held = post_document(api, published({"iops": 80_000}, title="Sixteen times")).json()["run"]
    admin = make_user("ada", staff=True)
    admin.is_superuser = True
    admin.save()
    client.force_login(admin)
    response = client.post(
        reverse("admin:results_run_changelist"),
        {"action": "approve_runs", "_selected_action": [held["id"]]},
    )
    assert response.status_code == 302
    assert Run.objects.get(pk=held["id"]).status == Run.Status.PUBLISHED
    assert LeaderboardEntry.objects.get(drive__model="Held One").iops == 80_000
