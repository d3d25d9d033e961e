"""Two to four drives head to head, at a permalink (drive A the reference); pickers; CSV and
Markdown exports."""

from __future__ import annotations

import csv
import datetime
import io
import re
from collections.abc import Callable, Iterator
from urllib.parse import urlencode

from django.http import Http404, HttpResponse
from django.shortcuts import redirect, render
from django.utils.timezone import get_current_timezone
from django.views.decorators.http import require_safe

from core.links import SLUG, page_url
from drives.filters import search_words
from drives.models import Drive
from drives.selectors import drive_match, drive_search
from results.charts import WSAT_AXES
from results.filters import highlight_slugs
from results.kinds import Shown, compare_sections
from results.kinds.throughput import LATENCY_PERCENTILES
from results.models import Run
from results.sections import EXPORT_HEADER, Figure, Section, export_rows, value_test_name
from results.selectors.compare import (
    MAX_SIDES,
    SIDE_KEYS,
    Comparison,
    RepeatedDrive,
    compare,
)
from results.views.chart_images import Chart
from results.views.common import (
    MARK,
    PICKER_RESULTS,
    WSAT_X,
    HtmxHttpRequest,
    choice,
    highlighting_view,
    partial,
    whole_number,
    with_highlights,
    wsat_axis,
    wsat_switch,
)

SCALES = ("log", "linear")
VIEWS = ("full", "steady")
# Where a picker's options lead: a drive's "compare with" box (the page), or the compare page.
PICK_TARGETS = ("page", "compare")


# The page's state a permalink leaves out when it is the default (as the page reads it).
DEFAULT_STATE = {"scale": SCALES[0], "view": VIEWS[0], WSAT_X: WSAT_AXES[0]}


def _permalink(a: str, b: str, *more: str, **state) -> str:
    url = page_url("bench:compare", a, b, *more)
    query = {k: v for k, v in state.items() if v not in (None, "") and v != DEFAULT_STATE.get(k)}
    return f"{url}?{urlencode(query)}" if query else url


REPEATED_DRIVE = "{slug} is named twice: three or four drives are compared only when all differ"


@require_safe
def compare_start(request: HtmxHttpRequest) -> HttpResponse:
    """The pickers' plain form (no JavaScript needed): each side's text is resolved to a
    drive (a page's third and fourth drives come as their slugs, `cur_c` and `cur_d`); when
    A and B, and every other side given, are found this lands on the permalink, else it
    lists the candidates."""
    texts = {side: search_words(request.GET.get(side, "")) for side in SIDE_KEYS}
    for side in ("c", "d"):  # a page's third and fourth drives, which it has no box for
        shown = request.GET.get(f"cur_{side}", "")
        if not texts[side] and SLUG.fullmatch(shown):
            texts[side] = shown
    chosen, candidates = {}, {}
    for side, text in texts.items():
        if text:
            chosen[side], candidates[side] = drive_match(text, limit=PICKER_RESULTS)
    named = [side for side, text in texts.items() if text]
    if chosen.get("a") and chosen.get("b") and all(chosen.get(side) for side in named):
        return redirect(_permalink(*(chosen[side].slug for side in named)))
    context = {
        "drive_a": chosen.get("a"),
        "drive_b": chosen.get("b"),
        "keyed": [],
        "texts": texts,
        "candidates": {side: c for side, c in candidates.items() if not chosen.get(side)},
    }
    return render(request, partial(request, "bench/compare.html", "compare_page"), context)


@require_safe
def pick(request: HtmxHttpRequest) -> HttpResponse:
    """Search-as-you-type for one picker: links that land on the comparison, or, for the
    highlight box of a ranking or value view (side=mark; `at` its path), links to that view
    with its form's fields (which come along) and the drive highlighted too."""
    side = choice(request.GET, "side", (*SIDE_KEYS, MARK))
    text = search_words(request.GET.get(side, ""))
    drives = drive_search(text, limit=PICKER_RESULTS) if text else []
    if side == MARK:
        # The drive picked comes first: it stays highlighted when as many are already.
        kept = request.GET.getlist("highlight")
        at = highlighting_view(request.GET.get("at", ""))
        links = [with_highlights(request.GET, highlight_slugs([d.slug, *kept]), at) for d in drives]
        options = list(zip(drives, links, strict=True))
    else:
        # The other pickers' drives, as the form sent them (read once for every link):
        # slugs, or nothing (any other text names no drive, and no link can carry it).
        given = {key: request.GET.get(f"cur_{key}", "") for key in SIDE_KEYS}
        given = {key: slug for key, slug in given.items() if SLUG.fullmatch(slug)}
        options = [(d, _compare_link(given, side, d)) for d in drives]
    context = {
        "options": options,
        "text": text,
        "in_compare": choice(request.GET, "target", PICK_TARGETS) == "compare",
        "boosted": side == MARK,
    }
    return render(request, "bench/_picker_options.html", context)


