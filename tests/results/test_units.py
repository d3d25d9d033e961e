import math
from decimal import Decimal
from fractions import Fraction
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
    shows = (units.mbps, units.iops, units.latency, units.dollars, units.megabytes, units.capacity)
    for show in shows:
        text = show(value)
        assert isinstance(text, str) and text
        if not isinstance(value, int | float | Decimal) or isinstance(value, bool):
            assert text == "—"


def test_display_units():
    assert units.mbps(251_700_000) == "251.7"
    assert units.iops(12345.6) == "12,346"
    assert units.latency(1_500_000) == "1.50 ms"
    assert units.megabytes(8 * 2**20) == "8.4 MB"
    assert units.gigabytes(3_140_000_000) == "3.1 GB"
    assert units.dollars(Decimal("0.625")) == "$0.63"
    assert units.dollars(1000) == "$1,000.00"
    assert units.dollars(Decimal("-1234.5")) == "-$1,234.50"
    assert units.money(Decimal("1000"), "EUR") == "1,000.00 EUR"
    assert units.money(Decimal("1000"), "USD") == "$1,000.00"


def test_a_price_per_gb_rounds_half_a_cent_up():
    assert units.per_gb(150, 240 * 10**9) == "$0.63"  # $0.625, not the float's $0.62
    assert units.per_gb(150.0, 240e9) == "$0.63"
    assert units.per_kiops(Decimal("150.00"), 240_000.0) == "$0.63"
    assert units.per_gb(None, 240 * 10**9) == units.per_gb(150, None) == "—"


def _cents(value: Fraction) -> str:
    """The oracle: a non-negative amount to the cent, half a cent up, with separators."""
    cents = math.floor(value * 100 + Fraction(1, 2))
    return f"${cents // 100:,}.{cents % 100:02d}"


PRICES = st.decimals(min_value=Decimal("0.01"), max_value=Decimal("100000"), places=2)


@settings(max_examples=300)
@given(st.decimals(min_value=0, max_value=Decimal("1e12"), places=4))
def test_dollars_round_half_up_with_thousands_separators(amount):
    assert units.dollars(amount) == _cents(Fraction(amount))
    # A float of the same figure (as a value view holds prices) is written the same.
    if len(amount.as_tuple().digits) <= 15:
        assert units.dollars(float(amount)) == _cents(Fraction(amount))


@settings(max_examples=300)
@given(
    price=PRICES,
    capacity=st.integers(min_value=10**6, max_value=2**62)
    | st.sampled_from([240 * 10**9, 120 * 10**9, 80 * 10**9, 256 * 2**30]),
)
def test_price_per_gb_is_the_exact_ratio_rounded_half_up(price, capacity):
    expected = _cents(Fraction(price) * 10**9 / capacity)
    assert units.per_gb(price, capacity) == expected
    assert units.per_gb(float(price), capacity) == expected  # a value view's float price


@settings(max_examples=300)
@given(price=PRICES, iops=st.integers(min_value=1, max_value=10**7))
def test_price_per_kiops_is_the_exact_ratio_rounded_half_up(price, iops):
    expected = _cents(Fraction(price) * 1000 / iops)
    assert units.per_kiops(price, iops) == expected
    assert units.per_kiops(float(price), float(iops)) == expected


@settings(max_examples=200)
@given(ANYTHING)
def test_figures_are_written_without_characters_html_would_read(value):
    """The tables write units' text into their cells unescaped (bench/_tables.html)."""
    for show in (units.latency, units.mbps, units.iops, units.dollars):
        assert not set(show(value)) & set("<>&\"'"), show(value)


def test_the_iops_spread_says_what_the_run_measured():
    def spread(stddev, slowest):
        return units.iops_spread(SimpleNamespace(iops_stddev=stddev, iops_min=slowest))

    assert spread(120.5, 9100.0) == "±120, slowest second 9,100"
    assert spread(4100.25, None) == "±4,100"
    assert spread(None, 0.0) == "slowest second 0"
    assert spread(None, None) == ""  # nothing written, not a spread of 0
