"""The consistency test's ranking (/bench/tests/consistency-4k-qd32/): each drive once, by
the steady-state IOPS of its latest whole series at the chosen spare-area level, highest
first, with what the SNIA PTS rule found; quick series only on their own; withdrawn runs,
partial series and unreviewed drives left out; a highlighted drive's rank wherever it is."""

import json
import re

import pytest
from django.urls import reverse

from results.models import ConsistencySeries
from results.selectors.steady_ranking import consistency_test, steady_ranking
from results.services import run_ingest, run_withdraw
from results.synthetic import measured_document

pytestmark = pytest.mark.django_db
URL = reverse("bench:leaderboard", args=["consistency-4k-qd32"])


def ingest(seed: int, model: str, **kwargs):
    document = measured_document(seed=seed, model=model, **kwargs)
    return run_ingest(document=json.dumps(document).encode(), submitter=None).run


def ranked(level: int = 0, method: str = "full", **kwargs) -> list[tuple[str, float]]:
    ranking = steady_ranking(
        test=consistency_test("consistency-4k-qd32"), spare_area=level, method=method, **kwargs
    )
    return [(r.series.run.drive.model, r.series.steady_mean_iops) for r in ranking.rows]


def test_each_drive_once_by_its_latest_series_highest_first():
    for seed in range(1, 7):
        ingest(seed, f"Model {seed % 4}")  # two runs for some models: the latest counts
    rows = ranked()
    assert len(rows) == 4 and len({m for m, _ in rows}) == 4
    assert [v for _, v in rows] == sorted((v for _, v in rows), reverse=True)
    for model, value in rows:
        latest = (
            ConsistencySeries.objects.filter(run__drive__model=model, spare_area_percent=0)
            .order_by("-run__started_at", "-run_id")
            .first()
        )
        assert value == latest.steady_mean_iops
    assert {m for m, _ in ranked(25)} == {m for m, _ in rows}


def test_quick_series_rank_apart_and_withdrawn_runs_leave():
    full = ingest(1, "Full one")
    ingest(2, "Quick one", series_seconds=300)
    assert [m for m, _ in ranked()] == ["Full one"]
    assert [m for m, _ in ranked(method="quick")] == ["Quick one"]
    run_withdraw(run=full, reason="a test")
    assert ranked() == []


def test_the_page_says_what_the_rule_found_and_ranks_highlighted_drives(client):
    runs = [ingest(seed, f"Model {seed}") for seed in range(1, 5)]
    response = client.get(URL, {"highlight": runs[0].drive.slug})
    assert response.status_code == 200
    html = response.content.decode()
    assert 'id="steady-chart"' in html and "ranks 1–4 of 4" in html
    text = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html))
    series = ConsistencySeries.objects.filter(run=runs[0], spare_area_percent=0).get()
    assert series.steady_label in text
    assert 'class="highlighted"' in html
    page = client.get(URL, {"highlight": runs[0].drive.slug, "page": 2}).content.decode()
    assert 'class="highlighted"' in page  # ranked elsewhere, shown beside the page
    assert client.get(URL, {"spare": "25"}).status_code == 200  # a level no series has
    # A value the page cannot take is a 400 naming it (core.query), not the default unsaid.
    for query in ({"spare": "x"}, {"spare": "91"}, {"method": "bogus"}, {"page": "0"}):
        response = client.get(URL, query)
        assert response.status_code == 400, query
        assert f"<code>{next(iter(query))}</code>: must be" in response.content.decode()
    assert client.get(reverse("bench:leaderboard", args=["no-such-test"])).status_code == 404
    tests = client.get(reverse("bench:tests")).content.decode()
    assert f'href="{URL}"' in tests
