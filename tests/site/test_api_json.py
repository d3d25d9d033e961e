"""The API's JSON renderer (orjson) writes what DRF's own JSON renderer writes: the same
values, datetimes in UTC with a Z, decimals as numbers, text as UTF-8; indented JSON when
asked for it."""

import datetime
import json
from decimal import Decimal

from django.utils.translation import gettext_lazy
from hypothesis import given, settings
from hypothesis import strategies as st
from rest_framework.renderers import JSONRenderer as DrfJSONRenderer

from benchsite.api import JSONRenderer
from core.db import JsonText
from results.charts import figure_json

SCALARS = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text()
    | st.datetimes(timezones=st.just(datetime.UTC))
    | st.dates()
    | st.decimals(
        allow_nan=False, allow_infinity=False, places=2, max_value=10**9, min_value=-(10**9)
    )
)
DATA = st.recursive(
    SCALARS,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=20,
)


def _render(renderer, data, media_type="application/json") -> bytes:
    return renderer.render(data, media_type, {})


@settings(max_examples=200, deadline=None, derandomize=True, database=None)
@given(DATA)
def test_the_same_json_as_drf_writes(data):
    ours, drf = _render(JSONRenderer(), data), _render(DrfJSONRenderer(), data)
    if data is None:  # no body at all, as DRF writes for None
        assert ours == drf == b""
        return
    assert json.loads(ours) == json.loads(drf)
    assert ours.decode("utf-8")  # UTF-8, no \\u escapes needed to read it


def test_datetimes_dates_decimals_and_lazy_text_as_drf_writes_them():
    data = {
        "at": datetime.datetime(2026, 11, 24, 8, 30, 1, 500, tzinfo=datetime.UTC),
        "on": datetime.date(2013, 6, 1),
        "price": Decimal("199.90"),
        "name": gettext_lazy("Drives"),
        "tags": {"b"},
        "text": "Crucial “m4” – 256 GB",
    }
    assert _render(JSONRenderer(), data) == _render(DrfJSONRenderer(), data)


def test_indented_when_asked():
    data = {"a": [1, 2]}
    indented = _render(JSONRenderer(), data, "application/json; indent=4")
    assert indented == _render(DrfJSONRenderer(), data, "application/json; indent=4")
    assert b"\n    " in indented
    assert _render(JSONRenderer(), None) == b""


INTEGER_LISTS = st.lists(st.integers(-(2**63), 2**63 - 1), max_size=50)


@settings(max_examples=100, deadline=None, derandomize=True, database=None)
@given(INTEGER_LISTS, st.sampled_from([0, 2**70]))
def test_json_text_is_written_as_the_value_it_holds_by_every_writer(points, big):
    """A series' points as PostgreSQL's JSON text (core.db.JsonText) come out as the list
    they spell: through orjson, through DRF's encoder when indented or given an integer
    beyond 64 bits, and in a page's figure JSON (both its writers)."""
    text = JsonText(json.dumps(points, separators=(",", ":")))
    data = {"iops": text, "other": big}
    for media_type in ("application/json", "application/json; indent=2"):
        assert json.loads(_render(JSONRenderer(), data, media_type)) == {
            "iops": points,
            "other": big,
        }
    assert json.loads(figure_json({"y": text, "n": big})) == {"y": points, "n": big}
