"""A chart as an image: the Plotly figure dict results/charts.py builds for a page, drawn as
SVG on the server (and rasterised to PNG with resvg), so that a reader can paste it where no
script runs.

This draws the part of Plotly's figure format that results/charts.py uses, not all of it:
- bar traces, horizontal or vertical, grouped (barmode "group"): a colour for the trace or
  one per bar, a stripe pattern (marker.pattern.shape, one or one per bar), a text on or
  past each bar (textposition "auto" or "outside"), error bars (error_x / error_y, arrays);
- scatter traces: markers (circle, diamond, square, triangle-up and their "-open" forms),
  lines (solid, dash, dot, dashdot; shape "hv" steps), x given or as x0 + i·dx, marker
  opacity, a colour, size and symbol for the trace or one per point, showlegend, "markers+text"
  words beside each point (textposition, textfont);
- axes: linear, log and category, a title, rangemode "tozero", an explicit range,
  autorange "reversed", tickvals/ticktext, autorangeoptions.include;
- shapes whose xref is "x" and yref "paper" (rectangles and lines), below or above the data;
- a legend (each trace's name, "<br>" its lines), layout height, margins, font and colours.
Each mark carries its hover text as an SVG <title>, so that the image's text holds every
figure the chart shows. Text from the figure is as charts.label left it (HTML-escaped for
Plotly): unescaped here, then escaped for XML.
"""

from __future__ import annotations

import html
import math
import re
from dataclasses import dataclass
from pathlib import Path
from xml.sax.saxutils import escape as xml_escape

import orjson
from django.conf import settings
from django.core.exceptions import ImproperlyConfigured

from results.charts import figure_json

SVG_NS = "http://www.w3.org/2000/svg"
WIDTH = 1200  # the image's width in CSS pixels; its height is the figure's plus the text
PNG_SCALE = 1  # PNG pixels per SVG pixel
IMAGE_FONT = "DejaVu Sans"  # the font the PNG is drawn with (Debian fonts-dejavu-core)
TEXT = "#222222"
MUTED = "#555555"
GRID = "#e3e6ea"
TITLE_SIZE = 20
LINE = 1.35  # line height, in font sizes
DASHES = {"solid": None, "dash": "9,5", "dot": "2,4", "dashdot": "9,4,2,4"}
BAR_GAP = 0.2  # of each category's band: Plotly's default bargap
_TAG = re.compile(r"<[^>]+>")


def _plain(value) -> str:
    """A figure's text as the characters it stands for."""
    return html.unescape(_TAG.sub("", str(value)))


def _lines(value) -> list[str]:
    return [_plain(part) for part in re.split(r"<br\s*/?>", str(value))]


def _x(text) -> str:
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


def _number(value: float) -> str:
    return f"{value:.2f}".rstrip("0").rstrip(".")


# -- axes --------------------------------------------------------------------------------


def _nice_step(span: float, count: int = 6) -> float:
    raw = span / max(count, 1)
    magnitude = 10 ** math.floor(math.log10(raw))
    for factor in (1, 2, 2.5, 5, 10):
        if raw <= factor * magnitude:
            return factor * magnitude
    return 10 * magnitude


def tick_label(value: float) -> str:
    """A tick's number as Plotly writes it by default: 20k, 1.5M, 0.5, 300."""
    magnitude = abs(value)
    for limit, suffix in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if magnitude >= limit:
            return _number(value / limit) + suffix
    if magnitude and magnitude < 0.01:
        return f"{value:.1g}"
    return _number(value)


@dataclass
class Axis:
    kind: str  # "linear", "log" or "category"
    low: float
    high: float
    start: float  # pixel of `low`
    end: float  # pixel of `high`
    categories: list[str]
    ticks: list[tuple[float, str]]  # (position in the axis's units: log10 on a log axis, label)
    title: str

    def __call__(self, value) -> float | None:
        """The pixel of a data value (a category's centre), None where it cannot be drawn."""
        if self.kind == "category":
            try:
                value = self.categories.index(value)
            except ValueError:
                return None
        elif value is None:
            return None
        elif self.kind == "log":
            if value <= 0:
                return None
            value = math.log10(value)
        span = self.high - self.low or 1
        return self.start + (value - self.low) / span * (self.end - self.start)

    def band(self) -> float:
        """A category's width in pixels."""
        return abs(self.end - self.start) / max(len(self.categories), 1)


