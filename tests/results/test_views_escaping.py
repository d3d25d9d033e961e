"""A drive, maker or controller named like markup shows as text on every page, in every
chart's data and in every export."""

import csv
import datetime
import io
import json
import re
import string
from decimal import Decimal
from html.parser import HTMLParser
from types import SimpleNamespace

import pytest
from django.db import transaction
from django.http import QueryDict
from django.template import engines
from django.urls import reverse
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt

from drives.models import Controller, Drive, Manufacturer, NandType
from results import units
from results.charts import chart
from results.kinds.throughput import LatencyRow, LatencySide, TestPart
from results.spread import Spread, Verdict
from results.views.compare import _md_cell
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
    assert HOSTILE[0] in rows[0][5]  # CSV is data: the name exactly, as text
    md = client.get(reverse("bench:compare_markdown", args=[a.slug, b.slug])).content.decode()
    assert "<script>" not in md and "<img" not in md and "&lt;script&gt;" in md


def test_csv_cells_never_start_a_formula(client):
    a = measured(manufacturer="=HYPERLINK(1)", model="@SUM(A1)").drive
    response = client.get(reverse("bench:compare_csv", args=[a.slug, a.slug]))
    rows = list(csv.reader(io.StringIO(response.content.decode())))
    cells = [cell for row in rows for cell in row]

    def number(cell: str) -> bool:  # a negative figure is data, not a formula
        try:
            float(cell)
        except ValueError:
            return False
        return True

    assert not any(cell[:1] in ("=", "+", "-", "@") and not number(cell) for cell in cells if cell)


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
    | st.sampled_from(["# Head", "> quote", "- item", "1. one", "***x***", "www.example.com"]),
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


@settings(max_examples=200)
@given(st.floats(allow_nan=False, allow_infinity=False, min_value=-1e15, max_value=1e15))
@example(32.0)
@example(-5.0)
def test_a_number_is_written_as_it_is_in_the_markdown_export(value):
    """Only text is escaped: a figure as results.units writes it, or a difference in %,
    is never "32\\.0" or "\\-5" in a table's cell."""
    for text in (
        units.mbps(value),
        units.iops(value),
        units.latency(abs(value)),
        units.dollars(value),
        units.gigabytes(value),
        f"{value:.1f}%",
    ):
        assert _md_cell(text) == text


# -- the table macros: every text they are given is written as text --------------------------
class Named(SimpleNamespace):
    """A drive, part or user as the macros read it: its name as str()."""

    def __str__(self) -> str:
        return self.name

    def get_absolute_url(self) -> str:
        return self.url


def _method(value):
    return lambda: value


