"""The pages' template helpers that stand in for Django's: the same text as Django's."""

import datetime
import zoneinfo

import pytest
from django.template import defaultfilters
from django.utils import timezone
from hypothesis import given, settings
from hypothesis import strategies as st

from benchsite.jinja2 import date, static_url

FORMATS = ["Y-m-d", "Y-m-d H:i", "H:i", "d/m/Y", "Y", "N j, Y", "D d M Y", r"Y\m", "", None]
ZONES = ["UTC", "Europe/Berlin", "America/Los_Angeles", "Asia/Kolkata"]


@settings(max_examples=300, deadline=None)
@given(
    value=st.one_of(
        st.dates(),
        st.datetimes(),  # naive
        st.datetimes(timezones=st.sampled_from([datetime.UTC, zoneinfo.ZoneInfo("Asia/Tokyo")])),
        st.none(),
        st.just(""),
        st.text(max_size=5),
    ),
    format_string=st.sampled_from(FORMATS),
    zone=st.sampled_from(ZONES),
)
def test_the_date_filter_writes_what_djangos_writes(value, format_string, zone):
    with timezone.override(zone):
        try:
            expected = defaultfilters.date(value, format_string)
        except (TypeError, ValueError) as exc:  # Django refuses a time format for a date
            with pytest.raises(type(exc)):
                date(value, format_string)
            return
        assert date(value, format_string) == expected


def test_a_static_url_follows_the_storage(settings):
    settings.STATIC_URL = "/one/"
    assert static_url("css/bench.css") == "/one/css/bench.css"
    settings.STATIC_URL = "/two/"
    assert static_url("css/bench.css") == "/two/css/bench.css"


KEYS = st.one_of(st.sampled_from(sorted(dir(dict)) + ["a", "scale", "", "__class__"]), st.text())


@settings(max_examples=300, deadline=None)
@given(data=st.dictionaries(KEYS, st.integers()), name=KEYS)
def test_a_dict_attribute_reads_as_jinjas_own(data, name):
    """`d.name` of a dict reads what Jinja2 itself reads: the item for any name that is not
    one of dict's attributes, the attribute (a method) for one that is, Undefined for
    neither; subclasses of dict and other objects as Jinja2 reads them."""
    import jinja2

    from benchsite.jinja2 import Environment

    ours, theirs = Environment(), jinja2.Environment()

    class Sub(dict):
        pass

    for obj in (data, Sub(data), list(data)):
        mine, expected = ours.getattr(obj, name), theirs.getattr(obj, name)
        if isinstance(expected, jinja2.Undefined):
            assert isinstance(mine, jinja2.Undefined) and mine._undefined_name == name
            assert mine._undefined_obj is obj
        else:
            assert mine == expected
    template = (
        "{{ d.a }}|{{ d.get('a', 'none') }}|{{ d.items()|list|length }}|{{ d.zzz is defined }}"
    )
    assert ours.from_string(template).render(d=data) == theirs.from_string(template).render(d=data)


class HtmlObject:
    """An object with its own markup (`__html__`), as Django's forms and SafeString have."""

    def __init__(self, text: str):
        self.text = text

    def __html__(self) -> str:
        return f"<em>{self.text}</em>"

    def __str__(self) -> str:
        return self.text


def _values():
    from django.utils.safestring import SafeString
    from markupsafe import Markup

    text = st.text(alphabet=st.sampled_from("<>&'\"aé—µ \x00"), max_size=12) | st.text(max_size=8)
    return st.one_of(
        text,
        text.map(SafeString),
        text.map(Markup),
        text.map(HtmlObject),
        text.map(lambda t: type("Str", (str,), {})(t)),  # a str subclass, not safe
        st.integers(),
        st.floats(allow_nan=False),
        st.none(),
        st.booleans(),
        st.lists(text, max_size=3),
    )


# Every place an autoescaped value is written: the page, a {% set %} block, a filter block,
# a macro, a call block, a loop, an undefined name, and with autoescaping turned off.
ESCAPE_TEMPLATE = (
    "{{ v }}|{{ missing }}|{% set b %}<b>{{ v }}</b>{% endset %}{{ b }}|{{ b|length }}|"
    "{% filter upper %}{{ v }}{% endfilter %}|{% macro m(a) %}<i>{{ a }}</i>{% endmacro %}"
    "{{ m(v) }}|{% macro c() %}[{{ caller() }}]{% endmacro %}{% call c() %}{{ v }}{% endcall %}|"
    "{% for x in [v, v] %}{{ x }}{% endfor %}|"
    "{{ v ~ '<' }}|{{ v|string }}|{{ v if v else '&' }}|"
    "{% autoescape false %}{{ v }}{% endautoescape %}"
)


@settings(max_examples=400, deadline=None)
@given(value=_values())
def test_an_autoescaped_value_is_written_as_jinjas_own(value):
    """escape_output writes what Jinja2's escape writes, in every place a value is output,
    for text with every character HTML gives a meaning to, safe strings, objects with their
    own markup, numbers, None and undefined names."""
    import jinja2

    from benchsite.jinja2 import Environment

    ours, theirs = Environment(autoescape=True), jinja2.Environment(autoescape=True)
    expected = theirs.from_string(ESCAPE_TEMPLATE).render(v=value)
    assert ours.from_string(ESCAPE_TEMPLATE).render(v=value) == expected
    for undefined in (jinja2.StrictUndefined, jinja2.ChainableUndefined):
        for env in (ours, theirs):
            env.undefined = undefined
        try:
            expected = theirs.from_string("{{ v }}{{ missing }}").render(v=value)
        except jinja2.UndefinedError:
            with pytest.raises(jinja2.UndefinedError):
                ours.from_string("{{ v }}{{ missing }}").render(v=value)
        else:
            assert ours.from_string("{{ v }}{{ missing }}").render(v=value) == expected
