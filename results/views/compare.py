"""Two to four drives head to head, at a permalink (drive A the reference); pickers; CSV and
Markdown exports."""

from __future__ import annotations

import csv
import datetime
import io
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from urllib.parse import urlencode

from django.http import Http404, HttpResponse
from django.shortcuts import redirect, render
from django.utils.timezone import get_current_timezone
from django.views.decorators.http import require_safe

from core.links import SLUG, page_url
from drives.filters import search_words
from drives.models import Drive
from drives.selectors import drive_match, drive_search
from results import charts
from results.charts import TRIM_PHASES
from results.documents import MIXED_SIDES
from results.filters import highlight_slugs
from results.models import Run, latency_description
from results.selectors.common import Figures
from results.selectors.compare import (
    MAX_SIDES,
    SIDE_KEYS,
    UNSTATED_NOTE,
    Comparison,
    PatternPair,
    RepeatedDrive,
    compare,
)
from results.spread import Verdict
from results.units import dollars, gigabytes, iops, latency, mbps, per_gb, per_kiops
from results.views.chart_images import Chart
from results.views.common import (
    MARK,
    PICKER_RESULTS,
    HtmxHttpRequest,
    choice,
    highlighting_view,
    partial,
    positive_int,
    saturation_columns,
    with_highlights,
    wsat_axis,
    wsat_columns,
)

SCALES = ("log", "linear")
VIEWS = ("full", "steady")
VALUE_TEST_NAMES = {"randwrite-4k-qd3-8g": "4KB random write"}
LATENCY_PERCENTILES = ("50", "99", "99.9", "99.99")  # the columns between mean and max
# The latency figures an export writes, as the page's latency table shows them.
LATENCY_EXPORT = (
    ("mean", lambda r: r.latency_mean_ns),
    *(
        (f"p{q}", lambda r, q=q: (r.latency_percentiles_ns or {}).get(q))
        for q in LATENCY_PERCENTILES
    ),
    ("max", lambda r: r.latency_max_ns),
)


def _permalink(a: str, b: str, *more: str, **state) -> str:
    url = page_url("bench:compare", a, b, *more)
    query = {k: v for k, v in state.items() if v not in (None, "", "log", "full")}
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
        "texts": texts,
        "candidates": {side: c for side, c in candidates.items() if not chosen.get(side)},
    }
    return render(request, partial(request, "bench/compare.html", "compare_page"), context)


@require_safe
def pick(request: HtmxHttpRequest) -> HttpResponse:
    """Search-as-you-type for one picker: links that land on the comparison, or, for the
    highlight box of a ranking or value view (side=mark; `at` its path), links to that view
    with its form's fields (which come along) and the drive highlighted too."""
    side = choice(request.GET.get("side"), (*SIDE_KEYS, MARK))
    text = search_words(request.GET.get(side, ""))
    drives = drive_search(text, limit=PICKER_RESULTS) if text else []
    if side == MARK:
        # The drive picked comes first: it stays highlighted when as many are already.
        kept = request.GET.getlist("highlight")
        at = highlighting_view(request.GET.get("at", ""))
        links = [with_highlights(request.GET, highlight_slugs([d.slug, *kept]), at) for d in drives]
        options = list(zip(drives, links, strict=True))
    else:
        options = [(d, _compare_link(request, side, d)) for d in drives]
    context = {
        "options": options,
        "text": text,
        "in_compare": request.GET.get("target") == "compare",
        "boosted": side == MARK,
    }
    return render(request, "bench/_picker_options.html", context)


def _compare_link(request: HtmxHttpRequest, side: str, drive: Drive) -> str:
    # The other pickers' drives, as the form sent them: slugs, or nothing (any other text
    # names no drive, and no link can carry it). The drive picked takes its side's place
    # (a picker of a drive to add, "c" or "d", adds it after the others).
    slugs = {key: request.GET.get(f"cur_{key}", "") for key in SIDE_KEYS}
    slugs = {key: slug for key, slug in slugs.items() if SLUG.fullmatch(slug)}
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
        **{f"run_{key}": positive_int(request.GET.get(f"run_{key}")) for key in SIDE_KEYS},
        "scale": choice(request.GET.get("scale"), SCALES),
        "view": choice(request.GET.get("view"), VIEWS),
    }


