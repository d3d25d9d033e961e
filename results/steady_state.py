"""Where a performance-consistency series reaches steady state, by the SNIA Solid State Storage
Performance Test Specification's rule (PTS 2.0.2, §2.1.24; docs/methodology.md, "Performance
consistency").

The tracked variable is IOPS averaged over rounds of ROUND_S seconds. A measurement window of
WINDOW consecutive rounds is steady when
  (a) its excursion, max(y) − min(y), is at most MAX_EXCURSION of the window's average, and
  (b) the least-squares line through its WINDOW points changes across the window
      (|slope| × (WINDOW − 1) rounds) by at most MAX_SLOPE of the window's average.
Steady state starts at the first window that passes, and its figure is that window's average.
A series with no passing window is "not steady": its last window's figures stand in for it, and
say so. A series of fewer than WINDOW whole rounds cannot be tested.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

ROUND_S = 60
WINDOW = 5
MAX_EXCURSION = 0.20
MAX_SLOPE = 0.10


@dataclass(frozen=True, slots=True)
class Window:
    """Five rounds of a series and the two criteria over them."""

    first_round: int  # 0-based: the window covers rounds first_round .. first_round + 4
    mean_iops: float  # the rounds' average
    excursion: float  # (max − min) / mean; inf when the mean is 0
    slope: float  # |least-squares slope| × (WINDOW − 1) / mean; inf when the mean is 0

    @property
    def steady(self) -> bool:
        return self.excursion <= MAX_EXCURSION and self.slope <= MAX_SLOPE

    @property
    def start_s(self) -> int:
        return self.first_round * ROUND_S

    @property
    def end_s(self) -> int:
        return (self.first_round + WINDOW) * ROUND_S


@dataclass(frozen=True, slots=True)
class SteadyState:
    """What the rule found: `steady` None when the series is too short to test; else the
    first steady window (steady True) or the last window (steady False)."""

    steady: bool | None
    window: Window | None
    rounds: tuple[float, ...]


def rounds_of(iops: Sequence[int], interval_ns: int) -> list[float]:
    """The series' IOPS averaged over each whole round of ROUND_S seconds (a trailing part
    round is left out; so is every round of a series whose interval does not divide a round)."""
    per_round = ROUND_S * 1_000_000_000 / interval_ns
    if per_round < 1 or per_round != int(per_round):
        return []
    n = int(per_round)
    seconds_per_point = interval_ns / 1e9
    return [
        math.fsum(iops[k * n : (k + 1) * n]) / n / seconds_per_point for k in range(len(iops) // n)
    ]


def window_at(rounds: Sequence[float], first: int) -> Window:
    """The criteria of the window of WINDOW rounds from `first`."""
    y = rounds[first : first + WINDOW]
    mean = math.fsum(y) / WINDOW
    x_mean = (WINDOW - 1) / 2
    slope = math.fsum((x - x_mean) * (v - mean) for x, v in enumerate(y)) / math.fsum(
        (x - x_mean) ** 2 for x in range(WINDOW)
    )
    if mean <= 0:
        return Window(first, mean, math.inf, math.inf)
    return Window(first, mean, (max(y) - min(y)) / mean, abs(slope) * (WINDOW - 1) / mean)


def steady_state(iops: Sequence[int], interval_ns: int = 1_000_000_000) -> SteadyState:
    """The PTS steady state of a consistency series (see the module's docstring)."""
    rounds = rounds_of(iops, interval_ns)
    if len(rounds) < WINDOW:
        return SteadyState(None, None, tuple(rounds))
    last = None
    for first in range(len(rounds) - WINDOW + 1):
        last = window_at(rounds, first)
        if last.steady:
            return SteadyState(True, last, tuple(rounds))
    return SteadyState(False, last, tuple(rounds))
