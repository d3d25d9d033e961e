from decimal import Decimal
from types import SimpleNamespace

from hypothesis import given, settings
from hypothesis import strategies as st

from results import units

ANYTHING = st.one_of(
    st.none(),
    st.text(max_size=5),
    st.integers(),
    st.floats(allow_nan=False, allow_infinity=False),
    st.decimals(allow_nan=False, allow_infinity=False, places=2),
    st.booleans(),
)


@settings(max_examples=60)
@given(ANYTHING)
def test_display_filters_never_raise_and_show_missing_as_a_dash(value):
    for show in (units.mbps, units.iops, units.latency, units.dollars):
        text = show(value)
        assert isinstance(text, str) and text
        if not isinstance(value, int | float | Decimal) or isinstance(value, bool):
            assert text == "—"


def test_display_units():
    assert units.mbps(251_700_000) == "251.7"
    assert units.iops(12345.6) == "12,346"
    assert units.latency(1_500_000) == "1.50 ms"
    assert units.dollars(Decimal("0.625")) == "$0.62"


@settings(max_examples=200)
@given(ANYTHING)
def test_figures_are_written_without_characters_html_would_read(value):
    """The tables write units' text into their cells unescaped (bench/_tables.html)."""
    for show in (units.latency, units.mbps, units.iops):
        assert not set(show(value)) & set("<>&\"'"), show(value)


def test_the_iops_spread_says_what_the_run_measured():
    def spread(stddev, slowest):
        return units.iops_spread(SimpleNamespace(iops_stddev=stddev, iops_min=slowest))

    assert spread(120.5, 9100.0) == "±120, slowest second 9,100"
    assert spread(4100.25, None) == "±4,100"
    assert spread(None, 0.0) == "slowest second 0"
    assert spread(None, None) == ""  # nothing written, not a spread of 0