def _axis(spec: dict, values: list, start: float, end: float, *, bars: bool) -> Axis:
    title = _plain((spec.get("title") or {}).get("text", ""))
    kind = spec.get("type")
    if kind is None or kind == "category":
        if values and all(isinstance(v, str) for v in values) or kind == "category":
            kind = "category"
        else:
            kind = "linear"
    reversed_ = spec.get("autorange") == "reversed"
    if kind == "category":
        categories = list(dict.fromkeys(v for v in values if v is not None))
        n = max(len(categories), 1)
        if reversed_:
            start, end = end, start
        axis = Axis("category", -0.5, n - 0.5, start, end, categories, [], title)
        axis.ticks = [(i, _plain(c)) for i, c in enumerate(categories)]
        return axis
    numbers = [float(v) for v in values if isinstance(v, int | float) and math.isfinite(v)]
    if kind == "log":
        numbers = [math.log10(v) for v in numbers if v > 0]
    include = list((spec.get("autorangeoptions") or {}).get("include") or [])
    if spec.get("range"):
        low, high = (float(v) for v in spec["range"])
    else:
        if bars or spec.get("rangemode") == "tozero":
            include.append(0)
        if kind != "log":
            numbers += [float(v) for v in include]
        low, high = (min(numbers), max(numbers)) if numbers else (0.0, 1.0)
        if high == low:
            low, high = (low - 1, high + 1) if low else (0.0, 1.0)
        pad = (high - low) * (0.05 if not bars else 0.0)
        floor = 0 in include and kind != "log" and low >= 0
        low = low if floor else low - pad
        high = high + pad if not bars else high * 1.05 if high > 0 else high
    if reversed_:
        start, end = end, start
    axis = Axis(kind, low, high, start, end, [], [], title)
    if spec.get("tickvals"):
        texts = spec.get("ticktext") or [tick_label(v) for v in spec["tickvals"]]
        axis.ticks = [
            (math.log10(v) if kind == "log" else v, _plain(t))
            for v, t in zip(spec["tickvals"], texts, strict=False)
            if kind != "log" or v > 0
        ]
    elif kind == "log" and high - low < 1:  # less than a decade: round numbers within it
        step = _nice_step(10**high - 10**low, 5)
        at = math.ceil(10**low / step) * step
        ticks = []
        while at <= 10**high:
            ticks.append((math.log10(at), tick_label(round(at, 10))))
            at += step
        axis.ticks = ticks
    elif kind == "log":
        ticks = []
        for exponent in range(math.floor(low), math.ceil(high) + 1):
            for factor in (1, 2, 5) if high - low < 3 else (1,):
                at = exponent + math.log10(factor)
                if low <= at <= high:
                    ticks.append((at, tick_label(10**at)))
        axis.ticks = ticks
    else:
        step = _nice_step(high - low)
        first = math.ceil(low / step - 1e-9) * step
        ticks, at = [], first
        while at <= high + step * 1e-9:
            ticks.append((at, tick_label(round(at, 10))))
            at += step
        axis.ticks = ticks
    return axis


def _tick_pixel(axis: Axis, value: float) -> float:
    span = axis.high - axis.low or 1
    return axis.start + (value - axis.low) / span * (axis.end - axis.start)


# -- marks ----------------------------------------------------------------------------------


def _outline(base: str, x: float, y: float, r: float) -> str:
    """The path of a marker of Plotly's symbol `base` (no "-open") at (x, y), radius r."""
    if base == "diamond":
        return _polygon((x, y - r * 1.2), (x + r * 1.2, y), (x, y + r * 1.2), (x - r * 1.2, y))
    if base == "square":
        return _polygon((x - r, y - r), (x + r, y - r), (x + r, y + r), (x - r, y + r))
    if base == "triangle-up":
        return _polygon((x, y - r * 1.2), (x + r * 1.1, y + r * 0.8), (x - r * 1.1, y + r * 0.8))
    arc = f"a{r:.1f},{r:.1f} 0 1,0"
    return f"M{x - r:.1f},{y:.1f}{arc} {2 * r:.1f},0{arc} {-2 * r:.1f},0"


def _paint(name: str, colour: str, opacity=None) -> str:
    open_ = name.endswith("-open")
    paint = f'fill="{"none" if open_ else colour}" stroke="{colour}" '
    paint += f'stroke-width="{1.5 if open_ else 0.5}"'
    return paint + (f' opacity="{opacity}"' if opacity is not None else "")


