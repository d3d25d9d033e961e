"""A drive's firmware history (issue 48, item 2): its page groups its runs by the firmware
they were measured on, newest first, and links the compare of the drive with itself across
each version and the one before it (each side the latest run of its version), where the
winner rule judges the difference; the results table names each result's firmware."""

import html as html_lib
import json
import re

import pytest
from django.urls import reverse

from results.models import Run
from results.selectors.drive_pages import drive_page, firmware_history
from results.services import run_ingest
from results.synthetic import measured_document

pytestmark = pytest.mark.django_db


def ingest(seed: int, firmware: str | None, started: str, faster: float = 1.0) -> Run:
    document = measured_document(seed=seed, model="Firmware Drive")
    if firmware is None:
        del document["drive"]["firmware"]
    else:
        document["drive"]["firmware"] = firmware
    document["started_at"] = started
    document["finished_at"] = started.replace("T10", "T11")
    for result in document["results"]:
        for key in ("iops", "bytes_per_second"):
            result[key] *= faster
        latency = result["latency_ns"]  # Little's law: as many I/Os in flight, faster
        for key in ("mean", "stddev"):
            latency[key] /= faster
        for key in ("min", "max"):
            latency[key] = round(latency[key] / faster)
        latency["percentiles"] = {p: round(v / faster) for p, v in latency["percentiles"].items()}
        result["io_count"] = round(result["iops"] * result["duration_ns"] / 1e9)
        result["bytes"] = result["io_count"] * result["block_size"]
    return run_ingest(document=json.dumps(document).encode(), submitter=None).run


def test_runs_are_grouped_by_firmware_newest_first():
    old = ingest(1, "1.0", "2026-01-01T10:00:00Z")
    old_again = ingest(2, "1.0", "2026-02-01T10:00:00Z")
    new = ingest(3, "2.0", "2026-03-01T10:00:00Z", faster=2.0)
    unstated = ingest(4, None, "2025-12-01T10:00:00Z")
    groups = firmware_history(drive_page(slug=new.drive.slug).runs)
    assert [g.version for g in groups] == ["2.0", "1.0", ""]
    assert [[r.pk for r in g.runs] for g in groups] == [
        [new.pk],
        [old_again.pk, old.pk],
        [unstated.pk],
    ]
    assert groups[0].older is groups[1] and groups[1].older is groups[2]
    assert groups[2].older is None and groups[1].latest.pk == old_again.pk


def test_the_page_links_each_version_against_the_one_before(client):
    old = ingest(1, "1.0", "2026-01-01T10:00:00Z")
    new = ingest(3, "2.0", "2026-03-01T10:00:00Z", faster=2.0)
    page = client.get(reverse("bench:drive", args=[new.drive.slug])).content.decode()
    table = page.split('id="firmware-history"', 1)[1].split("</table>", 1)[0]
    assert "2.0" in table and "1.0" in table
    link = html_lib.unescape(re.search(r'<a href="([^"]+)">1\.0 → 2\.0</a>', table).group(1))
    assert link == (
        reverse("bench:compare", args=[new.drive.slug, new.drive.slug])
        + f"?run_a={old.pk}&run_b={new.pk}"
    )
    compared = client.get(link)
    assert compared.status_code == 200
    text = compared.content.decode()
    # Each side shows the run chosen by its firmware, and the rule judges the difference:
    # twice the rate is beyond any spread, B (the new firmware) wins.
    assert f'value="{old.pk}" selected' in text and f'value="{new.pk}" selected' in text
    body = client.get(
        reverse("api:compare", args=[new.drive.slug, new.drive.slug]),
        {"run_a": old.pk, "run_b": new.pk},
    ).json()
    winners = {p["winner"] for t in body["tests"] for p in t["patterns"]}
    assert winners == {"b"} or winners <= {"b", None}, winners
    assert "b" in winners
    # The results table names each result's firmware.
    results = page.split("<h2>Results</h2>", 1)[1].split("</table>", 1)[0]
    assert "<th>Firmware</th>" in results and "<td>2.0</td>" in results


def test_one_firmware_has_no_history(client):
    run = ingest(1, "1.0", "2026-01-01T10:00:00Z")
    page = client.get(reverse("bench:drive", args=[run.drive.slug])).content.decode()
    assert 'id="firmware-history"' not in page
