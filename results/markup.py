"""Markup the page templates call (benchsite/jinja2.py): chart elements, the rows of the
long tables, option lists.

Long tables are built here with f-strings rather than as template loops: a 25-row table with
a dozen values a row is the bulk of a page's rendering. Every value from the database is
escaped by `_e` (the escaping of Django's `escape`, without its lazy-string wrapper), and the
markup built is a SafeString made directly (what `mark_safe` makes of a str, without its
check for lazy arguments).
"""

import functools
import json
from decimal import Decimal
from html import escape

import orjson
from django.utils.safestring import SafeString

from core.db import JsonText
from core.links import page_url
from results.models import latency_description
from results.selectors.compare import UNSTATED_NOTE
from results.units import capacity, dollars, iops, latency, mbps, size

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


def chart(figure: dict, element_id: str, description: str = "") -> SafeString:
    """The element static/js/bench.js draws a chart in, its figure (results.charts) as JSON
    in a data-figure attribute. Not a json_script block: htmx (with allowScriptTags off, as
    the CSP wants) drops every <script> of a swapped fragment, JSON ones included; an
    attribute survives the swap and is never executed."""
    return SafeString(
        f'<div class="chart" id="{_e(element_id)}" role="img" aria-label="{_e(description)}" '
        f"data-figure='{figure_json(figure)}'></div>"
    )


_NONE = "—"  # a cell with nothing to show
_QUICK = ' <span class="tag quick">quick run</span>'
_SYNTHETIC = ' <span class="tag">synthetic</span>'
_HIGHLIGHTED = ' class="highlighted"'
_GROUP_START = ' class="group-start"'


def _e(value) -> str:
    return escape(str(value))


@functools.lru_cache(maxsize=1 << 15)
def _name(text: str) -> str:
    """escape() of a name or link that many rows repeat across requests (a drive's)."""
    return escape(text)


def _drive_link(drive) -> str:
    return f'<a href="{_name(drive.get_absolute_url())}">{_name(str(drive))}</a>'


def _number(value) -> str:
    """A number for a data-value attribute (read by the table sorter), "" for none."""
    return "" if value is None else str(value)


def options(choices, selected) -> SafeString:
    """<option> elements of (value, label) pairs, `selected` marked. Values compare as
    text, as the form's cleaned data and the choices may differ in type. Written once for
    the same choices and selection (a filter form's are the same in most requests)."""
    selected = "" if selected is None else str(selected)
    try:
        return SafeString(_options(tuple(choices), selected))
    except TypeError:  # choices that cannot be a key
        return SafeString(_options.__wrapped__(choices, selected))


@functools.lru_cache(maxsize=1024)
def _options(choices, selected: str) -> str:
    parts = []
    for value, name in choices:
        value = str(value)
        mark = " selected" if value == selected else ""
        parts.append(f'<option value="{_e(value)}"{mark}>{_e(name)}</option>')
    return "".join(parts)


_DERIVED_IOPS = ' <span class="derived" title="derived: bytes/s ÷ block size">derived</span>'
_DERIVED_BYTES = ' <span class="derived" title="derived: IOPS × block size">derived</span>'


def leaderboard_rows(rows) -> SafeString:
    """The leaderboard table's body rows (results.selectors.RankedEntry)."""
    parts = []
    for row in rows:
        e = row.entry
        drive = e.drive
        tags = _SYNTHETIC if drive.synthetic else ""
        if drive.configuration:
            tags += ' <span class="tag">configuration</span>'
        if drive.controller:
            tags += f"<br><small>{_name(drive.controller)}</small>"
        derived_bytes = derived_iops = ""
        if e.derived == "bytes_per_second":
            derived_bytes = _DERIVED_BYTES
        elif e.derived == "iops":
            derived_iops = _DERIVED_IOPS
        parts.append(
            f"<tr{_HIGHLIGHTED if row.highlighted else ''}>\n"
            f'  <td class="num">{row.rank}</td>\n'
            f"  <td>{_drive_link(drive)}{tags}</td>\n"
            f"  <td>{_e(e.get_pattern_display())}</td>\n"
            f'  <td class="num" data-value="{_number(e.bytes_per_second)}">'
            f"{mbps(e.bytes_per_second)}{derived_bytes}</td>\n"
            f'  <td class="num" data-value="{_number(e.iops)}">{iops(e.iops)}{derived_iops}</td>\n'
            f'  <td class="num" data-value="{_number(e.latency_mean_ns)}">'
            f"{latency(e.latency_mean_ns)}{_latency_kind(e.latency_kind, e.source)}</td>\n"
            f"  <td>{_e(e.get_source_display())}{_QUICK if e.quick else ''}</td>\n</tr>"
        )
    return SafeString("".join(parts))


