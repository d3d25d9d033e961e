"""Every figure's text labels and hover text write their numbers as the tables do
(results.units), whatever the number."""

import datetime
from types import SimpleNamespace

from hypothesis import given, settings
from hypothesis import strategies as st

from results import charts, units
from results.charts import TRIM_PHASES
from results.selectors.rankings import Metric
from results.spread import Spread

# Bytes/s, nanoseconds and IOPS over every range a table writes differently: 0.02 MB/s (a
# tenth would write "0.0"), under and over 10 MB/s, thousands.
RATES = st.floats(min_value=0, max_value=1e11) | st.sampled_from([2e4, 9.995e6, 1.05e7, 2.5e9])
LATENCIES = st.floats(min_value=1, max_value=1e10) | st.sampled_from([999.5, 1_500_000.0])
IOPS = st.floats(min_value=0, max_value=1e7) | st.sampled_from([0.5, 1234.5])


def _figures(bps: float) -> SimpleNamespace:
    return SimpleNamespace(
        bytes_per_second=bps,
        spread=None,
        result=SimpleNamespace(pk=1, pattern="compressible"),
        shown={},  # what its side keeps of it (Figures.shown): its bars, drawn once
    )


def _entry(bps: float, latency_ns: float, iops_min: float) -> SimpleNamespace:
    return SimpleNamespace(
        drive="Maker Model 240GB",
        get_pattern_display=lambda: "compressible",
        bytes_per_second=bps,
        latency_mean_ns=latency_ns,
        iops_min=iops_min,
        derived="",
        quick=False,
        runs=1,
        low_bps=bps,
        high_bps=bps,
        cv=None,
    )


@settings(max_examples=150)
@given(bps=RATES, latency_ns=LATENCIES, iops_min=IOPS)
def test_bar_labels_write_the_tables_figures(bps, latency_ns, iops_min):
    mbps = f"{units.mbps(bps)} MB/s"

    figures = _figures(bps)
    row = SimpleNamespace(pattern="compressible", figures=[figures, None], classes_differ=False)
    pair = SimpleNamespace(rows=[row])
    a, b = charts.compare_bars(pair, ["A", "B"])["data"]
    assert a["text"] == [mbps] and b["text"] == ["not tested"]

    trim = SimpleNamespace(**{field: bps for field, _ in TRIM_PHASES})
    key = ("trim", "compressible")
    a, b = SimpleNamespace(trim={key: trim}), SimpleNamespace(trim={})
    a, b = charts.trim_bars([a, b], key, ["A", "B"])["data"]
    assert a["text"] == [units.mbps(bps)] * 3 and b["text"] == ["not tested"] * 3

    row = SimpleNamespace(rank=1, entry=_entry(bps, latency_ns, iops_min), highlighted=False)
    for metric, text in (
        (Metric.THROUGHPUT, mbps),
        (Metric.LATENCY, units.latency(latency_ns)),
        (Metric.IOPS_MIN, f"{units.iops(iops_min)} IOPS"),
    ):
        board = SimpleNamespace(rows=[row], elsewhere=[], metric=metric)
        (bars,) = charts.leaderboard_bars(board)["data"]
        (label,) = bars["text"]  # the figure, then what the table notes beside it
        assert label == text or label.startswith(f"{text} "), (metric, label)

    series = SimpleNamespace(
        bytes_per_interval=[bps] * 3,
        interval_ns=10**9,
        duration_ns=3 * 10**9,
        exhausted=False,
        exhausted_at_s=None,
    )
    (line,) = charts.saturation([("A", series)])["data"]
    assert line["text"] == [units.mbps(bps)] * 3
    assert line["hovertemplate"].startswith("%{text} MB/s")


def test_a_small_rate_is_not_drawn_as_zero():
    figures = _figures(2e4)
    row = SimpleNamespace(pattern="compressible", figures=[figures, None], classes_differ=False)
    pair = SimpleNamespace(rows=[row])
    assert charts.compare_bars(pair, ["A", "B"])["data"][0]["text"] == ["0.02 MB/s"]


@settings(max_examples=100)
@given(
    price=st.decimals(min_value="0.01", max_value="100000", places=2),
    iops=st.floats(min_value=1, max_value=1e7),
)
def test_value_and_price_hovers_write_prices_as_the_tables_do(price, iops):
    point = SimpleNamespace(
        drive="Maker Model 240GB",
        method="full length",
        spread=Spread(1, float(iops), float(iops), float(iops), None),  # "one run"
        iops_derived=False,
        frontier=False,
        highlighted=False,
        price=float(price),
        iops=iops,
        shown={},
    )
    view = SimpleNamespace(points=[point], frontier=[])
    (others, _) = charts.value_scatter(view)["data"]
    assert others["hovertext"][0].endswith(f"<br>{units.dollars(price)}, {units.iops(iops)} IOPS")
    assert "%{x" not in others["hovertemplate"] and "%{y" not in others["hovertemplate"]

    seen = SimpleNamespace(
        currency="USD", amount=price, observed_on=datetime.date(2014, 1, 2), source="S"
    )
    (history,) = charts.price_history([seen])["data"]
    assert history["text"] == [f"{units.dollars(price)} on 2014-01-02<br>S"]