def _symbol(name: str, x: float, y: float, size: float, colour: str, opacity=None) -> str:
    """A marker of Plotly's `name` at (x, y), `size` px across."""
    d = _outline(name.removesuffix("-open"), x, y, size / 2)
    return f'<path d="{d}" {_paint(name, colour, opacity)}/>'


def _polygon(*corners) -> str:
    return "M" + "L".join(f"{x:.1f},{y:.1f}" for x, y in corners) + "Z"


def _at(value, i: int, default=None):
    if isinstance(value, list):
        return value[i] if i < len(value) else default
    return default if value is None else value


def _luminance(colour: str) -> float:
    colour = colour.lstrip("#")
    if len(colour) != 6:
        return 0.0
    r, g, b = (int(colour[i : i + 2], 16) / 255 for i in (0, 2, 4))
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


class _Patterns:
    """The stripe patterns bars use, one <pattern> per colour."""

    def __init__(self) -> None:
        self.defs: dict[str, str] = {}

    def fill(self, colour: str, shape: str | None) -> str:
        if not shape:
            return colour
        key = f"stripes-{len(self.defs)}"
        for existing, definition in self.defs.items():
            if f'fill="{colour}"' in definition:
                return f"url(#{existing})"
        self.defs[key] = (
            f'<pattern id="{key}" width="7" height="7" patternUnits="userSpaceOnUse" '
            f'patternTransform="rotate(45)"><rect width="7" height="7" fill="{colour}"/>'
            f'<rect width="2.1" height="7" fill="#ffffff"/></pattern>'
        )
        return f"url(#{key})"


def _title(text) -> str:
    return f"<title>{_x(' · '.join(_lines(text)))}</title>" if text not in (None, "") else ""


def _error_bar(trace: dict, key: str, i: int, value: float):
    """(low, high) of a mark's error bar in data units, None where it has none."""
    spec = trace.get(key)
    if not spec:
        return None
    plus, minus = _at(spec.get("array"), i, 0) or 0, _at(spec.get("arrayminus"), i, 0) or 0
    if not plus and not minus:
        return None
    return value - minus, value + plus


def _trace_points(trace: dict) -> tuple[list, list]:
    y = list(trace.get("y") or [])
    x = trace.get("x")
    if x is None:
        x0, dx = trace.get("x0", 0), trace.get("dx", 1)
        x = [x0 + i * dx for i in range(len(y))]
    return list(x), y


# -- the figure ------------------------------------------------------------------------------


@dataclass
class ImageText:
    title: str
    source: str  # "Bench — <the page's permalink>"


def plain_figure(figure: dict) -> dict:
    """The figure as plain JSON data (JsonText fragments and Decimals read)."""
    return orjson.loads(figure_json(figure))


