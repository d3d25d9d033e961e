"""What every results page needs: the request type, query-string parsing, the 400 page."""

from collections.abc import Iterable
from dataclasses import dataclass

from django.http import HttpRequest, QueryDict
from django.urls import Resolver404, resolve, reverse

from drives.filters import search_words
from drives.models import Drive
from drives.selectors import DriveLabel, drive_match
from drives.views import HtmxHttpRequest, bad_request, partial  # noqa: F401 - results' too
from results.charts import WSAT_AXES
from results.filters import highlight_slugs

MAX_PAGE = 10_000


def positive_int(value: str | None, *, default: int | None = None, maximum: int = 2**31 - 1):
    """A positive integer from the query string, or `default` for anything else."""
    if value is None or not value.isascii() or not value.isdigit():
        return default
    number = int(value)
    return number if 1 <= number <= maximum else default


def choice(value: str | None, choices: tuple[str, ...]) -> str:
    """`value` when it is one of `choices`, else the first choice."""
    return value if value in choices else choices[0]


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


def wsat_axis(request) -> str:
    """The WSAT chart's x-axis the reader asked for (?wsat_x=time|bytes; time otherwise)."""
    axis = request.GET.get("wsat_x", WSAT_AXES[0])
    return axis if axis in WSAT_AXES else WSAT_AXES[0]
