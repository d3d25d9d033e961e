"""Rows of the long tables and option lists, rendered in one tag each.

Django templates cost a few microseconds a node: a 25-row table with a dozen values a row,
or a select of every controller, is most of a page's rendering time when written as loops
of tags. These tags build the same markup with format_html (every value escaped), so a
page renders in a fraction of the time (`make bench-web`).
"""

from django import template
from django.utils.html import conditional_escape, format_html
from django.utils.safestring import SafeString, mark_safe

from results.templatetags.units import capacity, dollars, iops, latency, mbps

register = template.Library()

_DERIVED_BYTES = ' <span class="derived" title="derived: IOPS × block size">derived</span>'
_DERIVED_IOPS = ' <span class="derived" title="derived: bytes/s ÷ block size">derived</span>'
_QUICK = ' <span class="tag quick">quick run</span>'
_SYNTHETIC = ' <span class="tag">synthetic</span>'


def _number(value) -> str:
    """A number for a data-value attribute (read by the table sorter), "" for none."""
    return "" if value is None else str(value)


@register.simple_tag
def options(choices, selected) -> SafeString:
    """<option> elements of (value, label) pairs, `selected` marked. Values compare as
    text, as the form's cleaned data and the choices may differ in type."""
    selected = "" if selected is None else str(selected)
    parts = []
    for value, name in choices:
        value = str(value)
        mark = " selected" if value == selected else ""
        parts.append(f'<option value="{conditional_escape(value)}"{mark}>')
        parts.append(f"{conditional_escape(name)}</option>")
    return mark_safe("".join(parts))


@register.simple_tag
def leaderboard_rows(rows) -> SafeString:
    """The leaderboard table's body rows (results.selectors.RankedEntry)."""
    parts = []
    for row in rows:
        e = row.entry
        drive = e.drive
        tags = _SYNTHETIC if drive.synthetic else ""
        if drive.configuration:
            tags += ' <span class="tag">configuration</span>'
        if drive.controller_id:
            tags += format_html("<br><small>{}</small>", drive.controller)
        parts.append(
            format_html(
                '<tr{}>\n  <td class="num">{}</td>\n  <td><a href="{}">{}</a>{}</td>\n'
                "  <td>{}</td>\n"
                '  <td class="num" data-value="{}">{}{}</td>\n'
                '  <td class="num" data-value="{}">{}{}</td>\n'
                '  <td class="num" data-value="{}">{}</td>\n'
                "  <td>{}{}</td>\n</tr>",
                mark_safe(' class="highlighted"') if row.highlighted else "",
                row.rank,
                drive.get_absolute_url(),
                drive,
                mark_safe(tags),
                e.get_pattern_display(),
                _number(e.bytes_per_second),
                mbps(e.bytes_per_second),
                mark_safe(_DERIVED_BYTES if e.derived == "bytes_per_second" else ""),
                _number(e.iops),
                iops(e.iops),
                mark_safe(_DERIVED_IOPS if e.derived == "iops" else ""),
                _number(e.latency_mean_ns),
                latency(e.latency_mean_ns),
                e.get_source_display(),
                mark_safe(_QUICK if e.quick else ""),
            )
        )
    return mark_safe("".join(parts))


def _drive_cell(p, *, synthetic: bool, quick: bool) -> str:
    tags = (_SYNTHETIC if synthetic and p.drive.synthetic else "") + (
        _QUICK if quick and p.quick else ""
    )
    return format_html(
        '<td><a href="{}">{}</a>{}</td>', p.drive.get_absolute_url(), p.drive, mark_safe(tags)
    )


def _price_cell(p) -> str:
    return format_html(
        '<td class="num">{} <small>{}</small></td>',
        dollars(p.price),
        p.observed_on.strftime("%Y-%m-%d") if p.observed_on else "",
    )


@register.simple_tag
def value_rows(points, table: str) -> SafeString:
    """The value view's tables (results.selectors.ValuePoint): "frontier", "per_kiops" or
    "per_gb"."""
    parts = []
    for p in points:
        cls = ' class="highlighted"' if p.highlighted else ""
        if table == "frontier":
            cells = (
                _drive_cell(p, synthetic=True, quick=True),
                _price_cell(p),
                format_html('<td class="num">{}</td>', iops(p.iops)),
                format_html('<td class="num">{}</td>', dollars(p.per_kiops)),
                format_html('<td class="num">{}</td>', dollars(p.per_gb)),
            )
        elif table == "per_kiops":
            cells = (
                _drive_cell(p, synthetic=False, quick=True),
                format_html('<td class="num">{}</td>', dollars(p.per_kiops)),
                format_html('<td class="num">{}</td>', dollars(p.price)),
                format_html('<td class="num">{}</td>', iops(p.iops)),
            )
        else:
            cells = (
                _drive_cell(p, synthetic=False, quick=False),
                format_html('<td class="num">{}</td>', dollars(p.per_gb)),
                format_html('<td class="num">{}</td>', dollars(p.price)),
                format_html('<td class="num">{}</td>', capacity(p.drive.capacity_bytes)),
            )
        parts.append(f"<tr{cls}>{''.join(cells)}</tr>")
    return mark_safe("".join(parts))