def render_svg(figure: dict, text: ImageText, *, width: int = WIDTH) -> str:
    """The figure as a standalone SVG document: the title, the value axis's title (its unit
    and which way is better) under it, the plot, the legend, and the source line."""
    figure = plain_figure(figure)
    layout = figure.get("layout") or {}
    traces = figure.get("data") or []
    font = layout.get("font") or {}
    family = f"{font.get('family', 'sans-serif')}, {IMAGE_FONT}, sans-serif"
    size = float(font.get("size", 13))
    margin = layout.get("margin") or {}
    xspec, yspec = layout.get("xaxis") or {}, layout.get("yaxis") or {}
    bars = [t for t in traces if t.get("type") == "bar"]
    horizontal = any(t.get("orientation") == "h" for t in bars)
    value_spec = xspec if horizontal else yspec
    subtitle = _plain((value_spec.get("title") or {}).get("text", ""))

    xs, ys = [], []
    for t in traces:
        x, y = _trace_points(t)
        xs += x
        ys += y
        for key, values, other in (("error_x", x, "x"), ("error_y", y, "y")):
            for i, v in enumerate(values):
                if isinstance(v, int | float):
                    bounds = _error_bar(t, key, i, v)
                    if bounds:
                        (xs if other == "x" else ys).extend(bounds)

    # Vertical room: title, subtitle, plot, legend, source.
    title_lines = wrap(text.title, width - 40, TITLE_SIZE * 1.1)
    title_height = TITLE_SIZE * LINE * len(title_lines)
    top = 16 + title_height + (size * LINE if subtitle else 0) + 12
    legend_entries = _legend_entries(traces, layout)
    legend_rows = _legend_rows(legend_entries, width - 40, size)
    legend_height = sum(h for _, h in legend_rows) + (10 if legend_rows else 0)
    plot_height = max(
        float(layout.get("height", 400)) - margin.get("t", 10) - margin.get("b", 40), 80
    )
    x_title_room = size * LINE * 2 + 10
    height = top + plot_height + x_title_room + legend_height + size * LINE * 1.6 + 12

    # Horizontal room: the category labels on the left or the y axis's numbers.
    y_categories = horizontal or any(isinstance(v, str) for v in ys)
    if y_categories:
        names = [_plain(v) for v in dict.fromkeys(v for v in ys if v is not None)]
        left = max(margin.get("l", 60), max((text_width(n, size) for n in names), default=0) + 16)
    else:
        left = max(margin.get("l", 60), 70) + (size * LINE if yspec.get("title") else 0)
    right = width - max(margin.get("r", 20), 20)
    if horizontal:  # room for the text past the longest bar
        right = width - max(margin.get("r", 90), 90)
    plot_top, plot_bottom = top, top + plot_height

    xaxis = _axis(xspec, xs, left, right, bars=bool(bars) and horizontal)
    yaxis = _axis(yspec, ys, plot_bottom, plot_top, bars=bool(bars) and not horizontal)

    patterns = _Patterns()
    below, above = _shapes(layout.get("shapes") or [], xaxis, plot_top, plot_bottom)
    bar_marks = _bars(bars, xaxis, yaxis, horizontal, size, patterns)
    scatter_marks = _scatters([t for t in traces if t.get("type") == "scatter"], xaxis, yaxis)

    out = [
        f'<svg xmlns="{SVG_NS}" width="{width}" height="{round(height)}" '
        f'viewBox="0 0 {width} {round(height)}" font-family="{_x(family)}" '
        f'font-size="{_number(size)}" fill="{TEXT}">',
        f"<title>{_x(text.title)}</title>",
    ]
    if patterns.defs:
        out.append("<defs>" + "".join(patterns.defs.values()) + "</defs>")
    out.append(f'<rect width="{width}" height="{round(height)}" fill="#ffffff"/>')
    baseline = 16 + TITLE_SIZE
    spans = "".join(
        f'<tspan x="20" dy="{0 if n == 0 else TITLE_SIZE * LINE:.1f}">{_x(line)}</tspan>'
        for n, line in enumerate(title_lines)
    )
    out.append(
        f'<text class="title" x="20" y="{baseline:.1f}" font-size="{TITLE_SIZE}" '
        f'font-weight="bold">{spans}</text>'
    )
    if subtitle:
        under = baseline + title_height - TITLE_SIZE * LINE + size * LINE + 2
        out.append(
            f'<text class="units" x="20" y="{under:.1f}" fill="{MUTED}">{_x(subtitle)}</text>'
        )
    # Points and shapes stay inside the plot (a range can leave data out); bar texts may
    # go past its end, as on the page.
    out.append(
        f'<clipPath id="plot"><rect x="{left:.1f}" y="{plot_top:.1f}" '
        f'width="{right - left:.1f}" height="{plot_height:.1f}"/></clipPath>'
    )
    out += _grid_and_axes(xaxis, yaxis, plot_top, plot_bottom, left, right, size)
    out.append('<g clip-path="url(#plot)">' + "".join(below) + "</g>")
    out += bar_marks
    out.append('<g clip-path="url(#plot)">' + "".join(scatter_marks + above) + "</g>")
    y = plot_bottom + x_title_room + 6
    out += _legend(legend_rows, 20, y, size, patterns)
    y += legend_height
    out.append(
        f'<text class="source" x="20" y="{height - 14:.1f}" fill="{MUTED}" '
        f'font-size="{_number(size - 1)}">{_x(text.source)}</text>'
    )
    out.append("</svg>")
    return "\n".join(out)


