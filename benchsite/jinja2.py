"""The site's pages are Jinja2 templates (templates/): this is their environment, and the
template backend that renders one named block of a page for htmx ("page.html#block").

Jinja2 rather than Django's template language because of what a page costs: the head-to-head
page renders hundreds of values, and Django's engine spent several milliseconds a request on
it (more than its queries), Jinja2's compiled templates a fraction of that (`make bench-web`).
The admin, the API's docs and form widgets keep Django's engine (the second backend).

A stock Jinja2 environment with autoescaping on: every value a page writes is escaped by
markupsafe. Tables and run cards are macros (templates/bench/_tables.html, _run.html) that
pages import; everything else a template may call is listed here: `url`
(core.links.page_url), `static`, `chart` (results.charts), `held` (a fragment written once
while what it shows is held), `chart_address` (a page's chart images' address and query),
the display units of results.units (every number a page writes: the one rule its docstring
states) and a few of Django's filters.
"""

from __future__ import annotations

import functools

import jinja2
from django.core.signals import setting_changed
from django.db.models import Choices
from django.dispatch import receiver
from django.template import TemplateDoesNotExist
from django.template import defaultfilters as django_filters
from django.template.backends.jinja2 import Jinja2, Template
from django.template.backends.utils import csrf_input_lazy, csrf_token_lazy
from django.templatetags.static import static

from core.held import held
from core.links import page_url
from results import charts, units
from results.kinds.throughput import percentile_text
from results.models import DataPattern, latency_description, method_label
from results.selectors.compare import UNSTATED_NOTE
from results.spread import Spread


@functools.lru_cache(maxsize=256)
def static_url(path: str) -> str:
    """The URL of a static file, remembered: with the manifest storage of production each
    lookup reads the manifest's entry and joins the URL again (a dozen microseconds, six
    times a page), and a file's URL changes only with a new deployment (a new process)."""
    return static(path)


@receiver(setting_changed)
def _forget_static_urls(*, setting: str, **kwargs) -> None:
    if setting in ("STATIC_URL", "STORAGES"):
        static_url.cache_clear()


def chart_address(request) -> tuple[str, str]:
    """Where a page's chart images are (its path, then "chart/") and the query their links
    carry (the page's, "?..." or ""; templates/bench/_chart_links.html): worked out once a
    request, for every chart the page links (a head to head links a dozen)."""
    found = getattr(request, "bench_chart_address", None)
    if found is None:
        query = request.GET.urlencode()
        found = (request.path + "chart/", f"?{query}" if query else "")
        request.bench_chart_address = found
    return found


def choice_label(choices: type[Choices]):
    """A filter: the label of a value among a model field's choices, as get_FOO_display()
    says it (the value itself when it is not one of them). For the rows of long tables,
    where calling the method costs more than the rest of the cell: Jinja2 checks each
    callable it calls for a context argument, a failed attribute lookup that raises."""
    labels = dict(choices.choices)
    return lambda value: labels.get(value, value)


def environment(**options) -> jinja2.Environment:
    env = jinja2.Environment(**options)
    env.globals.update(
        url=page_url,
        static=static_url,
        chart=charts.chart,
        held=held,
        chart_address=chart_address,
        UNSTATED_NOTE=UNSTATED_NOTE,
    )
    env.filters.update(
        count=units.count,
        decimal=units.decimal,
        seconds=units.seconds,
        percent=units.percent,
        mbps=units.mbps,
        iops=units.iops,
        iops_spread=units.iops_spread,
        run_spread=Spread.of_entry,
        latency=units.latency,
        capacity=units.capacity,
        size=units.size,
        percentile=percentile_text,
        per_gb=units.per_gb,
        per_kiops=units.per_kiops,
        dollars=units.dollars,
        money=units.money,
        gigabytes=units.gigabytes,
        wsat_halved=charts.wsat_halved_label,
        megabytes=units.megabytes,
        latency_description=latency_description,
        pattern_label=choice_label(DataPattern),
        method_label=method_label,
        # Django's own: as a function it formats the time as it is, without the conversion
        # to the current time zone that Django's engine adds (pages show times as stored,
        # in UTC, as they say). It looks up the language's formats at every call (tens of
        # microseconds): tables write Y-m-d dates with the date's own isoformat().
        date=django_filters.date,
        pluralize=django_filters.pluralize,
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