def _slugs(a: str, b: str, c: str | None, d: str | None) -> list[str]:
    return [slug for slug in (a, b, c, d) if slug is not None]


def _comparison(slugs: list[str], state: dict, *, points: bool = True) -> Comparison:
    """The comparison of the URL's drives; Http404 for an unknown slug (RepeatedDrive for a
    drive named twice among three or four goes up to the view)."""
    runs = {f"run_{key}": state[f"run_{key}"] for key in SIDE_KEYS[: len(slugs)]}
    more = dict(zip(("c", "d"), slugs[2:], strict=False))
    try:
        return compare(a=slugs[0], b=slugs[1], **more, **runs, points=points)
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
    run, and the page's scale and view."""
    keys = SIDE_KEYS[: len(order)]
    chosen = {f"run_{key}": runs[i] for key, i in zip(keys, order, strict=True)}
    return _permalink(
        *(slugs[i] for i in order), **chosen, scale=state["scale"], view=state["view"]
    )


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
    names = [str(side.drive) for side in sides]
    name_a, name_b, *more_names = names
    runs = [side.chosen_run.pk if side.chosen_run else None for side in sides]
    run_a, run_b = runs[:2]
    tz = get_current_timezone()  # the runs' dates in the picker, read once for them all
    chosen = {f"run_{key}": run for key, run in zip(keys, runs, strict=True)}
    here = {**chosen, "scale": state["scale"], "view": state["view"]}
    tests = [
        (pair, f"bars-{i}", charts.compare_bars(pair, *names))
        for i, pair in enumerate(comparison.tests)
    ]
    sweeps = [
        {
            "sweep": sweep,
            "id": f"sweep-{i}",
            "iops": charts.sweep_iops(sweep, *names),
            "demand": charts.sweep_demand(sweep, *names),
        }
        for i, sweep in enumerate(comparison.sweeps)
    ]
    consistency = [
        {
            "level": level,
            "id": f"consistency-{level}",
            "figure": charts.consistency(
                level,
                comparison,
                scale=state["scale"],
                view=state["view"],
                a_name=name_a,
                b_name=name_b,
                more_names=tuple(more_names),
            ),
            "a": comparison.a.consistency.get(level),
            "b": comparison.b.consistency.get(level),
            "series": [side.consistency.get(level) for side in sides],
        }
        for level in comparison.consistency_levels
    ]
    trims = []
    for i, (test, pattern) in enumerate(comparison.trim_keys):
        key = (test.identifier, pattern)
        trims.append(
            {
                "test": test,
                "pattern": pattern,
                "id": f"trim-{i}",
                "figure": charts.trim_bars(comparison, key, *names),
                "a": comparison.a.trim.get(key),
                "b": comparison.b.trim.get(key),
                "sides": [side.trim.get(key) for side in sides],
            }
        )
    order = list(range(len(sides)))
    context = {
        "c": comparison,
        "drive_a": comparison.a.drive,
        "drive_b": comparison.b.drive,
        "pair": tuple(side.drive for side in sides),
        "keyed": list(zip(keys, sides, strict=True)),
        "many": len(sides) > 2,
        "texts": {},
        "candidates": {},
        "state": state,
        "tests": tests,
        "latencies": latency_rows(comparison),
        "sweeps": sweeps,
        "consistency": consistency,
        "trims": trims,
        "saturation": _saturation(comparison, *names),
        "wsat": _wsat(comparison, wsat_axis(request), *names),
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
            for key, name, side in zip(keys, names, sides, strict=True)
        ],
        "value_test_name": VALUE_TEST_NAMES.get(comparison.value_test, comparison.value_test),
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
            "swap": _permalink(
                b, a, run_a=run_b, run_b=run_a, scale=state["scale"], view=state["view"]
            ),
            "log": _permalink(*slugs, **{**here, "scale": "log"}),
            "linear": _permalink(*slugs, **{**here, "scale": "linear"}),
            "full": _permalink(*slugs, **{**here, "view": "full"}),
            "steady": _permalink(*slugs, **{**here, "view": "steady"}),
            "csv": _export_url("bench:compare_csv", slugs, chosen),
            "markdown": _export_url("bench:compare_markdown", slugs, chosen),
            "here": _permalink(*slugs, **here),
        },
        "latency_percentiles": LATENCY_PERCENTILES,
    }
    return render(request, partial(request, "bench/compare.html", "compare_page"), context)