def macro_calls(texts: list[str]) -> list[tuple[str, str, tuple]]:
    """A call of every table macro and of the run card, each text field one of `texts` (a
    field a text of its own), as (template, macro, arguments)."""
    text = iter(texts).__next__
    drive = Named(
        name=text(),
        url=text(),
        synthetic=True,
        configuration=True,
        controller=text(),
        capacity_bytes=240 * 10**9,
    )
    entry = SimpleNamespace(
        drive=drive,
        pattern=text(),
        source=text(),
        bytes_per_second=2.5e8,
        iops=None,
        derived="iops",
        latency_mean_ns=1500.0,
        latency_kind="clat",
        quick=True,
        iops_stddev=812.5,
        iops_min=None,
        runs=3,
        low_bps=2.3e8,
        high_bps=2.7e8,
        cv=0.08,
        method="quick",
        tool_name=text(),
    )
    point = SimpleNamespace(
        drive=drive,
        price=99.5,
        observed_on=datetime.date(2011, 4, 1),
        iops=12000.0,
        per_kiops=8.3,
        per_gb=0.41,
        highlighted=True,
        quick=True,
        iops_derived=True,
        spread=Spread(3, 12000.0, 11000.0, 13000.0, 0.05),
        method=text(),
        shown={},
    )
    pattern = text()
    result = SimpleNamespace(
        pattern=pattern,
        deviations=[text(), text()],
        iops_stddev=None,
        iops_min=40100.0,
        test=SimpleNamespace(operation="randread"),
    )
    figures = SimpleNamespace(
        result=result,
        bytes_per_second=2.5e8,
        iops=61000.0,
        derived="iops",
        block_size=4096,
        spread=Spread(3, 2.5e8, 2.3e8, 2.7e8, 0.05),
        shown={},  # what its side keeps of it (Figures.shown): its cell, written once
    )
    figures.quick = True
    # A verdict's reason is the page's own text, but it is written as text all the same.
    pair = SimpleNamespace(
        pattern=pattern,
        figures=[figures, None],
        verdicts=[Verdict(), Verdict("untested", 12.34, None, text())],
        best="",
    )
    test = SimpleNamespace(
        identifier="randread-4k-qd3", name=text(), queue_depth=3, queue_depth_note="QD3"
    )
    plot = SimpleNamespace(figure={"data": []}, element=text(), key="randread-4k-qd3")
    tests = [TestPart(SimpleNamespace(test=test, rows=[pair], has_rates=True), plot)]
    latency = LatencyRow(
        text(),
        text(),
        (
            LatencySide("a", tuple(map(units.latency, [1000, None, 2e6, 3e9, None, 4e9])), text()),
            LatencySide("b", None, ""),
        ),
        [Verdict(), Verdict("untested", 12.34, None, text())],
    )
    part = Named(name=text(), slug="a-part", compresses_data=True)
    spec_drive = Named(
        name=text(),
        manufacturer=SimpleNamespace(name=text()),
        get_kind_display=_method(text()),
        controller=part,
        nand=None,
        unverified_specs=["controller", "nand"],
        capacity_bytes=10**12,
        get_interface_display=_method(text()),
        get_form_factor_display=_method(text()),
    )
    price = SimpleNamespace(amount=Decimal("99.00"), observed_on=datetime.date(999, 1, 2))
    side = SimpleNamespace(drive=spec_drive, firmware=[text(), text()], price=price)
    comparison = SimpleNamespace(sides=[side, side], value_iops=(12000.0, None))
    run = SimpleNamespace(
        pk=7,
        source="synthetic",
        get_source_display=_method(text()),
        citation=SimpleNamespace(
            publisher=text(),
            title=text(),
            safe_url=text(),
            author=text(),
            published_on=datetime.date(2011, 4, 1),
            rate_basis_unstated=True,
            rate_unit=text(),
        ),
        citation_locator=text(),
        tool_name=text(),
        tool_version=text(),
        engine=text(),
        suite=Named(name=text()),
        firmware=Named(name=text()),
        bench=SimpleNamespace(describe=_method([(text(), text()), (text(), text())])),
        get_drive_state_display=_method(text()),
        started_at=datetime.datetime(2012, 5, 6, 7, 8, tzinfo=datetime.UTC),
        finished_at=datetime.datetime(2012, 5, 6, 9, 10, tzinfo=datetime.UTC),
        submitter=Named(name=text()),
        ingested_at=datetime.datetime(2012, 5, 7, 0, 0, tzinfo=datetime.UTC),
    )
    option_values = [text(), text(), text()]
    choices = [(value, text()) for value in option_values]
    tables = "bench/_tables.html"
    return [
        (tables, "options", (choices, option_values[1])),
        (tables, "leaderboard_rows", ([SimpleNamespace(rank=1, entry=entry, highlighted=True)],)),
        *(
            (tables, "value_rows", ([point], table))
            for table in ("frontier", "per_kiops", "per_gb")
        ),
        (
            tables,
            "compare_tests",
            (tests, SimpleNamespace(path="/bench/compare/a/b/", GET=QueryDict())),
        ),
        (tables, "latency_rows", ([latency], 6)),
        (tables, "compare_specs", (comparison, text())),
        ("bench/_run.html", "run_card", (run,)),
    ]


class Reading(HTMLParser):
    """What a reader's browser builds of a page: the elements (with their attributes' names)
    in order, and the text and attribute values it shows."""

    def __init__(self, html: str):
        super().__init__(convert_charrefs=True)
        self.elements: list[tuple] = []
        self.values: list[str] = []
        self.feed(html)
        self.close()

    def handle_starttag(self, tag, attrs):
        self.elements.append((tag, tuple(name for name, _ in attrs)))
        self.values += [value or "" for _, value in attrs]

    def handle_endtag(self, tag):
        self.elements.append(("/" + tag,))

    def handle_data(self, data):
        self.values.append(data)


TEXTS = 60  # more than the fields macro_calls fills
HOSTILE_TEXT = st.text(alphabet=st.sampled_from("<>&\"'=/;# abé"), max_size=12).map(
    lambda t: "<i class='x'>&amp;" + t  # every value holds markup, whatever else it holds
)


def render(calls) -> list[str]:
    env = engines["jinja2"].env
    rendered = [getattr(env.get_template(t).module, m)(*args) for t, m, args in calls]
    return [str(html) for html in rendered]


@settings(max_examples=60, deadline=None)
@given(texts=st.lists(HOSTILE_TEXT, min_size=TEXTS, max_size=TEXTS, unique=True))
def test_the_table_macros_write_every_text_as_text(texts):
    """Rendered with markup in every text field, each table macro and the run card build the
    same elements as with plain words there, and every text is shown as it is: a field
    written unescaped (marked safe by mistake) would add an element or lose its text."""
    words = [f"w{i:03d}w" for i in range(TEXTS)]
    calls = macro_calls(texts)
    pages = zip(calls, render(macro_calls(words)), render(calls), strict=True)
    for (_, macro, _), plain, html in pages:
        reading = Reading(html)
        assert reading.elements == Reading(plain).elements, macro
        shown = "\x00".join(reading.values)
        fields = [text for word, text in zip(words, texts, strict=True) if word in plain]
        assert fields, macro
        for text in fields:
            assert text in shown, (macro, text)


@given(element_id=HOSTILE_TEXT, description=HOSTILE_TEXT)
def test_a_charts_id_and_description_are_attribute_text(element_id, description):
    reading = Reading(str(chart({"data": [{"name": description}]}, element_id, description)))
    assert reading.elements == [
        ("div", ("class", "id", "role", "aria-label", "data-figure")),
        ("/div",),
    ]
    assert reading.values[1] == element_id and reading.values[3] == description
    assert json.loads(reading.values[4]) == {"data": [{"name": description}]}
