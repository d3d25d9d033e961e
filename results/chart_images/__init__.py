"""A chart as an image: the Plotly figure dict results/charts.py builds for a page, drawn as
SVG on the server (and rasterised to PNG with resvg), so that a reader can paste it where no
script runs.

This draws the part of Plotly's figure format that results/charts.py uses, not all of it;
`features.py` declares that part, key by key (with the values a key may take where the
drawing depends on them), and the keys an image has no use for (hover templates, the
page's transparent background). tests/results/test_chart_images.py draws every figure the
pages build and fails on a key or value outside the declaration. One module a part:
- bars.py: bar traces, horizontal or vertical, grouped (barmode "group"): a colour for the
  trace or one per bar, a stripe, dot or cross pattern (marker.pattern.shape, one or one per
  bar), a text on or past each bar (textposition "auto" or "outside"), error bars;
- scatter.py: markers (circle, diamond, square, triangle-up and their "-open" forms), lines
  (solid, dash, dot, dashdot, longdash; shape "hv" steps), marker opacity, a colour, size
  and symbol for the trace or one per point, "markers+text" words beside each point;
- axes.py: linear, log and category, a title, rangemode "tozero", an explicit range,
  autorange "reversed", tickvals/ticktext, autorangeoptions.include, the grid;
- shapes.py: shapes whose xref is "x" and yref "paper" (rectangles and lines), below or
  above the data;
- legend.py: each trace's name, "<br>" its lines;
- figure.py: the image: its title, the value axis's title (unit, "higher/lower is better")
  under it, the plot, the legend, the source line; layout height, margins, font;
- table.py: the figure's marks as a table (the embed page's); png.py: the PNG.
Each mark carries its hover text as an SVG <title>, so that the image's text holds every
figure the chart shows. Text from the figure is as charts.label left it (HTML-escaped for
Plotly): unescaped here, then escaped for XML.

Why not Plotly's own static export (kaleido, driving Debian's chromium): `make bench-charts`
measured it on the 2-core machine at 110-600 ms an image warm (this renderer: 0.4-24 ms an
SVG, 36-345 ms a PNG), 1.2-1.7 s to start, 740-765 MiB held by its browser, and its images
without the numbers a chart shows only on hover (the value frontier's price and IOPS, 0 of
5): an image from it would have to be rendered off the request path by a queue's worker
holding a browser, for figures the page's script already draws.
"""

from results.chart_images.features import unknown_features
from results.chart_images.figure import WIDTH, ImageText, plain_figure, render_svg
from results.chart_images.png import render_png, svg_size
from results.chart_images.table import figure_table

__all__ = [
    "WIDTH",
    "ImageText",
    "figure_table",
    "plain_figure",
    "render_png",
    "render_svg",
    "svg_size",
    "unknown_features",
]
