"""Any two drives head to head, at a permalink; pickers; CSV and Markdown exports."""

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
from results.selectors.compare import UNSTATED_NOTE, Comparison, PatternPair, compare
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


def _permalink(a: str, b: str, **state) -> str:
    url = page_url("bench:compare", a, b)
    query = {k: v for k, v in state.items() if v not in (None, "", "log", "full")}
    return f"{url}?{urlencode(query)}" if query else url


@require_safe
def compare_start(request: HtmxHttpRequest) -> HttpResponse:
    """The pickers' plain form (no JavaScript needed): each side's text is resolved to a
    drive; when both are found this lands on the permalink, else it lists the candidates."""
    texts = {side: search_words(request.GET.get(side, "")) for side in ("a", "b")}
    chosen, candidates = {}, {}
    for side, text in texts.items():
        if text:
            chosen[side], candidates[side] = drive_match(text, limit=PICKER_RESULTS)
    if chosen.get("a") and chosen.get("b"):
        return redirect(_permalink(chosen["a"].slug, chosen["b"].slug))
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
    side = choice(request.GET.get("side"), ("a", "b", MARK))
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
    # The other picker's drive, as its form sent it: a slug, or nothing (any other text
    # names no drive, and no link can carry it).
    other = "b" if side == "a" else "a"
    current_other = request.GET.get(f"cur_{other}", "")
    if not SLUG.fullmatch(current_other):
        return f"{page_url('bench:compare_start')}?{urlencode({side: drive.slug})}"
    pair = (drive.slug, current_other) if side == "a" else (current_other, drive.slug)
    return _permalink(*pair)


def _state(request: HtmxHttpRequest) -> dict:
    return {
        "run_a": positive_int(request.GET.get("run_a")),
        "run_b": positive_int(request.GET.get("run_b")),
        "scale": choice(request.GET.get("scale"), SCALES),
        "view": choice(request.GET.get("view"), VIEWS),
    }


def _comparison(a: str, b: str, state: dict, *, points: bool = True) -> Comparison:
    try:
        return compare(a=a, b=b, run_a=state["run_a"], run_b=state["run_b"], points=points)
    except Drive.DoesNotExist as exc:
        raise Http404("No such drive") from exc


@require_safe
def compare_page(request: HtmxHttpRequest, a: str, b: str) -> HttpResponse:
    state = _state(request)
    comparison = _comparison(a, b, state)
    name_a, name_b = str(comparison.a.drive), str(comparison.b.drive)
    run_a = comparison.a.chosen_run.pk if comparison.a.chosen_run else None
    run_b = comparison.b.chosen_run.pk if comparison.b.chosen_run else None
    tz = get_current_timezone()  # the runs' dates in the picker, read once for them all
    here = {"run_a": run_a, "run_b": run_b, "scale": state["scale"], "view": state["view"]}
    tests = [
        (pair, f"bars-{i}", charts.compare_bars(pair, name_a, name_b))
        for i, pair in enumerate(comparison.tests)
    ]
    sweeps = [
        {
            "sweep": sweep,
            "id": f"sweep-{i}",
            "iops": charts.sweep_iops(sweep, name_a, name_b),
            "demand": charts.sweep_demand(sweep, name_a, name_b),
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
            ),
            "a": comparison.a.consistency.get(level),
            "b": comparison.b.consistency.get(level),
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
                "figure": charts.trim_bars(comparison, key, name_a, name_b),
                "a": comparison.a.trim.get(key),
                "b": comparison.b.trim.get(key),
            }
        )
    context = {
        "c": comparison,
        "drive_a": comparison.a.drive,
        "drive_b": comparison.b.drive,
        "pair": (comparison.a.drive, comparison.b.drive),
        "texts": {},
        "candidates": {},
        "state": state,
        "tests": tests,
        "latencies": latency_rows(comparison),
        "sweeps": sweeps,
        "consistency": consistency,
        "trims": trims,
        "saturation": _saturation(comparison, name_a, name_b),
        "run_choices": [
            {
                "key": key,
                "name": key.upper(),
                "options": [(r.pk, _run_label(r, tz)) for r in side.runs],
                "selected": side.chosen_run.pk if side.chosen_run else "",
            }
            for key, side in (("a", comparison.a), ("b", comparison.b))
        ],
        "provenance": [(f"A: {name_a}", comparison.a), (f"B: {name_b}", comparison.b)],
        "value_test_name": VALUE_TEST_NAMES.get(comparison.value_test, comparison.value_test),
        "links": {
            "swap": _permalink(
                b, a, run_a=run_b, run_b=run_a, scale=state["scale"], view=state["view"]
            ),
            "log": _permalink(a, b, **{**here, "scale": "log"}),
            "linear": _permalink(a, b, **{**here, "scale": "linear"}),
            "full": _permalink(a, b, **{**here, "view": "full"}),
            "steady": _permalink(a, b, **{**here, "view": "steady"}),
            "csv": _export_url("bench:compare_csv", a, b, run_a, run_b),
            "markdown": _export_url("bench:compare_markdown", a, b, run_a, run_b),
            "here": _permalink(a, b, **here),
        },
        "latency_percentiles": LATENCY_PERCENTILES,
    }
    return render(request, partial(request, "bench/compare.html", "compare_page"), context)


