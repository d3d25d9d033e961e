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


def symbol_paint(name: str, colour: str, opacity=None, width=None) -> str:
    """A marker's fill and outline: an "-open" symbol's outline alone, `width` px wide
    (its marker.line.width) or Plotly's default."""
    open_ = name.endswith("-open")
    width = width if width is not None else 1.5 if open_ else 0.5
    paint = f'fill="{"none" if open_ else colour}" stroke="{colour}" stroke-width="{width}"'
    return paint + (f' opacity="{opacity}"' if opacity is not None else "")


def marker_path(
    name: str, x: float, y: float, size: float, colour: str, opacity=None, width=None
) -> str:
    """A marker of Plotly's `name` at (x, y), `size` px across."""
    d = outline(name.removesuffix("-open"), x, y, size / 2)
    return f'<path d="{d}" {symbol_paint(name, colour, opacity, width)}/>'


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


# A pattern's marks over its bar's colour, in a 7 px tile: Plotly's "/" (stripes), "."
# (dots) and "x" (crossed stripes), in white as charts._pattern draws them.
_PATTERN_MARKS = {
    "/": '<rect width="2.1" height="7" fill="#ffffff"/>',
    ".": '<circle cx="3.5" cy="3.5" r="1.4" fill="#ffffff"/>',
    "x": (
        '<rect width="1.6" height="7" fill="#ffffff"/><rect width="7" height="1.6" fill="#ffffff"/>'
    ),
}


class Patterns:
    """The patterns bars use, one <pattern> per colour and shape."""

    def __init__(self) -> None:
        self.defs: dict[str, str] = {}  # <pattern> by its id
        self._ids: dict[tuple[str, str], str] = {}

    def fill(self, colour: str, shape: str | None) -> str:
        if not shape:
            return colour
        key = (colour, shape)
        if key not in self._ids:
            self._ids[key] = name = f"pattern-{len(self._ids)}"
            # Stripes and crosses turned 45 degrees; dots on a square grid.
            turn = ' patternTransform="rotate(45)"' if shape != "." else ""
            self.defs[name] = (
                f'<pattern id="{name}" width="7" height="7" patternUnits="userSpaceOnUse"'
                f'{turn}><rect width="7" height="7" fill="{colour}"/>'
                f"{_PATTERN_MARKS[shape]}</pattern>"
            )
        return f"url(#{self._ids[key]})"


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
