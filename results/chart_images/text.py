"""Text in an image: the figure's text as the characters it stands for (Plotly's few tags
and HTML escapes read), its width in the image's font, wrapping, numbers as Plotly writes
them; the colours and sizes every part of an image shares."""

from __future__ import annotations

import html
import re
from xml.sax.saxutils import escape as xml_escape

IMAGE_FONT = "DejaVu Sans"  # the font the PNG is drawn with (Debian fonts-dejavu-core)
TEXT = "#222222"
MUTED = "#555555"
GRID = "#e3e6ea"
TITLE_SIZE = 20
LINE = 1.35  # line height, in font sizes
# Plotly's line dashes, as SVG dash arrays.
DASHES = {
    "solid": None,
    "dash": "9,5",
    "dot": "2,4",
    "dashdot": "9,4,2,4",
    "longdash": "15,6",
    "longdashdot": "15,5,2,5",
}
TAG = re.compile(r"<[^>]+>")


def plain(value) -> str:
    """A figure's text as the characters it stands for."""
    return html.unescape(TAG.sub("", str(value)))


def split_lines(value) -> list[str]:
    return [plain(part) for part in re.split(r"<br\s*/?>", str(value))]


def xml(text) -> str:
    return xml_escape(str(text), {'"': "&quot;"})


def text_width(text: str, size: float) -> float:
    """About how wide `text` is in DejaVu Sans at `size` px (its glyphs average 0.6 em)."""
    return len(text) * size * 0.6


def wrap(text: str, room: float, size: float) -> list[str]:
    """`text` in lines of at most `room` px at `size`, broken between words."""
    lines, line = [], ""
    for word in text.split():
        candidate = f"{line} {word}" if line else word
        if line and text_width(candidate, size) > room:
            lines.append(line)
            line = word
        else:
            line = candidate
    return [*lines, line] if line else lines or [""]


def number(value: float) -> str:
    return f"{value:.2f}".rstrip("0").rstrip(".")


def tick_label(value: float) -> str:
    """A tick's number as Plotly writes it on the pages (its SI suffixes from 10,000, and
    the thousands separated, as results.charts asks of every axis): 20k, 1.5M, 1,500, 0.5."""
    magnitude = abs(value)
    for limit, unit, suffix in ((1e9, 1e9, "G"), (1e6, 1e6, "M"), (1e4, 1e3, "k")):
        if magnitude >= limit:
            return number(value / unit) + suffix
    if magnitude >= 1e3:
        return f"{value:,.2f}".rstrip("0").rstrip(".")
    if magnitude and magnitude < 0.01:
        return f"{value:.1g}"
    return number(value)