def _grid_and_axes(xaxis: Axis, yaxis: Axis, top, bottom, left, right, size) -> list[str]:
    out = []
    for axis, vertical in ((xaxis, True), (yaxis, False)):
        for value, label in axis.ticks:
            at = _tick_pixel(axis, value)
            if vertical:
                if not left - 0.5 <= at <= right + 0.5:
                    continue
                if axis.kind != "category":
                    out.append(
                        f'<line x1="{at:.1f}" y1="{top:.1f}" x2="{at:.1f}" y2="{bottom:.1f}" '
                        f'stroke="{GRID}"/>'
                    )
                out.append(
                    f'<text class="tick" x="{at:.1f}" y="{bottom + size + 4:.1f}" '
                    f'text-anchor="middle">{_x(label)}</text>'
                )
            else:
                if not min(top, bottom) - 0.5 <= at <= max(top, bottom) + 0.5:
                    continue
                if axis.kind != "category":
                    out.append(
                        f'<line x1="{left:.1f}" y1="{at:.1f}" x2="{right:.1f}" y2="{at:.1f}" '
                        f'stroke="{GRID}"/>'
                    )
                out.append(
                    f'<text class="tick" x="{left - 6:.1f}" y="{at + size * 0.35:.1f}" '
                    f'text-anchor="end">{_x(label)}</text>'
                )
    out.append(
        f'<line x1="{left:.1f}" y1="{bottom:.1f}" x2="{right:.1f}" y2="{bottom:.1f}" '
        f'stroke="{MUTED}"/>'
    )
    out.append(
        f'<line x1="{left:.1f}" y1="{top:.1f}" x2="{left:.1f}" y2="{bottom:.1f}" stroke="{MUTED}"/>'
    )
    if xaxis.title:
        out.append(
            f'<text class="axis-title" x="{(left + right) / 2:.1f}" '
            f'y="{bottom + size * 2.6 + 4:.1f}" text-anchor="middle">{_x(xaxis.title)}</text>'
        )
    if yaxis.title and yaxis.kind != "category":
        cx, cy = 20 + size * 0.5, (top + bottom) / 2
        out.append(
            f'<text class="axis-title" x="{cx:.1f}" y="{cy:.1f}" text-anchor="middle" '
            f'transform="rotate(-90 {cx:.1f} {cy:.1f})">{_x(yaxis.title)}</text>'
        )
    return out


def _shapes(shapes: list[dict], xaxis: Axis, top, bottom) -> tuple[list[str], list[str]]:
    below, above = [], []
    for shape in shapes:
        if shape.get("xref", "x") != "x" or shape.get("yref") != "paper":
            continue
        x0, x1 = xaxis(shape.get("x0")), xaxis(shape.get("x1"))
        if x0 is None or x1 is None:
            continue
        y0 = bottom - (bottom - top) * shape.get("y0", 0)
        y1 = bottom - (bottom - top) * shape.get("y1", 1)
        line = shape.get("line") or {}
        if shape.get("type") == "rect":
            mark = (
                f'<rect x="{min(x0, x1):.1f}" y="{min(y0, y1):.1f}" width="{abs(x1 - x0):.1f}" '
                f'height="{abs(y1 - y0):.1f}" fill="{shape.get("fillcolor", "none")}" '
                f'opacity="{shape.get("opacity", 1)}"/>'
            )
        elif shape.get("type") == "line":
            dash = DASHES.get(line.get("dash", "solid"))
            mark = (
                f'<line x1="{x0:.1f}" y1="{y0:.1f}" x2="{x1:.1f}" y2="{y1:.1f}" '
                f'stroke="{line.get("color", TEXT)}" stroke-width="{line.get("width", 1)}"'
                + (f' stroke-dasharray="{dash}"' if dash else "")
                + "/>"
            )
        else:
            continue
        (below if shape.get("layer") == "below" else above).append(mark)
    return below, above


