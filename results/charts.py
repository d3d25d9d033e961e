"""Plotly figure data for every chart, built here and drawn by static/js/bench.js.

A figure is a plain dict ({"data": [...], "layout": {...}}) that templates put in a
data-figure attribute (`chart`, at the end). Text from the database goes through
`label`, so that a name such as "<b>x</b>" is drawn as those characters, never as markup
(Plotly reads a few tags).
"""

from __future__ import annotations

import functools
import json
import math
from collections.abc import Sequence
from decimal import Decimal
from html import escape
from typing import Any

import orjson
from markupsafe import Markup
from markupsafe import escape as escape_html

from core.db import JsonText
from core.held import held
from results import units
from results.models import DataPattern, Method, method_label
from results.selectors.compare import UNSTATED_NOTE, Side, Sweep, TestRows
from results.selectors.rankings import Leaderboard, Metric
from results.selectors.value import ValueView
from results.spread import NOT_COMPARED, Spread, percentile_unsupported

# Okabe-Ito colours, safe for the common colour-vision deficiencies; the compared drives
# (A to D) also differ in bar pattern and marker symbol.
COLOUR_A = "#0072B2"
COLOUR_B = "#E69F00"
COLOUR_C = "#009E73"
COLOUR_D = "#CC79A7"
COLOUR_FRONTIER = "#009E73"
COLOUR_OTHER = "#9AA3AD"
COLOUR_HIGHLIGHT = "#D55E00"
PATTERN_B = "/"
PATTERN_C = "."
PATTERN_D = "x"
SYMBOL_A = "circle"
SYMBOL_B = "diamond"
SYMBOL_C = "square"
SYMBOL_D = "triangle-up"
# Each compared drive's (key, colour, bar pattern, marker symbol, line dash), A first.
SIDE_STYLES = (
    ("a", COLOUR_A, "", SYMBOL_A, "solid"),
    ("b", COLOUR_B, PATTERN_B, SYMBOL_B, "dash"),
    ("c", COLOUR_C, PATTERN_C, SYMBOL_C, "longdash"),
    ("d", COLOUR_D, PATTERN_D, SYMBOL_D, "dashdot"),
)
FONT = {"family": "system-ui, -apple-system, Segoe UI, sans-serif", "size": 13}
LINEAR_CEILING = 40_000  # the seeds' linear consistency view tops out at 40K IOPS


def label(text) -> str:
    return _label(str(text))


@functools.lru_cache(maxsize=1 << 15)
def _label(text: str) -> str:
    # Names repeat across requests (a drive's in every ranking and scatter).
    return escape(text, quote=False)


def _layout(**extra) -> dict:
    layout = {
        "font": FONT,
        "margin": {"l": 10, "r": 20, "t": 10, "b": 40},
        "paper_bgcolor": "rgba(0,0,0,0)",
        "plot_bgcolor": "rgba(0,0,0,0)",
        "showlegend": True,
        "legend": {"orientation": "h", "x": 0, "y": 1.0, "yanchor": "bottom"},
    }
    layout.update(extra)
    # Tick numbers as the pages write numbers (results/units.py): 1,500, not 1500.
    for axis in ("xaxis", "yaxis"):
        layout[axis] = {"separatethousands": True, **layout.get(axis, {})}
    return layout


def _pattern(shape: str, colour: str) -> dict:
    """B's bars: its colour with white stripes, so A and B differ without colour too."""
    return {"shape": shape, "bgcolor": colour, "fgcolor": "#ffffff", "size": 7, "solidity": 0.3}


def mbps(value: float | None) -> float | None:
    return None if value is None else round(value / 1e6, 2)


# What every head-to-head bar chart shares, built once: a figure is only ever serialised.
_BAR_SIDES = tuple(
    (
        side,
        {
            "color": colour,
            "line": {"color": colour, "width": 1},
            "pattern": _pattern(shape, colour),
        },
    )
    for side, colour, shape, _, _ in SIDE_STYLES
)
_BAR_MARGIN = {"l": 110, "r": 90, "t": 30, "b": 40}
_BAR_XAXIS = {"title": {"text": "MB/s (higher is better)"}, "rangemode": "tozero"}
_BAR_YAXIS = {"autorange": "reversed"}


# A bar's figure written inside it where it fits, else just past its end: a long bar never
# pushes its text beyond the chart, and a short one leaves room for it. The rest of what
# its table says (the spread, notes) is in the hover text.
_BAR_TEXT = {"textposition": "auto", "insidetextanchor": "end", "cliponaxis": False}
LEGEND_CHARACTERS = 32  # a legend entry that fits a phone's chart on one line


def _legend_name(text: str) -> str:
    """A trace's legend entry: its name, cut to LEGEND_CHARACTERS with an ellipsis (Plotly
    does not wrap legend text; the page names each drive in full)."""
    text = str(text)
    if len(text) > LEGEND_CHARACTERS:
        text = text[: LEGEND_CHARACTERS - 1].rstrip() + "…"
    return label(text)


def _whiskers(spreads: list[Spread | None], unit=mbps) -> dict:
    """Error bars from each mark's mean to its group's lowest and highest result (none for
    a single result), in MB/s (or as `unit` rounds them): a Plotly error_x or error_y."""
    return _error_bars(
        [unit(s.high - s.mean) if s and s.n > 1 else 0 for s in spreads],
        [unit(s.mean - s.low) if s and s.n > 1 else 0 for s in spreads],
    )


def _error_bars(above: list, below: list) -> dict:
    return {
        "type": "data",
        "symmetric": False,
        "array": above,
        "arrayminus": below,
        "color": "#333",
        "thickness": 1.5,
        "width": 5,
    }


