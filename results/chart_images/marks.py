"""What every mark shares: Plotly's marker symbols as paths, stripe patterns, a trace's
points (x given or x0 + i·dx), a value or its i-th of a list, error bars' bounds, and the
hover text each mark carries as an SVG <title>."""

from __future__ import annotations

from results.chart_images.text import split_lines, xml


def outline(base: str, x: float, y: float, r: float) -> str:
    """The path of a marker of Plotly's symbol `base` (no "-open") at (x, y), radius r."""
    if base == "diamond":
        return polygon((x, y - r * 1.2), (x + r * 1.2, y), (x, y + r * 1.2), (x - r * 1.2, y))
    if base == "square":
        return polygon((x - r, y - r), (x + r, y - r), (x + r, y + r), (x - r, y + r))
    if base == "triangle-up":
        return polygon((x, y - r * 1.2), (x + r * 1.1, y + r * 0.8), (x - r * 1.1, y + r * 0.8))
    arc = f"a{r:.1f},{r:.1f} 0 1,0"
    return f"M{x - r:.1f},{y:.1f}{arc} {2 * r:.1f},0{arc} {-2 * r:.1f},0"


def symbol_paint(name: str, colour: str, opacity=None) -> str:
    open_ = name.endswith("-open")
    paint = f'fill="{"none" if open_ else colour}" stroke="{colour}" '
    paint += f'stroke-width="{1.5 if open_ else 0.5}"'
    return paint + (f' opacity="{opacity}"' if opacity is not None else "")


def marker_path(name: str, x: float, y: float, size: float, colour: str, opacity=None) -> str:
    """A marker of Plotly's `name` at (x, y), `size` px across."""
    d = outline(name.removesuffix("-open"), x, y, size / 2)
    return f'<path d="{d}" {symbol_paint(name, colour, opacity)}/>'


def polygon(*corners) -> str:
    return "M" + "L".join(f"{x:.1f},{y:.1f}" for x, y in corners) + "Z"


def nth(value, i: int, default=None):
    if isinstance(value, list):
        return value[i] if i < len(value) else default
    return default if value is None else value


def luminance(colour: str) -> float:
    colour = colour.lstrip("#")
    if len(colour) != 6:
        return 0.0
    r, g, b = (int(colour[i : i + 2], 16) / 255 for i in (0, 2, 4))
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


class Patterns:
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


def hover_title(text) -> str:
    return f"<title>{xml(' · '.join(split_lines(text)))}</title>" if text not in (None, "") else ""


def error_bar(trace: dict, key: str, i: int, value: float):
    """(low, high) of a mark's error bar in data units, None where it has none."""
    spec = trace.get(key)
    if not spec:
        return None
    plus, minus = nth(spec.get("array"), i, 0) or 0, nth(spec.get("arrayminus"), i, 0) or 0
    if not plus and not minus:
        return None
    return value - minus, value + plus


def trace_points(trace: dict) -> tuple[list, list]:
    y = list(trace.get("y") or [])
    x = trace.get("x")
    if x is None:
        x0, dx = trace.get("x0", 0), trace.get("dx", 1)
        x = [x0 + i * dx for i in range(len(y))]
    return list(x), y