def _compare_link(given: dict[str, str], side: str, drive: Drive) -> str:
    # The drive picked takes its side's place among the drives the pickers show (`given`,
    # by side); a picker of a drive to add, "c" or "d", adds it after the others.
    slugs = dict(given)
    # Among three or four, a drive is compared once: one already shown elsewhere changes
    # places with the drive it replaces, and one added that is already shown changes nothing.
    elsewhere = [k for k, slug in slugs.items() if slug == drive.slug and k != side]
    if elsewhere and len({*slugs, side}) > 2:
        if side in slugs:
            slugs[elsewhere[0]] = slugs[side]
            slugs[side] = drive.slug
    else:
        slugs[side] = drive.slug
    shown = [slugs[key] for key in SIDE_KEYS if key in slugs]
    if len(shown) < 2 or "a" not in slugs or "b" not in slugs:
        return f"{page_url('bench:compare_start')}?{urlencode({side: drive.slug})}"
    return _permalink(*shown)


def _state(request: HtmxHttpRequest) -> dict:
    return {
        **{f"run_{key}": whole_number(request.GET, f"run_{key}") for key in SIDE_KEYS},
        "scale": choice(request.GET, "scale", SCALES),
        "view": choice(request.GET, "view", VIEWS),
        WSAT_X: wsat_axis(request),
    }


def _slugs(a: str, b: str, c: str | None, d: str | None) -> list[str]:
    return [slug for slug in (a, b, c, d) if slug is not None]


def _comparison(slugs: list[str], state: dict, *, points: bool = True) -> Comparison:
    """The comparison of the URL's drives; Http404 for an unknown slug (RepeatedDrive for a
    drive named twice among three or four goes up to the view)."""
    runs = [state[f"run_{key}"] for key in SIDE_KEYS[: len(slugs)]]
    try:
        return compare(slugs, runs, points=points)
    except Drive.DoesNotExist as exc:
        raise Http404("No such drive") from exc


def _read(
    request: HtmxHttpRequest, a: str, b: str, c: str | None, d: str | None, *, points: bool = True
) -> tuple[dict, list[str], Comparison] | HttpResponse:
    """The page's state, its drives' slugs and their comparison, as every view of a compare
    address reads them; the 400 page for a drive named twice among three or four."""
    state = _state(request)
    slugs = _slugs(a, b, c, d)
    try:
        return state, slugs, _comparison(slugs, state, points=points)
    except RepeatedDrive:
        return _repeated(request, slugs, state)


def _repeated(request: HtmxHttpRequest, slugs: list[str], state: dict) -> HttpResponse:
    """A 400 page for three or four drives naming one twice (the address asks for what the
    page cannot show, as a bad query does), with a link to them each named once."""
    unique = list(dict.fromkeys(slugs))
    twice = next(slug for slug in unique if slugs.count(slug) > 1)
    again = _permalink(*(unique if len(unique) > 1 else unique * 2))
    response = render(
        request,
        partial(request, "bench/bad_request.html", "problems"),
        {"errors": {"drives": [REPEATED_DRIVE.format(slug=twice)]}, "start_again": again},
        status=400,
    )
    return response


def _ordered(slugs: list[str], runs: list, order: list[int], state: dict) -> str:
    """The permalink of the drives in `order` (indices into `slugs`), each keeping its
    run, and the page's scale, view and WSAT axis."""
    keys = SIDE_KEYS[: len(order)]
    chosen = {f"run_{key}": runs[i] for key, i in zip(keys, order, strict=True)}
    shown = {name: state[name] for name in DEFAULT_STATE}
    return _permalink(*(slugs[i] for i in order), **chosen, **shown)


