"""The site's pages are Jinja2 templates (templates/): this is their environment, and the
template backend that renders one named block of a page for htmx ("page.html#block").

Jinja2 rather than Django's template language because of what a page costs: the head-to-head
page renders hundreds of values, and Django's engine spent several milliseconds a request on
it (more than its queries), Jinja2's compiled templates a fraction of that (`make bench-web`).
The admin, the API's docs and form widgets keep Django's engine (the second backend).

Everything a template may call is listed here: `url` (core.links.page_url) and `static`,
the display units of results.units, the markup builders of results.markup and a few of
Django's filters.
Autoescaping is on; the builders return SafeString, which Jinja2 honours (`__html__`).
"""

from __future__ import annotations

import datetime
import functools

import jinja2
import jinja2.compiler
import markupsafe
from django.core.signals import setting_changed
from django.dispatch import receiver
from django.template import TemplateDoesNotExist
from django.template import defaultfilters as django_filters
from django.template.backends.jinja2 import Jinja2, Template
from django.template.backends.utils import csrf_input_lazy, csrf_token_lazy
from django.templatetags.static import static

from core.links import page_url
from results import markup, units


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


# The parts of Django's date formats that pages use, written without Django's per-call
# lookups of the active language and format settings (a quarter of a page's date cost).
_DATE_PARTS = {
    "Y": lambda v: f"{v.year:04d}",
    "m": lambda v: f"{v.month:02d}",
    "d": lambda v: f"{v.day:02d}",
}
_TIME_PARTS = {"H": lambda v: f"{v.hour:02d}", "i": lambda v: f"{v.minute:02d}"}


@functools.lru_cache(maxsize=64)
def _date_parts(format_string: str, *, time: bool) -> tuple | None:
    """The format as a tuple of parts (callables and literal text), or None when it holds
    anything else (a named format, an escape, a letter Django gives a meaning to)."""
    known = {**_DATE_PARTS, **_TIME_PARTS} if time else _DATE_PARTS
    parts = []
    for char in format_string:
        if char in known:
            parts.append(known[char])
        elif char.isalnum() or char == "\\":
            return None
        else:
            parts.append(char)
    return tuple(parts)


def date(value, format_string=None):
    """Django's `date` filter, the same text (tests/site/test_jinja2.py). As Django's own
    function, without the conversion to the current time zone Django's template engine adds
    before calling it: times show as stored (UTC), as the pages say."""
    if format_string and isinstance(value, datetime.date):
        is_time = isinstance(value, datetime.datetime)
        parts = _date_parts(format_string, time=is_time)
        if parts is not None:
            return "".join(p if isinstance(p, str) else p(value) for p in parts)
    return django_filters.date(value, format_string)


def _macro(env: jinja2.Environment, template: str, name: str, *args):
    """A template's macro as a global: `{% from %}` inside a block (which a fragment is
    rendered from) imports it again at every render, and an `{% include %}` in a loop copies
    the whole context each time."""
    return getattr(env.get_template(template).module, name)(*args)


_DICT_ATTRIBUTES = frozenset(dir(dict))
_MISSING = object()


try:  # markupsafe's escaping of a str to a str, in C; its public escape() wraps it in Markup
    from markupsafe import _escape_inner
except ImportError:  # pragma: no cover - another markupsafe

    def _escape_inner(text: str) -> str:
        return str(markupsafe.escape(text))


def escape_output(value) -> str:
    """What `{{ value }}` writes with autoescaping: markupsafe.escape's text. Not made a
    Markup: the text is joined into the page (or into a block that Jinja2 marks safe as a
    whole), so the Markup that escape() builds, a Python-level constructor and a copy of
    the text, was thrown away at once (about a hundred times a page)."""
    if value.__class__ is str:
        return _escape_inner(value)
    html = getattr(value, "__html__", None)
    if html is not None:
        return html()
    return markupsafe.escape(value)


class CodeGenerator(jinja2.compiler.CodeGenerator):
    """Jinja2's compiler, writing an autoescaped output as escape_output(value)."""

    def _output_child_pre(self, node, frame, finalize) -> None:
        if frame.eval_ctx.autoescape and not frame.eval_ctx.volatile:
            self.write("environment.escape_output(")
            if finalize.src is not None:
                self.write(finalize.src)
        else:
            super()._output_child_pre(node, frame, finalize)


class Environment(jinja2.Environment):
    """Jinja2's environment, reading `d.key` of a dict (a view's `links.swap`, `state.scale`)
    as the item at once. Jinja2 tries the attribute first and takes the item when that
    fails; a dict has no attribute of any other name, so the answer is the same, without
    the AttributeError raised and caught for each such read (dozens a page). A name that is
    one of dict's attributes (`d.items`) still reads the attribute first.

    Its templates write autoescaped values with escape_output (CodeGenerator)."""

    code_generator_class = CodeGenerator
    escape_output = staticmethod(escape_output)

    def getattr(self, obj, attribute):
        if obj.__class__ is dict and attribute not in _DICT_ATTRIBUTES:
            value = obj.get(attribute, _MISSING)
            return self.undefined(obj=obj, name=attribute) if value is _MISSING else value
        return super().getattr(obj, attribute)


def environment(**options) -> jinja2.Environment:
    env = Environment(**options)
    env.globals.update(
        url=page_url,
        static=static_url,
        chart=markup.chart,
        options=markup.options,
        leaderboard_rows=markup.leaderboard_rows,
        value_rows=markup.value_rows,
        compare_tests=markup.compare_tests,
        compare_specs=markup.compare_specs,
        consistency_rows=markup.consistency_rows,
        run_card=markup.run_card,
        picker=functools.partial(_macro, env, "bench/_picker.html", "picker"),
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
        date=date,
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
