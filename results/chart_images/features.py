"""The part of Plotly's figure format the images draw, declared key by key, and the keys an
image leaves out on purpose. A figure's key is named by its path: a trace's by its type
("bar.marker.pattern.shape"), the layout's from "layout" with both axes as "axis"
("layout.axis.autorange"), a list of dicts by its items' keys ("layout.shapes.x0").

`unknown_features(figure)` names every key of a figure that is neither drawn nor left out,
every value of a key in VALUES that the drawing does not know (a new marker symbol, a
dash), and every value of a key in ASSUMED other than the one it is drawn as:
tests/results/test_chart_images.py runs it on every figure of the pages' chart images, so
that a chart using a feature the images do not draw fails there, not in a reader's image.
"""

from __future__ import annotations

from results.chart_images.text import DASHES

_ERROR_BAR = ("array", "arrayminus", "color", "thickness", "width")
_NAMED = ("name", "showlegend", "x", "y", "text")

# Keys the images draw (bars.py, scatter.py, axes.py, shapes.py, legend.py, figure.py).
DRAWN = frozenset(
    {
        *(f"{trace}.{key}" for trace in ("bar", "scatter") for key in ("type", *_NAMED)),
        *(f"bar.error_x.{key}" for key in _ERROR_BAR),
        *(f"{trace}.error_y.{key}" for trace in ("bar", "scatter") for key in _ERROR_BAR),
        "bar.orientation",
        "bar.hovertext",
        "scatter.hovertext",
        "bar.textposition",
        "bar.marker.color",
        "bar.marker.pattern.shape",
        "scatter.mode",
        "scatter.x0",
        "scatter.dx",
        "scatter.marker.color",
        "scatter.marker.size",
        "scatter.marker.symbol",
        "scatter.marker.opacity",
        "scatter.marker.line.width",
        "scatter.line.color",
        "scatter.line.width",
        "scatter.line.dash",
        "scatter.line.shape",
        "scatter.textposition",
        "scatter.textfont.size",
        "scatter.textfont.color",
        "layout.height",
        "layout.showlegend",
        *(f"layout.margin.{side}" for side in "lrtb"),
        "layout.font.family",
        "layout.font.size",
        *(
            f"layout.axis.{key}"
            for key in (
                "title.text",
                "type",
                "autorange",
                "range",
                "rangemode",
                "tickvals",
                "ticktext",
                "autorangeoptions.include",
            )
        ),
        "layout.shapes",
        *(
            f"layout.shapes.{key}"
            for key in (
                "type",
                "xref",
                "yref",
                "x0",
                "x1",
                "y0",
                "y1",
                "fillcolor",
                "opacity",
                "layer",
                "line.color",
                "line.width",
                "line.dash",
            )
        ),
    }
)

_SYMBOLS = ("circle", "diamond", "square", "triangle-up")
# The values the drawing tells apart, for the keys whose values it depends on.
VALUES: dict[str, frozenset] = {
    "bar.type": frozenset({"bar"}),
    "scatter.type": frozenset({"scatter"}),
    "bar.orientation": frozenset({"h", "v"}),
    "bar.textposition": frozenset({"auto", "outside"}),
    "bar.marker.pattern.shape": frozenset({"", "/", ".", "x"}),
    "scatter.mode": frozenset({"markers", "lines", "lines+markers", "markers+text", "text"}),
    "scatter.marker.symbol": frozenset({*_SYMBOLS, *(f"{s}-open" for s in _SYMBOLS)}),
    "scatter.line.dash": frozenset(DASHES),
    "scatter.line.shape": frozenset({"linear", "hv"}),
    "scatter.textposition": frozenset(
        f"{v} {h}" for v in ("top", "middle", "bottom") for h in ("left", "center", "right")
    ),
    "layout.axis.type": frozenset({"linear", "log", "category"}),
    "layout.axis.autorange": frozenset({"reversed"}),
    "layout.axis.rangemode": frozenset({"tozero", "normal"}),
    "layout.shapes.type": frozenset({"rect", "line"}),
    "layout.shapes.xref": frozenset({"x"}),
    "layout.shapes.yref": frozenset({"paper"}),
    "layout.shapes.layer": frozenset({"below", "above"}),
    "layout.shapes.line.dash": frozenset(DASHES),
}