def compare_charts(
    request: HtmxHttpRequest, a: str, b: str, c: str | None = None, d: str | None = None
) -> dict[str, Callable[[], Chart]] | HttpResponse:
    """The page's charts for results/views/chart_images.py, read and drawn as the page does:
    each test's bars (its test id), each sweep's two charts ("<family>-iops",
    "<family>-demand"), each spare-area level's consistency ("consistency-<level>") and each
    TRIM test's phases ("trim-<test id>-<data pattern>"), each data pattern's write
    saturation ("saturation-<pattern>") and WSAT ("wsat-<pattern>", on the axis ?wsat_x=
    chooses), of every drive compared. A drive named twice among three or four: the page's
    400."""
    read = _read(request, a, b, c, d)
    if isinstance(read, HttpResponse):
        return read
    state, slugs, comparison = read
    names = [str(side.drive) for side in comparison.sides]
    name_a, name_b, *more_names = names
    vs = " vs ".join(names)
    found: dict[str, Callable[[], Chart]] = {}
    for pair in comparison.tests:
        if pair.has_rates:
            found[pair.test.identifier] = lambda pair=pair: Chart(
                f"{vs}: {pair.test.name}", charts.compare_bars(pair, *names)
            )
    for sweep in comparison.sweeps:
        found[f"{sweep.family}-iops"] = lambda sweep=sweep: Chart(
            f"{vs}: {sweep.name}, IOPS against queue depth",
            charts.sweep_iops(sweep, *names),
        )
        found[f"{sweep.family}-demand"] = lambda sweep=sweep: Chart(
            f"{vs}: {sweep.name}, latency against IOPS",
            charts.sweep_demand(sweep, *names),
        )
    for level in comparison.consistency_levels:
        found[f"consistency-{level}"] = lambda level=level: Chart(
            f"{vs}: IOPS each second, 4KB random write QD32, {level}% spare area",
            charts.consistency(
                level,
                comparison,
                scale=state["scale"],
                view=state["view"],
                a_name=name_a,
                b_name=name_b,
                more_names=tuple(more_names),
            ),
        )
    for test, pattern in comparison.trim_keys:
        found[f"trim-{test.identifier}-{pattern}"] = lambda test=test, pattern=pattern: Chart(
            f"{vs}: {test.name}, {pattern} data",
            charts.trim_bars(comparison, (test.identifier, pattern), *names),
        )
    for row in _saturation(comparison, *names):
        found[row["id"]] = lambda row=row: Chart(
            f"{vs}: write saturation, 128KB sequential write, {row['pattern']} data",
            row["figure"],
        )
    for row in _wsat(comparison, wsat_axis(request), *names):
        found[row["id"]] = lambda row=row: Chart(
            f"{vs}: WSAT, 4KB random write QD32 to 4x the capacity, {row['pattern']} data",
            row["figure"],
        )
    return found


def _saturation(c: Comparison, *names: str) -> list[dict]:
    """Write saturation in each data pattern any drive has it: every drive overlaid."""
    keys = SIDE_KEYS[: len(c.sides)]
    rows = []
    for pattern in c.saturation_patterns:
        series = [side.saturation.get(pattern) for side in c.sides]
        rows.append(
            {
                "pattern": pattern,
                "id": f"saturation-{pattern}",
                "figure": charts.saturation(list(zip(names, series, strict=True))),
                "columns": saturation_columns(
                    [(key.upper(), f"side-{key}", w) for key, w in zip(keys, series, strict=True)]
                ),
            }
        )
    return rows


