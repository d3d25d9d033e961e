"""The site's pages are Jinja2 templates (templates/): this is their environment, and the
template backend that renders one named block of a page for htmx ("page.html#block").

Jinja2 rather than Django's template language because of what a page costs: the head-to-head
page renders hundreds of values, and Django's engine spent several milliseconds a request on
it (more than its queries), Jinja2's compiled templates a fraction of that (`make bench-web`).
The admin, the API's docs and form widgets keep Django's engine (the second backend).

Everything a template may call is listed here: `url` (drives.links.page_url) and `static`,
the display units of results.units, the markup builders of results.markup and a few of
Django's filters.
Autoescaping is on; the builders return SafeString, which Jinja2 honours (`__html__`).
"""

from __future__ import annotations

import jinja2
from django.template import TemplateDoesNotExist
from django.template import defaultfilters as django_filters
from django.template.backends.jinja2 import Jinja2, Template
from django.template.backends.utils import csrf_input_lazy, csrf_token_lazy
from django.templatetags.static import static

from drives.links import page_url
from results import markup, units


def environment(**options) -> jinja2.Environment:
    env = jinja2.Environment(**options)
    env.globals.update(
        url=page_url,
        static=static,
        chart=markup.chart,
        options=markup.options,
        leaderboard_rows=markup.leaderboard_rows,
        value_rows=markup.value_rows,
        compare_rows=markup.compare_rows,
        latency_rows=markup.latency_rows,
    )
    env.filters.update(
        mbps=units.mbps,
        iops=units.iops,
        latency=units.latency,
        capacity=units.capacity,
        size=units.size,
        percentile=units.percentile,
        per_gb=units.per_gb,
        dollars=units.dollars,
        gigabytes=units.gigabytes,
        date=django_filters.date,
        floatformat=django_filters.floatformat,
        pluralize=django_filters.pluralize,
        filesizeformat=django_filters.filesizeformat,
        capfirst=django_filters.capfirst,
    )
    return env


class FragmentTemplate(Template):
    """One block of a page, rendered alone with the page's context (what the full page
    would show in that place)."""

    def __init__(self, template, backend, block: str):
        super().__init__(template, backend)
        self.block = block

    def render(self, context=None, request=None):
        context = dict(context or {})
        if request is not None:
            context["request"] = request
            context["csrf_input"] = csrf_input_lazy(request)
            context["csrf_token"] = csrf_token_lazy(request)
            for processor in self.backend.template_context_processors:
                context.update(processor(request))
        render_block = self.template.blocks[self.block]
        return "".join(render_block(self.template.new_context(context)))


class Jinja2Fragments(Jinja2):
    """Django's Jinja2 backend, where "page.html#name" is the block `name` of page.html."""

    def get_template(self, template_name):
        name, _, block = template_name.partition("#")
        template = super().get_template(name)
        if not block:
            return template
        if block not in template.template.blocks:
            raise TemplateDoesNotExist(template_name, backend=self)
        return FragmentTemplate(template.template, self, block)
