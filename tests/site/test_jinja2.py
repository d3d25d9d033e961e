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
