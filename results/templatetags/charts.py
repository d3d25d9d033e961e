"""{% chart figure "id" "description" %}: a chart's data in a JSON script block and the
element static/js/bench.js draws it in (no inline script, as the CSP requires)."""

import json

from django import template
from django.utils.html import format_html
from django.utils.safestring import mark_safe

register = template.Library()

# What Django's json_script escapes, done with str.replace: a consistency chart is tens of
# kilobytes of numbers, where str.translate costs milliseconds.
_ESCAPES = (("&", "\\u0026"), ("<", "\\u003C"), (">", "\\u003E"))


def figure_json(figure: dict) -> str:
    """The figure as JSON that is safe inside a <script> element."""
    text = json.dumps(figure, separators=(",", ":"), allow_nan=False)
    for char, escaped in _ESCAPES:
        text = text.replace(char, escaped)
    return text


@register.simple_tag
def chart(figure: dict, element_id: str, description: str = ""):
    data_id = f"{element_id}-data"
    return format_html(
        '<script type="application/json" id="{}">{}</script>'
        '<div class="chart" id="{}" data-chart="{}" role="img" aria-label="{}"></div>',
        data_id,
        mark_safe(figure_json(figure)),
        element_id,
        data_id,
        description,
    )