def compare_charts(request: HtmxHttpRequest, a: str, b: str) -> dict[str, Callable[[], Chart]]:
    """The page's charts for results/views/chart_images.py, read and drawn as the page does:
    each test's bars (its test id), each sweep's two charts ("<family>-iops",
    "<family>-demand"), each spare-area level's consistency ("consistency-<level>") and each
    TRIM test's phases ("trim-<test id>-<data pattern>"). Write saturation has none yet."""
    state = _state(request)
    c = _comparison(a, b, state)
    name_a, name_b = str(c.a.drive), str(c.b.drive)
    vs = f"{name_a} vs {name_b}"
    found: dict[str, Callable[[], Chart]] = {}
    for pair in c.tests:
        if pair.has_rates:
            found[pair.test.identifier] = lambda pair=pair: Chart(
                f"{vs}: {pair.test.name}", charts.compare_bars(pair, name_a, name_b)
            )
    for sweep in c.sweeps:
        found[f"{sweep.family}-iops"] = lambda sweep=sweep: Chart(
            f"{vs}: {sweep.name}, IOPS against queue depth",
            charts.sweep_iops(sweep, name_a, name_b),
        )
        found[f"{sweep.family}-demand"] = lambda sweep=sweep: Chart(
            f"{vs}: {sweep.name}, latency against IOPS",
            charts.sweep_demand(sweep, name_a, name_b),
        )
    for level in c.consistency_levels:
        found[f"consistency-{level}"] = lambda level=level: Chart(
            f"{vs}: IOPS each second, 4KB random write QD32, {level}% spare area",
            charts.consistency(
                level, c, scale=state["scale"], view=state["view"], a_name=name_a, b_name=name_b
            ),
        )
    for test, pattern in c.trim_keys:
        found[f"trim-{test.identifier}-{pattern}"] = lambda test=test, pattern=pattern: Chart(
            f"{vs}: {test.name}, {pattern} data",
            charts.trim_bars(c, (test.identifier, pattern), name_a, name_b),
        )
    return found


