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
