"""Numbers are written one way on every page (results/units.py states the rule): read as a
reader reads them, every page of the demo (tests/pages.py) has no whole number of four digits
or more without its thousands separators ("2000 s", "3600", "rounds 1620"), nor such a figure
with decimals ("1038.9 MB/s"), in its text or in the texts its charts write (bar labels,
hovers, names, the numbers a hover formats, the axes' ticks); no duration with spurious zeros
("1.000 s"); and a percentage without a space before its sign. So does every comparison's
Markdown (written as the page writes it) and every chart image of the demo (its SVG's texts:
labels, ticks, the table an embed shows). Years, ids (#25), versions, dates, addresses, code
and names (the Momentus 5400.6) are not figures and are left alone."""

import ast
import json
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest
from django.test import Client

from tests.pages import demo_pages, every_page, load, reviewer

pytestmark = pytest.mark.django_db

# A whole number of 4+ digits standing alone: not part of a word or name (WD3000HLFS), of a
# number with separators or decimals (1,620 or 0.1234), an id (#1234), a date or a version
# (2026-05-01, 4.1.1), an address or a path.
BARE = re.compile(r"(?<![\w.,#/:\-–])(\d{4,})(?![\w,/:\-]|\.\d)")
# The same with decimals ("1038.9"): a figure in a cell of numbers or before its unit; else a
# name may hold it (Seagate Momentus 5400.6).
BARE_DECIMAL = re.compile(r"(?<![\w.,#/:\-–])(\d{4,}\.\d+)(?![\w,/:\-]|\.\d)")
YEAR = range(1980, 2100)
UNIT = re.compile(r"\s?(s|ms|µs|ns|GB|MB|TB|IOPS|MB/s|%|bytes|rounds|runs|drives|points)\b")
# A duration or a count of seconds written with zeros that say nothing (a set round length).
# A quotation (a price "that everyone was selling for $1000" in its source's words): as written.
QUOTED = re.compile(r"""(?:^|(?<=[\s(\[]))['"“‘].*?['"”’](?=$|[\s.,;:)\]!?])""")
SPURIOUS_ZEROS = re.compile(r"\b\d+\.\d*?000+ s\b")
SPACED_PERCENT = re.compile(r"\d %")
# Elements whose text is not prose a reader reads as figures: code, the head's machinery.
NOT_TEXT = {"script", "style", "code", "pre", "textarea", "kbd", "samp"}
# A chart's texts a reader sees: labels, hovers, names, titles (not its d3 hover formats).
FIGURE_TEXTS = {"text", "hovertext", "name"}


def problems_in(text: str, *, figures: bool = False) -> list[str]:
    """What in `text` breaks the rule; `figures`: text of a cell of numbers (td.num), where
    a number is a figure, never a year."""
    found = []
    quoted = [m.span() for m in QUOTED.finditer(text)]
    for match in BARE.finditer(text):
        if any(start <= match.start() < end for start, end in quoted):
            continue
        year = not figures and int(match.group(1)) in YEAR and len(match.group(1)) == 4
        if not year or UNIT.match(text, match.end()):
            found.append(match.group(0))
    for match in BARE_DECIMAL.finditer(text):
        if figures or UNIT.match(text, match.end()):
            found.append(match.group(0))
    found += SPURIOUS_ZEROS.findall(text)
    found += SPACED_PERCENT.findall(text)
    return found


# A number a hover writes from the data without a format of its own (d3's "," separates).
UNFORMATTED = re.compile(r"%\{(x|y|customdata\[\d+\])\}")


def figure_problems(figure: dict) -> list[str]:
    """What a chart writes against the rule: in its texts, its hovers' numbers, its ticks."""
    found = [f"{p!r} in {text[:80]!r}" for text in figure_texts(figure) for p in problems_in(text)]
    for trace in figure.get("data") or []:
        names = set()  # a bar's category axis holds names, not numbers
        if trace.get("type") == "bar":
            names.add("y" if trace.get("orientation") == "h" else "x")
        unformatted = UNFORMATTED.findall(trace.get("hovertemplate") or "")
        found += [f"hover {m!r}" for m in unformatted if m not in names]
    layout = figure.get("layout") or {}
    for axis in ("xaxis", "yaxis"):
        if not (layout.get(axis) or {}).get("separatethousands"):
            found.append(f"{axis} ticks without thousands separators")
    return found


def figure_texts(value, key: str = ""):
    if isinstance(value, dict):
        for k, item in value.items():
            if k == "title" and isinstance(item, dict):
                yield from figure_texts(item.get("text"), "text")
            else:
                yield from figure_texts(item, k)
    elif isinstance(value, list):
        for item in value:
            yield from figure_texts(item, key)
    elif isinstance(value, str) and key in FIGURE_TEXTS:
        yield value