def compare_bars(test: TestRows, names: Sequence[str]) -> dict:
    """Grouped horizontal bars of one test, a bar for each drive (`names`, A first) in each
    data pattern, each with whiskers over its run-to-run
    range. Where the drives' figures in a pattern are of two comparability classes, each
    drive's legend entry and each bar's hover name its figure's class, and each other
    drive's hover its verdict against A ("not compared: ..."); the bar's own text stays
    its figure, which a phone's width has room for."""
    patterns = [p.pattern for p in test.rows]
    # Where every drive's figures are of one class, a drive's bars say nothing of the
    # others: they are drawn once while its side is held (Figures.shown), for the rows
    # they are drawn in.
    alone = not any(p.classes_differ for p in test.rows)
    traces = []
    for i, ((side, marker), name) in enumerate(zip(_BAR_SIDES, names, strict=False)):
        mine = [p.figures[i] for p in test.rows]
        held = next((f.shown for f in mine if f is not None), None) if alone else None
        if held is not None:
            key = ("bars", i, name, *(f and f.result.pk for f in mine), *patterns)
            if (trace := held.get(key)) is not None:
                traces.append(trace)
                continue
        values, texts, hovers, spreads = [], [], [], []
        classes = []  # this drive's figures' classes where they differ from another's
        for p in test.rows:
            figures = p.figures[i]
            bps = figures.bytes_per_second if figures else None
            spreads.append(figures.spread if figures else None)
            if bps is None:
                values.append(0)
                texts.append("not tested")
                hovers.append("not tested")
                continue
            values.append(mbps(bps))
            text = f"{units.mbps(bps)} MB/s"
            texts.append(text)
            apart = p.classes_differ
            if apart:
                text += f" ({figures.rule_side.class_noun})"
                classes.append(figures.rule_side.class_noun)
            if figures.spread:
                text += f" {figures.spread.label}"
            if figures.result.pattern != p.pattern:
                text += f" ({UNSTATED_NOTE})"
            if apart and i and p.verdicts[i].winner == NOT_COMPARED:
                text += f"; against A: {p.verdicts[i].label}"
            hovers.append(text)
        traces.append(
            {
                "type": "bar",
                "orientation": "h",
                "name": _legend_name(
                    f"{side.upper()} ({'; '.join(dict.fromkeys(classes))}): {name}"
                    if classes
                    else f"{side.upper()}: {name}"
                ),
                "y": patterns,
                "x": values,
                **_BAR_TEXT,
                "text": texts,
                "hovertext": hovers,
                "marker": marker,
                "error_x": _whiskers(spreads),
                "hovertemplate": "%{hovertext}<extra>%{fullData.name}</extra>",
            }
        )
        if held is not None:
            held[key] = traces[-1]
    return {
        "data": traces,
        "layout": _layout(
            barmode="group",
            height=90 + 35 * len(names) * len(patterns),
            margin=_BAR_MARGIN,
            xaxis=_BAR_XAXIS,
            yaxis=_BAR_YAXIS,
        ),
    }


def consistency(
    level: int, sides: Sequence[Side], names: Sequence[str], *, scale: str, view: str
) -> dict:
    """Every drive's IOPS in every second at one spare-area level, overlaid (`sides` and
    their `names`, A first), one colour and marker a drive."""
    traces, starts, ends, windows = [], [], [], []
    for side, name, (_, colour, _, symbol, _) in zip(sides, names, SIDE_STYLES, strict=False):
        series = side.consistency.get(level)
        if series is None:
            continue
        step = series.interval_ns / 1e9
        starts.append((series.quick, series.steady_state_start_s))
        ends.append(series.steady_state_end_s or series.points * step)
        if series.steady:  # the PTS window, shaded in the side's colour
            windows.append(
                {
                    "type": "rect",
                    "xref": "x",
                    "yref": "paper",
                    "x0": series.steady_state_start_s,
                    "x1": series.steady_state_end_s,
                    "y0": 0,
                    "y1": 1,
                    "fillcolor": colour,
                    "opacity": 0.12,
                    "line": {"width": 0},
                    "layer": "below",
                }
            )
            notes = [series.steady_label]
        elif series.steady is False:
            notes = ["not steady"]
        else:
            notes = []
        stalled = series.stalls if scale == "log" else 0
        if stalled:  # a log axis has no zero: say how many seconds are not drawn
            notes.append(f"{units.seconds(stalled)} at 0 IOPS, below the log axis")
        traces.append(
            {
                "type": "scatter",
                "mode": "markers",
                # The drive, then what its series shows, on a line of its own (a legend
                # entry is not wrapped).
                "name": "<br>".join([_legend_name(name), *(label(n) for n in notes)]),
                "y": series.iops_json,  # as the selector read it
                "x0": 0,
                "dx": step,
                "marker": {"color": colour, "symbol": symbol, "size": 4, "opacity": 0.75},
                "hovertemplate": "%{y:,} IOPS at %{x:,} s<extra>%{fullData.name}</extra>",
            }
        )
    xaxis: dict = {"title": {"text": "seconds"}}
    if view == "steady" and starts:
        # The steady-state windows (the PTS rule's, or a series' last window): from the
        # first full-length series' start (a quick run's few seconds would zoom out to
        # nearly the whole plot) to the last window's end.
        full = [start for quick, start in starts if not quick]
        xaxis["range"] = [min(full or [start for _, start in starts]), max(ends)]
    yaxis: dict = {"title": {"text": "IOPS"}}
    if scale == "linear":
        # The seeds' 0 to 40K at least, as far as the data go above it.
        yaxis.update(type="linear", autorangeoptions={"include": [0, LINEAR_CEILING]})
    else:
        yaxis.update(type="log")
    return {
        "data": traces,
        "layout": _layout(
            height=360,
            margin={"l": 60, "r": 20, "t": 30, "b": 45},
            xaxis=xaxis,
            yaxis=yaxis,
            shapes=windows,
        ),
    }


