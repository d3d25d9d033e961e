"""The axes: linear, log and category, their range (rangemode "tozero", an explicit range,
autorange "reversed", autorangeoptions.include), ticks (tickvals/ticktext, or Plotly's
round numbers) and titles, and the grid."""

from __future__ import annotations

import math
from dataclasses import dataclass

from results.chart_images.text import GRID, MUTED, plain, tick_label, xml


def nice_step(span: float, count: int = 6) -> float:
    raw = span / max(count, 1)
    magnitude = 10 ** math.floor(math.log10(raw))
    for factor in (1, 2, 2.5, 5, 10):
        if raw <= factor * magnitude:
            return factor * magnitude
    return 10 * magnitude


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


def build_axis(spec: dict, values: list, start: float, end: float, *, bars: bool) -> Axis:
    title = plain((spec.get("title") or {}).get("text", ""))
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
        axis.ticks = [(i, plain(c)) for i, c in enumerate(categories)]
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
            (math.log10(v) if kind == "log" else v, plain(t))
            for v, t in zip(spec["tickvals"], texts, strict=False)
            if kind != "log" or v > 0
        ]
    elif kind == "log" and high - low < 1:  # less than a decade: round numbers within it
        step = nice_step(10**high - 10**low, 5)
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
        step = nice_step(high - low)
        first = math.ceil(low / step - 1e-9) * step
        ticks, at = [], first
        while at <= high + step * 1e-9:
            ticks.append((at, tick_label(round(at, 10))))
            at += step
        axis.ticks = ticks
    return axis


def tick_pixel(axis: Axis, value: float) -> float:
    span = axis.high - axis.low or 1
    return axis.start + (value - axis.low) / span * (axis.end - axis.start)


def grid_and_axes(xaxis: Axis, yaxis: Axis, top, bottom, left, right, size) -> list[str]:
    out = []
    for axis, vertical in ((xaxis, True), (yaxis, False)):
        for value, label in axis.ticks:
            at = tick_pixel(axis, value)
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
                    f'text-anchor="middle">{xml(label)}</text>'
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
                    f'text-anchor="end">{xml(label)}</text>'
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
            f'y="{bottom + size * 2.6 + 4:.1f}" text-anchor="middle">{xml(xaxis.title)}</text>'
        )
    if yaxis.title and yaxis.kind != "category":
        cx, cy = 20 + size * 0.5, (top + bottom) / 2
        out.append(
            f'<text class="axis-title" x="{cx:.1f}" y="{cy:.1f}" text-anchor="middle" '
            f'transform="rotate(-90 {cx:.1f} {cy:.1f})">{xml(yaxis.title)}</text>'
        )
    return out