def _bars(bars, xaxis: Axis, yaxis: Axis, horizontal: bool, size, patterns) -> list[str]:
    out = []
    category, value = (yaxis, xaxis) if horizontal else (xaxis, yaxis)
    grouped = len(bars)
    band = category.band() * (1 - BAR_GAP)
    width = band / max(grouped, 1)
    sign = 1 if category.end >= category.start else -1
    zero = value(0) if value.kind != "log" else value.start
    for n, trace in enumerate(bars):
        marker = trace.get("marker") or {}
        pattern = marker.get("pattern") or {}
        cats = trace.get("y" if horizontal else "x") or []
        values = trace.get("x" if horizontal else "y") or []
        texts = trace.get("text") or []
        hovers = trace.get("hovertext") or texts
        position = trace.get("textposition", "auto")
        for i, (cat, v) in enumerate(zip(cats, values, strict=False)):
            centre = category(cat)
            end = value(v)
            if centre is None or end is None:
                continue
            offset = (-band / 2 + width * (n + 0.5)) * sign
            mid = centre + offset
            colour = _at(marker.get("color"), i, "#444444")
            fill = patterns.fill(colour, _at(pattern.get("shape"), i))
            low, high = sorted((zero, end))
            box = (low, mid - width / 2, high - low, width)
            if not horizontal:
                box = (mid - width / 2, low, width, high - low)
            geometry = 'x="{:.1f}" y="{:.1f}" width="{:.1f}" height="{:.1f}"'.format(*box)
            title = _title(_at(hovers, i, ""))
            out.append(f'<rect class="bar" {geometry} fill="{fill}">{title}</rect>')
            spec = "error_x" if horizontal else "error_y"
            bounds = _error_bar(trace, spec, i, v) if isinstance(v, int | float) else None
            if bounds:
                a, b = value(bounds[0]), value(bounds[1])
                if a is not None and b is not None:
                    error = trace[spec]
                    cap = error.get("width", 4)
                    colour_e = error.get("color", TEXT)
                    thick = error.get("thickness", 1.5)
                    if horizontal:
                        d = f"M{a:.1f},{mid:.1f}H{b:.1f}"
                        d += "".join(f"M{e:.1f},{mid - cap:.1f}v{2 * cap}" for e in (a, b))
                    else:
                        d = f"M{mid:.1f},{a:.1f}V{b:.1f}"
                        d += "".join(f"M{mid - cap:.1f},{e:.1f}h{2 * cap}" for e in (a, b))
                    out.append(
                        f'<path class="error" d="{d}" stroke="{colour_e}" '
                        f'stroke-width="{thick}" fill="none"/>'
                    )
            label = _plain(_at(texts, i, "") or "")
            if not label:
                continue
            length = high - low
            needed = text_width(label, size) + 10
            if horizontal:
                halo = ""
                if position == "auto" and length >= needed:
                    ink = "#ffffff" if _luminance(colour) < 0.6 else TEXT
                    x_text, anchor = (high - 5, "end") if end >= zero else (low + 5, "start")
                    if ink == TEXT:  # dark on a light bar, its stripes too: a white outline
                        halo = ' stroke="#ffffff" stroke-width="3" paint-order="stroke"'
                else:
                    ink = TEXT
                    x_text, anchor = (high + 5, "start") if end >= zero else (low - 5, "end")
                if bounds and anchor == "start" and ink == TEXT:
                    x_text = max(x_text, max(value(bounds[0]) or 0, value(bounds[1]) or 0) + 5)
                out.append(
                    f'<text class="bar-text" x="{x_text:.1f}" y="{mid + size * 0.35:.1f}" '
                    f'text-anchor="{anchor}" fill="{ink}"{halo}>{_x(label)}</text>'
                )
            else:
                y_text = low - 4 if end <= zero else high + size
                if end <= zero and bounds:
                    y_text = min(y_text, min(value(bounds[0]), value(bounds[1])) - 4)
                out.append(
                    f'<text class="bar-text" x="{mid:.1f}" y="{y_text:.1f}" '
                    f'text-anchor="middle" font-size="{_number(size - 1)}">{_x(label)}</text>'
                )
    return out