# A sweep's lines: A solid with circles, B dashed with diamonds (C and D as SIDE_STYLES);
# a second data pattern dotted, so that sides and patterns differ without colour too.
_SWEEP_SIDES = tuple((side, colour, symbol, dash) for side, colour, _, symbol, dash in SIDE_STYLES)
_SWEEP_PATTERN_DASH = {0: None, 1: "dot"}
# Drive names are long: the legend goes under the plot, one line a trace, so that the plot
# keeps its height whatever the names.
_SWEEP_LAYOUT = {
    "height": 460,
    "margin": {"l": 70, "r": 20, "t": 10, "b": 10},
    "legend": {"orientation": "h", "x": 0, "y": -0.2, "yanchor": "top"},
}


def _sweep_lines(sweep: Sweep, names: Sequence[str]):
    """Each side's points in each data pattern of the sweep, shallowest first: (trace name,
    colour, symbol, dash, [(queue depth, Figures), ...]) for each line with a point."""
    for i, ((side, colour, symbol, dash), name) in enumerate(
        zip(_SWEEP_SIDES, names, strict=False)
    ):
        for n, pattern in enumerate(sweep.patterns):
            points = []
            for point in sweep.points:
                row = next((p for p in point.rows if p.pattern == pattern), None)
                figures = row.figures[i] if row else None
                if figures is not None and figures.iops is not None:
                    points.append((point.test.queue_depth, figures))
            if points:
                dash_here = _SWEEP_PATTERN_DASH.get(n) or dash
                trace_name = _legend_name(f"{side.upper()}: {name}")
                if len(sweep.patterns) > 1:
                    trace_name += f"<br>{label(pattern)}"  # a line of its own
                yield trace_name, colour, symbol, dash_here, points


def sweep_iops(sweep: Sweep, names: Sequence[str]) -> dict:
    """IOPS against queue depth (log2 axis) for every drive: where each saturates."""
    traces = [
        {
            "type": "scatter",
            "mode": "lines+markers",
            "name": trace_name,
            "x": [depth for depth, _ in points],
            "y": [round(f.iops) for _, f in points],
            "text": [f"QD{depth}: {units.iops(f.iops)} IOPS" for depth, f in points],
            "line": {"color": colour, "dash": dash},
            "marker": {"symbol": symbol, "size": 8, "color": colour},
            "hovertemplate": "%{text}<extra>%{fullData.name}</extra>",
        }
        for trace_name, colour, symbol, dash, points in _sweep_lines(sweep, names)
    ]
    depths = [point.test.queue_depth for point in sweep.points]
    return {
        "data": traces,
        "layout": _layout(
            **_SWEEP_LAYOUT,
            xaxis={
                "title": {"text": "queue depth"},
                "type": "log",
                "tickvals": depths,
                "ticktext": [str(d) for d in depths],
            },
            yaxis={"title": {"text": "IOPS (higher is better)"}, "rangemode": "tozero"},
        ),
    }


def _latency_line(
    shown: Sequence[tuple[str, Any, int]],
    name: str,
    group: int,
    which: str,
    *,
    main: bool,
    style: tuple[str, str, str | None],
) -> dict:
    """A line of latency against the IOPS achieved, the scatter trace the demand-intensity
    curve (sweep_demand) and the response-time curve (response_curve) both draw: `shown`
    its points, each (where it was measured: "QD4", "50% load"; its Figures; its latency at
    `which`, "mean" or "p99", in ns); `style` (colour, marker symbol, dash). A drive's
    `main` line is drawn wide with filled markers and named in the legend; its companion
    (the p99 beside a mean, the p50 beside a p99) thin with open markers, in the same
    legend group (`group`), so that it shows and hides with it."""
    colour, symbol, dash = style
    return {
        "type": "scatter",
        "mode": "lines+markers",
        "name": name,
        "legendgroup": f"line-{group}",
        "showlegend": main,
        "x": [round(f.iops) for _, f, _ in shown],
        "y": [round(ns / 1e3, 1) for _, _, ns in shown],
        "text": [
            f"{where}: {units.iops(f.iops)} IOPS, {which} {units.latency(ns)}"
            for where, f, ns in shown
        ],
        "line": {"color": colour, "dash": dash, "width": 2 if main else 1},
        "marker": {
            "symbol": symbol if main else f"{symbol}-open",
            "size": 8 if main else 6,
            "color": colour,
        },
        "hovertemplate": "%{text}<extra>%{fullData.name}</extra>",
    }


def sweep_demand(sweep: Sweep, names: Sequence[str]) -> dict:
    """The demand-intensity curve (SNIA PTS): mean latency against IOPS, one point per queue
    depth, for both drives; p99 as a dotted line where measured. Where a curve turns up, more
    outstanding I/O buys latency, not IOPS."""
    traces = []
    for n, (trace_name, colour, symbol, dash, points) in enumerate(_sweep_lines(sweep, names)):
        for which, read, line in (
            ("mean", lambda r: r.latency_mean_ns, dash),
            # Where its I/Os support it (results.spread.ios_needed), as the tables say.
            (
                "p99",
                lambda r: (
                    None
                    if percentile_unsupported("99", r.io_count)
                    else (r.latency_percentiles_ns or {}).get("99")
                ),
                "dot",
            ),
        ):
            shown = [(f"QD{d}", f, read(f.result)) for d, f in points if read(f.result) is not None]
            if not shown:
                continue
            # One legend entry a line: its p99 shows and hides with its mean.
            traces.append(
                _latency_line(
                    shown, trace_name, n, which, main=which == "mean", style=(colour, symbol, line)
                )
            )
    return {
        "data": traces,
        "layout": _layout(
            **_SWEEP_LAYOUT,
            xaxis={"title": {"text": "IOPS"}, "rangemode": "tozero"},
            yaxis={"title": {"text": "latency, µs (lower is better)"}, "type": "log"},
        ),
    }


