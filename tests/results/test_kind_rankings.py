"""The rankings of the tests whose kind is not throughput (results.kinds: each kind's
`ranked_by`; /bench/tests/<id>/): each drive once, by the kind's own figure of its latest
whole row at the chosen spare-area level or data pattern, highest first (consistency: the
steady-state IOPS, with what the SNIA PTS rule found; TRIM: the share of the clean speed
after TRIM; write saturation: the data written before the rate fell; WSAT: the data written
before the rate fell below half of its first round's); quick runs only on their own;
withdrawn runs, partial series and unreviewed drives left out; the drive filters the other
rankings have; a highlighted drive's rank wherever it is; and the chart's image."""

import json
import re
from io import StringIO

import pytest
from django.core.management import call_command
from django.urls import reverse

from results.kinds import KIND_OF, RANKED_KINDS
from results.kinds.consistency import RANKED_BY
from results.models import ConsistencySeries, SaturationSeries, Test, TrimValidation
from results.selectors.kind_rankings import METHODS, kind_ranking, ranked_test
from results.services import run_ingest, run_withdraw
from results.synthetic import measured_document

pytestmark = pytest.mark.django_db
URL = reverse("bench:leaderboard", args=["consistency-4k-qd32"])


def ingest(seed: int, model: str, **kwargs):
    document = measured_document(seed=seed, model=model, **kwargs)
    return run_ingest(document=json.dumps(document).encode(), submitter=None).run


def ranked(level: int = 0, method: str = "full", **kwargs) -> list[tuple[str, float]]:
    ranking = kind_ranking(
        test=ranked_test("consistency-4k-qd32", RANKED_KINDS),
        by=RANKED_BY,
        choice=level,
        method=method,
        **kwargs,
    )
    return [(r.drive.model, r.row.steady_mean_iops) for r in ranking.rows]


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
    assert 'id="ranking-chart"' in html and "ranks 1–4 of 4" in html
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


# What each kind ranks by, worked out again from a row's stored fields.
FIGURE = {
    ConsistencySeries: lambda s: s.steady_mean_iops,
    TrimValidation: lambda t: t.after_trim_bytes_per_second / t.clean_bytes_per_second,
    SaturationSeries: lambda w: (
        (w.bytes_before_halved if w.halved_at_s is not None else w.bytes_written)
        if w.is_wsat
        else (w.bytes_before_exhausted if w.exhausted else w.bytes_written)
    ),
}


@pytest.fixture
def demo():
    call_command("load_demo", stdout=StringIO())


def ranked_tests() -> list[Test]:
    return list(Test.objects.filter(kind__in=RANKED_KINDS).order_by("identifier"))


def test_every_test_of_a_kind_but_throughput_is_ranked(client, demo):
    """Every such test of the catalog has its page, and the demo ranks a drive in each:
    the page shows each row the selector ranks, by the kind's figure, highest first."""
    tests = ranked_tests()
    assert {t.kind for t in tests} == {"consistency", "trim", "saturation"}
    assert len(tests) >= 5  # wsat and write saturation, two TRIM tests, consistency
    for test in tests:
        by = KIND_OF[test.kind].ranked_by(test)
        url = reverse("bench:leaderboard", args=[test.identifier])
        shown = 0
        for method in METHODS:
            ranking = kind_ranking(test=test, by=by, method=method)
            for choice in ranking.choices:
                ranking = kind_ranking(test=test, by=by, method=method, choice=choice)
                figures = [r.row.figure for r in ranking.rows]
                assert figures == sorted(figures, reverse=True), test.identifier
                assert len({r.drive.pk for r in ranking.rows}) == len(ranking.rows)
                for r in ranking.rows:
                    assert r.row.figure == pytest.approx(FIGURE[by.model](r.row)), test.identifier
                    assert r.row.test_id == test.pk and getattr(r.row, by.choice) == choice
                query = {"method": method, by.choice_param: choice}
                response = client.get(url, query)
                assert response.status_code == 200, (test.identifier, query)
                html = response.content.decode()
                for r in ranking.rows:
                    assert r.drive.get_absolute_url() in html
                    first = by.columns[0]
                    assert first.shown(first.value(r.row)) in html
                image = client.get(f"{url}chart/ranking.svg", query)
                assert image.status_code == 200 and b"<svg" in image.content
                shown += len(ranking.rows)
        assert shown, f"the demo ranks no drive in {test.identifier}"


def test_the_drive_filters_narrow_a_ranking(client, demo):
    test = Test.objects.get(identifier="wsat-4k-qd32")
    by = KIND_OF[test.kind].ranked_by(test)
    every = (
        kind_ranking(test=test, by=by, method="quick").rows + kind_ranking(test=test, by=by).rows
    )
    assert every
    kind = every[0].drive.kind
    url = reverse("bench:leaderboard", args=[test.identifier])
    for method in METHODS:
        same = client.get(url, {"kind": kind, "method": method}).content.decode()
        other = [k for k in ("ssd", "hdd", "virtual") if k != kind][0]
        none = client.get(url, {"kind": other, "method": method}).content.decode()
        for r in kind_ranking(test=test, by=by, method=method).rows:
            assert r.drive.get_absolute_url() in same
            assert r.drive.get_absolute_url() not in none
    assert client.get(url, {"capacity_min": "lots"}).status_code == 400