@require_safe
def compare_page(
    request: HtmxHttpRequest, a: str, b: str, c: str | None = None, d: str | None = None
) -> HttpResponse:
    read = _read(request, a, b, c, d)
    if isinstance(read, HttpResponse):
        return read
    state, slugs, comparison = read
    sides = comparison.sides
    keys = SIDE_KEYS[: len(sides)]
    runs = [side.chosen_run.pk if side.chosen_run else None for side in sides]
    tz = get_current_timezone()  # the runs' dates in the picker, read once for them all
    chosen = {f"run_{key}": run for key, run in zip(keys, runs, strict=True)}
    here = {**chosen, **{name: state[name] for name in DEFAULT_STATE}}
    order = list(range(len(sides)))
    context = {
        "c": comparison,
        "drive_a": sides[0].drive,
        "drive_b": sides[1].drive,
        "pair": tuple(side.drive for side in sides),
        "keyed": list(zip(keys, sides, strict=True)),
        "many": len(sides) > 2,
        "texts": {},
        "candidates": {},
        "state": state,
        "sections": [section for section in _sections(request, comparison, state) if section.parts],
        "run_picker": any(len(side.runs) > 1 for side in sides),
        "run_choices": [
            {
                "key": key,
                "name": key.upper(),
                "options": [(r.pk, _run_label(r, tz)) for r in side.runs],
                "selected": side.chosen_run.pk if side.chosen_run else "",
            }
            for key, side in zip(keys, sides, strict=True)
        ],
        "provenance": [
            (f"{key.upper()}: {name}", side)
            for key, name, side in zip(keys, comparison.names, sides, strict=True)
        ],
        "value_test_name": value_test_name(comparison),
        # The drive a picker would add (C, then D), while fewer than four are compared.
        "add_side": SIDE_KEYS[len(sides)] if len(sides) < MAX_SIDES else None,
        # Each drive made the reference (first, the others in their order), and each left
        # out (while more than two are compared), keeping every run chosen.
        "reference_links": [
            _ordered(slugs, runs, [i, *(j for j in order if j != i)], state) for i in order
        ],
        "remove_links": [_ordered(slugs, runs, [j for j in order if j != i], state) for i in order]
        if len(sides) > 2
        else [],
        "links": {
            # Two drives change places; three or four are reordered by "make reference".
            "swap": _ordered(slugs, runs, order[::-1], state) if len(sides) == 2 else None,
            "log": _permalink(*slugs, **{**here, "scale": "log"}),
            "linear": _permalink(*slugs, **{**here, "scale": "linear"}),
            "full": _permalink(*slugs, **{**here, "view": "full"}),
            "steady": _permalink(*slugs, **{**here, "view": "steady"}),
            "csv": _export_url("bench:compare_csv", slugs, chosen),
            "markdown": _export_url("bench:compare_markdown", slugs, chosen),
            "here": _permalink(*slugs, **here),
        },
        "latency_percentiles": LATENCY_PERCENTILES,
        "wsat_switch": wsat_switch(
            state[WSAT_X],
            {axis: _permalink(*slugs, **{**here, WSAT_X: axis}) for axis in WSAT_AXES},
            "#compare-page",
        ),
    }
    return render(request, partial(request, "bench/compare.html", "compare_page"), context)


def _sections(request: HtmxHttpRequest, comparison: Comparison, state: dict) -> list[Section]:
    """The comparison's sections as the address asks to see them (scale, view, ?wsat_x=)."""
    shown = Shown(scale=state["scale"], view=state["view"], wsat_axis=state[WSAT_X])
    return compare_sections(comparison, shown)


def compare_charts(
    request: HtmxHttpRequest, a: str, b: str, c: str | None = None, d: str | None = None
) -> dict[str, Callable[[], Chart]] | HttpResponse:
    """The page's charts for results/views/chart_images.py, read and drawn as the page
    does: each section's, by its key (results.sections.Plot), titled with every drive
    compared. A drive named twice among three or four: the page's 400."""
    read = _read(request, a, b, c, d)
    if isinstance(read, HttpResponse):
        return read
    state, slugs, comparison = read
    vs = " vs ".join(comparison.names)
    return {
        plot.key: lambda plot=plot: Chart(f"{vs}: {plot.title}", plot.figure)
        for section in _sections(request, comparison, state)
        for plot in section.plots
    }


def _run_label(run: Run, tz: datetime.tzinfo) -> str:
    """How the run picker names a run: number, source, firmware and date."""
    label = f"#{run.pk} · {run.get_source_display()}"
    if run.firmware:
        label += f" · firmware {run.firmware}"
    if run.citation:
        label += f" · {run.citation.publisher} {run.citation.published_on:%Y-%m-%d}"
    elif run.started_at:
        label += f" · {run.started_at.astimezone(tz):%Y-%m-%d}"
    return label


def _export_url(name: str, slugs: list[str], runs: dict) -> str:
    query = {k: v for k, v in runs.items() if v}
    url = page_url(name, *slugs)
    return f"{url}?{urlencode(query)}" if query else url


# -- exports ---------------------------------------------------------------------------------


FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def _csv_cell(value) -> str:
    """A cell of the CSV: a number plain (a figure's value: 35217.4, never "35,217"), as
    data; text so that a spreadsheet never runs it as a formula."""
    kind = type(value)
    if kind is str:  # most cells: a spreadsheet would run one starting so as a formula
        return f"'{value}" if value[:1] in FORMULA_STARTS else value
    if kind is float:
        return repr(value)
    return "" if value is None else str(value)