def _shown_percentile(f, percentile: str) -> int | None:
    """A result's latency at a percentile where its I/Os support it (ios_needed), as the
    tables say it; None elsewhere."""
    r = f.result
    if percentile_unsupported(percentile, r.io_count):
        return None
    return (r.latency_percentiles_ns or {}).get(percentile)


def response_curve(name: str, sides: Sequence, names: Sequence[str]) -> dict:
    """A response-time curve (SPEC SFS): p99 latency against the IOPS achieved at each offered
    load, one line a drive (its p50 dotted, open markers), the knee marked where a drive has
    one (results.curves.knee). `sides`: results.kinds.curve.CurveSide, A first."""
    traces = []
    for n, (side, (key, colour, symbol, dash), drive) in enumerate(
        zip(sides, _SWEEP_SIDES, names, strict=False)
    ):
        trace_name = _legend_name(f"{key.upper()}: {drive}")
        knee_at = None
        for which, line in (("99", dash), ("50", "dot")):
            shown = [
                (load, f, ns) for load, f in side.points if (ns := _shown_percentile(f, which))
            ]
            if not shown:
                continue
            if which == "99":
                knee_at = next((p for p in shown if p[0] == side.knee), None)
            traces.append(
                _latency_line(
                    [(f"{load}% load", f, ns) for load, f, ns in shown],
                    trace_name,
                    n,
                    f"p{which}",
                    main=which == "99",
                    style=(colour, symbol, line),
                )
            )
        if knee_at is not None:
            load, f, ns = knee_at
            traces.append(
                {
                    "type": "scatter",
                    "mode": "markers+text",
                    "name": f"{key.upper()}: knee",
                    "legendgroup": f"line-{n}",
                    "showlegend": False,
                    "x": [round(f.iops)],
                    "y": [round(ns / 1e3, 1)],
                    "text": [f"{key.upper()} knee ({load}%)"],
                    "textposition": "",  # set below, once the axis's extent is known
                    "marker": {"symbol": f"{symbol}-open", "size": 16, "color": colour},
                    "hovertemplate": "%{text}<extra>%{fullData.name}</extra>",
                }
            )
    # A knee's label above and left of it, where the curve below the knee leaves room; in
    # the left half of the axis, below and right of it (under the curve's rise after it), so
    # that it stays inside the chart.
    extent = max((x for t in traces for x in t["x"]), default=0)
    for t in traces:
        if t["mode"] == "markers+text":
            t["textposition"] = "bottom right" if t["x"][0] < extent / 2 else "top left"
    return {
        "data": traces,
        "layout": _layout(
            **_SWEEP_LAYOUT,
            xaxis={"title": {"text": "IOPS achieved"}, "rangemode": "tozero"},
            yaxis={
                "title": {"text": "latency, µs: p99 solid, p50 dotted (lower is better)"},
                "type": "log",
            },
        ),
    }


TRIM_PHASES = (
    ("clean_bytes_per_second", "clean"),
    ("after_torture_bytes_per_second", "after torture"),
    ("after_trim_bytes_per_second", "after TRIM"),
)


def trim_bars(sides: Sequence[Side], key: tuple[str, str], names: Sequence[str]) -> dict:
    """One TRIM test in one data pattern: clean, after torture, after TRIM, every drive's
    (`sides` and their `names`, A first) side by side."""
    traces = []
    for side, name, (_, colour, shape, _, _) in zip(sides, names, SIDE_STYLES, strict=False):
        trim = side.trim.get(key)
        rates = [getattr(trim, f) if trim else None for f, _ in TRIM_PHASES]
        traces.append(
            {
                "type": "bar",
                "name": label(name),
                "x": [phase for _, phase in TRIM_PHASES],
                "y": [mbps(rate) if trim else 0 for rate in rates],
                "text": [units.mbps(rate) if trim else "not tested" for rate in rates],
                "textposition": "outside",
                "cliponaxis": False,
                "marker": {"color": colour, "pattern": _pattern(shape, colour)},
            }
        )
    return {
        "data": traces,
        "layout": _layout(
            barmode="group",
            height=320,
            margin={"l": 60, "r": 20, "t": 40, "b": 40},
            yaxis={"title": {"text": "MB/s (higher is better)"}, "rangemode": "tozero"},
        ),
    }


def _ranked_bars(names, values, texts, hovers, marker: dict, unit: str, **trace) -> dict:
    """A ranking as horizontal bars, the first at the top: each bar's figure on it (texts)
    and the rest of what its row says in the hover (hovers); `unit` the axis's title."""
    return {
        "data": [
            {
                "type": "bar",
                "orientation": "h",
                "y": names,
                "x": values,
                **_BAR_TEXT,
                "text": texts,
                "hovertext": hovers,
                "marker": marker,
                "hovertemplate": "%{y}: %{hovertext}<extra></extra>",
                **trace,
            }
        ],
        "layout": _layout(
            showlegend=False,
            height=60 + 22 * max(len(names), 1),
            margin={"l": 10, "r": 90, "t": 10, "b": 40},
            xaxis={"title": {"text": unit}, "rangemode": "tozero"},
            yaxis={"autorange": "reversed", "automargin": True},
        ),
    }


