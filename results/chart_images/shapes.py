"""Layout shapes whose xref is "x" and yref "paper": rectangles and lines, below or above
the data."""

from __future__ import annotations

from results.chart_images.axes import Axis
from results.chart_images.text import DASHES, TEXT


def draw_shapes(shapes: list[dict], xaxis: Axis, top, bottom) -> tuple[list[str], list[str]]:
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