class Numbers(HTMLParser):
    """The figures a page writes that break the rule, with the text around each."""

    def __init__(self) -> None:
        super().__init__()
        self.skipping = 0
        self.cells: list[bool] = []  # the open table cells: whether each holds numbers
        self.problems: list[str] = []

    def handle_starttag(self, tag, attrs):
        if tag in NOT_TEXT:
            self.skipping += 1
        if tag in ("td", "th"):
            self.cells.append("num" in (dict(attrs).get("class") or "").split())
        for name, value in attrs:
            if name == "data-figure" and value:
                self.problems += [f"chart: {p}" for p in figure_problems(json.loads(value))]
            elif name in ("title", "aria-label", "alt") and value:
                self.problems += [f"{tag}[{name}]: {p!r}" for p in problems_in(value)]

    def handle_endtag(self, tag):
        if tag in NOT_TEXT and self.skipping:
            self.skipping -= 1
        if tag in ("td", "th") and self.cells:
            self.cells.pop()

    def handle_data(self, data):
        if not self.skipping:
            figures = bool(self.cells) and self.cells[-1]
            found = problems_in(data, figures=figures)
            self.problems += [f"{p!r} in {data.strip()[:80]!r}" for p in found]


def page_problems(html: str) -> list[str]:
    parser = Numbers()
    parser.feed(html)
    return parser.problems


def test_the_check_finds_what_it_is_for():
    """The check itself: what it must find, and what it must leave alone."""
    bad = [
        "<tr><th>time recorded</th><td class='num'>2000</td></tr>",
        "<p>1,038.9 (3600 s)</p>",
        "<p>after torture 1038.9 MB/s</p>",
        "<td class='num'>1224.07</td>",
        "<td>46 of 1.000 s</td>",
        "<p>percentile 50 %</p>",
        "<p>ran 1999 s</p>",  # a year's digits beside a unit are a figure
        """<div data-figure='{"data": [{"text": ["12345 IOPS"]}], "layout": {}}'></div>""",
        """<div data-figure='{"data": [{"hovertemplate": "%{y:,} IOPS at %{x} s"}],
           "layout": {"xaxis": {"separatethousands": true}, "yaxis": {"separatethousands": true}}}'>
           </div>""",
        """<div data-figure='{"data": [], "layout": {"xaxis": {}}}'></div>""",
    ]
    for html in bad:
        assert page_problems(html), html
    good = [
        "<p>2,000 s · 1,620 s · 1 s · 0.25 s · 12.5%</p>",
        "<p>Run #1234, published 2009-03-18 in 2009, loadgen 4.1.1, WD3000HLFS</p>",
        "<p>Seagate Momentus 5400.6 · 1,038.9 MB/s</p>",
        "<p><code>--seed 20261122</code> <a href='/bench/runs/1234/'>run</a></p>",
        "<p>latency 1.50 ms, 251.70 MB/s, 3.25 MB/s</p>",
        "<p>AnandTech's, last year's drive, 'that everyone was selling for $1000'</p>",
        """<div data-figure='{"data": [{"hovertemplate": "%{y:,.0f} IOPS at %{x:,} s"}],
           "layout": {"xaxis": {"separatethousands": true}, "yaxis": {"separatethousands": true}}}'>
           </div>""",
    ]
    for html in good:
        assert page_problems(html) == [], html


def test_every_page_writes_its_numbers_one_way(client: Client):
    load()
    pages = demo_pages()
    client.force_login(reviewer())
    found = {}
    for path in every_page(pages):
        response = client.get(path)
        if "text/html" not in response.get("Content-Type", ""):
            continue
        problems = page_problems(response.content.decode())
        if problems:
            found[path] = problems[:5]
    assert found == {}, "\n".join(f"{k}: {v}" for k, v in found.items())


# A Markdown cell that is a figure alone ("1,038.9", "3,600 s", "12.5%"), where a number is
# never a year.
FIGURE_CELL = re.compile(r"[-+±]?\s?\d[\d.,]*\s?\S*")
ADDRESS = re.compile(r"https?://[^\s)]+")  # a link's address, not text a reader reads


def markdown_problems(text: str) -> list[str]:
    """What a Markdown export writes against the rule, cell by cell."""
    found = []
    for line in text.splitlines():
        line = ADDRESS.sub("", line)
        cells = line.strip().strip("|").split("|") if line.startswith("|") else [line]
        for cell in map(str.strip, cells):
            if cell == "None":  # Python's word for a missing figure, not the page's "—"
                found.append(f"None in {line[:100]!r}")
            figures = bool(FIGURE_CELL.fullmatch(cell))
            found += [f"{p!r} in {line[:100]!r}" for p in problems_in(cell, figures=figures)]
    return found