def leaderboard_bars(board: Leaderboard) -> dict:
    """The page's ranking as horizontal bars, best at the top, highlighted drives coloured."""
    rows = board.rows + board.elsewhere
    latency = board.metric in Metric.LATENCIES
    slowest = board.metric == Metric.IOPS_MIN
    tail = board.metric == Metric.LATENCY_P999
    names, values, colours, texts, hovers, spreads = [], [], [], [], [], []
    for row in rows:
        e = row.entry
        spreads.append(None)
        names.append(label(f"#{row.rank} {e.drive} · {e.get_pattern_display()}"))
        if latency:
            value = round(e.latency_mean_ns / 1e3, 1)
            text = units.latency(e.latency_mean_ns)
        elif tail:
            value = round(e.latency_p999_ns / 1e3, 1)
            text = f"{units.latency(e.latency_p999_ns)} ({units.count(e.latency_io_count)} I/Os)"
        elif slowest:
            value = round(e.iops_min)
            text = f"{units.iops(e.iops_min)} IOPS"
        else:
            value = mbps(e.bytes_per_second)
            text = f"{units.mbps(e.bytes_per_second)} MB/s"
            if e.derived == "bytes_per_second":
                text += " (derived)"
            spreads[-1] = Spread.of_entry(e)
        texts.append(text)
        spread = f" {spreads[-1].label}" if spreads[-1] else ""
        hovers.append(text + spread + (" · quick run" if e.quick else ""))
        values.append(value)
        colours.append(COLOUR_HIGHLIGHT if row.highlighted else COLOUR_A)
    unit = (
        "mean latency, µs (lower is better)"
        if latency
        else "p99.9 latency, µs (lower is better)"
        if tail
        else "IOPS of the slowest second (higher is better)"
        if slowest
        else "MB/s (higher is better)"
    )
    return _ranked_bars(
        names, values, texts, hovers, {"color": colours}, unit, error_x=_whiskers(spreads)
    )


def _point_mark(p) -> tuple[float, int, str, int, int]:
    return _value_mark(str(p.drive), p.method, p.spread, p.iops_derived, p.price, p.iops)


@functools.lru_cache(maxsize=1 << 14)
def _value_mark(
    drive: str, method: str, spread: Spread, derived: bool, price: float, iops: float
) -> tuple[float, int, str, int, int]:
    """A value scatter point's mark: its price and IOPS as drawn, its hover text and its
    whiskers above and below (_whiskers' in IOPS). The same points come back request
    after request (the sample is the same drives each time), so each is made once: held
    with the point (ValuePoint.shown), and here for points made afresh (prices as of a
    date)."""
    hover = (
        label(drive)
        + f" · {label(method)} · {spread.label}"
        + (" · IOPS derived from MB/s" if derived else "")
        + f"<br>{units.dollars(price)}, {units.iops(iops)} IOPS"
    )
    many = spread.n > 1
    return (
        float(price),
        round(iops),
        hover,
        round(spread.high - spread.mean) if many else 0,
        round(spread.mean - spread.low) if many else 0,
    )


def value_scatter(view: ValueView) -> dict:
    """Price against IOPS; the frontier joined by a line, highlighted drives marked. The
    frontier's drives and the highlighted ones are named beside their points (on the page
    and in its image, which has no hover), each name on the side of its point with room;
    every point's hover says what it is."""

    def trace(points, name, colour, **extra):
        marks = [held(p.shown, "mark", _point_mark, p) for p in points]
        return {
            "type": "scatter",
            "mode": "markers",
            "name": name,
            "x": [m[0] for m in marks],
            "y": [m[1] for m in marks],
            "hovertext": [m[2] for m in marks],
            "marker": {"color": colour, "size": 7},
            "error_y": _error_bars([m[3] for m in marks], [m[4] for m in marks]),
            "hovertemplate": "%{hovertext}<extra></extra>",
            **extra,
        }

    others = [p for p in view.points if not p.frontier and not p.highlighted]
    highlighted = [p for p in view.points if p.highlighted]
    data = [
        trace(others, "other drives", COLOUR_OTHER),
        trace(
            view.frontier,
            "value frontier",
            COLOUR_FRONTIER,
            mode="lines+markers",
            line={"shape": "hv", "color": COLOUR_FRONTIER},
        ),
    ]
    if highlighted:
        data.append(
            trace(
                highlighted,
                "highlighted",
                COLOUR_HIGHLIGHT,
                marker={"color": COLOUR_HIGHLIGHT, "size": 11, "symbol": "diamond"},
            )
        )
    named = [*highlighted, *(p for p in view.frontier if not p.highlighted)]
    if named:
        data.append(_point_names(named, [float(p.price) for p in view.points]))
    return {
        "data": data,
        "layout": _layout(
            height=420,
            margin={"l": 70, "r": 20, "t": 10, "b": 50},
            xaxis={"title": {"text": "price, USD (lower is better)"}, "type": "log"},
            yaxis={"title": {"text": "IOPS (higher is better)"}},
        ),
    }


def _point_names(points, prices: list[float]) -> dict:
    """The value scatter's drives named beside their points: each name on the side of its
    point with the more room on the logarithmic price axis (`prices`: every point's)."""
    logs = [math.log10(p) for p in prices if p > 0]
    low, high = (min(logs), max(logs)) if logs else (0.0, 0.0)

    def side(price: float) -> str:
        at = (math.log10(price) - low) / (high - low) if high > low and price > 0 else 0.5
        return "top left" if at > 0.5 else "top right"

    return {
        "type": "scatter",
        "mode": "text",
        "name": "drive names",
        "showlegend": False,
        "x": [float(p.price) for p in points],
        "y": [round(p.iops) for p in points],
        "text": [label(p.drive) for p in points],
        "textposition": [side(float(p.price)) for p in points],
        "textfont": {
            "size": 11,
            "color": [COLOUR_HIGHLIGHT if p.highlighted else COLOUR_FRONTIER for p in points],
        },
        "hoverinfo": "skip",
    }