def _scatters(traces, xaxis: Axis, yaxis: Axis) -> list[str]:
    out = []
    for trace in traces:
        mode = trace.get("mode", "markers")
        marker = trace.get("marker") or {}
        line = trace.get("line") or {}
        colour = line.get("color") or _at(marker.get("color"), 0, "#444444")
        xs, ys = _trace_points(trace)
        points = [
            (i, xaxis(x), yaxis(y))
            for i, (x, y) in enumerate(zip(xs, ys, strict=False))
            if x is not None and y is not None
        ]
        points = [(i, px, py) for i, px, py in points if px is not None and py is not None]
        if "lines" in mode and len(points) > 1:
            path = f"M{points[0][1]:.1f},{points[0][2]:.1f}"
            for _, px, py in points[1:]:
                if line.get("shape") == "hv":
                    path += f"H{px:.1f}V{py:.1f}"
                else:
                    path += f"L{px:.1f},{py:.1f}"
            dash = DASHES.get(line.get("dash") or "solid")
            out.append(
                f'<path class="line" d="{path}" fill="none" stroke="{colour}" '
                f'stroke-width="{line.get("width", 2)}"'
                + (f' stroke-dasharray="{dash}"' if dash else "")
                + "/>"
            )
        error = trace.get("error_y")
        if error:
            for i, px, _ in points:
                bounds = _error_bar(trace, "error_y", i, ys[i])
                if bounds:
                    a, b = yaxis(bounds[0]), yaxis(bounds[1])
                    if a is not None and b is not None:
                        out.append(
                            f'<path class="error" d="M{px:.1f},{a:.1f}V{b:.1f}" '
                            f'stroke="{error.get("color", TEXT)}" '
                            f'stroke-width="{error.get("thickness", 1.5)}"/>'
                        )
        texts = trace.get("text") or []
        if (
            "markers" in mode
            and not texts
            and not any(isinstance(marker.get(k), list) for k in ("symbol", "size", "color"))
        ):
            # Alike markers with nothing to say each (a series of seconds): one path.
            symbol = marker.get("symbol") or "circle"
            r = float(marker.get("size") or 6) / 2
            d = "".join(_outline(symbol.removesuffix("-open"), px, py, r) for _, px, py in points)
            paint = _paint(symbol, marker.get("color") or colour, marker.get("opacity"))
            out.append(f'<path class="points" d="{d}" {paint}/>')
        elif "markers" in mode:
            group = []
            for i, px, py in points:
                mark = _symbol(
                    _at(marker.get("symbol"), i, "circle"),
                    px,
                    py,
                    float(_at(marker.get("size"), i, 6)),
                    _at(marker.get("color"), i, colour),
                    marker.get("opacity"),
                )
                title = _title(_at(texts, i, ""))
                if title:
                    mark = mark.replace("/>", f">{title}</{mark[1 : mark.index(' ')]}>", 1)
                group.append(mark)
            out.append('<g class="points">' + "".join(group) + "</g>")
        if "text" in mode:
            out += _point_texts(trace, points, texts, colour)
    return out


def _point_texts(trace: dict, points, texts, colour: str) -> list[str]:
    """A "markers+text" trace's words beside each point, where its textposition puts them
    ("top right", "bottom center", ...), as Plotly writes them on the page."""
    position = str(trace.get("textposition") or "middle center")
    vertical, _, horizontal = position.partition(" ")
    font = trace.get("textfont") or {}
    size = float(font.get("size") or 12)
    dx, anchor = {"left": (-6, "end"), "right": (6, "start")}.get(horizontal, (0, "middle"))
    dy = {"top": -6, "bottom": size + 4}.get(vertical, size * 0.35)
    out = []
    for i, px, py in points:
        words = _plain(_at(texts, i, ""))
        if words:
            out.append(
                f'<text class="point-text" x="{px + dx:.1f}" y="{py + dy:.1f}" '
                f'text-anchor="{anchor}" font-size="{_number(size)}" '
                f'fill="{_at(font.get("color"), i, colour)}" stroke="#ffffff" '
                f'stroke-width="3" paint-order="stroke">{_x(words)}</text>'
            )
    return out


# -- the legend ------------------------------------------------------------------------------


@dataclass
class LegendEntry:
    lines: list[str]
    trace: dict


def _legend_entries(traces: list[dict], layout: dict) -> list[LegendEntry]:
    if layout.get("showlegend") is False:
        return []
    return [
        LegendEntry(_lines(t["name"]), t)
        for t in traces
        if t.get("name") and t.get("showlegend", True)
    ]


def _legend_rows(entries: list[LegendEntry], room: float, size: float):
    """The entries in rows that fit `room`: [(entries with their x, row height)]."""
    rows, row, x, height = [], [], 0.0, 0.0
    for entry in entries:
        w = 36 + max(text_width(line, size) for line in entry.lines) + 24
        if row and x + w > room:
            rows.append((row, height))
            row, x, height = [], 0.0, 0.0
        row.append((entry, x))
        x += w
        height = max(height, size * LINE * len(entry.lines) + 6)
    if row:
        rows.append((row, height))
    return rows