def _wsat(c: Comparison, axis: str, *names: str) -> list[dict]:
    """WSAT in each data pattern any drive has it: every drive overlaid, against the time or
    the bytes written (axis, ?wsat_x=)."""
    keys = SIDE_KEYS[: len(c.sides)]
    rows = []
    for pattern in c.wsat_patterns:
        series = [side.wsat.get(pattern) for side in c.sides]
        rows.append(
            {
                "pattern": pattern,
                "id": f"wsat-{pattern}",
                "figure": charts.wsat(list(zip(names, series, strict=True)), axis),
                "columns": wsat_columns(
                    [(key.upper(), f"side-{key}", w) for key, w in zip(keys, series, strict=True)]
                ),
            }
        )
    return rows


@dataclass(slots=True)
class LatencySide:
    key: str  # "a" or "b"
    figures: list | None  # mean, LATENCY_PERCENTILES, max in ns; None: not tested
    kind: str  # which latency they are (results.models.latency_description)


@dataclass(slots=True)
class LatencyRow:
    test: str
    pattern: str
    sides: tuple[LatencySide, ...]
    verdict: Verdict = field(default_factory=Verdict)  # whose mean latency is lower, A or B
    verdicts: list[Verdict] = field(default_factory=list)  # each side's against A's


def latency_rows(c: Comparison) -> list[LatencyRow]:
    """The head-to-head latency table (templates/bench/_tables.html): each test and data
    pattern with a latency, every side's figures."""
    sources = {r.pk: r.source for side in c.sides for r in side.runs}
    rows = []
    for pair in c.tests:
        if not pair.has_latency:
            continue
        for p in pair.pairs:
            sides = tuple(
                LatencySide(
                    key,
                    None if f is None else [read(f.result) for _, read in LATENCY_EXPORT],
                    _which_latency(f, sources),
                )
                for key, f in zip(SIDE_KEYS, p.figures, strict=False)
            )
            rows.append(
                LatencyRow(pair.test.name, p.pattern, sides, p.latency_verdict, p.latency_verdicts)
            )
    return rows


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


def _which_latency(f: Figures | None, sources: dict[int, str]) -> str:
    """Which latency a side's figures are (results.models.latency_description)."""
    if f is None:
        return ""
    return latency_description(f.result.latency_kind, sources.get(f.result.run_id, ""))


def _export_url(name: str, slugs: list[str], runs: dict) -> str:
    query = {k: v for k, v in runs.items() if v}
    url = page_url(name, *slugs)
    return f"{url}?{urlencode(query)}" if query else url


# -- exports ---------------------------------------------------------------------------------


def _export_notes(f: Figures, pattern: str) -> str:
    """What an exported figure is, beyond its number: a quick run's, or one whose data
    pattern was not stated, compared in a row of a stated one."""
    notes = " (quick run)" if f.quick else ""
    return notes + (f" ({UNSTATED_NOTE})" if f.result.pattern != pattern else "")


# The spread of a result's IOPS second by second within its run, as the exports name it:
# (measure, unit, field).
SPREAD_EXPORT = (
    ("IOPS per second, standard deviation", "IOPS", "iops_stddev"),
    ("IOPS of the slowest second", "IOPS (higher is better)", "iops_min"),
)
# A mixed result's reads and writes, each as the exports write it: (measure, unit, read, write).
DIRECTION_EXPORT = (
    ("mean", "IOPS (higher is better)", lambda h: h["iops"], iops),
    ("mean latency", "lower is better", lambda h: h["latency_mean_ns"], latency),
)
EXPORT_HEADER = ("section", "test", "data pattern", "measure", "unit")