def kind_bars(ranking) -> dict:
    """A ranking of a test of a kind that is not throughput (results.selectors.kind_rankings)
    as horizontal bars, best at the top: each its ranked figure as the first column writes
    it, a row with a note (a series that never settled, a cache that never ran out) striped,
    highlighted drives in the highlight colour."""
    by = ranking.by
    first = by.columns[0]
    names, values, texts, hovers, colours, shapes = [], [], [], [], [], []
    for row in ranking.rows + ranking.elsewhere:
        r = row.row
        names.append(label(f"#{row.rank} {r.run.drive}"))
        values.append(round(r.figure * by.scale, 3))
        texts.append(first.shown(first.value(r)))
        note = by.note(r)
        hovers.append(f"{texts[-1]} · {note}" if note else texts[-1])
        colours.append(COLOUR_HIGHLIGHT if row.highlighted else COLOUR_A)
        shapes.append(PATTERN_B if by.striped(r) else "")
    marker = {
        "color": colours,
        "pattern": {"shape": shapes, "fgcolor": "#ffffff", "solidity": 0.3},
    }
    return _ranked_bars(names, values, texts, hovers, marker, by.unit)


UNIT_DIGITS = 8  # of a unit's serial hash: enough to tell a drive's units apart


def run_standings(groups, run_id: int | None = None) -> dict:
    """Where each run of a drive falls among its others, one row per test, data pattern and
    method with two runs or more (results.selectors.runs.RunGroup): a box from the 25th to
    the 75th percentile with whiskers to the 2nd and the 98th, and a point for each run, as a
    percentage of the row's median so that every test shares the axis. The run `run_id`
    (its own page's) is marked."""
    groups = [g for g in groups if g.n > 1]
    rows = [
        label(
            f"{g.test_name} · {DataPattern(g.pattern).label}"
            + ("" if g.method == Method.LOADGEN else f" · {method_label(g.method)}")
        )
        for g in groups
    ]
    boxes = {"lowerfence": [], "q1": [], "median": [], "q3": [], "upperfence": []}
    xs, ys, texts, mine = [], [], [], []
    for row, g in zip(rows, groups, strict=True):
        median = g.quantiles[2]
        for key, value in zip(boxes, g.quantiles, strict=True):
            boxes[key].append(round(value / median * 100, 1))
        for run, rate in g.rates.items():
            xs.append(round(rate / median * 100, 1))
            ys.append(row)
            unit = g.units.get(run)
            texts.append(
                f"run #{run}: {units.mbps(rate)} MB/s, "
                f"percentile {units.decimal(g.percentile(run), 0)} of {units.count(g.n)} runs"
                + (f"<br>unit {unit[:UNIT_DIGITS]}" if unit else "")
            )
            mine.append(run == run_id)
    data = [
        {
            "type": "box",
            "orientation": "h",
            "name": "2nd–98th percentile",
            "y": rows,
            **boxes,
            "fillcolor": "rgba(0,114,178,0.15)",
            "line": {"color": COLOUR_A},
            "hoverinfo": "skip",
        },
        {
            "type": "scatter",
            "mode": "markers",
            "name": "each run",
            "x": xs,
            "y": ys,
            "text": texts,
            "marker": {
                "color": [COLOUR_HIGHLIGHT if m else COLOUR_OTHER for m in mine],
                "size": [12 if m else 8 for m in mine],
                "symbol": ["diamond" if m else "circle" for m in mine],
            },
            "hovertemplate": "%{text}<extra></extra>",
        },
    ]
    return {
        "data": data,
        "layout": _layout(
            height=90 + 40 * len(rows),
            margin={"l": 10, "r": 20, "t": 10, "b": 50},
            xaxis={"title": {"text": "% of the drive's median run (higher is faster)"}},
            yaxis={"autorange": "reversed", "automargin": True, "type": "category"},
        ),
    }


def price_history(prices) -> dict:
    """USD prices over time (other currencies are listed in the table only)."""
    usd = [p for p in prices if p.currency == "USD"]
    return {
        "data": [
            {
                "type": "scatter",
                "mode": "lines+markers",
                "name": "USD",
                "x": [p.observed_on.isoformat() for p in usd],
                "y": [float(p.amount) for p in usd],
                "text": [
                    f"{units.dollars(p.amount)} on {p.observed_on.isoformat()}<br>{label(p.source)}"
                    for p in usd
                ],
                "line": {"shape": "hv", "color": COLOUR_A},
                "hovertemplate": "%{text}<extra></extra>",
            }
        ],
        "layout": _layout(
            showlegend=False,
            height=260,
            margin={"l": 60, "r": 20, "t": 10, "b": 40},
            xaxis={"type": "date"},
            yaxis={"title": {"text": "USD"}, "rangemode": "tozero"},
        ),
    }


SATURATION_POINTS = 1500  # a long series is drawn as means of equal runs of seconds
SATURATION_STYLES = (
    (COLOUR_A, SYMBOL_A, "solid"),
    (COLOUR_B, SYMBOL_B, "dash"),
    (COLOUR_FRONTIER, "square", "dot"),
    (COLOUR_HIGHLIGHT, "triangle-up", "dashdot"),
)