def _drive_cell(p, *, synthetic: bool, quick: bool) -> str:
    tags = (_SYNTHETIC if synthetic and p.drive.synthetic else "") + (
        _QUICK if quick and p.quick else ""
    )
    return f"<td>{_drive_link(p.drive)}{tags}</td>"


def value_rows(points, table: str) -> SafeString:
    """The value view's tables (results.value_index.ValuePoint): "frontier", "per_kiops" or
    "per_gb"."""
    parts = []
    for p in points:
        cls = _HIGHLIGHTED if p.highlighted else ""
        derived = _DERIVED_IOPS if p.iops_derived else ""
        if table == "frontier":
            observed = p.observed_on.strftime("%Y-%m-%d") if p.observed_on else ""
            cells = (
                _drive_cell(p, synthetic=True, quick=True),
                f'<td class="num">{dollars(p.price)} <small>{observed}</small></td>',
                f'<td class="num">{iops(p.iops)}{derived}</td>',
                f'<td class="num">{dollars(p.per_kiops)}{derived}</td>',
                f'<td class="num">{dollars(p.per_gb)}</td>',
            )
        elif table == "per_kiops":
            cells = (
                _drive_cell(p, synthetic=False, quick=True),
                f'<td class="num">{dollars(p.per_kiops)}{derived}</td>',
                f'<td class="num">{dollars(p.price)}</td>',
                f'<td class="num">{iops(p.iops)}{derived}</td>',
            )
        else:
            cells = (
                _drive_cell(p, synthetic=False, quick=False),
                f'<td class="num">{dollars(p.per_gb)}</td>',
                f'<td class="num">{dollars(p.price)}</td>',
                f'<td class="num">{capacity(p.drive.capacity_bytes)}</td>',
            )
        parts.append(f"<tr{cls}>{''.join(cells)}</tr>")
    return SafeString("".join(parts))


_NOT_TESTED = '<td class="num"><span class="missing">not tested</span></td>'
_QUICK_NOTE = '<br><span class="tag quick">quick run</span>'
_UNSTATED_TAG = f'<br><span class="tag">{UNSTATED_NOTE}</span>'


def _figures_cell(f, pattern: str) -> str:
    """One side of a head-to-head row (results.selectors.Figures) in the row's data
    pattern, or "not tested"; a figure whose pattern was not stated says so."""
    if f is None:
        return _NOT_TESTED
    result = f.result
    bytes_note = iops_note = ""
    if f.derived:
        block = size(f.block_size)
        if f.derived == "bytes_per_second":
            bytes_note = f' <span class="derived" title="derived: IOPS × {block}">derived</span>'
        else:
            iops_note = f' <span class="derived" title="derived: bytes/s ÷ {block}">derived</span>'
    notes = _QUICK_NOTE if f.quick else ""
    if result.pattern != pattern:
        notes += _UNSTATED_TAG
    deviations = result.deviations
    if deviations:
        notes += "".join([f'<br><span class="tag">{_e(n)}</span>' for n in deviations])
    return (
        f'<td class="num">{mbps(f.bytes_per_second)} MB/s{bytes_note}'
        f"<br><small>{iops(f.iops)} IOPS{iops_note}</small>{notes}</td>"
    )


def compare_rows(pairs) -> SafeString:
    """A head-to-head test's table rows, one a data pattern (results.selectors.PatternPair):
    both sides' figures and the winner with its lead in %."""
    parts = []
    for p in pairs:
        winner = p.winner
        if winner == "tie":
            verdict = "tie"
        elif winner:
            lead = f"{p.difference_percent:.1f}"
            verdict = f'<strong class="side-{winner}">{winner.upper()}</strong> +{lead}%'
        else:
            verdict = _NONE
        parts.append(
            f"\n        <tr>\n          <td>{_e(p.pattern)}</td>\n"
            f"          {_figures_cell(p.a, p.pattern)}{_figures_cell(p.b, p.pattern)}\n"
            f"          <td>{verdict}</td>\n        </tr>"
        )
    return SafeString("".join(parts))


LATENCY_PERCENTILES = ("50", "99", "99.9", "99.99")  # the columns between mean and max
LATENCY_COLUMNS = len(LATENCY_PERCENTILES) + 2


@functools.cache
def _latency_kind(kind: str, source: str) -> str:
    """Which latency a figure is (results.models.latency_description), under it."""
    description = latency_description(kind, source)
    return f'<br><small class="latency-kind">{_e(description)}</small>' if description else ""


_LATENCY_CELLS = '<td class="num">{}</td>' * LATENCY_COLUMNS
_LATENCY_MISSING = f'<td colspan="{LATENCY_COLUMNS}" class="missing">not tested</td>'