def _legend(rows, left: float, top: float, size: float, patterns: _Patterns) -> list[str]:
    out = ['<g class="legend">']
    y = top
    for row, height in rows:
        for entry, x in row:
            t = entry.trace
            marker = t.get("marker") or {}
            line = t.get("line") or {}
            colour = line.get("color") or _at(marker.get("color"), 0, "#444444")
            cx, cy = left + x, y + size * 0.5
            if t.get("type") == "bar":
                shape = _at((marker.get("pattern") or {}).get("shape"), 0)
                out.append(
                    f'<rect x="{cx:.1f}" y="{cy - 7:.1f}" width="26" height="14" '
                    f'fill="{patterns.fill(colour, shape)}"/>'
                )
            else:
                if "lines" in t.get("mode", ""):
                    dash = DASHES.get(line.get("dash") or "solid")
                    out.append(
                        f'<line x1="{cx:.1f}" y1="{cy:.1f}" x2="{cx + 26:.1f}" y2="{cy:.1f}" '
                        f'stroke="{colour}" stroke-width="2"'
                        + (f' stroke-dasharray="{dash}"' if dash else "")
                        + "/>"
                    )
                if "markers" in t.get("mode", "markers"):
                    symbol = _at(marker.get("symbol"), 0, "circle")
                    out.append(_symbol(symbol, cx + 13, cy, 8, colour))
            for n, text in enumerate(entry.lines):
                out.append(
                    f'<text class="legend-text" x="{cx + 34:.1f}" '
                    f'y="{cy + size * 0.35 + n * size * LINE:.1f}"'
                    + (f' fill="{MUTED}"' if n else "")
                    + f">{_x(text)}</text>"
                )
        y += height
    out.append("</g>")
    return out


# -- the table -------------------------------------------------------------------------------

TABLE_POINTS = 60  # a trace with more points (a series of seconds) is summed up in one row


def figure_table(figure: dict) -> tuple[list[str], list[list[str]]]:
    """The figure's marks as a table (the embed page's): for each named trace, each bar or
    point with its text as the chart shows it (its label, else its hover text, else its
    numbers); a long series as its count and range."""
    figure = plain_figure(figure)
    layout = figure.get("layout") or {}
    titles = {
        key: _plain(((layout.get(key) or {}).get("title") or {}).get("text", ""))
        for key in ("xaxis", "yaxis")
    }
    horizontal = any(t.get("orientation") == "h" for t in figure.get("data") or [])
    category, value = ("yaxis", "xaxis") if horizontal else ("xaxis", "yaxis")
    header = ["", titles[category] or "", titles[value] or "value"]
    rows = []
    for trace in figure.get("data") or []:
        name = " · ".join(_lines(trace.get("name", ""))) if trace.get("name") else ""
        xs, ys = _trace_points(trace)
        cats, values = (ys, xs) if horizontal else (xs, ys)
        texts = trace.get("text") or trace.get("hovertext") or []
        if len(values) > TABLE_POINTS:
            numbers = [v for v in values if isinstance(v, int | float)]
            if numbers:
                rows.append(
                    [
                        name,
                        f"{len(numbers):,} points, {tick_label(cats[0])} to {tick_label(cats[-1])}",
                        f"{min(numbers):,} to {max(numbers):,}",
                    ]
                )
            continue
        for i, (cat, v) in enumerate(zip(cats, values, strict=False)):
            shown = _at(texts, i, "")
            shown = (
                " · ".join(_lines(shown))
                if shown
                else f"{v:,}"
                if isinstance(v, int | float)
                else str(v)
            )
            label = _plain(cat) if isinstance(cat, str) else f"{cat:,}"
            rows.append([name or label, label if name else "", shown])
    return header, rows


# -- PNG -------------------------------------------------------------------------------------


def svg_size(svg: str) -> tuple[int, int]:
    match = re.search(r'<svg[^>]* width="(\d+)" height="(\d+)"', svg)
    return (int(match[1]), int(match[2])) if match else (WIDTH, 0)


def render_png(svg: str) -> bytes:
    """The SVG rasterised by resvg with the DejaVu fonts (nothing else from the system):
    PNG_SCALE pixels a unit, on white."""
    import resvg_py  # a compiled module: loaded only where an image is drawn

    fonts = Path(settings.BENCH_CHART_FONTS)
    if not (fonts / "DejaVuSans.ttf").is_file():  # else resvg draws no text at all
        raise ImproperlyConfigured(
            f"no DejaVuSans.ttf in {fonts} (BENCH_CHART_FONTS): install fonts-dejavu-core"
        )
    return bytes(
        resvg_py.svg_to_bytes(
            svg_string=svg,
            skip_system_fonts=True,
            font_dirs=[str(fonts)],
            font_family=IMAGE_FONT,
            sans_serif_family=IMAGE_FONT,
            background="#ffffff",
            zoom=PNG_SCALE if PNG_SCALE != 1 else None,
        )
    )
