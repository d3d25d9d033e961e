"""A figure as a standalone SVG document: the title, the value axis's title under it, the
plot (grid and axes, shapes, bars, scatter traces), the legend and the source line."""

from __future__ import annotations

from dataclasses import dataclass

import orjson

from results.chart_images.axes import build_axis, grid_and_axes
from results.chart_images.bars import draw_bars
from results.chart_images.legend import draw_legend, legend_entries, legend_rows
from results.chart_images.marks import Patterns, error_bar, trace_points
from results.chart_images.scatter import draw_scatters
from results.chart_images.shapes import draw_shapes
from results.chart_images.text import (
    IMAGE_FONT,
    LINE,
    MUTED,
    TEXT,
    TITLE_SIZE,
    number,
    plain,
    text_width,
    wrap,
    xml,
)
from results.charts import figure_json

SVG_NS = "http://www.w3.org/2000/svg"
WIDTH = 1200  # the image's width in CSS pixels; its height is the figure's plus the text


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
    subtitle = plain((value_spec.get("title") or {}).get("text", ""))

    xs, ys = [], []
    for t in traces:
        x, y = trace_points(t)
        xs += x
        ys += y
        for key, values, other in (("error_x", x, "x"), ("error_y", y, "y")):
            for i, v in enumerate(values):
                if isinstance(v, int | float):
                    bounds = error_bar(t, key, i, v)
                    if bounds:
                        (xs if other == "x" else ys).extend(bounds)

    # Vertical room: title, subtitle, plot, legend, source.
    title_lines = wrap(text.title, width - 40, TITLE_SIZE * 1.1)
    title_height = TITLE_SIZE * LINE * len(title_lines)
    top = 16 + title_height + (size * LINE if subtitle else 0) + 12
    entries = legend_entries(traces, layout)
    rows = legend_rows(entries, width - 40, size)
    legend_height = sum(h for _, h in rows) + (10 if rows else 0)
    plot_height = max(
        float(layout.get("height", 400)) - margin.get("t", 10) - margin.get("b", 40), 80
    )
    x_title_room = size * LINE * 2 + 10
    height = top + plot_height + x_title_room + legend_height + size * LINE * 1.6 + 12

    # Horizontal room: the category labels on the left or the y axis's numbers.
    y_categories = horizontal or any(isinstance(v, str) for v in ys)
    if y_categories:
        names = [plain(v) for v in dict.fromkeys(v for v in ys if v is not None)]
        left = max(margin.get("l", 60), max((text_width(n, size) for n in names), default=0) + 16)
    else:
        left = max(margin.get("l", 60), 70) + (size * LINE if yspec.get("title") else 0)
    right = width - max(margin.get("r", 20), 20)
    if horizontal:  # room for the text past the longest bar
        right = width - max(margin.get("r", 90), 90)
    plot_top, plot_bottom = top, top + plot_height

    xaxis = build_axis(xspec, xs, left, right, bars=bool(bars) and horizontal)
    yaxis = build_axis(yspec, ys, plot_bottom, plot_top, bars=bool(bars) and not horizontal)

    patterns = Patterns()
    below, above = draw_shapes(layout.get("shapes") or [], xaxis, plot_top, plot_bottom)
    bar_marks = draw_bars(bars, xaxis, yaxis, horizontal, size, patterns)
    scatter_marks = draw_scatters([t for t in traces if t.get("type") == "scatter"], xaxis, yaxis)

    out = [
        f'<svg xmlns="{SVG_NS}" width="{width}" height="{round(height)}" '
        f'viewBox="0 0 {width} {round(height)}" font-family="{xml(family)}" '
        f'font-size="{number(size)}" fill="{TEXT}">',
        f"<title>{xml(text.title)}</title>",
    ]
    if patterns.defs:
        out.append("<defs>" + "".join(patterns.defs.values()) + "</defs>")
    out.append(f'<rect width="{width}" height="{round(height)}" fill="#ffffff"/>')
    baseline = 16 + TITLE_SIZE
    spans = "".join(
        f'<tspan x="20" dy="{0 if n == 0 else TITLE_SIZE * LINE:.1f}">{xml(line)}</tspan>'
        for n, line in enumerate(title_lines)
    )
    out.append(
        f'<text class="title" x="20" y="{baseline:.1f}" font-size="{TITLE_SIZE}" '
        f'font-weight="bold">{spans}</text>'
    )
    if subtitle:
        under = baseline + title_height - TITLE_SIZE * LINE + size * LINE + 2
        out.append(
            f'<text class="units" x="20" y="{under:.1f}" fill="{MUTED}">{xml(subtitle)}</text>'
        )
    # Points and shapes stay inside the plot (a range can leave data out); bar texts may
    # go past its end, as on the page.
    out.append(
        f'<clipPath id="plot"><rect x="{left:.1f}" y="{plot_top:.1f}" '
        f'width="{right - left:.1f}" height="{plot_height:.1f}"/></clipPath>'
    )
    out += grid_and_axes(xaxis, yaxis, plot_top, plot_bottom, left, right, size)
    out.append('<g clip-path="url(#plot)">' + "".join(below) + "</g>")
    out += bar_marks
    out.append('<g clip-path="url(#plot)">' + "".join(scatter_marks + above) + "</g>")
    y = plot_bottom + x_title_room + 6
    out += draw_legend(rows, 20, y, size, patterns)
    y += legend_height
    out.append(
        f'<text class="source" x="20" y="{height - 14:.1f}" fill="{MUTED}" '
        f'font-size="{number(size - 1)}">{xml(text.source)}</text>'
    )
    out.append("</svg>")
    return "\n".join(out)
