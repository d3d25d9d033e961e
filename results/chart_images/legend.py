"""The legend: each shown trace's name ("<br>" its lines) with its bar swatch, line or
marker, in rows that fit the image's width."""

from __future__ import annotations

from dataclasses import dataclass

from results.chart_images.marks import Patterns, marker_path, nth
from results.chart_images.text import DASHES, LINE, MUTED, split_lines, text_width, xml


@dataclass
class LegendEntry:
    lines: list[str]
    trace: dict


def legend_entries(traces: list[dict], layout: dict) -> list[LegendEntry]:
    if layout.get("showlegend") is False:
        return []
    return [
        LegendEntry(split_lines(t["name"]), t)
        for t in traces
        if t.get("name") and t.get("showlegend", True)
    ]


def legend_rows(entries: list[LegendEntry], room: float, size: float):
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


def draw_legend(rows, left: float, top: float, size: float, patterns: Patterns) -> list[str]:
    out = ['<g class="legend">']
    y = top
    for row, height in rows:
        for entry, x in row:
            t = entry.trace
            marker = t.get("marker") or {}
            line = t.get("line") or {}
            colour = line.get("color") or nth(marker.get("color"), 0, "#444444")
            cx, cy = left + x, y + size * 0.5
            if t.get("type") == "bar":
                shape = nth((marker.get("pattern") or {}).get("shape"), 0)
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
                    symbol = nth(marker.get("symbol"), 0, "circle")
                    out.append(marker_path(symbol, cx + 13, cy, 8, colour))
            for n, text in enumerate(entry.lines):
                out.append(
                    f'<text class="legend-text" x="{cx + 34:.1f}" '
                    f'y="{cy + size * 0.35 + n * size * LINE:.1f}"'
                    + (f' fill="{MUTED}"' if n else "")
                    + f">{xml(text)}</text>"
                )
        y += height
    out.append("</g>")
    return out