# Keys drawn as if they had the one value charts.py gives them: another value is unknown.
ASSUMED = {
    "layout.axis.separatethousands": True,  # every tick's number as the pages write numbers
    "bar.cliponaxis": False,  # a bar's text may go past the plot's end, as on the page
    "layout.barmode": "group",  # bars of one category side by side
    **{
        f"{trace}.{error}.{key}": value
        for trace, error in (("bar", "error_x"), ("bar", "error_y"), ("scatter", "error_y"))
        for key, value in (("type", "data"), ("symmetric", False))  # array and arrayminus
    },
}

# Keys an image leaves out, and why; a key's parts with it.
LEFT_OUT = {
    **{
        f"{trace}.{key}": "hover only: the image carries each mark's text as its <title>"
        for trace in ("bar", "scatter")
        for key in ("hovertemplate", "hoverinfo", "hoverlabel", "customdata")
    },
    "bar.insidetextanchor": "a text inside its bar is drawn at the bar's end, as charts.py asks",
    "bar.marker.line.color": "the bar's outline is its own colour (charts.py): the bar alone",
    "bar.marker.line.width": "the bar's outline is its own colour (charts.py): the bar alone",
    **{
        f"bar.marker.pattern.{key}": "a pattern is drawn in its bar's colour and white at one"
        " size, as charts._pattern sets it"
        for key in ("bgcolor", "fgcolor", "size", "solidity")
    },
    "layout.paper_bgcolor": "an image is drawn on white (the page's is transparent)",
    "layout.plot_bgcolor": "an image is drawn on white (the page's is transparent)",
    **{
        f"layout.legend.{key}": "an image's legend is under its plot, a row after another"
        for key in ("orientation", "x", "y", "xanchor", "yanchor", "traceorder")
    },
    "scatter.legendgroup": "a page's legend toggles a group at once; an image's lists each",
    "layout.hovermode": "hover only",
    "layout.axis.automargin": "an image makes room for its axes' labels itself",
}


def _paths(value, path: str):
    """(path, value) of every leaf of a figure's part; a list of dicts as its items."""
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _paths(item, f"{path}.{key}")
    elif isinstance(value, list) and any(isinstance(item, dict) for item in value):
        for item in value:
            yield from _paths(item, path)
    else:
        yield path, value


def figure_paths(figure: dict):
    """(path, value) of every leaf of a plain figure (plain_figure's)."""
    for trace in figure.get("data") or []:
        kind = trace.get("type", "scatter")
        for key, value in trace.items():
            yield from _paths(value, f"{kind}.{key}")
    for key, value in (figure.get("layout") or {}).items():
        key = "axis" if key in ("xaxis", "yaxis") else key
        yield from _paths(value, f"layout.{key}")


def unknown_features(figure: dict) -> list[str]:
    """The keys of `figure` (a plain figure) the images neither draw nor leave out, and the
    values the drawing does not know, as "path" and "path = value"."""
    unknown = set()
    for path, value in figure_paths(figure):
        parts = path.split(".")
        if any(".".join(parts[:n]) in LEFT_OUT for n in range(2, len(parts))):
            continue  # a part of a key left out whole (bar.marker.pattern.size)
        if path in ASSUMED:
            if value != ASSUMED[path]:
                unknown.add(f"{path} = {value!r}")
        elif path not in DRAWN and path not in LEFT_OUT:
            unknown.add(path)
        elif path in VALUES:
            for one in value if isinstance(value, list) else [value]:
                if one not in VALUES[path]:
                    unknown.add(f"{path} = {one!r}")
    return sorted(unknown)
