"""Equal figures share a rank on every ranking (competition ranking: 1, 2, 2, 4): on each
page, across page boundaries, for highlighted drives ranked off the page, in both orders
(higher is better, lower is better), on the page and in the API."""

import random

import pytest

from drives.models import Drive
from results.models import Test
from results.selectors.rankings import Metric, leaderboard
from tests.results.helpers import published

pytestmark = pytest.mark.django_db

TEST = "randwrite-4k-qd3-8g"


@pytest.fixture
def tied_catalog() -> dict[str, tuple[float, float]]:
    """14 drives whose figures fall on a few values, so that ties start, end and run across
    every page size's boundaries: each drive's (bytes/s, mean latency ns)."""
    rng = random.Random(30)
    figures = {}
    for i in range(14):
        bps = rng.choice([4, 4, 3, 3, 3, 2, 1]) * 1e7
        latency = rng.choice([100, 200, 200, 300]) * 1000.0
        published(
            manufacturer="Tie",
            model=f"T{i:02}",
            results=[
                {
                    "test": TEST,
                    "pattern": "unspecified",
                    "bytes_per_second": bps,
                    "latency_ns": {"mean": latency},
                }
            ],
        )
        figures[f"T{i:02}"] = (bps, latency)
    return figures


def _expected(figures, model: str, metric: str) -> int:
    """1 + the entries strictly better."""
    if metric == Metric.THROUGHPUT:
        return 1 + sum(bps > figures[model][0] for bps, _ in figures.values())
    return 1 + sum(latency < figures[model][1] for _, latency in figures.values())


@pytest.mark.parametrize("metric", [Metric.THROUGHPUT, Metric.LATENCY_PUBLISHED])
def test_equal_figures_share_a_rank_on_every_page_and_off_it(tied_catalog, metric):
    test = Test.objects.get(identifier=TEST)
    for page_size in range(1, 6):
        seen, page = [], 1
        while True:
            board = leaderboard(test=test, metric=metric, page=page, page_size=page_size)
            for row in board.rows:
                model = row.entry.drive.model
                assert row.rank == _expected(tied_catalog, model, metric), (page_size, page)
                seen.append(model)
            if not board.has_next:
                break
            page += 1
        assert sorted(seen) == sorted(tied_catalog)
    slugs = dict(Drive.objects.values_list("model", "slug"))
    far = sorted(tied_catalog, key=lambda m: _expected(tied_catalog, m, metric))[-3:]
    board = leaderboard(
        test=test, metric=metric, page=1, page_size=2, highlight=tuple(slugs[m] for m in far)
    )
    off_page = [m for m in far if m not in {r.entry.drive.model for r in board.rows}]
    assert {r.entry.drive.model: r.rank for r in board.elsewhere} == {
        m: _expected(tied_catalog, m, metric) for m in off_page
    }


def test_the_page_and_the_api_show_the_shared_ranks(client, tied_catalog):
    ranks = sorted(_expected(tied_catalog, m, Metric.THROUGHPUT) for m in tied_catalog)
    assert len(set(ranks)) < len(ranks)  # the catalog holds ties
    body = client.get(f"/api/v1/tests/{TEST}/leaderboard/").json()
    assert [r["rank"] for r in body["rows"]] == ranks
    page = client.get(f"/bench/tests/{TEST}/").content.decode()
    shown = [int(cell) for cell in _rank_cells(page)]
    assert shown == ranks


def _rank_cells(html: str) -> list[str]:
    import re

    return re.findall(r'<tr(?: class="highlighted")?>\s*<td class="num">(\d+)</td>', html)
