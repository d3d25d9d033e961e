from io import StringIO

import pytest
from django.core.management import call_command
from django.urls import reverse

from drives.models import Drive
from results.kinds.throughput import result_figures
from results.models import (
    RESULT_FIGURES,
    ConsistencySeries,
    LatencyKind,
    LeaderboardEntry,
    Result,
    Run,
)

pytestmark = pytest.mark.django_db(transaction=True)  # catalog: tests/conftest.py


def seed(**counts):
    args = [f"--{name}={value}" for name, value in counts.items()]
    call_command("seed_scale", *args, stdout=StringIO())


def test_small_synthetic_catalog_is_complete_marked_and_replaceable(client):
    call_command("load_demo", stdout=StringIO())
    real_runs = Run.objects.count()
    seed(drives=30, results=1000, series=40, points=60)
    assert Drive.objects.filter(synthetic=True).count() == 30
    assert Result.objects.filter(run__source="synthetic").count() == 1000
    series = ConsistencySeries.objects.filter(run__source="synthetic")
    assert series.count() == 40
    one = series.first()
    assert len(one.iops) == 60 and one.steady_state_start_s == 42
    assert one.steady_min_iops == min(one.iops[42:])
    # Synthetic rows never pass for real ones.
    assert Run.objects.real().count() == real_runs
    html = client.get(reverse("drives:home"), {"q": "Synthetic"}).content.decode()
    assert "No drive matches" in html
    # Running again replaces, never doubles.
    seed(drives=30, results=1000, series=40, points=60)
    assert Drive.objects.filter(synthetic=True).count() == 30
    assert Result.objects.filter(run__source="synthetic").count() == 1000
    assert Run.objects.real().count() == real_runs
    # New rows after a COPY with explicit ids still get fresh ids.
    Drive.objects.create(
        manufacturer=Drive.objects.first().manufacturer, model="After", slug="after-seed"
    )


def test_synthetic_results_are_stored_as_ingest_stores_their_figures():
    seed(drives=5, results=200, series=4, points=60)
    rows = Result.objects.filter(run__source="synthetic").values_list(*RESULT_FIGURES)
    assert len(rows) == 200
    for row in rows:
        figures = dict(zip(RESULT_FIGURES, row, strict=True))
        entry = {
            name: figures[name]
            for name in (
                "pattern",
                "block_size",
                "queue_depth",
                "bytes_per_second",
                "iops",
                "repeat",
            )
        }
        entry["latency_ns"] = {"mean": figures["latency_mean_ns"], "max": figures["latency_max_ns"]}
        assert figures == result_figures(entry, LatencyKind.TOTAL)
    # Each run's tests in three passes, so that the entries show a run-to-run spread.
    assert {r for (r,) in Result.objects.values_list("repeat")} == {1, 2, 3}
    grouped = LeaderboardEntry.objects.filter(synthetic=True, runs=3)
    assert grouped.exists() and all(0 < e.cv < 0.1 for e in grouped)
