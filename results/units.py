"""Display conversions: stored values are base units, pages show MB/s (10^6 B/s), µs, GB.

One rule for every number a reader sees (pages, chart texts, exports' display strings): a
count or any figure of 1,000 or more has thousands separators ("2,000", "1,620 s"); a figure
measured to a precision keeps its digits (latency "1.50 ms", MB/s "3.25"); an exact quantity
(a duration set or counted, a percentage) shows no spurious trailing zeros ("1 s", not
"1.000 s"); a unit follows its number after a space, spelled as below (s, ms, µs, ns, MB/s,
IOPS, GB, MB, KiB). The templates write numbers only through these filters
(benchsite/jinja2.py), and the modules that write text for a reader (charts, the kinds'
sections and exports, the verdicts, the embed tables) call these functions: no other module
of the site formats a number itself. tests/site/test_numbers.py holds both (its list of the
modules with formats of their own says why each has them) and reads every demo page, every
comparison's Markdown and every chart image for a number written otherwise."""

import functools
import math
from decimal import ROUND_HALF_UP, Context, Decimal

from drives.models import capacity_label


def _number(value):
    """The value when it is a number; None for anything else (a missing figure, or the ""
    a template gives for an attribute of nothing), which the filters show as "—"."""
    kind = type(value)
    if kind is float or kind is int or value is None:  # nearly every call: the checks below
        return value  # cost 3 times more
    if isinstance(value, bool) or not isinstance(value, int | float | Decimal):
        return None
    return float(value) if isinstance(value, Decimal) else value


def mbps(bytes_per_second) -> str:
    bytes_per_second = _number(bytes_per_second)
    if bytes_per_second is None:
        return "—"
    value = bytes_per_second / 1e6
    return f"{value:,.2f}" if value < 10 else f"{value:,.1f}"


def count(value) -> str:
    """A whole number of things (rounds, runs, points, bytes), with thousands separators."""
    value = _number(value)
    return "—" if value is None else f"{round(value):,}"


def decimal(value, places: int = 3) -> str:
    """An exact quantity to at most `places` decimals, without trailing zeros, with
    thousands separators: 1.0 is "1", 1620 "1,620", 0.25 "0.25"."""
    value = _number(value)
    if value is None:
        return "—"
    text = f"{value:,.{places}f}"
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return "0" if text == "-0" else text


def seconds(value, places: int = 3) -> str:
    """A duration or a moment in seconds, to at most `places` decimals: "1 s", "0.5 s",
    "1,620 s"."""
    value = _number(value)
    return "—" if value is None else f"{decimal(value, places)} s"


def percent(value, places: int = 1) -> str:
    """A percentage to `places` decimals, with thousands separators: "312.6%", "1,250.0%"."""
    value = _number(value)
    return "—" if value is None else f"{value:,.{places}f}%"


def iops(value) -> str:
    value = _number(value)
    return "—" if value is None else f"{value:,.0f}"


def iops_spread(figures) -> str:
    """The spread of a result's IOPS second by second within its run (`figures`: a result or
    a ranking's entry), as text: its standard deviation and its slowest second, "" where the
    run did not measure them."""
    stddev, slowest = figures.iops_stddev, figures.iops_min
    parts = [] if stddev is None else [f"±{iops(stddev)}"]
    if slowest is not None:
        parts.append(f"slowest second {iops(slowest)}")
    return ", ".join(parts)


def latency(nanoseconds) -> str:
    """Nanoseconds as the most readable unit."""
    if nanoseconds is None:  # most of a latency table's percentiles, and cheapest first
        return "—"
    kind = type(nanoseconds)
    if kind is not float and kind is not int:  # a page's hundreds of figures are one of these
        nanoseconds = _number(nanoseconds)
        if nanoseconds is None:
            return "—"
    if nanoseconds >= 1e3:
        if nanoseconds >= 1e6:
            if nanoseconds >= 1e9:
                return f"{nanoseconds / 1e9:.2f} s"
            return f"{nanoseconds / 1e6:.2f} ms"
        return f"{nanoseconds / 1e3:.1f} µs"
    return f"{nanoseconds:.0f} ns"


def capacity(num_bytes) -> str:
    """A drive's capacity as its name states it (drives.models.capacity_label)."""
    num_bytes = _number(num_bytes)
    if num_bytes is None or not 1 <= num_bytes < math.inf:
        return "—"
    return capacity_label(int(num_bytes))


BINARY_UNITS = {"GiB": 1 << 30, "MiB": 1 << 20, "KiB": 1 << 10}