def latency_rows(c) -> SafeString:
    """The head-to-head latency table's rows (results.selectors.Comparison): two rows (A, B)
    for each test and data pattern with a latency, each with mean, percentiles and max, and
    which latency it is (an empty row: not tested). The cells are results.units.latency's
    text (digits, separators and a unit), written as it is; the names around them are
    escaped."""
    sources = {r.pk: r.source for side in (c.a, c.b) for r in side.runs}
    parts = []
    for pair in c.tests:
        if not pair.has_latency:
            continue
        test = _e(pair.test.name)
        for p in pair.pairs:
            head = f'<td rowspan="2">{test}</td><td rowspan="2">{_e(p.pattern)}</td>'
            for side, group, f in (("a", _GROUP_START, p.a), ("b", "", p.b)):
                if f is None:
                    cells, kind = _LATENCY_MISSING, ""
                else:
                    r = f.result
                    q = r.latency_percentiles_ns or {}
                    values = (r.latency_mean_ns, *map(q.get, LATENCY_PERCENTILES), r.latency_max_ns)
                    cells = _LATENCY_CELLS.format(*map(latency, values))
                    kind = _latency_kind(r.latency_kind, sources.get(r.run_id, ""))
                key = f'<th class="side-{side}">{side.upper()}{kind}</th>'
                parts.append(f"\n<tr{group}>{head}{key}{cells}</tr>")
                head = ""
    return SafeString("".join(parts))


def compare_tests(tests) -> SafeString:
    """The head to head's throughput articles, one a test: its bars (the view's (TestPair,
    element id, figure) triples), a link to its ranking, and the numbers beside them."""
    parts = []
    for pair, figure_id, figure in tests:
        test = pair.test
        name = _e(test.name)
        ranking = _e(page_url("bench:leaderboard", test.identifier))
        parts.append(
            f'\n<article class="test">\n  <h3><a href="{ranking}">{name}</a> '
            f"<small>QD{_e(test.queue_depth)} · MB/s, higher is better</small></h3>\n"
            f'  <div class="chart-and-table">\n    {chart(figure, figure_id, test.name)}\n'
            '    <table class="numbers">\n      <thead><tr><th>Data</th><th class="side-a">A</th>'
            '<th class="side-b">B</th><th>Winner</th></tr></thead>\n      <tbody>\n      '
            f"{compare_rows(pair.pairs)}\n      </tbody>\n    </table>\n  </div>\n</article>"
        )
    return SafeString("".join(parts))


_UNVERIFIED = ' <span class="tag">unverified</span>'
_COMPRESSES = ' <span class="tag">compresses data</span>'


def _part_link(drive, spec: str, view: str) -> str:
    """A drive's controller or NAND type, linked to its page, and whether it is verified."""
    part = getattr(drive, spec)
    if part is None:
        cell = _NONE
    else:
        cell = f'<a href="{_e(page_url(view, part.slug))}">{_name(str(part))}</a>'
        if spec == "controller" and part.compresses_data:
            cell += _COMPRESSES
    return cell + (_UNVERIFIED if spec in drive.unverified_specs else "")


def _price(side) -> str:
    price = side.price
    if price is None:
        return _NONE
    return f"${_e(price.amount)} <small>({_day(price.observed_on)})</small>"


def compare_specs(c, value_test_name: str) -> SafeString:
    """The head to head's specification rows (results.selectors.Comparison), A beside B:
    maker, kind, controller, NAND, firmware tested, capacity, interface, form factor,
    latest price, $/GB and $ per 1,000 IOPS in the value test (its worst case)."""
    sides = (c.a, c.b)
    a, b = (side.drive for side in sides)
    kiops = c.price_per_kiops
    rows = (
        ("Manufacturer", [_name(d.manufacturer.name) for d in (a, b)]),
        ("Kind", [_e(d.get_kind_display()) for d in (a, b)]),
        ("Controller", [_part_link(d, "controller", "bench:controller") for d in (a, b)]),
        ("NAND", [_part_link(d, "nand", "bench:nand") for d in (a, b)]),
        ("Firmware tested", [_e(", ".join(side.firmware)) or _NONE for side in sides]),
        ("Capacity", [capacity(d.capacity_bytes) for d in (a, b)]),
        ("Interface", [_e(d.get_interface_display() or _NONE) for d in (a, b)]),
        ("Form factor", [_e(d.get_form_factor_display() or _NONE) for d in (a, b)]),
        ("Latest price", [_price(side) for side in sides]),
        ("$/GB", [dollars(side.price_per_gb) for side in sides]),
        (
            f"$ per 1,000 IOPS <small>({_e(value_test_name)}, worst case)</small>",
            [dollars(v) for v in kiops],
        ),
    )
    return SafeString(
        "".join(f"\n    <tr><th>{th}</th><td>{x}</td><td>{y}</td></tr>" for th, (x, y) in rows)
    )