def _rate_points(series) -> tuple[list[float], float]:
    """The series' bytes/s and the seconds between points, at most SATURATION_POINTS of
    them."""
    values = list(series.bytes_per_interval or [])
    step = series.interval_ns / 1e9
    # The last interval ends with the write: a shorter one's bytes are a whole step's rate.
    last = series.duration_ns / 1e9 - (len(values) - 1) * step if series.duration_ns else step
    if values and 0 < last < step:
        values[-1] = values[-1] * step / last
    group = max(1, -(-len(values) // SATURATION_POINTS))
    rates = [
        sum(chunk) / len(chunk) / step
        for chunk in (values[i : i + group] for i in range(0, len(values), group))
    ]
    return rates, step * group


def saturation(sides) -> dict:
    """Write saturation: MB/s in each second of the whole-drive sequential write, one line per
    (name, series) of `sides` (A and B overlaid on the compare page; a None series is left
    out, the others keep their colours), and where each write cache ran out, marked by a
    dotted line and a point."""
    traces, shapes = [], []
    for i, (name, series) in enumerate(sides):
        if series is None:
            continue
        colour, symbol, dash = SATURATION_STYLES[i % len(SATURATION_STYLES)]
        rates, step = _rate_points(series)
        traces.append(
            {
                "type": "scatter",
                "mode": "lines",
                "name": label(name),
                "y": [mbps(rate) for rate in rates],
                "x0": 0,
                "dx": step,
                "line": {"color": colour, "width": 2, "dash": dash},
                # Each point's MB/s as the tables write it (units.mbps), not as a d3 format.
                "text": [units.mbps(rate) for rate in rates],
                "hovertemplate": "%{text} MB/s at %{x:,} s<extra>%{fullData.name}</extra>",
            }
        )
        if series.exhausted and series.exhausted_at_s is not None:
            at = series.exhausted_at_s
            shapes.append(
                {
                    "type": "line",
                    "xref": "x",
                    "yref": "paper",
                    "x0": at,
                    "x1": at,
                    "y0": 0,
                    "y1": 1,
                    "line": {"color": colour, "width": 1.5, "dash": "dot"},
                }
            )
            after = mbps(series.bytes_per_second_after)
            traces.append(
                {
                    "type": "scatter",
                    "mode": "markers",
                    "name": label(f"{name}: cache ran out"),
                    "x": [at],
                    "y": [after if after is not None else 0],
                    "text": [
                        label(
                            f"cache ran out at {units.seconds(at, 0)} after "
                            f"{units.gigabytes(series.bytes_before_exhausted)}"
                            if series.bytes_before_exhausted is not None
                            else f"cache ran out at {units.seconds(at, 0)}"
                        )
                    ],
                    "marker": {
                        "color": colour,
                        "symbol": f"{symbol}-open",
                        "size": 12,
                        "line": {"width": 2},
                    },
                    "hovertemplate": "%{text}<extra>%{fullData.name}</extra>",
                }
            )
    return {
        "data": traces,
        "layout": _layout(
            height=340,
            margin={"l": 60, "r": 20, "t": 30, "b": 45},
            xaxis={"title": {"text": "seconds"}, "rangemode": "tozero"},
            yaxis={"title": {"text": "MB/s (higher is better)"}, "rangemode": "tozero"},
            shapes=shapes,
        ),
    }


WSAT_AXES = ("time", "bytes")  # ?wsat_x=: what the WSAT chart's x-axis shows
WSAT_AXIS_NAMES = {"time": "time", "bytes": "GB written"}  # the page's switch between them
_WSAT_TITLES = {"time": "seconds from the start", "bytes": "GB written (total)"}


def _wsat_label(series, x: float, colour: str, x_axis: str, *, end, top, k: int) -> dict:
    """The short label of a WSAT's half-rate moment `x` (its dotted line), where its own line
    draws no round. Every round before the moment ran at half the first round's IOPS or
    more: below that level and left of the line is empty, and a moment late in the run has
    its label end at the line there. Early in the run that corner is too narrow for it, and
    too low when the chart's scale is another line's: the label then hangs from the top of
    the chart (the k-th label a line lower) beside the line, on the side with room: after
    an early moment, where the rounds run below half the first's; before a late one, whose
    rounds ran low on the chart's scale (their first under a fifth of its top)."""
    values = series.bytes_per_interval or [0]
    half = values[0] / (series.test.block_size or 4096) / (series.interval_ns / 1e9) / 2
    late = x > end / 2
    y = half if late and half >= LABEL_HEIGHT * top else top * (1 - LABEL_HEIGHT * k)
    return {
        "type": "scatter",
        "mode": "text",
        "name": "half-rate label",
        "showlegend": False,
        "x": [x],
        "y": [round(y, 1)],
        "text": [label(wsat_halved_mark(series, x_axis))],
        "textposition": "bottom left" if late else "bottom right",
        "textfont": {"color": colour, "size": 11},
        "hoverinfo": "skip",
    }


# The height of a label of the WSAT chart, as a share of its value axis (11 px text on a
# plot of about 275 px, with room between lines).
LABEL_HEIGHT = 0.1


def wsat_rounds(series) -> tuple[list[float], list[float], list[float]]:
    """A WSAT series' IOPS in each round, with the seconds and the total GB written at the
    round's end (a long series as means of equal runs of rounds, at most SATURATION_POINTS).
    A last, shorter round's IOPS are over its own length."""
    values = series.bytes_per_interval or []
    step = series.interval_ns / 1e9
    block = series.test.block_size or 4096
    total = len(values) * step
    if series.duration_ns and values:
        total = min(total, series.duration_ns / 1e9)
    group = max(1, -(-len(values) // SATURATION_POINTS))
    iops, seconds, written = [], [], []
    done = 0
    for start in range(0, len(values), group):
        chunk = values[start : start + group]
        end = min((start + len(chunk)) * step, total)
        length = end - start * step
        done += sum(chunk)
        iops.append(round(sum(chunk) / block / length, 1) if length > 0 else 0.0)
        seconds.append(round(end, 3))
        written.append(round(done / 1e9, 3))
    return iops, seconds, written


def wsat_halved_label(series) -> str:
    """Where a WSAT's rate first fell below half its first round's, in words."""
    if series.halved_at_s is None:
        return "never below half the first round's IOPS"
    return (
        f"below half the first round's IOPS from {units.seconds(series.halved_at_s, 0)}, "
        f"after {units.gigabytes(series.bytes_before_halved)}"
    )


def wsat_halved_mark(series, axis: str) -> str:
    """A WSAT's half-rate point as its chart labels it, short enough to fit beside the
    point on a phone: where it falls on the `axis` shown."""
    if axis == "bytes":
        return f"half rate after {units.gigabytes(series.bytes_before_halved)}"
    return f"half rate from {units.seconds(series.halved_at_s)}"


def wsat(sides, x_axis: str = "time") -> dict:
    """WSAT (SNIA PTS write saturation): IOPS in each round against the time or against the
    total bytes written (x_axis, the reader's ?wsat_x=, which the page switches with links
    of its own), one line per (name, series) of `sides` (a None series is left out, the
    others keep their colours), and where each rate first fell below half its first
    round's: a dotted line at that moment, the first round below half circled, and a short
    label where no round of its line is drawn (see _wsat_label)."""
    traces, shapes, marks, labels = [], [], [], []
    for i, (name, series) in enumerate(sides):
        if series is None:
            continue
        colour, symbol, dash = SATURATION_STYLES[i % len(SATURATION_STYLES)]
        iops, seconds, written = wsat_rounds(series)
        xs = {"time": seconds, "bytes": written}[x_axis]
        traces.append(
            {
                "type": "scatter",
                "mode": "lines+markers" if len(iops) <= 200 else "lines",
                "name": label(name),
                "x": xs,
                "y": iops,
                "line": {"color": colour, "width": 2, "dash": dash},
                "marker": {"color": colour, "symbol": symbol, "size": 4},
                "customdata": [[s, w] for s, w in zip(seconds, written, strict=True)],
                "hovertemplate": "%{y:,.0f} IOPS at %{customdata[0]:,.0f} s, "
                "%{customdata[1]:,.1f} GB written<extra>%{fullData.name}</extra>",
            }
        )
        if series.halved_at_s is None:
            continue
        at = {"time": series.halved_at_s, "bytes": round(series.bytes_before_halved / 1e9, 3)}
        shapes.append(
            {
                "type": "line",
                "xref": "x",
                "yref": "paper",
                "x0": at[x_axis],
                "x1": at[x_axis],
                "y0": 0,
                "y1": 1,
                "line": {"color": colour, "width": 1.5, "dash": "dot"},
            }
        )
        # The point of the first round below half: the round that starts at the mark.
        first_below = next(
            (k for k, t in enumerate(seconds) if t > series.halved_at_s + 1e-9), len(iops) - 1
        )
        marks.append(
            {
                "type": "scatter",
                "mode": "markers",
                "name": label(f"{name}: below half"),
                "x": [xs[first_below]],
                "y": [iops[first_below]],
                "hovertext": [label(wsat_halved_label(series))],
                "marker": {
                    "color": colour,
                    "symbol": f"{symbol}-open",
                    "size": 13,
                    "line": {"width": 2},
                },
                "hovertemplate": "%{hovertext}<extra>%{fullData.name}</extra>",
            }
        )
        labels.append((series, at[x_axis], colour))
    end = max((x for t in traces for x in t["x"]), default=0) or 1
    top = max((y for t in traces for y in t["y"]), default=0) or 1
    marks += [
        _wsat_label(series, x, colour, x_axis, end=end, top=top, k=k)
        for k, (series, x, colour) in enumerate(labels)
    ]
    return {
        "data": traces + marks,
        "layout": _layout(
            height=360,
            margin={"l": 70, "r": 20, "t": 40, "b": 45},
            xaxis={"title": {"text": _WSAT_TITLES[x_axis]}, "rangemode": "tozero"},
            yaxis={"title": {"text": "IOPS (higher is better)"}, "rangemode": "tozero"},
            shapes=shapes,
            legend={"orientation": "h", "x": 0, "y": 1.02, "yanchor": "bottom"},
        ),
    }


# -- the chart element -------------------------------------------------------------------------

# Figure JSON sits in a single-quoted attribute as it is once these are escaped: it then
# holds no quote that ends the value and nothing HTML reads as markup or a character reference.
# On the UTF-8 bytes: a text with one character beyond Latin-1 (a name, "µs") is searched
# ten times slower as a str.
_JSON_ESCAPES = ((b"&", b"\\u0026"), (b"<", b"\\u003C"), (b">", b"\\u003E"), (b"'", b"\\u0027"))


def _json_default(value):
    if isinstance(value, Decimal):
        return float(value)
    if isinstance(value, JsonText):
        return value.fragment
    raise TypeError(f"not JSON: {type(value).__name__}")


def _plain_json_default(value):
    return value.parsed if isinstance(value, JsonText) else _json_default(value)


def figure_json(figure: dict) -> str:
    """The figure as JSON safe inside a single-quoted HTML attribute (or a <script>)."""
    try:
        text = orjson.dumps(figure, default=_json_default)
    except TypeError:  # an integer beyond 64 bits, which only the json module writes
        text = json.dumps(
            figure, separators=(",", ":"), allow_nan=False, default=_plain_json_default
        ).encode()
    for char, escaped in _JSON_ESCAPES:
        text = text.replace(char, escaped)
    return text.decode()


def chart(figure: dict, element_id: str, description: str = "") -> Markup:
    """The element static/js/bench.js draws a chart in, its figure as JSON in a data-figure
    attribute. Not a json_script block: htmx (with allowScriptTags off, as the CSP wants)
    drops every <script> of a swapped fragment, JSON ones included; an attribute survives
    the swap and is never executed. Built here rather than in a template because the JSON's
    escaping holds only inside the single quotes written beside it."""
    return Markup(
        f'<div class="chart" id="{escape_html(element_id)}" role="img" '
        f"aria-label=\"{escape_html(description)}\" data-figure='{figure_json(figure)}'></div>"
    )