def test_the_markdown_check_finds_what_it_is_for():
    assert markdown_problems("| specs | capacity | bytes | 256000000000 | — |")
    assert markdown_problems("| trim | after torture | MB/s | 1038.9 | 1,224.1 |")
    assert markdown_problems("| provenance | published | 2009 |")  # a figure's cell
    assert markdown_problems("| specs | capacity | bytes | 256,000,000,000 | None |")
    assert not markdown_problems("| specs | capacity | bytes | 256,000,000,000 | — |")
    assert not markdown_problems("# A vs B ([permalink](http://x/bench/compare/a/b/?run_a=1234))")


def test_every_comparisons_markdown_writes_its_numbers_one_way(client: Client):
    load()
    found = {}
    for path in demo_pages()["bench:compare"]:
        page, _, query = path.partition("?")
        response = client.get(f"{page}compare.md" + (f"?{query}" if query else ""))
        assert response.status_code == 200, path
        if problems := markdown_problems(response.content.decode()):
            found[path] = problems[:5]
    assert found == {}, "\n".join(f"{k}: {v}" for k, v in found.items())


def test_every_chart_image_writes_its_numbers_one_way():
    """Every chart image of the demo (tests/results/test_chart_images.py lists them through
    the pages' chart sources): the texts of its SVG (labels, ticks, legend, notes) and of the
    table its embed page shows."""
    from results import chart_images
    from tests.results.test_chart_images import _demo_charts, svg_texts

    load()
    found = {}
    for make in _demo_charts():
        chart = make()
        svg = chart_images.render_svg(chart.figure, chart_images.ImageText(chart.title, "source"))
        texts = svg_texts(svg)[1]
        header, rows = chart_images.figure_table(chart.figure)
        cells = [*header, *(cell for row in rows for cell in row)]
        problems = [p for text in [*texts, *cells] for p in problems_in(text)]
        if problems:
            found[chart.title] = problems[:5]
    assert found == {}, "\n".join(f"{k}: {v}" for k, v in found.items())


# Modules that format numbers themselves, and why: every other module of the site writes a
# number for a reader through results/units.py (or hands it to a template, whose filters are
# units'); a format of its own (f"{x:,.0f} s", "{:.1f}".format) is a second rule.
FORMATS_OF_THEIR_OWN = {
    "results/units.py": "the rule itself",
    "results/chart_images/": "an image's coordinates, and its ticks as Plotly writes them",
    "results/management/commands/": "a command's console output",
    "results/documents.py": "an upload's values quoted in its problems, as written",
    "results/importers/fio.py": "fio's values quoted in the problems of an import",
    "results/histograms.py": "percentile keys as documents key them (99.9)",
    "core/query.py": "below results/: a 400's bounds with Python's separators, the same rule",
}
SITE_PACKAGES = ("benchsite", "core", "drives", "results")
NUMERIC_SPEC = re.compile(r"[,_]|\.\d|[dfFgGeEn%]$")


def own_formats(source: str) -> list[str]:
    """The numeric format specifications of a module's f-strings and str.format calls."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.FormattedValue) and node.format_spec is not None:
            spec = "".join(
                v.value if isinstance(v, ast.Constant) else "{}" for v in node.format_spec.values
            )
            if NUMERIC_SPEC.search(spec) and not re.fullmatch(r"%[A-Za-z%:\- ]+", spec):
                found.append(f"{node.lineno}: {{{ast.unparse(node.value)}:{spec}}}")
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "format"
            and isinstance(node.func.value, ast.Constant)
            and isinstance(node.func.value.value, str)
            and re.search(r"\{[^{}]*:[^{}]*\}", node.func.value.value)
        ):
            found.append(f"{node.lineno}: {node.func.value.value!r}.format")
    return found


@pytest.mark.django_db(databases=[])
def test_numbers_are_formatted_by_one_set_of_functions():
    """No module of the site but FORMATS_OF_THEIR_OWN formats a number itself (dates, with
    their strftime formats, are not numbers)."""
    from django.conf import settings

    root = Path(settings.BASE_DIR)
    found = {
        str(path.relative_to(root)): formats
        for package in SITE_PACKAGES
        for path in sorted((root / package).rglob("*.py"))
        if "migrations" not in path.parts
        and not str(path.relative_to(root)).startswith(tuple(FORMATS_OF_THEIR_OWN))
        and (formats := own_formats(path.read_text()))
    }
    assert found == {}, found
    made = 'x = f"{a:,.0f} s" + "{:.1f}".format(b) + f"{d:%Y-%m-%d}"'
    assert sorted(own_formats(made)) == ["1: '{:.1f}'.format", "1: {a:,.0f}"]
