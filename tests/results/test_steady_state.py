"""Steady state detected by the SNIA PTS rule (results.steady_state): the rule against a
direct reading of its definition for generated series, the edge cases, the stored fields at
ingest (and the migration's frozen copy of them), and what the pages and the API say."""

import importlib
import json
import math
import re

import numpy as np
import pytest
from django.urls import reverse
from hypothesis import given, settings
from hypothesis import strategies as st

from results.kinds.consistency import steady_state_fields
from results.models import ConsistencySeries
from results.steady_state import ROUND_S, WINDOW, rounds_of, steady_state
from results.synthetic import measured_document
from tests.results.helpers import ingest
from tests.results.test_views import figures

pytestmark = pytest.mark.django_db

rounds_strategy = st.lists(st.integers(0, 100_000), min_size=0, max_size=40)


def series_of(rounds: list[int]) -> list[int]:
    """A per-second series whose 60 s rounds average `rounds` (each second the same)."""
    return [v for v in rounds for _ in range(ROUND_S)]


def passes(y) -> bool:
    """The PTS criteria read straight from their definition (numpy's least squares)."""
    y = np.asarray(y, dtype=float)
    mean = y.mean()
    if mean <= 0:
        return False
    slope = np.polyfit(np.arange(WINDOW), y, 1)[0]
    return (y.max() - y.min()) <= 0.20 * mean + 1e-9 and abs(slope) * (WINDOW - 1) <= (
        0.10 * mean + 1e-9
    )


@settings(max_examples=300)
@given(rounds_strategy)
def test_the_window_is_the_first_that_passes_both_criteria(rounds):
    found = steady_state(series_of(rounds))
    assert list(found.rounds) == pytest.approx(rounds)
    if len(rounds) < WINDOW:
        assert found.steady is None and found.window is None
        return
    verdicts = [passes(rounds[k : k + WINDOW]) for k in range(len(rounds) - WINDOW + 1)]
    w = found.window
    if found.steady:
        assert verdicts[w.first_round] and not any(verdicts[: w.first_round])
    else:
        assert not any(verdicts) and w.first_round == len(rounds) - WINDOW
    assert w.mean_iops == pytest.approx(np.mean(rounds[w.first_round : w.first_round + WINDOW]))
    assert (w.start_s, w.end_s) == (w.first_round * ROUND_S, (w.first_round + WINDOW) * ROUND_S)


def test_a_drive_that_settles_after_its_cliff_is_steady_from_the_first_quiet_window():
    # Fresh for 3 minutes, falling for 3, then flat: the window from round 5 still holds
    # 12,000 (excursion 19%, within 20%, but its line falls 15%, beyond 10%): steady from
    # round 6 (360 s).
    rounds = [60_000] * 3 + [40_000, 20_000, 12_000] + [10_000] * 20
    found = steady_state(series_of(rounds))
    assert found.steady and found.window.start_s == 360
    assert found.window.mean_iops == pytest.approx(10_000)


def test_a_drive_still_falling_is_not_steady_and_says_its_last_window():
    rounds = [int(50_000 * 0.93**k) for k in range(33)]  # 7% a round: never within 10%
    found = steady_state(series_of(rounds) + [1] * 20)  # a part round at the end: left out
    assert found.steady is False and found.window.first_round == 33 - WINDOW
    assert found.window.slope > 0.10


def test_rounds_follow_the_interval_and_leave_out_a_part_round():
    half = [200] * (2 * ROUND_S * 6)  # 200 completions each half second: 400 IOPS
    assert rounds_of(half, 500_000_000) == [400.0] * 6
    assert rounds_of([5] * 59, 1_000_000_000) == []
    assert rounds_of([5] * 10, 7_000_000_000) == []  # 60 s is no whole number of 7 s
    assert steady_state([0] * 600).steady is False  # no IOPS at all: never steady


def _migration():
    return importlib.import_module("results.migrations.0032_pts_steady_state")


@settings(max_examples=100)
@given(st.lists(st.integers(0, 50_000), min_size=1, max_size=900), st.sampled_from([1, 2, 4]))
def test_the_migrations_frozen_rule_fills_what_ingest_fills(points, tenths):
    interval = tenths * 250_000_000
    live = steady_state_fields(points, interval)
    frozen = _migration()._fields(points, interval)
    assert frozen.keys() == live.keys()
    for key, value in live.items():
        if isinstance(value, float) and not math.isinf(value):
            assert frozen[key] == pytest.approx(value), key
        else:
            assert frozen[key] == value, key


def _document(rounds_a, rounds_b, model):
    doc = measured_document(seed=1, manufacturer="Acme", model=model)
    series = [e for e in doc["consistency"]]
    for entry, rounds in zip(series, (rounds_a, rounds_b), strict=False):
        entry["iops"] = series_of(rounds)
    return doc


def test_ingest_stores_the_window_and_the_pages_and_api_say_it(client):
    settle = [60_000] * 3 + [30_000, 15_000] + [10_000] * 28  # steady from 300 s
    falling = [int(50_000 * 0.93**k) for k in range(33)]
    a = ingest(_document(settle, settle, "Settles")).drive
    b = ingest(_document(falling, falling, "Falls")).drive
    s = ConsistencySeries.objects.filter(run__drive=a).first()
    assert (s.steady, s.steady_state_start_s, s.steady_state_end_s) == (True, 300, 600)
    assert s.steady_mean_iops == pytest.approx(10_000)
    assert s.steady_excursion == 0 and s.steady_slope == 0
    assert s.steady_label == "steady from 300 s"
    t = ConsistencySeries.objects.filter(run__drive=b).first()
    assert t.steady is False and t.steady_label.startswith("not steady in 1,980 s")

    assert "steady from 300 s" in client.get(a.get_absolute_url()).content.decode()
    url = reverse("bench:compare", args=[a.slug, b.slug])
    html = client.get(url).content.decode()
    assert "steady from 300 s" in html and "not steady in 1,980 s" in html
    scatters = [f for f in figures(html).values() if f["layout"].get("shapes") is not None]
    assert scatters and all(
        [(r["x0"], r["x1"]) for r in f["layout"]["shapes"]] == [(300, 600)] for f in scatters
    )
    zoomed = client.get(url, {"view": "steady"}).content.decode()
    ranges = [f["layout"]["xaxis"].get("range") for f in figures(zoomed).values()]
    assert [300, 1980] in ranges  # from A's steady start to B's last window's end

    body = client.get(f"/api/v1/compare/{a.slug}/{b.slug}/").json()
    text = json.dumps(body)
    assert '"steady": true' in text and '"steady": false' in text
    assert re.search(r'"steady_state_end_s": 600', text)