_STEADY_ROWS = (
    ("mean IOPS", "steady_mean_iops"),
    ("std. dev.", "steady_stddev_iops"),
    ("minimum", "steady_min_iops"),
)


def consistency_rows(a, b) -> SafeString:
    """The numbers beside a consistency scatter: each side's series (ConsistencySeries, or
    None when it has none at this spare-area level), where its steady state starts, its
    mean, standard deviation and minimum IOPS there, and the seconds it recorded."""
    series = (a, b)
    cells = [
        _NOT_TESTED if s is None else f'<td class="num">{s.steady_state_start_s} s</td>'
        for s in series
    ]
    rows = [f"<tr><th>Steady state from</th>{''.join(cells)}</tr>"]
    for th, attr in _STEADY_ROWS:
        cells = [
            f'<td class="num">{iops(None if s is None else getattr(s, attr))}</td>' for s in series
        ]
        rows.append(f"<tr><th>{th}</th>{''.join(cells)}</tr>")
    cells = [
        f'<td class="num">{_NONE}</td>'
        if s is None
        else f'<td class="num">{s.points}{_QUICK if s.quick else ""}</td>'
        for s in series
    ]
    rows.append(f"<tr><th>seconds recorded</th>{''.join(cells)}</tr>")
    return SafeString("\n        ".join(rows))


# -- a run's provenance ------------------------------------------------------------------------

RATES_AS_PUBLISHED = (
    "Rates as published, in {unit}; the source does not say whether its MB is 10^6 or 2^20 "
    "bytes. Shown read as 10^6 bytes: if 2^20 was meant, each rate is 4.9% higher."
)


def _day(value) -> str:
    """A date as Y-m-d (Django's date format: the year in four digits whatever it is)."""
    return f"{value.year:04d}-{value.month:02d}-{value.day:02d}"


def _minute(value) -> str:
    """A time of day as H:i, as stored (UTC, as the pages say)."""
    return f"{value.hour:02d}:{value.minute:02d}"


def _citation(run) -> str:
    cite = run.citation
    title = _e(cite.title)
    if cite.safe_url:
        title = f'<a href="{_e(cite.safe_url)}" rel="nofollow noopener">{title}</a>'
    text = f"{_e(cite.publisher)}, “{title}”"
    if cite.author:
        text += f", {_e(cite.author)}"
    text += f", {_day(cite.published_on)}"
    if run.citation_locator:
        text += f"<br><small>{_e(run.citation_locator)}</small>"
    if cite.rate_basis_unstated:
        text += f"<br><small>{_e(RATES_AS_PUBLISHED.format(unit=cite.rate_unit))}</small>"
    return f"<dt>Source</dt><dd>{text}</dd>"


def run_card(run) -> SafeString:
    """One run's provenance: source, tool, firmware, test bench, drive state, date, and who
    submitted it (the drive page's runs, the head to head's)."""
    tag = ' <span class="tag">synthetic</span>' if run.source == "synthetic" else ""
    rows = [_citation(run)] if run.citation else []
    engine = f" ({_e(run.engine)})" if run.engine else ""
    rows.append(f"<dt>Tool</dt><dd>{_e(run.tool_name)} {_e(run.tool_version)}{engine}</dd>")
    if run.suite:
        rows.append(f"<dt>Suite</dt><dd>{_e(run.suite)}</dd>")
    rows.append(f"<dt>Firmware</dt><dd>{_e(run.firmware or _NONE)}</dd>")
    bench = _NONE
    if run.bench:
        bench = "; ".join(f"{_e(label)}: {_e(value)}" for label, value in run.bench.describe())
    rows.append(f"<dt>Test bench</dt><dd>{bench}</dd>")
    rows.append(f"<dt>Drive state</dt><dd>{_e(run.get_drive_state_display())}</dd>")
    if run.started_at:
        until = f" – {_minute(run.finished_at)}" if run.finished_at else ""
        when = f"{_day(run.started_at)} {_minute(run.started_at)}{until} UTC"
        rows.append(f"<dt>Date</dt><dd>{when}</dd>")
    rows.append(
        f"<dt>Submitted by</dt><dd>{_e(run.submitter or 'imported')}, {_day(run.ingested_at)}</dd>"
    )
    body = "\n    ".join(rows)
    return SafeString(
        f'<div class="run" id="run-{run.pk}">\n'
        f"  <h4>Run #{run.pk} · {_e(run.get_source_display())}{tag}</h4>\n"
        f"  <dl>\n    {body}\n  </dl>\n</div>"
    )
