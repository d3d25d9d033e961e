"""A comparison's sections: each with its stable id (the page's anchor and its template,
templates/bench/compare/<id>.html), its title in the page's contents, the parts its template
loops over, its charts (each with the key of its image, results/views/chart_images.py), its
rows in the CSV and Markdown exports and its entry in the API's compare body. Each kind of
test declares its sections (results.kinds); the compare page loops over them, its chart
images are their charts, its exports their rows and the API's body their entries. A
section's work is done where it is read: a chart is drawn when a page or an image shows
it, an export's rows and the API's entry are written when asked for.

Two to four drives are compared, A first (results.selectors.compare.Comparison.sides);
nothing here is written per side."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from decimal import Decimal
from typing import Any

from results.selectors.compare import SIDE_KEYS, Comparison, PatternRow
from results.units import count, dollars, per_gb, per_kiops, percent


class Figure:
    """A figure of an export row: its value as data (a number in the row's unit, plain: the
    CSV writes 35217.4 where the page writes "35,217"), the text the page writes with its
    qualifiers (the Markdown's), and the qualifiers alone (the CSV's column beside it)."""

    __slots__ = ("value", "text", "notes")

    def __init__(self, value, text: str, notes: tuple[str, ...] = ()):
        self.value, self.text, self.notes = value, text, notes

    def __str__(self) -> str:
        return self.text

    @classmethod
    def noted(cls, value, text: str, notes: tuple[str, ...]) -> Figure:
        """A figure whose page text is its number's, then each qualifier in brackets."""
        return cls(value, text + "".join(f" ({note})" for note in notes), notes)


def per_million(value) -> float | None:
    """Bytes a second as the MB/s the exports' unit says (10^6 B/s)."""
    return None if value is None else value / 1e6


def per_thousand(value) -> float | None:
    """Nanoseconds as the µs the exports' unit says."""
    return None if value is None else value / 1e3


# A section's entry in the API's compare body: its key, and its list from the sides' keys
# and whether series carry their points.
Body = tuple[str, Callable[[list[str], bool], list]]


class Plot:
    """One chart of a section: its image's key (<page>chart/<key>.svg), its element's id on
    the page, its title (after the drives' names, in its image), and how it is drawn (once,
    when first shown)."""

    __slots__ = ("key", "element", "title", "_draw", "_figure")

    def __init__(self, key: str, element: str, title: str, draw: Callable[[], dict]):
        self.key, self.element, self.title, self._draw = key, element, title, draw
        self._figure: dict | None = None

    @property
    def figure(self) -> dict:
        if self._figure is None:
            self._figure = self._draw()
        return self._figure


class Section:
    """One section of a comparison; its `parts` empty where no drive has its figures (the
    page leaves it out; the API writes its list empty). Parts given as a function are made
    when first read: a section only the page shows costs nothing to the exports and API."""

    __slots__ = ("id", "title", "_parts", "plots", "export", "body")

    def __init__(
        self,
        id: str,  # noqa: A002 (the section's id: its anchor, template and API entry)
        title: str,
        parts: list | Callable[[], list],
        plots: list[Plot] | None = None,
        export: Callable[[], Iterator[list[str]]] = lambda: iter(()),
        body: Body | None = None,  # None: the body writes its figures elsewhere
    ):
        self.id, self.title, self._parts = id, title, parts
        self.plots, self.export, self.body = plots or [], export, body

    @property
    def parts(self) -> list:
        if callable(self._parts):
            self._parts = self._parts()
        return self._parts


def each_side(keys: list[str], found: list, write: Callable[[Any], Any]) -> dict[str, Any]:
    """An API entry's figures of every side, by the side's key."""
    return {key: write(item) for key, item in zip(keys, found, strict=True)}


def verdict_heads(n: int) -> list[str]:
    """The exports' verdict columns for n drives: two drives' winner and difference (in
    percent); three or four drives' best and each one's verdict against A."""
    if n > 2:
        return ["best", *(f"{key.upper()} against A" for key in SIDE_KEYS[1:n])]
    return ["winner", "difference (%)"]


def verdict_cells(row: PatternRow) -> list:
    """A row's verdict cells under verdict_heads."""
    if len(row.figures) > 2:
        return [
            row.best.upper() or row.no_best_reason or "none",
            *(v.label for v in row.verdicts[1:]),
        ]
    v = row.verdicts[1]
    diff = v.difference_percent
    shown = Figure(diff, percent(diff)) if diff is not None else ""
    return [v.winner.upper() if v.winner in ("a", "b") else v.label, shown]


EXPORT_HEADER = ("section", "test", "data pattern", "measure", "unit")


def export_rows(c: Comparison, shown: list[Section]) -> list[list]:
    """The comparison as rows: section, test, data pattern, measure, unit, each drive's
    figure (A first), then the verdict columns (verdict_heads); every section's rows, then
    the specifications. A figure is a Figure (its value as data, its text as the page writes
    it, results.units), a word a string."""
    heads = [f"{key.upper()}: {side.drive}" for key, side in zip(SIDE_KEYS, c.sides, strict=False)]
    rows = [[*EXPORT_HEADER, *heads, *verdict_heads(len(c.sides))]]
    for section in shown:
        rows.extend(section.export())
    return rows + _spec_rows(c)


# What the value test is called where a price per 1,000 IOPS names it.
VALUE_TEST_NAMES = {"randwrite-4k-qd3-8g": "4KB random write"}


def value_test_name(c: Comparison) -> str:
    return VALUE_TEST_NAMES.get(c.value_test, c.value_test)


def _spec_rows(c: Comparison) -> list[list[str]]:
    """The specifications as the page's table shows them, one row each."""
    sides = c.sides
    drives = [s.drive for s in sides]
    blank = [""] * len(verdict_heads(len(sides)))

    def row(what: str, unit: str, values) -> list:
        cells = [v if v not in (None, "") else "—" for v in values]
        return ["specs", "", "", what, unit, *cells, *blank]

    def dollar_figure(text: str) -> Figure | str:
        """A price the page writes "$1,234.56", its value 1234.56."""
        if text == "—":
            return text
        return Figure(Decimal(text.replace("$", "").replace(",", "")), text)

    prices = [s.price.amount if s.price else None for s in sides]
    return [
        row("manufacturer", "", (d.manufacturer.name for d in drives)),
        row("kind", "", (d.get_kind_display() for d in drives)),
        row("controller", "", (str(d.controller) if d.controller else "" for d in drives)),
        row("NAND", "", (str(d.nand) if d.nand else "" for d in drives)),
        row("firmware tested", "", (", ".join(s.firmware) for s in sides)),
        row(
            "capacity",
            "bytes",
            # Unknown: "—" as the page writes it, an empty cell in the CSV.
            (Figure(d.capacity_bytes, count(d.capacity_bytes)) for d in drives),
        ),
        row("interface", "", (d.get_interface_display() for d in drives)),
        row("form factor", "", (d.get_form_factor_display() for d in drives)),
        row(
            "latest price",
            "USD",
            (
                Figure.noted(s.price.amount, dollars(s.price.amount), (str(s.price.observed_on),))
                if s.price
                else ""
                for s in sides
            ),
        ),
        row(
            "price per GB",
            "USD",
            map(dollar_figure, map(per_gb, prices, (d.capacity_bytes for d in drives))),
        ),
        row(
            f"price per 1,000 IOPS ({value_test_name(c)}, worst case)",
            "USD",
            map(dollar_figure, map(per_kiops, prices, c.value_iops)),
        ),
    ]
