"""Scatter traces: markers (one path for a long series of alike points, else one mark a
point with its hover text), lines (dashes, "hv" steps), vertical error bars, and the
words of a "markers+text" trace beside each point."""

from __future__ import annotations

from results.chart_images.axes import Axis
from results.chart_images.marks import (
    error_bar,
    hover_title,
    marker_path,
    nth,
    outline,
    symbol_paint,
    trace_points,
)
from results.chart_images.text import DASHES, TEXT, number, plain, xml


def draw_scatters(traces, xaxis: Axis, yaxis: Axis) -> list[str]:
    out = []
    for trace in traces:
        mode = trace.get("mode", "markers")
        marker = trace.get("marker") or {}
        line = trace.get("line") or {}
        colour = line.get("color") or nth(marker.get("color"), 0, "#444444")
        xs, ys = trace_points(trace)
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
                bounds = error_bar(trace, "error_y", i, ys[i])
                if bounds:
                    a, b = yaxis(bounds[0]), yaxis(bounds[1])
                    if a is not None and b is not None:
                        out.append(
                            f'<path class="error" d="M{px:.1f},{a:.1f}V{b:.1f}" '
                            f'stroke="{error.get("color", TEXT)}" '
                            f'stroke-width="{error.get("thickness", 1.5)}"/>'
                        )
        texts = trace.get("text") or []
        hovers = trace.get("hovertext") or texts  # each mark's <title>
        outline_width = (marker.get("line") or {}).get("width")
        if (
            "markers" in mode
            and not hovers
            and not any(isinstance(marker.get(k), list) for k in ("symbol", "size", "color"))
        ):
            # Alike markers with nothing to say each (a series of seconds): one path.
            symbol = marker.get("symbol") or "circle"
            r = float(marker.get("size") or 6) / 2
            d = "".join(outline(symbol.removesuffix("-open"), px, py, r) for _, px, py in points)
            paint = symbol_paint(
                symbol, marker.get("color") or colour, marker.get("opacity"), outline_width
            )
            out.append(f'<path class="points" d="{d}" {paint}/>')
        elif "markers" in mode:
            group = []
            for i, px, py in points:
                mark = marker_path(
                    nth(marker.get("symbol"), i, "circle"),
                    px,
                    py,
                    float(nth(marker.get("size"), i, 6)),
                    nth(marker.get("color"), i, colour),
                    marker.get("opacity"),
                    outline_width,
                )
                title = hover_title(nth(hovers, i, ""))
                if title:
                    mark = mark.replace("/>", f">{title}</{mark[1 : mark.index(' ')]}>", 1)
                group.append(mark)
            out.append('<g class="points">' + "".join(group) + "</g>")
        if "text" in mode:
            out += point_texts(trace, points, texts, colour)
    return out


def point_texts(trace: dict, points, texts, colour: str) -> list[str]:
    """A text trace's words beside each point, where its textposition (one, or one a point)
    puts them ("top right", "bottom center", ...), as Plotly writes them on the page."""
    font = trace.get("textfont") or {}
    size = float(font.get("size") or 12)
    out = []
    for i, px, py in points:
        words = plain(nth(texts, i, ""))
        if not words:
            continue
        position = str(nth(trace.get("textposition"), i, None) or "middle center")
        vertical, _, horizontal = position.partition(" ")
        dx, anchor = {"left": (-6, "end"), "right": (6, "start")}.get(horizontal, (0, "middle"))
        dy = {"top": -6, "bottom": size + 4}.get(vertical, size * 0.35)
        out.append(
            f'<text class="point-text" x="{px + dx:.1f}" y="{py + dy:.1f}" '
            f'text-anchor="{anchor}" font-size="{number(size)}" '
            f'fill="{nth(font.get("color"), i, colour)}" stroke="#ffffff" '
            f'stroke-width="3" paint-order="stroke">{xml(words)}</text>'
        )
    return out
