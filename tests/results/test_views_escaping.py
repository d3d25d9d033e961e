"""A drive, maker or controller named like markup shows as text on every page, in every
chart's data and in every export."""

import csv
import io
import json
import re
import string

import pytest
from django.db import transaction
from django.urls import reverse
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt

from drives.models import Controller, Drive, Manufacturer, NandType
from tests.factories import PriceFactory
from tests.results.helpers import HOSTILE, measured, published

pytestmark = pytest.mark.django_db

ESCAPED = ("&lt;script&gt;alert(1)&lt;/script&gt;", "&quot;&gt;&lt;img src=x onerror=alert(1)&gt;")


@pytest.fixture
def hostile():
    """Two measured drives whose maker, model, controller and NAND all carry markup."""
    drives = []
    for seed, (maker, model) in enumerate([HOSTILE, HOSTILE[::-1]], start=1):
        drive = measured(manufacturer=maker, model=model, seed=seed).drive
        PriceFactory(drive=drive, amount="99.00")
        drives.append(drive)
    vendor = Manufacturer.objects.create(name=HOSTILE[0] + " fab", slug="hostile-fab")
    controller = Controller.objects.create(vendor=vendor, model=HOSTILE[1], slug="hostile-ctl")
    nand = NandType.objects.create(vendor=vendor, cell_type="mlc", slug="hostile-nand")
    Drive.objects.filter(pk__in=[d.pk for d in drives]).update(controller=controller, nand=nand)
    return drives


FIGURE = re.compile(r"data-figure='([^']*)'")


def assert_text_only(html: str) -> None:
    for raw in HOSTILE:
        assert raw not in html
    assert "<img" not in html and "<script>alert" not in html
    for script in re.findall(r"<script[^>]*>", html):  # only the page's own scripts
        assert 'src="/static/' in script, script
    for data in FIGURE.findall(html):
        assert not set("<>&'") & set(data)
        text = json.dumps(json.loads(data))
        # Plotly reads a few tags in its text: names reach it with < and > as entities.
        assert "<script>" not in text and "<img" not in text


PAGES = [
    ("compare", lambda a, b: reverse("bench:compare", args=[a.slug, b.slug])),
    ("compare fragment", lambda a, b: reverse("bench:compare", args=[a.slug, b.slug])),
    ("drive", lambda a, b: a.get_absolute_url()),
    ("leaderboard", lambda a, b: reverse("bench:leaderboard", args=["randread-4k-qd3"])),
    ("value", lambda a, b: reverse("bench:value")),
    # The filter form lists highlighted drives by name, and the highlight picker offers them.
    (
        "leaderboard highlighted",
        lambda a, b: (
            reverse("bench:leaderboard", args=["randread-4k-qd3"])
            + f"?highlight={a.slug}&highlight={b.slug}"
        ),
    ),
    ("value highlighted", lambda a, b: reverse("bench:value") + f"?highlight={a.slug}"),
    ("highlight picker", lambda a, b: reverse("bench:pick") + "?side=mark&mark=alert"),
    ("controller", lambda a, b: reverse("bench:controller", args=["hostile-ctl"])),
    ("nand", lambda a, b: reverse("bench:nand", args=["hostile-nand"])),
    ("catalog", lambda a, b: reverse("drives:home")),
    ("picker", lambda a, b: reverse("bench:pick") + "?side=a&a=alert"),
    ("compare start", lambda a, b: reverse("bench:compare_start") + "?a=alert&b=alert"),
]


@pytest.mark.parametrize(("name", "url"), PAGES, ids=[p[0] for p in PAGES])
def test_markup_in_names_is_shown_as_text(client, hostile, name, url):
    a, b = hostile
    extra = {"HTTP_HX_REQUEST": "true"} if "fragment" in name else {}
    response = client.get(url(a, b), **extra)
    assert response.status_code == 200
    html = response.content.decode()
    assert_text_only(html)
    if name not in ("picker", "compare start", "highlight picker"):
        assert any(e in html for e in ESCAPED), "the names are on the page, escaped"


def test_markup_in_names_reaches_charts_as_text(client, hostile):
    a, b = hostile
    html = client.get(reverse("bench:compare", args=[a.slug, b.slug])).content.decode()
    names = {t["name"] for figure in map(json.loads, FIGURE.findall(html)) for t in figure["data"]}
    assert any("&lt;script&gt;alert(1)&lt;/script&gt;" in n for n in names)


def test_markup_in_names_in_exports(client, hostile):
    a, b = hostile
    rows = list(
        csv.reader(
            io.StringIO(
                client.get(reverse("bench:compare_csv", args=[a.slug, b.slug])).content.decode()
            )
        )
    )
    assert HOSTILE[0] in rows[0][4]  # CSV is data: the name exactly, as text
    md = client.get(reverse("bench:compare_markdown", args=[a.slug, b.slug])).content.decode()
    assert "<script>" not in md and "<img" not in md and "&lt;script&gt;" in md


def test_csv_cells_never_start_a_formula(client):
    a = measured(manufacturer="=HYPERLINK(1)", model="@SUM(A1)").drive
    response = client.get(reverse("bench:compare_csv", args=[a.slug, a.slug]))
    rows = list(csv.reader(io.StringIO(response.content.decode())))
    cells = [cell for row in rows for cell in row]
    assert not any(cell[:1] in ("=", "+", "-", "@") for cell in cells if cell)


# -- Markdown: what a name holds stays text wherever the export is pasted -------------------
MARKDOWN = MarkdownIt("commonmark").enable(["table", "strikethrough"])
NOT_TEXT = {
    "link_open",
    "image",
    "em_open",
    "strong_open",
    "code_inline",
    "html_inline",
    "html_block",
    "s_open",
    "heading_open",
    "bullet_list_open",
    "ordered_list_open",
    "blockquote_open",
    "code_block",
    "fence",
    "hr",
    "hardbreak",
}
MARKDOWN_NAME = st.text(
    st.sampled_from(string.ascii_letters + string.digits + string.punctuation + " "),
    min_size=1,
    max_size=30,
).filter(lambda s: any(c.isalnum() for c in s))


@settings(
    max_examples=40,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@example(maker="0_", model="_0")  # slug 0_-_0: the address's underscores made emphasis
@given(
    maker=MARKDOWN_NAME
    | st.sampled_from(["# Head", "> quote", "- item", "1. one", "***", "www.example.com"]),
    model=MARKDOWN_NAME
    | st.sampled_from(["[x](javascript:alert(1))", "`code`", "*em* _em_", "~~s~~", "a|b", "x@y.z"]),
)
def test_a_name_stays_text_in_the_markdown_export(client, maker, model):
    with transaction.atomic():
        a = published(
            manufacturer=maker,
            model=model,
            results=[{"test": "randread-4k-qd3", "pattern": "unspecified", "iops": 1000}],
        ).drive
        md = client.get(reverse("bench:compare_markdown", args=[a.slug, a.slug])).content.decode()
        tokens = MARKDOWN.parse(md)
        assert tokens[0].type == "paragraph_open"
        kinds = {t.type for t in tokens} | {c.type for t in tokens for c in t.children or []}
        assert not kinds & NOT_TEXT, (kinds & NOT_TEXT, md.splitlines()[:3])
        assert "autolink" not in str(tokens)
        name = " ".join(str(a).split())
        assert "".join(c.content for c in tokens[1].children).startswith(f"{name} vs {name}")
        header = [t for t in tokens if t.type == "inline" and t.content.startswith("A: ")]
        assert "".join(c.content for c in header[0].children) == f"A: {name}"
        transaction.set_rollback(True)