def export_rows(c: Comparison) -> list[list[str]]:
    """The comparison as rows: section, test, data pattern, measure, unit, each drive's
    figure (A, B, and C and D where compared), then the verdict: two drives' winner and
    difference; three or four drives' best and each one's verdict against A. Numbers are
    written as the page writes them (results.units)."""
    sides = c.sides
    keys = SIDE_KEYS[: len(sides)]
    many = len(sides) > 2
    drive_heads = [f"{key.upper()}: {side.drive}" for key, side in zip(keys, sides, strict=True)]
    verdict_heads = (
        ["best", *(f"{key.upper()} against A" for key in keys[1:])]
        if many
        else ["winner", "difference"]
    )
    rows = [[*EXPORT_HEADER, *drive_heads, *verdict_heads]]
    blank = [""] * len(verdict_heads)
    sources = {r.pk: r.source for side in sides for r in side.runs}

    def who(p: PatternPair) -> list[str]:
        if many:
            return [
                p.best.upper() or p.no_best_reason or "none",
                *(v.label for v in p.verdicts[1:]),
            ]
        v = p.verdict
        diff = f"{p.difference_percent:.1f}%" if p.difference_percent is not None else ""
        return [v.winner.upper() if v.winner in ("a", "b") else v.label, diff]

    for pair in c.throughput:
        name = pair.test.name
        for p in pair.pairs:
            figures = p.figures
            cells = []
            for f in figures:
                if f is None:
                    cells.append("not tested")
                else:
                    note = " (derived)" if f.derived == "bytes_per_second" else ""
                    cells.append(mbps(f.bytes_per_second) + note + _export_notes(f, p.pattern))
            rows.append(
                ["throughput", name, p.pattern, "mean", "MB/s (higher is better)", *cells] + who(p)
            )
            cells = []
            for f in figures:
                if f is None or f.iops is None:
                    cells.append("not tested" if f is None else "")
                else:
                    note = " (derived)" if f.derived == "iops" else ""
                    cells.append(iops(f.iops) + note + _export_notes(f, p.pattern))
            rows.append(
                ["throughput", name, p.pattern, "mean", "IOPS (higher is better)", *cells] + who(p)
            )
            for side in MIXED_SIDES:
                halves = [f.result.directions.get(side) if f else None for f in figures]
                if any(halves):
                    for measure, unit, read, write in DIRECTION_EXPORT:
                        cells = [write(read(h)) if h else "" for h in halves]
                        rows.append(
                            ["throughput", name, p.pattern, f"{side}s: {measure}", unit]
                            + [*cells, *blank]
                        )
            if any(figures):
                spreads = [f.spread.label if f and f.spread else "" for f in figures]
                rows.append(
                    ["throughput", name, p.pattern, "run-to-run spread of MB/s"]
                    + ["± coefficient of variation (n averaged)", *spreads, *blank]
                )
            for measure, unit, figure in SPREAD_EXPORT:
                values = [getattr(f.result, figure) if f else None for f in figures]
                if any(v is not None for v in values):
                    cells = ["" if v is None else iops(v) for v in values]
                    rows.append(["throughput", name, p.pattern, measure, unit, *cells, *blank])
            kinds = [_which_latency(f, sources) for f in figures]
            named = {kind for kind in kinds if kind}
            if len(named) > 1:
                which = ", ".join(
                    f"{key.upper()} {kind}" for key, kind in zip(keys, kinds, strict=True) if kind
                )
            else:
                which = next(iter(named), "")
            unit = f"{which}; lower is better" if which else "lower is better"
            for measure, read in LATENCY_EXPORT:
                values = [read(f.result) if f else None for f in figures]
                if any(v is not None for v in values):
                    cells = [latency(v) for v in values]
                    rows.append(["latency", name, p.pattern, measure, unit, *cells, *blank])
    for level in c.consistency_levels:
        values = []
        for side in sides:
            s = side.consistency.get(level)
            values.append(iops(s.steady_mean_iops) if s else "not tested")
        rows.append(
            ["consistency", f"{level}% spare area", "", "steady-state mean"]
            + ["IOPS (higher is better)", *values, *blank]
        )
    for test, pattern in c.trim_keys:
        for attr, phase in TRIM_PHASES:
            values = []
            for side in sides:
                t = side.trim.get((test.identifier, pattern))
                values.append(mbps(getattr(t, attr)) if t else "not tested")
            rows.append(
                ["TRIM validation", test.name, pattern, phase, "MB/s (higher is better)"]
                + [*values, *blank]
            )
    for pattern in c.saturation_patterns:
        found = [side.saturation.get(pattern) for side in sides]
        for measure, unit, value in SATURATION_EXPORT:
            cells = [_saturation_cell(w, measure, value) for w in found]
            rows.append(["write saturation", "", pattern, measure, unit, *cells, *blank])
    for pattern in c.wsat_patterns:
        found = [side.wsat.get(pattern) for side in sides]
        for measure, unit, value in WSAT_EXPORT:
            cells = ["not tested" if w is None else value(w) for w in found]
            rows.append(["WSAT", "", pattern, measure, unit, *cells, *blank])
    return rows + _spec_rows(c, len(blank))


