"""A comparison's sections are declared once, by the kinds of test (results/kinds/), and
every view of a comparison is made from them: the page shows each section that has parts,
under its id and in its contents; every chart a section draws is an image of the page; the
exports write each section's rows; and the API's body writes each section's entry."""

import csv
import io
from io import StringIO

import pytest
from django.core.management import call_command
from django.urls import reverse

from results.kinds import KINDS, compare_sections
from results.sections import Figure
from results.selectors.compare import Comparison, compare

pytestmark = pytest.mark.django_db

# Demo drives whose comparison has a part in every section: the two zram runs (one with the
# queue-depth sweeps, one with WSAT and write saturation), beside a published drive.
DRIVES = (
    "linux-zram-compressed-ram-disk",
    "linux-zram-compressed-ram-disk-lzo-rle-43gb",
    "intel-ssd-530-240gb",
)


@pytest.fixture
def shown():
    call_command("load_demo", stdout=StringIO())
    c = compare(list(DRIVES))
    return c, compare_sections(c)


def test_every_kind_has_its_sections_in_the_pages_order():
    nothing = Comparison(sides=[], tests=[], consistency_levels=[], trim_keys=[])
    ids = [section.id for section in compare_sections(nothing)]
    assert ids == [
        "throughput",
        "sweeps",
        "curves",
        "latency",
        "consistency",
        "trim",
        "saturation",
        "wsat",
    ]
    assert [kind.name for kind in KINDS] == ["throughput", "consistency", "trim", "saturation"]
    # Each section's entry in the API's body has a key of its own.
    keys = [s.body[0] for s in compare_sections(nothing) if s.body]
    assert len(keys) == len(set(keys))


def test_the_demo_comparison_has_parts_in_every_section(shown):
    c, found = shown
    assert all(section.parts for section in found), [s.id for s in found if not s.parts]


def test_the_page_shows_each_section_under_its_id_and_in_its_contents(client, shown):
    c, found = shown
    html = client.get(reverse("bench:compare", args=DRIVES)).content.decode()
    contents = html.split('<nav class="toc"', 1)[1].split("</nav>", 1)[0]
    for section in found:
        assert f'<section id="{section.id}">' in html
        assert f'<a href="#{section.id}">{section.title}</a>' in contents
    for plot in (plot for section in found for plot in section.plots):
        assert f'id="{plot.element}"' in html, plot.key
        assert f"chart/{plot.key}.svg" in html, plot.key


def test_every_chart_of_every_section_is_an_image(client, shown):
    c, found = shown
    page = reverse("bench:compare", args=DRIVES)
    for plot in (plot for section in found for plot in section.plots):
        response = client.get(f"{page}chart/{plot.key}.svg")
        assert response.status_code == 200, plot.key
        assert plot.title in response.content.decode(), plot.key


def test_the_exports_write_every_sections_rows(client, shown):
    """Each section's rows are the exports': in the Markdown as the page writes each figure,
    in the CSV each figure's plain value with its qualifiers in the column beside it."""
    c, found = shown
    text = client.get(reverse("bench:compare_csv", args=DRIVES)).content.decode()
    rows = list(csv.reader(io.StringIO(text)))
    markdown = client.get(reverse("bench:compare_markdown", args=DRIVES)).content.decode()
    n = len(c.sides)
    for section in found:
        for row in section.export():
            sides = row[5 : 5 + n]
            written = [
                [cell.value, "; ".join(cell.notes)] if isinstance(cell, Figure) else [cell, ""]
                for cell in sides
            ]
            plain = [
                "" if v is None else repr(v) if isinstance(v, float) else str(v)
                for pair in written
                for v in pair
            ]
            assert [*map(str, row[:5]), *plain] in [r[: 5 + 2 * n] for r in rows], (
                section.id,
                row[:5],
            )
            assert str(row[5]).replace("|", "\\|") in markdown or "|" in str(row[5])
    assert {row[0] for row in rows[1:]} >= {"throughput", "latency", "consistency", "specs"}
    for line in rows[1:]:
        for cell in line[5 : 5 + 2 * n : 2]:
            assert "," not in cell or not cell.replace(",", "").replace(".", "").isdigit()


def test_the_api_writes_every_section_the_body_names(client, shown):
    c, found = shown
    body = client.get(reverse("api:compare", args=DRIVES)).json()
    for section in found:
        if section.body is None:  # latency: each test's figures hold it
            assert "latency" in body["tests"][0]["patterns"][0]["a"]
            continue
        key, _ = section.body
        assert len(body[key]) == len(section.parts), section.id
        assert all(
            set(entry) >= {"a", "b", "c"}
            or "patterns" in entry
            or "points" in entry
            or all(set(load) >= {"a", "b", "c"} for load in entry.get("loads", [None]))
            for entry in body[key]
        ), section.id