def test_the_api_ranks_as_the_page_does(client, demo):
    for test in ranked_tests():
        by = KIND_OF[test.kind].ranked_by(test)
        url = reverse("api:ranking", args=[test.identifier])
        for method in METHODS:
            ranking = kind_ranking(test=test, by=by, method=method)
            body = client.get(url, {"method": method}).json()
            assert body["choice_parameter"] == by.choice_param and body["method"] == method
            assert body["choices"] == [str(c) for c in ranking.choices]
            assert [(r["rank"], r["drive"], r["run"]) for r in body["rows"]] == [
                (r.rank, r.drive.slug, r.row.run_id) for r in ranking.rows
            ]
            for row, r in zip(body["rows"], ranking.rows, strict=True):
                assert row["figure"] == pytest.approx(FIGURE[by.model](r.row))
                assert set(row["figures"]) == {column.key for column in by.columns}
        other = "pattern" if by.choice_param == "spare" else "spare"
        value = "incompressible" if other == "pattern" else "0"
        assert client.get(url, {other: value}).status_code == 404
        assert client.get(url, {"method": "bogus"}).status_code == 400
        assert client.get(url, {"capacity_min": "lots"}).status_code == 400
    throughput = Test.objects.filter(kind="throughput").first()
    assert client.get(reverse("api:ranking", args=[throughput.identifier])).status_code == 404


def test_equal_figures_share_a_rank():
    """As in every ranking (docs/methodology.md, "Rankings"): 1, 2, 2, 4."""
    runs = [ingest(seed, f"Model {seed}") for seed in range(1, 5)]
    series = ConsistencySeries.objects.filter(run__in=runs, spare_area_percent=0)
    best, *_ = sorted(series, key=lambda s: -s.steady_mean_iops)
    tied = [s for s in series if s != best]
    ConsistencySeries.objects.filter(pk__in=[tied[0].pk, tied[1].pk]).update(steady_mean_iops=5)
    ConsistencySeries.objects.filter(pk=tied[2].pk).update(steady_mean_iops=1)
    test = ranked_test("consistency-4k-qd32", RANKED_KINDS)
    ranking = kind_ranking(test=test, by=RANKED_BY, choice=0)
    assert [r.rank for r in ranking.rows] == [1, 2, 2, 4]
    slug = ranking.rows[2].drive.slug
    paged = kind_ranking(test=test, by=RANKED_BY, choice=0, page_size=1, highlight=(slug,))
    assert [(r.rank, r.drive.slug) for r in paged.elsewhere] == [(2, slug)]


def test_a_ranking_of_quick_runs_only_says_so_and_links_them(client):
    """A ranking whose full-length class is empty says how many drives its quick runs rank,
    and links the ranking of them: a leaderboard and a ranking of another kind alike."""
    for seed in (1, 2):
        document = measured_document(seed=seed, model=f"Quick {seed}", series_seconds=300)
        for result in document["results"]:
            # 10 s, under 90% of the test's: a quick run (its counts kept to its rates).
            result["duration_ns"] = 10 * 10**9
            result["io_count"] = round(result["iops"] * 10)
            result["bytes"] = result["io_count"] * result["block_size"]
        run_ingest(document=json.dumps(document).encode(), submitter=None)
    for test_id in ("randread-4k-qd3", "consistency-4k-qd32"):
        url = reverse("bench:leaderboard", args=[test_id])
        html = client.get(url).content.decode()
        assert "Quick runs rank 2 drives in it" in html, test_id
        link = re.search(r'<a href="(\?[^"]*)"[^>]*>rank the quick runs</a>', html).group(1)
        assert "method=quick" in link
        quick = client.get(url + link.replace("&amp;", "&")).content.decode()
        assert "Quick 1" in quick and "Quick 2" in quick and "rank the quick runs" not in quick
        # Filters that keep no drive: nothing to link.
        none = client.get(url, {"interface": "sas"}).content.decode()
        assert "rank the quick runs" not in none


def test_the_demos_workload_rankings_rank_full_length_results(client, demo):
    """The demo measures its workloads (the queue-depth sweeps and the 70/30 test) at full
    length (demo/measure): their default rankings rank a drive, not only quick runs."""
    suite = Test.objects.filter(suitetest__suite__name="workloads-2026").distinct()
    assert suite.count() >= 17
    for test in suite:
        html = client.get(reverse("bench:leaderboard", args=[test.identifier])).content.decode()
        assert 'id="leaderboard-table"' in html, test.identifier
        assert "No drive has a result" not in html, test.identifier
