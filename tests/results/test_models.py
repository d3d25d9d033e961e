"""Stored URLs reach a page only as http(s) links: Citation.safe_url and
Price.safe_source_url, and templates that use nothing else."""

import json
import re
from pathlib import Path

import pytest
from django.conf import settings
from django.db import connection
from django.urls import reverse
from hypothesis import given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st

from drives.models import Price
from results.models import Citation, ConsistencySeries, Run, Test
from results.synthetic import measured_document
from tests.factories import DriveFactory, PriceFactory
from tests.results.helpers import ingest
from tests.results.schema_slots import is_http_url

SCHEMES = [
    "http://",
    "https://",
    "HTTPS://",
    "javascript:",
    "JaVaScRiPt:",
    "java\tscript:",
    "data:",
    "vbscript:",
    "ftp://",
    "//",
    "",
]
URLS = st.one_of(
    st.text(),
    st.builds(
        lambda lead, scheme, rest: lead + scheme + rest,
        st.sampled_from(["", " ", "\t", "\n", "\x01", "\x7f"]),
        st.sampled_from(SCHEMES),
        st.text(),
    ),
)


@hypothesis_settings(max_examples=300, derandomize=True, database=None)
@given(url=URLS)
def test_safe_urls_are_http_or_nothing(url):
    citation = Citation(url=url)
    assert citation.safe_url == (url if is_http_url(url) else "")
    assert Price(source_url=url).safe_source_url == citation.safe_url


def published_run(url: str, title: str = "T") -> Run:
    """A run citing a source at this URL, stored as is (as rows from before the checks)."""
    citation = Citation.objects.create(
        publisher="P", title=title, published_on="2013-11-15", url=url
    )
    return Run.objects.create(
        drive=DriveFactory(),
        citation=citation,
        source=Run.Source.PUBLISHED,
        tool_name="Iometer",
        document="{}",
        content_hash=str(citation.pk).rjust(64, "0"),
    )


HOSTILE = [
    "javascript:alert(document.cookie)",
    " javascript:alert(1)",
    "java\tscript:alert(1)",
    "data:text/html,<script>alert(1)</script>",
]


@pytest.mark.django_db
@pytest.mark.parametrize("url", HOSTILE)
def test_a_stored_hostile_url_is_never_a_link_on_the_drive_page(client, url):
    # Rows written before the checks existed, or by hand: the page must still be safe.
    drive = published_run(url, title="The review").drive
    PriceFactory(drive=drive, source="A shop", source_url=url)
    html = client.get(reverse("bench:drive", args=[drive.slug])).content.decode()
    assert "The review" in html and "A shop" in html
    hrefs = re.findall(r'href="([^"]*)"', html)
    assert all(not h.lstrip().lower().startswith(("javascript", "data", "java")) for h in hrefs)
    assert "alert(" not in " ".join(hrefs)


@pytest.mark.django_db
def test_a_stored_http_url_is_a_link(client):
    drive = published_run("https://example.com/r?a=1&b=2").drive
    html = client.get(reverse("bench:drive", args=[drive.slug])).content.decode()
    assert 'href="https://example.com/r?a=1&amp;b=2"' in html


# A template variable that reads a stored URL field directly: .url, .source_url, .website.
RAW_URL = re.compile(
    r"\{\{[^}]*\.(url|source_url|website)\b[^}]*\}\}|\{%[^%]*\.(url|source_url|website)\b"
)


def test_templates_render_stored_urls_only_through_the_safe_properties():
    templates = Path(settings.BASE_DIR) / "templates"
    offending = [
        f"{path.relative_to(templates)}: {match.group(0)}"
        for path in templates.rglob("*.html")
        for match in RAW_URL.finditer(path.read_text())
    ]
    assert offending == []


COUNTS = st.lists(st.one_of(st.just(0), st.integers(0, 2**63 - 1)), max_size=400)


@pytest.mark.django_db
def test_a_series_stored_figures_follow_its_counts():
    """points, stalls and iops_text are PostgreSQL's, from `iops`, as run_ingest inserts a
    series and on every later change: the pages read them instead of the array."""
    run = ingest(measured_document(series_seconds=30))
    first, second = run.consistency_series.order_by("pk")
    assert (first.points, json.loads(first.iops_text)) == (30, first.iops)
    assert second.stalls == second.iops.count(0)

    @hypothesis_settings(max_examples=60, derandomize=True, database=None, deadline=None)
    @given(counts=COUNTS)
    def check(counts):
        ConsistencySeries.objects.filter(pk=first.pk).update(iops=counts)
        stored = ConsistencySeries.objects.get(pk=first.pk)
        assert stored.points == len(counts)
        assert stored.stalls == counts.count(0)
        assert json.loads(stored.iops_text) == counts

    check()


@pytest.mark.django_db
def test_a_series_points_text_is_stored_uncompressed_out_of_line():
    """Every chart reads a series' points whole: PostgreSQL keeps their text as it is (no
    pglz to undo on each read) once it is too long for the row."""
    run = ingest(measured_document(series_seconds=2000))
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT pg_column_compression(iops_text), pg_column_size(iops_text),"
            " octet_length(iops_text) FROM results_consistencyseries WHERE run_id = %s",
            [run.pk],
        )
        rows = cursor.fetchall()
    assert rows and all(method is None and stored >= size > 2000 for method, stored, size in rows)


@hypothesis_settings(max_examples=200)
@given(
    depth=st.integers(min_value=1, max_value=65535),
    before=st.sampled_from(["4KB random write", "Test", ""]),
    after=st.sampled_from(["", ", 8GB LBA span", " (incompressible)"]),
    written=st.sampled_from(["QD{}", "qd{}", "QD {}"]),
)
def test_the_queue_depth_is_noted_unless_the_name_states_it(depth, before, after, written):
    stated = f"{before} {written.format(depth)}{after}".strip()
    assert Test(name=stated, queue_depth=depth).queue_depth_note == ""
    assert Test(name=f"{before}{after}" or "Test", queue_depth=depth).queue_depth_note == (
        f"QD{depth}"
    )
    # Another depth in the name (QD3 of a QD32 test, QD32 of a QD3 one) is not this one.
    for other in (depth * 10, depth + 1):
        named = f"{before} {written.format(other)}{after}"
        assert Test(name=named, queue_depth=depth).queue_depth_note == f"QD{depth}"


@pytest.mark.django_db
def test_no_page_repeats_a_queue_depth_the_name_states(client):
    """ "4KB random write QD32, 8GB LBA span" is not followed by "QD32" again; a name that
    does not state it ("4KB random read") is."""
    a = ingest(measured_document(seed=1, model="One")).drive
    b = ingest(measured_document(seed=2, model="Two")).drive
    name = Test.objects.get(identifier="randwrite-4k-qd32-8g").name
    assert "QD32" in name
    pages = {
        "compare": reverse("bench:compare", args=[a.slug, b.slug]),
        "drive": a.get_absolute_url(),
    }
    for page, url in pages.items():
        html = client.get(url).content.decode()
        rows = re.findall(
            r"<a href=\"/bench/tests/randwrite-4k-qd32-8g/[^\"]*\">([^<]*)</a>(.{0,40})", html
        )
        assert rows, page
        for text, beside in rows:
            assert text == name and "QD32" not in beside, (page, beside)
        read = re.findall(r"/randread-4k-qd3/[^\"]*\">4KB random read</a>\s*<small>QD3\b", html)
        assert read, page
