"""Every chart of a page at its own address, as an image (SVG, PNG) and as an embeddable
chart-only page with the chart's table.

A page with charts declares a chart source: a function taking the request and the page's
URL arguments that reads what the page reads (the same selector, the same query) and
returns its charts by id, each a callable giving a Chart (the title, and the figure that
the same results/charts.py function builds for the page), or the response that stands for
the page (a 400 for a query it cannot take). results/urls.py (`with_charts`) adds the
routes under the page's own path:

    <page>chart/<id>.svg    <page>chart/<id>.png    <page>chart/<id>/embed/

with the page's query string (run choice, scale, view, filters, highlights) honoured alike,
and the page's cache scope. An unknown id is a 404.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from csp.utils import build_policy
from django.http import Http404, HttpResponse
from django.shortcuts import render
from django.views.decorators.clickjacking import xframe_options_exempt
from django.views.decorators.http import require_safe

from results import chart_images
from results.views.common import HtmxHttpRequest

CHART_PATH = "chart/"  # what a chart's address adds to its page's
IMAGE_TYPES = {"svg": "image/svg+xml", "png": "image/png"}


@dataclass(frozen=True, slots=True)
class Chart:
    title: str
    figure: dict


ChartSource = Callable[..., "dict[str, Callable[[], Chart]] | HttpResponse"]


class ImageFormatConverter:
    """The <format> of a chart image's address: svg or png."""

    regex = "svg|png"

    def to_python(self, value: str) -> str:
        return value

    def to_url(self, value: str) -> str:
        return value


def page_path(request: HtmxHttpRequest) -> str:
    """The address of the page a chart's address is under."""
    path = request.path
    return path[: path.rindex("/" + CHART_PATH) + 1]


def page_permalink(request: HtmxHttpRequest) -> str:
    """The page's permalink, its query as the chart's."""
    query = request.META.get("QUERY_STRING", "")
    return request.build_absolute_uri(page_path(request) + (f"?{query}" if query else ""))


def _chart(request: HtmxHttpRequest, source: ChartSource, chart: str, kwargs: dict):
    found = source(request, **kwargs)
    if isinstance(found, HttpResponse):
        return found
    make = found.get(chart)
    if make is None:
        raise Http404("No such chart")
    return make()


def _text(request: HtmxHttpRequest, chart: Chart) -> chart_images.ImageText:
    return chart_images.ImageText(chart.title, f"Bench — {page_permalink(request)}")


@require_safe
def image(
    request: HtmxHttpRequest, *, source: ChartSource, page: str, chart: str, fmt: str, **kwargs
) -> HttpResponse:
    """The chart as an SVG or PNG image."""
    found = _chart(request, source, chart, kwargs)
    if isinstance(found, HttpResponse):
        return found
    svg = chart_images.render_svg(found.figure, _text(request, found))
    body = svg.encode() if fmt == "svg" else chart_images.render_png(svg)
    response = HttpResponse(body, content_type=IMAGE_TYPES[fmt])
    name = f"{page_path(request).strip('/').replace('/', '-')}-{chart}.{fmt}"
    response["Content-Disposition"] = f'inline; filename="{name}"'
    return response


# The embed page may be framed by any site; the rest of the policy is the site's.
EMBED_POLICY = {"frame-ancestors": ["*"]}


@require_safe
@xframe_options_exempt
def embed(
    request: HtmxHttpRequest, *, source: ChartSource, page: str, chart: str, **kwargs
) -> HttpResponse:
    """The chart alone on a page another site can frame: drawn as on its page, its figures
    as a table under it, the source line linking the page."""
    found = _chart(request, source, chart, kwargs)
    if isinstance(found, HttpResponse):
        return found
    header, rows = chart_images.figure_table(found.figure)
    query = request.META.get("QUERY_STRING", "")
    image_base = page_path(request) + CHART_PATH + chart
    context = {
        "shown": found,
        "chart_id": chart,
        "header": header,
        "rows": rows,
        "permalink": page_permalink(request),
        "svg_url": f"{image_base}.svg" + (f"?{query}" if query else ""),
        "png_url": f"{image_base}.png" + (f"?{query}" if query else ""),
    }
    response = render(request, "bench/chart_embed.html", context)
    # Set here, not by the middleware's decorators: a kept response (benchsite.response_cache)
    # keeps its headers, and the middleware leaves a policy the response has alone.
    response["Content-Security-Policy"] = build_policy(replace=EMBED_POLICY)
    return response
