"""A group's latency tail: the percentiles of a leaderboard entry's group (the drive's
results in a test and pattern obtained the same way, results.spread), read from the merge of
every one of its results' histograms (results.histograms: exact, since they share their
buckets), with the I/Os they rest on. Worked out once, when the refresh writes the entry
(results.services.leaderboard_refresh), never on a read.

A mixed test's reads and writes each carry a histogram of their own (LATENCIES): each is merged
per group apart, as the whole is, where every result of the group carries it.

A group whose results do not all carry a histogram (documents before schema version 5, fio's
imports, published figures) has no merged tail: a group of one shows its result's own
percentiles as its tool wrote them (fio's labelled as fio's), a larger one says how many of
its results carry a histogram and shows no group percentile (docs/methodology.md, "Latency
percentiles of a group")."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from core.pickled import ByFields
from results.documents import MIXED_SIDES
from results.histograms import PERCENTILE_KEYS, decode, merge
from results.models import TailSource
from results.spread import ios_needed
from results.units import count

# The percentile the tail's ranking orders by, and the I/Os it needs (10,000).
RANKED_PERCENTILE = "99.9"
RANKED_IOS = ios_needed(RANKED_PERCENTILE)


@dataclass(frozen=True, slots=True)
class Merged(ByFields):
    """The merge of a group's histograms: its I/Os, percentiles (PERCENTILE_KEYS) and max."""

    io_count: int
    percentiles: dict[str, int | None]
    max_ns: int | None


# The latencies a throughput result's histograms are of, each merged per group apart: the
# whole result's ("", both directions of a mixed test together), then a mixed test's reads'
# and writes' (MIXED_SIDES). The Result's histogram fields and the entry's tail columns are
# named by them (`prefix`: latency_histogram, read_latency_histogram; latency_io_count,
# read_latency_io_count...).
LATENCIES = ("", *MIXED_SIDES)


def prefix(latency: str) -> str:
    """What the fields of one of LATENCIES begin with: "" for the whole, "read_"..."""
    return f"{latency}_" if latency else ""


def merged(members: Iterable[Sequence[Any]]) -> Merged:
    """The tail of a group's results, each (its encoded histogram, its latency's exact min
    and max in ns, or None): their histograms merged, its percentiles read from the merge
    (clamped to the group's min and max where every result states them)."""
    h = merge(decode(encoded, {"min": low, "max": high}) for encoded, low, high in members)
    return Merged(h.total, {q: h.percentile(float(q)) for q in PERCENTILE_KEYS}, h.max)


def merged_tails(members: Iterable[Sequence[Any]]) -> dict[str, Merged | None]:
    """Each of LATENCIES' tails of a group's results, each member its (encoded histogram,
    exact min, exact max) of every latency of LATENCIES in turn: a latency's merged where
    every result carries its histogram, else None (a test that is not mixed has no reads'
    or writes')."""
    members = [list(m) for m in members]
    found: dict[str, Merged | None] = {}
    for i, latency in enumerate(LATENCIES):
        parts = [m[3 * i : 3 * i + 3] for m in members]
        found[latency] = merged(parts) if all(p[0] is not None for p in parts) else None
    return found


def tail_label(*, tail: str, runs: int, histograms: int, tool: str, published: bool) -> str:
    """Where a group's percentiles come from, as the page, the exports and the API say it
    where it is not plain: merged from several results' histograms, not merged (the latest
    result's, and why), or another tool's own (fio's). "" for one loadgen result's own (its
    histogram's) and for published figures, whose latency says whose they are."""
    if tail == TailSource.MERGED and runs > 1:
        return f"merged from the histograms of {count(runs)} results"
    if tail == TailSource.UNMERGED:
        return (
            f"the latest result's: {count(histograms)} of {count(runs)} results carry a "
            "histogram, so the group's are not merged"
        )
    if tail == TailSource.RESULT and not published and tool and tool != "loadgen":
        return f"{tool}'s own percentiles"
    return ""
