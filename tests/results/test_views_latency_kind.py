"""Every page that shows a latency says which latency it is: issue to completion (fio's lat)
for loadgen's version 2 runs, the completion part (fio's clat) for version 1 runs, and the
article's own for published figures."""

import csv
import io
import re

import pytest
from django.urls import reverse

from results.models import AS_PUBLISHED, LatencyKind
from results.synthetic import measured_document
from tests.results.helpers import ingest, measured, published
from tests.results.test_ingest_v2 import version_2

pytestmark = pytest.mark.django_db

TOTAL, COMPLETION = LatencyKind.TOTAL.label, LatencyKind.COMPLETION.label
TEST = "randread-4k-qd3"
KIND = re.compile(r'<small class="latency-kind">([^<]*)</small>')


@pytest.fixture
def drives():
    """The same test measured by loadgen v2, by loadgen v1, and published by an article."""
    v2 = ingest(version_2(measured_document(seed=1, manufacturer="New", model="Two"))).drive
    v1 = measured(manufacturer="Old", model="One", seed=2).drive
    article = published(
        manufacturer="Print",
        model="Three",
        results=[
            {
                "test": TEST,
                "pattern": "unspecified",
                "bytes_per_second": 8e7,
                "latency_ns": {"mean": 150000.0},
            }
        ],
    ).drive
    return v2, v1, article


def kinds(html: str) -> list[str]:
    return [k.replace("&#x27;", "'").replace("&#39;", "'") for k in KIND.findall(html)]


def test_drive_pages_say_which_latency(client, drives):
    v2, v1, article = drives
    for drive, expected in ((v2, TOTAL), (v1, COMPLETION), (article, AS_PUBLISHED)):
        html = client.get(reverse("bench:drive", args=[drive.slug])).content.decode()
        found = kinds(html)
        assert found and set(found) == {expected}, (drive, found)
        assert "(issue to completion)" not in html.split("<tbody>")[0]  # not in the header


def test_the_compare_page_says_which_latency_each_side_is(client, drives):
    v2, v1, article = drives
    html = client.get(reverse("bench:compare", args=[v2.slug, article.slug])).content.decode()
    section = html[
        html.index('id="latency"') : html.index("</section>", html.index('id="latency"'))
    ]
    assert kinds(section).count(TOTAL) >= 1 and AS_PUBLISHED in kinds(section)
    html = client.get(reverse("bench:compare", args=[v1.slug, v2.slug])).content.decode()
    section = html[html.index('id="latency"') :]
    assert COMPLETION in kinds(section) and TOTAL in kinds(section)


def test_the_exports_say_which_latency(client, drives):
    v2, _, article = drives
    response = client.get(reverse("bench:compare_csv", args=[v2.slug, article.slug]))
    rows = list(csv.reader(io.StringIO(response.content.decode())))
    units = {r[4] for r in rows if r[0] == "latency" and r[3] != "I/Os measured"}
    # The article states no data pattern: its figure is set against each measured one.
    assert units == {
        f"µs, {TOTAL}; lower is better",
        f"µs, A {TOTAL}, B {AS_PUBLISHED}; lower is better",
    }, units


def test_leaderboards_say_which_latency_each_row_is(client, drives):
    html = client.get(reverse("bench:leaderboard", args=[TEST])).content.decode()
    assert sorted(kinds(html)) == sorted([TOTAL, TOTAL, COMPLETION, COMPLETION, AS_PUBLISHED])
    # Ranked by latency, one kind at a time: each metric's rows are of its kind alone.
    for metric, kind in (
        ("latency", TOTAL),
        ("latency_clat", COMPLETION),
        ("latency_published", AS_PUBLISHED),
    ):
        page = client.get(reverse("bench:leaderboard", args=[TEST]), {"metric": metric})
        assert set(kinds(page.content.decode())) == {kind}, metric


def test_an_export_row_of_two_latencies_names_both(client, drives):
    v2, v1, _ = drives
    response = client.get(reverse("bench:compare_markdown", args=[v1.slug, v2.slug]))
    assert f"A {COMPLETION}, B {TOTAL}; lower is better" in response.content.decode()
