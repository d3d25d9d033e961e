"""{% chart figure "id" "description" %}: a chart's data in a json_script block and the
element static/js/bench.js draws it in (no inline script, as the CSP requires)."""

from django import template
from django.utils.html import format_html, json_script

register = template.Library()


@register.simple_tag
def chart(figure: dict, element_id: str, description: str = ""):
    data_id = f"{element_id}-data"
    return format_html(
        '{}<div class="chart" id="{}" data-chart="{}" role="img" aria-label="{}"></div>',
        json_script(figure, data_id),
        element_id,
        data_id,
        description,
    )
