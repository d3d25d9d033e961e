"""What every results page needs: the request type, query-string parsing (core.query), the
400 page."""

from collections.abc import Iterable
from dataclasses import dataclass

from django.http import HttpRequest, QueryDict
from django.urls import Resolver404, resolve, reverse

from core.query import choice, page_number, whole_number  # noqa: F401 - results' views
from drives.filters import search_words
from drives.models import Drive
from drives.selectors import DriveLabel, drive_match
from drives.views import HtmxHttpRequest, bad_request, partial  # noqa: F401 - results' too
from results.charts import WSAT_AXES, WSAT_AXIS_NAMES
from results.filters import highlight_slugs

PICKER_RESULTS = 10  # drives a picker lists as the reader types
MARK = "mark"  # the filter form's box naming a drive to highlight


def highlighted(request: HttpRequest) -> tuple[str, ...]:
    """The drives a ranking or value view highlights: its `highlight` slugs, and the drive
    its `mark` text names (the filter form's highlight box, submitted as it was typed: its
    slug or name, or the only drive a search for it finds)."""
    slugs = request.GET.getlist("highlight")
    text = search_words(request.GET.get(MARK, ""))
    if text:
        drive, _ = drive_match(text, limit=PICKER_RESULTS)
        if drive is not None:
            slugs.append(drive.slug)
    return highlight_slugs(slugs)


def with_highlights(query: QueryDict, slugs: tuple[str, ...], path: str = "") -> str:
    """The link to the view at `path` (the same page without one) with `slugs` highlighted:
    the filters of `query` kept, the first page, the highlight box empty."""
    query = query.copy()
    for name in ("page", MARK, "side", "target", "at"):
        query.pop(name, None)
    query.setlist("highlight", list(slugs))
    return f"{path}?{query.urlencode()}"


HIGHLIGHTING_VIEWS = ("bench:leaderboard", "bench:value")


def highlighting_view(path: str) -> str:
    """The address of the ranking or value view at `path` (as its request.path_info), or ""
    for any other path: links built for it never lead elsewhere."""
    try:
        match = resolve(path)
    except Resolver404:
        return ""
    if match.view_name not in HIGHLIGHTING_VIEWS:
        return ""
    return reverse(match.view_name, args=match.args, kwargs=match.kwargs)


@dataclass(frozen=True)
class Highlight:
    drive: Drive | DriveLabel
    remove_url: str  # the same view without it
    shown: bool  # the view shows it; False: its filters leave the drive out


def highlight_list(
    request: HttpRequest, slugs: tuple[str, ...], shown: Iterable[DriveLabel] = ()
) -> list[Highlight]:
    """The highlighted drives as the filter form lists them, each with the link that stops
    highlighting it and whether the view shows it: named as the view shows them (`shown`),
    the others looked up. One query, none when the view shows every one of them."""
    named: dict[str, Drive | DriveLabel] = {}
    if slugs:
        named.update((d.slug, d) for d in shown if d.slug in slugs)
    in_view = set(named)
    missing = [s for s in slugs if s not in named]
    if missing:
        named.update(
            Drive.objects.real().select_related("manufacturer").in_bulk(missing, field_name="slug")
        )
    return [
        Highlight(
            named[s], with_highlights(request.GET, tuple(o for o in slugs if o != s)), s in in_view
        )
        for s in slugs
        if s in named
    ]


WSAT_X = "wsat_x"  # the WSAT chart's x-axis: results.charts.WSAT_AXES


def wsat_axis(request) -> str:
    """The WSAT chart's x-axis the reader asked for (?wsat_x=time|bytes; time when the query
    names none)."""
    return choice(request.GET, WSAT_X, WSAT_AXES)


def wsat_links(request: HttpRequest) -> dict[str, str]:
    """The address of this page with the WSAT chart against each axis, its query kept."""
    links = {}
    for axis in WSAT_AXES:
        query = request.GET.copy()
        query.pop(WSAT_X, None)
        if axis != WSAT_AXES[0]:
            query[WSAT_X] = axis
        links[axis] = f"{request.path}?{query.urlencode()}" if query else request.path
    return links


def wsat_switch(current: str, links: dict[str, str], target: str, select: str = "") -> dict:
    """The switch of the WSAT chart's x-axis (templates/bench/_wsat.html): a link to each
    axis's address (`links`), which htmx follows in place, pushing the address, into
    `target` (the part `select` of the page it answers, when given)."""
    return {
        "axes": [
            {
                "value": axis,
                "name": WSAT_AXIS_NAMES[axis],
                "href": links[axis],
                "on": axis == current,
            }
            for axis in WSAT_AXES
        ],
        "target": target,
        "select": select,
    }
