"""{% chart figure "id" "description" %}: the element static/js/bench.js draws a chart in,
its figure as JSON in a data-figure attribute.

Not a json_script block: htmx (with allowScriptTags off, as the CSP wants) drops every
<script> element of a swapped fragment, JSON ones included; an attribute survives the swap
and is never executed.
"""

import json

from django import template
from django.utils.html import format_html
from django.utils.safestring import mark_safe

register = template.Library()

# With these escaped, the JSON can sit in a single-quoted attribute as it is: it holds no
# quote that ends the value and nothing HTML would read as markup or a character reference.
# str.replace, not str.translate: a consistency chart is tens of kilobytes of numbers.
_ESCAPES = (("&", "\\u0026"), ("<", "\\u003C"), (">", "\\u003E"), ("'", "\\u0027"))


def figure_json(figure: dict) -> str:
    """The figure as JSON safe inside a single-quoted HTML attribute (or a <script>)."""
    text = json.dumps(figure, separators=(",", ":"), allow_nan=False)
    for char, escaped in _ESCAPES:
        text = text.replace(char, escaped)
    return text


@register.simple_tag
def chart(figure: dict, element_id: str, description: str = ""):
    return format_html(
        '<div class="chart" id="{}" role="img" aria-label="{}" data-figure=\'{}\'></div>',
        element_id,
        description,
        mark_safe(figure_json(figure)),
    )
