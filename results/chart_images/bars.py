"""Bar traces, horizontal or vertical, grouped: a colour and stripe pattern for the trace
or one per bar, error bars, and a text on or past each bar (textposition "auto" or
"outside")."""

from __future__ import annotations

from results.chart_images.axes import Axis
from results.chart_images.marks import error_bar, hover_title, luminance, nth
from results.chart_images.text import TEXT, number, plain, text_width, xml

BAR_GAP = 0.2  # of each category's band: Plotly's default bargap


def draw_bars(bars, xaxis: Axis, yaxis: Axis, horizontal: bool, size, patterns) -> list[str]:
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
            colour = nth(marker.get("color"), i, "#444444")
            fill = patterns.fill(colour, nth(pattern.get("shape"), i))
            low, high = sorted((zero, end))
            box = (low, mid - width / 2, high - low, width)
            if not horizontal:
                box = (mid - width / 2, low, width, high - low)
            geometry = 'x="{:.1f}" y="{:.1f}" width="{:.1f}" height="{:.1f}"'.format(*box)
            title = hover_title(nth(hovers, i, ""))
            out.append(f'<rect class="bar" {geometry} fill="{fill}">{title}</rect>')
            spec = "error_x" if horizontal else "error_y"
            bounds = error_bar(trace, spec, i, v) if isinstance(v, int | float) else None
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
            label = plain(nth(texts, i, "") or "")
            if not label:
                continue
            length = high - low
            needed = text_width(label, size) + 10
            if horizontal:
                halo = ""
                if position == "auto" and length >= needed:
                    ink = "#ffffff" if luminance(colour) < 0.6 else TEXT
                    x_text, anchor = (high - 5, "end") if end >= zero else (low + 5, "start")
                    if ink == TEXT:  # dark on a light bar, its stripes too: a white outline
                        halo = ' stroke="#ffffff" stroke-width="3" paint-order="stroke"'
                    elif fill != colour:  # white on a dark bar's white dots or crosses
                        halo = f' stroke="{colour}" stroke-width="3" paint-order="stroke"'
                else:
                    ink = TEXT
                    x_text, anchor = (high + 5, "start") if end >= zero else (low - 5, "end")
                if bounds and anchor == "start" and ink == TEXT:
                    x_text = max(x_text, max(value(bounds[0]) or 0, value(bounds[1]) or 0) + 5)
                out.append(
                    f'<text class="bar-text" x="{x_text:.1f}" y="{mid + size * 0.35:.1f}" '
                    f'text-anchor="{anchor}" fill="{ink}"{halo}>{xml(label)}</text>'
                )
            else:
                y_text = low - 4 if end <= zero else high + size
                if end <= zero and bounds:
                    y_text = min(y_text, min(value(bounds[0]), value(bounds[1])) - 4)
                out.append(
                    f'<text class="bar-text" x="{mid:.1f}" y="{y_text:.1f}" '
                    f'text-anchor="middle" font-size="{number(size - 1)}">{xml(label)}</text>'
                )
    return out