def _saturation(c: Comparison, name_a: str, name_b: str) -> list[dict]:
    """Write saturation in each data pattern either drive has it: A and B overlaid."""
    rows = []
    for pattern in c.saturation_patterns:
        a, b = c.a.saturation.get(pattern), c.b.saturation.get(pattern)
        rows.append(
            {
                "pattern": pattern,
                "id": f"saturation-{pattern}",
                "figure": charts.saturation([(name_a, a), (name_b, b)]),
                "columns": saturation_columns([("A", "side-a", a), ("B", "side-b", b)]),
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
    sides: tuple[LatencySide, LatencySide]
    verdict: Verdict = field(default_factory=Verdict)  # whose mean latency is lower


def latency_rows(c: Comparison) -> list[LatencyRow]:
    """The head-to-head latency table (templates/bench/_tables.html): each test and data
    pattern with a latency, both sides' figures."""
    sources = {r.pk: r.source for side in (c.a, c.b) for r in side.runs}
    rows = []
    for pair in c.tests:
        if not pair.has_latency:
            continue
        for p in pair.pairs:
            a, b = (
                LatencySide(
                    key,
                    None if f is None else [read(f.result) for _, read in LATENCY_EXPORT],
                    _which_latency(f, sources),
                )
                for key, f in (("a", p.a), ("b", p.b))
            )
            rows.append(LatencyRow(pair.test.name, p.pattern, (a, b), p.latency_verdict))
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


def _export_url(name: str, a: str, b: str, run_a, run_b) -> str:
    query = {k: v for k, v in (("run_a", run_a), ("run_b", run_b)) if v}
    url = page_url(name, a, b)
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
    """The comparison as rows: section, test, data pattern, measure, unit, A, B, winner,
    difference. Numbers are written as the page writes them (results.units)."""
    a, b = str(c.a.drive), str(c.b.drive)
    rows = [[*EXPORT_HEADER, f"A: {a}", f"B: {b}", "winner", "difference"]]
    sources = {r.pk: r.source for side in (c.a, c.b) for r in side.runs}

    def who(p: PatternPair) -> str:
        v = p.verdict
        return v.winner.upper() if v.winner in ("a", "b") else v.label

    for pair in c.throughput:
        name = pair.test.name
        for p in pair.pairs:
            diff = f"{p.difference_percent:.1f}%" if p.difference_percent is not None else ""
            cells = []
            for f in (p.a, p.b):
                if f is None:
                    cells.append("not tested")
                else:
                    note = " (derived)" if f.derived == "bytes_per_second" else ""
                    cells.append(mbps(f.bytes_per_second) + note + _export_notes(f, p.pattern))
            rows.append(
                ["throughput", name, p.pattern, "mean", "MB/s (higher is better)", *cells]
                + [who(p), diff]
            )
            cells = []
            for f in (p.a, p.b):
                if f is None or f.iops is None:
                    cells.append("not tested" if f is None else "")
                else:
                    note = " (derived)" if f.derived == "iops" else ""
                    cells.append(iops(f.iops) + note + _export_notes(f, p.pattern))
            rows.append(
                ["throughput", name, p.pattern, "mean", "IOPS (higher is better)", *cells]
                + [who(p), diff]
            )
            for side in MIXED_SIDES:
                halves = [f.result.directions.get(side) if f else None for f in (p.a, p.b)]
                if any(halves):
                    for measure, unit, read, write in DIRECTION_EXPORT:
                        cells = [write(read(h)) if h else "" for h in halves]
                        rows.append(
                            ["throughput", name, p.pattern, f"{side}s: {measure}", unit]
                            + [*cells, "", ""]
                        )
            if p.a or p.b:
                spreads = [f.spread.label if f and f.spread else "" for f in (p.a, p.b)]
                rows.append(
                    ["throughput", name, p.pattern, "run-to-run spread of MB/s"]
                    + ["± coefficient of variation (n averaged)", *spreads, "", ""]
                )
            for measure, unit, figure in SPREAD_EXPORT:
                values = [getattr(f.result, figure) if f else None for f in (p.a, p.b)]
                if any(v is not None for v in values):
                    cells = ["" if v is None else iops(v) for v in values]
                    rows.append(["throughput", name, p.pattern, measure, unit, *cells, "", ""])
            kinds = [_which_latency(f, sources) for f in (p.a, p.b)]
            which = (
                kinds[0] or kinds[1]
                if not (kinds[0] and kinds[1] and kinds[0] != kinds[1])
                else f"A {kinds[0]}, B {kinds[1]}"
            )
            unit = f"{which}; lower is better" if which else "lower is better"
            for measure, read in LATENCY_EXPORT:
                values = [read(f.result) if f else None for f in (p.a, p.b)]
                if any(v is not None for v in values):
                    cells = [latency(v) for v in values]
                    rows.append(["latency", name, p.pattern, measure, unit, *cells, "", ""])
    for level in c.consistency_levels:
        values = []
        for side in (c.a, c.b):
            s = side.consistency.get(level)
            values.append(iops(s.steady_mean_iops) if s else "not tested")
        rows.append(
            ["consistency", f"{level}% spare area", "", "steady-state mean"]
            + ["IOPS (higher is better)", *values, "", ""]
        )
    for test, pattern in c.trim_keys:
        for attr, phase in TRIM_PHASES:
            values = []
            for side in (c.a, c.b):
                t = side.trim.get((test.identifier, pattern))
                values.append(mbps(getattr(t, attr)) if t else "not tested")
            rows.append(
                ["TRIM validation", test.name, pattern, phase, "MB/s (higher is better)"]
                + [*values, "", ""]
            )
    for pattern in c.saturation_patterns:
        pair = [side.saturation.get(pattern) for side in (c.a, c.b)]
        for measure, unit, value in SATURATION_EXPORT:
            cells = [_saturation_cell(w, measure, value) for w in pair]
            rows.append(["write saturation", "", pattern, measure, unit, *cells, "", ""])
    return rows + _spec_rows(c)


def _spec_rows(c: Comparison) -> list[list[str]]:
    """The specifications as the page's table shows them, one row each."""
    drives = (c.a.drive, c.b.drive)

    def row(what: str, unit: str, values) -> list[str]:
        cells = [str(v) if v not in (None, "") else "—" for v in values]
        return ["specs", "", "", what, unit, *cells, "", ""]

    value_test = VALUE_TEST_NAMES.get(c.value_test, c.value_test)
    sides = (c.a, c.b)
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
def compare_csv(request: HtmxHttpRequest, a: str, b: str) -> HttpResponse:
    c = _comparison(a, b, _state(request), points=False)
    out = io.StringIO()
    writer = csv.writer(out)
    for row in export_rows(c):
        writer.writerow([_csv_cell(cell) for cell in row])
    response = HttpResponse(out.getvalue(), content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="compare-{a}-vs-{b}.csv"'
    return response


@require_safe
def compare_markdown(request: HtmxHttpRequest, a: str, b: str) -> HttpResponse:
    state = _state(request)
    c = _comparison(a, b, state, points=False)
    rows = export_rows(c)
    header, body = rows[0], rows[1:]
    lines = [
        f"{_md_line_start(str(c.a.drive))} vs {_md_cell(str(c.b.drive))} "
        f"({_md_url(request.build_absolute_uri(_permalink(a, b, **state)))})",
        "",
        "| " + " | ".join(_md_cell(h) for h in header) + " |",
        "|" + "---|" * len(header),
    ]
    lines += ["| " + " | ".join(_md_cell(cell) for cell in row) + " |" for row in body]
    return HttpResponse("\n".join(lines) + "\n", content_type="text/markdown; charset=utf-8")
