"""Query budgets of the result pages at two catalog sizes: the count must not grow with it."""

import re

import pytest
from django.db import connection
from django.db.models import Count
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from drives.models import Drive
from results.models import SaturationSeries, Test

pytestmark = pytest.mark.django_db


def saturate(*slugs: str) -> None:
    """A write-saturation series and a WSAT in the latest run of each drive."""
    test = Test.objects.get(identifier="write-saturation-128k-qd32")
    wsat = Test.objects.get(identifier="wsat-4k-qd32")
    for slug in slugs:
        run = Drive.objects.get(slug=slug).runs.order_by("-pk").first()
        SaturationSeries.objects.create(
            run=run,
            test=test,
            bytes_per_interval=[10**9] * 3 + [10**8] * 20,
            bytes_written=5 * 10**9,
            exhausted=True,
            exhausted_at_s=3,
        )
        SaturationSeries.objects.create(
            run=run,
            test=wsat,
            interval_ns=60 * 10**9,
            bytes_per_interval=[10**9] * 3 + [10**8] * 20,
            bytes_written=5 * 10**9,
            exhausted=False,
            target_bytes=4 * 10**9,
            time_cap_ns=86_400 * 10**9,
            stopped_by="bytes",
            halved_at_s=180.0,
            bytes_before_halved=3 * 10**9,
        )


def test_compare_budget(client, scale_catalog, django_assert_max_num_queries):
    a, b = scale_catalog[0], scale_catalog[-1]
    saturate(a, b)
    run = Drive.objects.get(slug=a).runs.order_by("-pk").first()
    with django_assert_max_num_queries(10):
        response = client.get(reverse("bench:compare", args=[a, b]), {"run_a": run.pk})
    html = response.content.decode()
    assert response.status_code == 200 and "consistency-25" in html
    assert "saturation-incompressible" in html and "wsat-incompressible" in html
    with django_assert_max_num_queries(10):
        assert client.get(reverse("bench:compare_csv", args=[a, b])).status_code == 200


def test_four_drives_cost_the_queries_of_two(client, scale_catalog):
    """The compare statement reads every drive at once: a page of four drives, and its
    export, run as many queries as those of two."""
    a, b, c, d = scale_catalog[0], scale_catalog[-1], scale_catalog[1], scale_catalog[2]
    saturate(a, b, c, d)
    counts = {}
    for drives in ((a, b), (a, b, c, d)):
        for name in ("bench:compare", "bench:compare_csv"):
            client.get(reverse(name, args=drives))  # the process's held catalog, as warm
            with CaptureQueriesContext(connection) as queries:
                response = client.get(reverse(name, args=drives))
            assert response.status_code == 200
            counts[name, len(drives)] = len(queries)
    assert counts["bench:compare", 4] == counts["bench:compare", 2] <= 10
    assert counts["bench:compare_csv", 4] == counts["bench:compare_csv", 2] <= 10
    html = response.content.decode()
    assert html.startswith("section,") and f"D: {Drive.objects.get(slug=d)}" in html


def test_leaderboard_budget(client, scale_catalog, django_assert_max_num_queries):
    url = reverse("bench:leaderboard", args=["randwrite-4k-qd3-8g"])
    with django_assert_max_num_queries(10):
        query = {"highlight": scale_catalog[:3], "mark": scale_catalog[4], "kind": "ssd", "page": 2}
        response = client.get(url, query)
    assert response.status_code == 200


def test_value_budget(client, scale_catalog, django_assert_max_num_queries):
    url = reverse("bench:value")
    with django_assert_max_num_queries(10):
        query = {"highlight": scale_catalog[:3], "mark": "Synthetic", "cell_type": "mlc"}
        response = client.get(url, query)
    assert response.status_code == 200 and "The frontier" in response.content.decode()
    with django_assert_max_num_queries(10):
        assert client.get(url, {"as_of": "2025-06-01"}).status_code == 200


def test_drive_page_budget(client, scale_catalog, django_assert_max_num_queries):
    saturate(scale_catalog[1])
    with django_assert_max_num_queries(12):
        response = client.get(reverse("bench:drive", args=[scale_catalog[1]]))
    html = response.content.decode()
    assert response.status_code == 200 and 'id="saturation"' in html and 'id="wsat"' in html


def test_browsing_budgets(client, scale_catalog, django_assert_max_num_queries):
    drive = Drive.objects.select_related("controller").get(slug=scale_catalog[0])
    with django_assert_max_num_queries(6):
        assert (
            client.get(reverse("bench:controller", args=[drive.controller.slug])).status_code == 200
        )
    with django_assert_max_num_queries(3):
        assert (
            client.get(reverse("bench:pick"), {"side": "a", "a": "Synthetic 1"}).status_code == 200
        )
    with django_assert_max_num_queries(3):
        query = {"side": "mark", "mark": "Synthetic 1", "highlight": scale_catalog[:4]}
        assert client.get(reverse("bench:pick"), query).status_code == 200
    with django_assert_max_num_queries(4):
        assert client.get(reverse("drives:home"), {"q": "synthetic"}).status_code == 200


def test_run_pages_budget(client, scale_catalog, django_assert_max_num_queries):
    """The drive with the most runs (seed_scale gives some several): its page draws where each
    run falls, and each run's page says where it falls, with budgets that do not grow with the
    runs or the catalog."""
    drive = (
        Drive.objects.filter(slug__in=scale_catalog)
        .annotate(n=Count("runs"))
        .order_by("-n", "pk")
        .first()
    )
    assert drive.n >= 2
    with django_assert_max_num_queries(12):
        page = client.get(reverse("bench:drive", args=[drive.slug])).content.decode()
    assert 'id="standings"' in page
    for run in drive.runs.all():
        with django_assert_max_num_queries(7):
            response = client.get(reverse("bench:run", args=[run.pk]))
        assert response.status_code == 200
        assert re.search(r"percentile \d+ of \d+ runs", response.content.decode())
