"""Every latency percentile with its evidence (docs/methodology.md, "Latency percentiles, with
their evidence"): a percentile is shown where ten I/Os at least lie beyond it, and every read
says otherwise how many I/Os it needs: the compare page's latency table (with each side's I/O
count), its CSV, the API's compare and the drive page."""

import csv
import io
import re
from decimal import Decimal
from fractions import Fraction

import pytest
from django.urls import reverse
from hypothesis import given
from hypothesis import strategies as st

from results.spread import TAIL_IOS, ios_needed, percentile_unsupported
from results.synthetic import measured_document
from tests.results.helpers import ingest

# Percentiles as documents key them: above 0, below 100, up to four decimals ("99.99").
percentiles = st.decimals(min_value=Decimal("0.0001"), max_value=Decimal("99.9999"), places=4).map(
    lambda d: format(d.normalize(), "f")
)


@given(percentiles, st.integers(min_value=0, max_value=10**9))
def test_a_percentile_is_supported_exactly_where_ten_ios_lie_beyond_it(q, ios):
    beyond = Fraction(ios) * (100 - Fraction(q)) / 100
    assert (percentile_unsupported(q, ios) is None) == (beyond >= TAIL_IOS)
    needed = ios_needed(q)
    assert Fraction(needed) * (100 - Fraction(q)) / 100 >= TAIL_IOS
    assert Fraction(needed - 1) * (100 - Fraction(q)) / 100 < TAIL_IOS
    if beyond < TAIL_IOS:
        assert percentile_unsupported(q, ios) == needed


def test_the_nines_need_ten_times_more_ios_each():
    assert [ios_needed(q) for q in ("50", "99", "99.9", "99.99", "99.999")] == [
        20,
        1_000,
        10_000,
        100_000,
        1_000_000,
    ]
    assert percentile_unsupported("99.99", None) is None  # an article's claim, shown as such


def _drive(model: str, seed: int, ios: int):
    """A measured drive whose results each counted `ios` I/Os, at their own rates (a run as
    long as those I/Os took)."""
    document = measured_document(seed=seed, manufacturer="Maker", model=model)
    for r in document["results"]:
        seconds = ios / r["iops"]
        r["io_count"] = ios
        r["bytes"] = ios * r["block_size"]
        r["duration_ns"] = round(seconds * 1e9)
        r["bytes_per_second"] = r["bytes"] / seconds
    return ingest(document).drive


@pytest.mark.django_db
def test_every_read_says_which_nines_its_ios_support(client):
    few, many = _drive("Few", 1, 20_000), _drive("Many", 2, 2_000_000)
    args = [few.slug, many.slug]

    html = client.get(reverse("bench:compare", args=args)).content.decode()
    table = html.split('id="latency"')[1].split("</table>")[0]
    rows = re.findall(r"<tr[^>]*>(.*?)</tr>", table, re.S)
    a_rows = [r for r in rows if 'class="side-a"' in r]
    b_rows = [r for r in rows if 'class="side-b"' in r]
    assert a_rows and b_rows
    for row in a_rows:  # p50, p99, p99.9 shown; p99.99 needs 100,000; then the count
        cells = re.findall(r'<td class="num">([^<]*)</td>', row)
        assert cells[4] == "needs 100,000 I/Os"
        assert all("needs" not in c for c in cells[:4] + cells[5:6])
        assert cells[6] == "20,000"
    for row in b_rows:
        cells = re.findall(r'<td class="num">([^<]*)</td>', row)
        assert not any("needs" in c for c in cells)
        assert cells[6] == "2,000,000"

    body = client.get(reverse("api:compare", args=args)).json()
    for test in body["tests"]:
        for pattern in test["patterns"]:
            a, b = pattern["a"], pattern["b"]
            assert a["io_count"] == 20_000 and b["io_count"] == 2_000_000
            assert a["latency_needs_ios"] == (
                {"99.99": 100_000} if "99.99" in a["latency"]["percentiles_ns"] else {}
            )
            assert a["latency"]["percentiles_ns"]  # the figures themselves are kept
            assert b["latency_needs_ios"] == {}

    text = client.get(reverse("bench:compare_csv", args=args)).content.decode()
    rows = list(csv.reader(io.StringIO(text)))
    a_value, a_notes = 5, 6  # after section, test, data pattern, measure and unit
    p9999 = [r for r in rows if r[0] == "latency" and r[3] == "p99.99"]
    assert p9999 and all(r[a_value] == "" and r[a_notes] == "needs 100,000 I/Os" for r in p9999)
    counts = [r for r in rows if r[3] == "I/Os measured"]
    assert counts and all(r[a_value] == "20000" for r in counts)

    drive_page = client.get(few.get_absolute_url()).content.decode()
    assert "needs 1,000 I/Os" not in drive_page  # p99 of 20,000 I/Os stands
    assert 'title="of 20,000 I/Os"' in drive_page
