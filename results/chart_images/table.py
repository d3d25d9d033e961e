"""A figure's marks as a table (the embed page's, under its chart)."""

from __future__ import annotations

from results.chart_images.figure import plain_figure
from results.chart_images.marks import nth, trace_points
from results.chart_images.text import plain, split_lines
from results.units import count, decimal

TABLE_POINTS = 60  # a trace with more points (a series of seconds) is summed up in one row


def figure_table(figure: dict) -> tuple[list[str], list[list[str]]]:
    """The figure's marks as a table (the embed page's): for each named trace, each bar or
    point with its text as the chart shows it (its label, else its hover text, else its
    numbers); a long series as its count and range."""
    figure = plain_figure(figure)
    layout = figure.get("layout") or {}
    titles = {
        key: plain(((layout.get(key) or {}).get("title") or {}).get("text", ""))
        for key in ("xaxis", "yaxis")
    }
    horizontal = any(t.get("orientation") == "h" for t in figure.get("data") or [])
    category, value = ("yaxis", "xaxis") if horizontal else ("xaxis", "yaxis")
    header = ["", titles[category] or "", titles[value] or "value"]
    rows = []
    for trace in figure.get("data") or []:
        name = " · ".join(split_lines(trace.get("name", ""))) if trace.get("name") else ""
        xs, ys = trace_points(trace)
        cats, values = (ys, xs) if horizontal else (xs, ys)
        texts = trace.get("text") or trace.get("hovertext") or []
        if len(values) > TABLE_POINTS:
            numbers = [v for v in values if isinstance(v, int | float)]
            if numbers:
                rows.append(
                    [
                        name,
                        f"{count(len(numbers))} points, {_number(cats[0])} to {_number(cats[-1])}",
                        f"{decimal(min(numbers))} to {decimal(max(numbers))}",
                    ]
                )
            continue
        for i, (cat, v) in enumerate(zip(cats, values, strict=False)):
            shown = nth(texts, i, "")
            shown = " · ".join(split_lines(shown)) if shown else _number(v)
            label = _number(cat)
            rows.append([name or label, label if name else "", shown])
    return header, rows


def _number(value) -> str:
    """A mark's coordinate as the pages write numbers (results.units: none is "—"), a
    category as named."""
    return decimal(value) if value is None or isinstance(value, int | float) else plain(value)
