"""docs/methodology.md served as a page: anchors on its headings and on each test's row, the
test pages linking to them, and Markdown that cannot put markup or scripts on the page."""

import re
from pathlib import Path

import pytest
from django.urls import reverse

from results.methodology import render, slug
from results.models import Test

pytestmark = pytest.mark.django_db

ROOT = Path(__file__).resolve().parents[2]
IDS = re.compile(r'\bid="([^"]+)"')


def page_ids(client) -> set[str]:
    response = client.get(reverse("bench:methodology"))
    assert response.status_code == 200
    return set(IDS.findall(response.content.decode()))


def test_the_page_has_an_anchor_per_heading_and_per_test(client):
    ids = page_ids(client)
    for anchor in ("the-tests", "throughput-what-each-figure-is", "write-saturation", "sources"):
        assert anchor in ids
    for test in Test.objects.filter(suites__name__in=["desktop-2010", "desktop-2011"]):
        assert f"test-{test.identifier}" in ids, test.identifier
    for identifier in ("consistency-4k-qd32", "trim-validation", "write-saturation-128k-qd32"):
        assert f"test-{identifier}" in ids


def test_every_test_page_links_to_where_it_is_described(client):
    ids = page_ids(client)
    index = client.get(reverse("bench:tests")).content.decode()
    assert f'href="{reverse("bench:methodology")}"' in index
    linked = re.findall(r'href="/bench/methodology/#([^"]+)"', index)
    assert "test-randread-4k-qd3" in linked and "test-write-saturation-128k-qd32" in linked
    assert set(linked) <= ids
    for test in Test.objects.filter(kind=Test.Kind.THROUGHPUT):
        html = client.get(reverse("bench:leaderboard", args=[test.identifier])).content.decode()
        anchors = re.findall(r'href="/bench/methodology/#([^"]+)"', html)
        assert "throughput-what-each-figure-is" in anchors, test.identifier
        assert set(anchors) <= ids
        if f"test-{test.identifier}" in ids:
            assert f"test-{test.identifier}" in anchors


def test_markdown_cannot_inject_markup():
    doc = render(
        "# T\n\n<script>alert(1)</script>\n\n"
        "[x](javascript:alert(1)) [y](other.md) [z](#t) ![i](data:text/html,hi)\n\n"
        "| test id | what |\n|---|---|\n| `a-1`, `b-2` | <img src=x onerror=alert(1)> |\n"
        '| `"><b>` | bad id |\n'
    )
    assert "<script>" not in doc.html and "&lt;script&gt;" in doc.html
    assert "<img" not in doc.html and 'href="javascript' not in doc.html
    assert 'href="other.md"' not in doc.html and ">y<" not in doc.html and " y " in doc.html
    assert '<a href="#t">z</a>' in doc.html
    assert '<tr id="test-a-1">' in doc.html and '<span id="test-b-2"></span>' in doc.html
    assert doc.anchors == {"t", "test-a-1", "test-b-2"}
    assert "<b>" not in doc.html


def test_slugs_are_githubs():
    assert slug("Throughput: what each figure is") == "throughput-what-each-figure-is"
    assert slug("Interrupted and failed runs") == "interrupted-and-failed-runs"


def test_both_readmes_link_the_methodology():
    assert "(docs/methodology.md)" in (ROOT / "README.md").read_text()
    assert "(../docs/methodology.md)" in (ROOT / "loadgen" / "README.md").read_text()
