"""Query budgets of the read API at two catalog sizes: every list and the compare endpoint
at most 10 queries, whatever the catalog's size."""

import pytest
from django.db import connection

from drives.models import Drive

pytestmark = pytest.mark.django_db

LISTS = [
    ("/api/v1/drives/", {"interface": "sata-3g", "capacity_min": 100, "ordering": "-model"}),
    ("/api/v1/drives/", {"q": "a", "format": "csv"}),
    ("/api/v1/manufacturers/", {}),
    ("/api/v1/controllers/", {}),
    ("/api/v1/nand-types/", {}),
    ("/api/v1/firmware/", {}),
    ("/api/v1/prices/", {}),
    ("/api/v1/suites/", {}),
    ("/api/v1/tests/", {}),
    ("/api/v1/results/", {"limit": 200}),
    ("/api/v1/results/", {"test": "randread-4k-qd3", "pattern": "incompressible"}),
    ("/api/v1/consistency/", {}),
    ("/api/v1/trim/", {}),
    ("/api/v1/saturation/", {}),
    ("/api/v1/tests/randread-4k-qd3/leaderboard/", {"kind": "ssd", "page_size": 200}),
    ("/api/v1/value/", {"cell_type": "mlc"}),
    ("/api/v1/value/", {"as_of": "2025-06-01", "format": "csv"}),
]


@pytest.mark.parametrize(("url", "params"), LISTS, ids=[f"{u}{p}" for u, p in LISTS])
def test_every_list_within_budget(
    client, scale_catalog, url, params, django_assert_max_num_queries
):
    with django_assert_max_num_queries(10):
        response = client.get(url, params)
    assert response.status_code == 200


def test_compare_within_budget(client, scale_catalog, django_assert_max_num_queries):
    a, b = scale_catalog[0], scale_catalog[-1]
    run = Drive.objects.get(slug=a).runs.order_by("-pk").first()
    with django_assert_max_num_queries(10):
        response = client.get(f"/api/v1/compare/{a}/{b}/", {"run_a": run.pk})
    assert response.status_code == 200 and response.json()["tests"]
    with django_assert_max_num_queries(10):
        assert client.get(f"/api/v1/consistency/?drive={a}").status_code == 200


@pytest.mark.parametrize("query", [{"test": "randread-4k-qd3"}, {"drive": "?", "limit": 20}])
def test_the_results_list_keeps_its_plan(client, scale_catalog, query):
    # Planned anew for every request, the list spent more time planning than reading: its
    # statement must be one PostgreSQL keeps a plan of (after its first five executions).
    query = {k: scale_catalog[0] if v == "?" else v for k, v in query.items()}
    before = results_list_plans()
    for _ in range(10):
        assert client.get("/api/v1/results/", query).status_code == 200
    # The statement these requests ran: the one whose counts moved (the connection keeps
    # those other tests of the module prepared, in savepoints of one transaction).
    after = results_list_plans()
    ((generic, custom),) = [plans for name, plans in after.items() if plans != before.get(name)]
    assert generic >= 5 and custom <= 5, (generic, custom)


def results_list_plans() -> dict[str, tuple[int, int]]:
    """The results list's prepared statements on this connection: each one's generic and
    custom plans so far."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT name, generic_plans, custom_plans FROM pg_prepared_statements"
            " WHERE statement LIKE %s",
            ["%FROM results_result r%"],
        )
        return {name: (generic, custom) for name, generic, custom in cursor.fetchall()}