def _spec_rows(c: Comparison, verdict_columns: int = 2) -> list[list[str]]:
    """The specifications as the page's table shows them, one row each."""
    sides = c.sides
    drives = [s.drive for s in sides]
    blank = [""] * verdict_columns

    def row(what: str, unit: str, values) -> list[str]:
        cells = [str(v) if v not in (None, "") else "—" for v in values]
        return ["specs", "", "", what, unit, *cells, *blank]

    value_test = VALUE_TEST_NAMES.get(c.value_test, c.value_test)
    prices = [s.price.amount if s.price else None for s in sides]
    return [
        row("manufacturer", "", (d.manufacturer.name for d in drives)),
        row("kind", "", (d.get_kind_display() for d in drives)),
        row("controller", "", (str(d.controller) if d.controller else "" for d in drives)),
        row("NAND", "", (str(d.nand) if d.nand else "" for d in drives)),
        row("firmware tested", "", (", ".join(s.firmware) for s in sides)),
        row("capacity", "bytes", (d.capacity_bytes for d in drives)),
        row("interface", "", (d.get_interface_display() for d in drives)),
        row("form factor", "", (d.get_form_factor_display() for d in drives)),
        row(
            "latest price",
            "USD",
            (
                f"{dollars(s.price.amount)} ({s.price.observed_on})" if s.price else ""
                for s in sides
            ),
        ),
        row("price per GB", "USD", map(per_gb, prices, (d.capacity_bytes for d in drives))),
        row(
            f"price per 1,000 IOPS ({value_test}, worst case)",
            "USD",
            map(per_kiops, prices, c.value_iops),
        ),
    ]


SATURATION_EXPORT = (
    ("mean", "MB/s (higher is better)", lambda w: mbps(w.mean_bytes_per_second)),
    ("cache ran out after", "seconds", lambda w: f"{w.exhausted_at_s:.0f}"),
    ("written before the fall", "GB", lambda w: gigabytes(w.bytes_before_exhausted or 0)),
    ("rate before", "MB/s", lambda w: mbps(w.bytes_per_second_before)),
    ("rate after", "MB/s", lambda w: mbps(w.bytes_per_second_after)),
)


WSAT_EXPORT = (
    # From the stored figures only: the export reads no series (compare(points=False)).
    (
        "mean",
        "IOPS (higher is better)",
        lambda w: iops((w.mean_bytes_per_second or 0) / (w.test.block_size or 4096)),
    ),
    (
        "below half of it from",
        "seconds",
        lambda w: "never" if w.halved_at_s is None else f"{w.halved_at_s:.0f}",
    ),
    (
        "written before",
        "GB",
        lambda w: "—" if w.bytes_before_halved is None else gigabytes(w.bytes_before_halved),
    ),
    ("written in all", "GB", lambda w: gigabytes(w.bytes_written)),
    ("stopped by", "", lambda w: w.get_stopped_by_display()),
)


def _saturation_cell(w, measure: str, value) -> str:
    if w is None:
        return "not tested"
    if measure != "mean" and not w.exhausted:
        return "did not run out"
    return value(w)


def _csv_cell(value: str) -> str:
    # A spreadsheet would run a cell starting with one of these as a formula.
    return f"'{value}" if value[:1] in ("=", "+", "-", "@", "\t", "\r") else value


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
    for row in export_rows(comparison):
        writer.writerow([_csv_cell(cell) for cell in row])
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
    rows = export_rows(comparison)
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
    lines += ["| " + " | ".join(_md_cell(cell) for cell in row) + " |" for row in body]
    return HttpResponse("\n".join(lines) + "\n", content_type="text/markdown; charset=utf-8")