def _csv_rows(rows: list[list], sides: int) -> Iterator[list[str]]:
    """The export's rows as the CSV writes them: each drive's figure as its value, with its
    qualifiers (quick run, derived, …) in a column of their own beside it."""
    header, *body = rows
    fixed = len(EXPORT_HEADER)
    heads = header[fixed : fixed + sides]
    yield [
        *header[:fixed],
        *(name for head in heads for name in (head, f"{head.split(':', 1)[0]}: notes")),
        *header[fixed + sides :],
    ]
    for row in body:
        cells = [*row[:fixed]]
        for cell in row[fixed : fixed + sides]:
            if isinstance(cell, Figure):
                cells += [cell.value, "; ".join(cell.notes)]
            else:
                cells += [cell, ""]
        cells += [c.value if isinstance(c, Figure) else c for c in row[fixed + sides :]]
        yield [_csv_cell(cell) for cell in cells]


# Markdown that text could turn into something else: inline code, emphasis, strikethrough,
# links and images, the end of a table cell (escaped); HTML and entities (written as
# entities); what GitHub links by itself (http:, www., an address with @: broken by an
# escape); and, where text starts a line, a block (a heading, list or quote: its mark
# escaped). A table's cells are inline text, where no block starts: a number such as 32.0
# or 1.50 ms is written as it is.
_MD_INLINE = re.compile(r"([\\`*_\[\]~|@])")
_MD_BLOCK_START = re.compile(r"^(\d*)([#+\->=.)])")
_MD_AUTOLINK = re.compile(r"(?i)\b(https?|ftp|mailto|www)([:.])")


# An address in Markdown text: the characters that could start emphasis or strikethrough
# percent-encoded, which the address means all the same (RFC 3986) and stays one link.
_MD_URL = str.maketrans({"_": "%5F", "*": "%2A", "~": "%7E"})


def _md_url(url: str) -> str:
    return url.translate(_MD_URL)


def _md_cell(value: str) -> str:
    """Text as itself in a Markdown table cell or within a line, whatever it holds."""
    value = " ".join(value.split())
    for char, entity in (("&", "&amp;"), ("<", "&lt;"), (">", "&gt;")):
        value = value.replace(char, entity)
    value = _MD_INLINE.sub(r"\\\1", value)
    return _MD_AUTOLINK.sub(r"\1\\\2", value)


def _md_line_start(value: str) -> str:
    """Text as itself at the start of a Markdown line: as in a cell, no block started."""
    return _MD_BLOCK_START.sub(r"\1\\\2", _md_cell(value))


@require_safe
def compare_csv(
    request: HtmxHttpRequest, a: str, b: str, c: str | None = None, d: str | None = None
) -> HttpResponse:
    read = _read(request, a, b, c, d, points=False)
    if isinstance(read, HttpResponse):
        return read
    state, slugs, comparison = read
    out = io.StringIO()
    writer = csv.writer(out)
    rows = export_rows(comparison, compare_sections(comparison))
    writer.writerows(_csv_rows(rows, len(comparison.sides)))
    response = HttpResponse(out.getvalue(), content_type="text/csv; charset=utf-8")
    filename = "-vs-".join(slugs)
    response["Content-Disposition"] = f'attachment; filename="compare-{filename}.csv"'
    return response


@require_safe
def compare_markdown(
    request: HtmxHttpRequest, a: str, b: str, c: str | None = None, d: str | None = None
) -> HttpResponse:
    read = _read(request, a, b, c, d, points=False)
    if isinstance(read, HttpResponse):
        return read
    state, slugs, comparison = read
    rows = export_rows(comparison, compare_sections(comparison))
    header, body = rows[0], rows[1:]
    first, *others = (str(side.drive) for side in comparison.sides)
    unused = {f"run_{key}" for key in SIDE_KEYS[len(slugs) :]}
    shown = {k: v for k, v in state.items() if k not in unused}
    title = " vs ".join([_md_line_start(first), *(_md_cell(name) for name in others)])
    lines = [
        f"{title} ({_md_url(request.build_absolute_uri(_permalink(*slugs, **shown)))})",
        "",
        "| " + " | ".join(_md_cell(h) for h in header) + " |",
        "|" + "---|" * len(header),
    ]
    lines += ["| " + " | ".join(_md_cell(str(cell)) for cell in row) + " |" for row in body]
    return HttpResponse("\n".join(lines) + "\n", content_type="text/markdown; charset=utf-8")