def size(num_bytes) -> str:
    """Block sizes and spans: binary units, as the methodology states them ("8 GiB",
    "4 KiB"); a size in none of them whole, in bytes ("8,000,000,000 B")."""
    if num_bytes is None:
        return "—"
    for unit, factor in BINARY_UNITS.items():
        if num_bytes >= factor and num_bytes % factor == 0:
            return f"{num_bytes // factor:,} {unit}"
    return f"{num_bytes:,} B"


def binary(num_bytes, unit: str = "GiB", digits: int = 3) -> str:
    """An amount in a binary unit to `digits` significant digits, never in exponent
    notation: 7.45 GiB, "1,860 GiB" (not "1.86e+03"), "0.5 GiB"."""
    num_bytes = _number(num_bytes)
    if num_bytes is None:
        return "—"
    value = float(f"{num_bytes / BINARY_UNITS[unit]:.{digits}g}")
    return f"{decimal(value, 12)} {unit}"


def _exact(value) -> Decimal | None:
    """A number as the decimal it was written as: a float through its shortest repr
    (0.145, not 0.14499999999999999), so that it rounds as the figure it stands for; None
    for anything else (as _number)."""
    if isinstance(value, Decimal):
        return value if value.is_finite() else None
    value = _number(value)
    if value is None or not math.isfinite(value):
        return None
    return Decimal(repr(value)) if isinstance(value, float) else Decimal(value)


CENT = Decimal("0.01")

# Prices and their ratios repeat across requests (a value view's points, a drive's price on
# every page that shows it), and exact decimal rounding costs microseconds a figure: each
# text is made once per process. Typed, so that True is not taken for 1.
_remembered = functools.lru_cache(maxsize=1 << 14, typed=True)


@_remembered
def dollars(amount) -> str:
    """A price or a price ratio in USD, to the cent (half a cent up: $0.625 is $0.63), with
    thousands separators: "$1,000.00", "-$0.50"."""
    amount = _exact(amount)
    if amount is None:
        return "—"
    cents = _to_cents(amount)
    return f"-${-cents:,.2f}" if cents < 0 else f"${cents:,.2f}"


def money(amount, currency: str) -> str:
    """A price in its currency: USD as `dollars`, another as "1,000.00 EUR"."""
    if currency == "USD":
        return dollars(amount)
    amount = _exact(amount)
    return "—" if amount is None else f"{_to_cents(amount):,.2f} {currency}"


_CENTS_CONTEXT = Context(prec=40)


def _to_cents(amount: Decimal) -> Decimal:
    # However large: the context holds every digit up to the cent (a context of its own
    # only for an amount beyond 10^37; making one costs more than the rest of a price).
    digits = amount.adjusted() + 3
    context = _CENTS_CONTEXT if digits <= 40 else Context(prec=digits)
    cents = amount.quantize(CENT, rounding=ROUND_HALF_UP, context=context)
    return cents if cents else abs(cents)  # never "-0.00"


@_remembered
def per_gb(amount, capacity_bytes) -> str:
    """A price per decimal GB, computed in decimal and written as `dollars`."""
    return _ratio(amount, capacity_bytes, 10**9)


@_remembered
def per_kiops(amount, iops) -> str:
    """A price per 1,000 IOPS, computed in decimal and written as `dollars`."""
    return _ratio(amount, iops, 1000)


def _ratio(amount, quantity, per) -> str:
    amount, quantity = _exact(amount), _exact(quantity)
    if amount is None or quantity is None or quantity <= 0:
        return "—"
    # Digits enough that the quotient is exact to well below the cent it is rounded to.
    context = Context(prec=max(28, amount.adjusted() - quantity.adjusted() + 30))
    return dollars(context.divide(context.multiply(amount, per), quantity))


def gigabytes(num_bytes) -> str:
    """An amount written, in decimal GB to a tenth (as the charts give it)."""
    return _decimal_size(num_bytes, 1e9, "GB")


def megabytes(num_bytes) -> str:
    """An amount of data (a file, a document), in decimal MB to a tenth, as MB/s are:
    8,388,608 bytes is 8.4 MB."""
    return _decimal_size(num_bytes, 1e6, "MB")


def _decimal_size(num_bytes, factor: float, unit: str) -> str:
    num_bytes = _number(num_bytes)
    return "—" if num_bytes is None else f"{num_bytes / factor:,.1f} {unit}"


def share(fraction) -> str:
    """A part of a whole (0.873), as a percentage to a tenth: "87.3%"."""
    fraction = _number(fraction)
    return "—" if fraction is None else f"{fraction * 100:,.1f}%"
