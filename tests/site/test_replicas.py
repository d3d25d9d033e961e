"""Read replicas for real: a primary, a streaming replica (pg_basebackup -R), gunicorn.

Where a request's queries went is read from each server's pg_stat_activity: the site's
connections are named "bench <alias> pid <worker>", and the last query of each is shown there.
"""

import contextlib
import json
import subprocess
import sys
import time
import uuid

import psycopg
import pytest
import requests

from benchsite.embedded_pg import wait_until
from benchsite.replicas import STICKY_COOKIE
from benchsite.response_cache import CACHE_STATUS_HEADER
from loadtests.appserver import server_environment
from tests.site.conftest import query
from tests.site.support import ROOT
from tests.site.test_serve import log_in

STICKY_S = 3


def served_from(site, marker: str) -> set[str]:
    """The servers ("primary", "replica") whose site connections last ran a query with marker."""
    sql = "SELECT query FROM pg_stat_activity WHERE application_name LIKE 'bench %%'"
    found = set()
    for name, cluster in (("primary", site.primary), ("replica", site.replica)):
        if cluster.process is not None and any(marker in q for (q,) in query(cluster.url(), sql)):
            found.add(name)
    return found


def search(session, server, marker: str) -> set[str]:
    """Search the drive list for marker; where did it run? The marker ends beyond ASCII, so
    the search runs as SQL (catalog_index: only the database says that upper case), whose
    text pg_stat_activity shows with the marker in it."""
    response = session.get(f"{server.url}/", params={"q": marker + "é"})
    assert response.status_code == 200
    return served_from(session.site, marker)


@pytest.fixture
def server(site):
    # The router itself (with the response cache on, a kept page would answer before any
    # read). Parameters bound on the client (BENCH_DB_PREPARE=0): the search marker is then
    # in the statement text that pg_stat_activity shows (bound on the server, it is a $1).
    with site.server(
        BENCH_REPLICA_STICKY_SECONDS=str(STICKY_S), BENCH_RESPONSE_CACHE="0", BENCH_DB_PREPARE="0"
    ) as server:
        yield server


@pytest.fixture
def reader(site):
    session = requests.Session()
    session.site = site
    return session


@pytest.fixture
def paused_replica(site):
    query(site.replica.url(), "SELECT pg_wal_replay_pause()")
    yield
    resume_replay(site)


def resume_replay(site) -> None:
    # Resuming lets replay remove row versions at once, and PostgreSQL may cancel a statement
    # or end a whole session that conflicts with that cleanup (the one that resumed it, or
    # the one asking whether it did): ask again, on a new connection, until replay runs.
    for _ in range(50):
        with contextlib.suppress(psycopg.OperationalError):
            query(site.replica.url(), "SELECT pg_wal_replay_resume()")
            if query(site.replica.url(), "SELECT pg_is_wal_replay_paused()") == [(False,)]:
                return
        time.sleep(0.1)
    pytest.fail("the replica's replay could not be resumed")


def published_run(site) -> tuple[int, str]:
    return query(
        site.primary.url(),
        "SELECT r.id, d.slug FROM results_run r JOIN drives_drive d ON d.id = r.drive_id "
        "WHERE r.status = 'published' ORDER BY r.id LIMIT 1",
    )[0]


def shows_run(session, server, slug: str, run_id: int) -> bool:
    response = session.get(f"{server.url}/drives/{slug}/")
    assert response.status_code == 200
    return f"run-{run_id}" in response.text


def test_the_replica_is_a_standby_of_the_primary(site):
    assert query(site.replica.url(), "SELECT pg_is_in_recovery()") == [(True,)]
    assert query(site.primary.url(), "SELECT pg_is_in_recovery()") == [(False,)]


def test_page_reads_go_to_the_replica(server, reader):
    for _ in range(3):
        assert search(reader, server, uuid.uuid4().hex) == {"replica"}


def test_a_client_that_writes_reads_its_own_change_from_the_primary(
    site, server, reader, paused_replica
):
    run_id, slug = published_run(site)
    reviewer = requests.Session()
    reviewer.site = site
    log_in(reviewer, server.url)
    assert STICKY_COOKIE in reviewer.cookies
    response = reviewer.post(
        f"{server.url}/admin/results/run/",
        data={
            "action": "withdraw_runs",
            "_selected_action": str(run_id),
            "index": "0",
            "csrfmiddlewaretoken": reviewer.cookies["csrftoken"],
        },
    )
    assert response.status_code == 200 and "1 run(s) withdrawn" in response.text
    # The write went to the primary; the paused replica has not seen it.
    assert query(site.primary.url(), "SELECT status FROM results_run WHERE id = %s", [run_id]) == [
        ("withdrawn",)
    ]
    assert query(site.replica.url(), "SELECT status FROM results_run WHERE id = %s", [run_id]) == [
        ("published",)
    ]
    # The reviewer reads from the primary and sees the withdrawal at once; a reader who has
    # written nothing reads from the lagging replica.
    assert not shows_run(reviewer, server, slug, run_id)
    assert search(reviewer, server, uuid.uuid4().hex) == {"primary"}
    assert shows_run(reader, server, slug, run_id)
    assert search(reader, server, uuid.uuid4().hex) == {"replica"}
    # After the window the reviewer is back on the replica.
    assert wait_until(
        lambda: search(reviewer, server, uuid.uuid4().hex) == {"replica"}, 2 * STICKY_S
    )


def test_pages_work_while_the_replica_is_down(site, server, reader):
    assert search(reader, server, uuid.uuid4().hex) == {"replica"}
    site.replica.stop()
    try:
        for _ in range(4):
            assert search(reader, server, uuid.uuid4().hex) == {"primary"}
    finally:
        site.replica.start()
    # Once it answers again (a few seconds after the failure), reads go back to it.
    assert wait_until(lambda: search(reader, server, uuid.uuid4().hex) == {"replica"}, 20)


CACHED_READ = """
import django, json, sys, time
django.setup()
from django.db import connections
from django.test.utils import CaptureQueriesContext
from benchsite import cache, replicas
from results.models import Run
from results.services import run_withdraw

def published():
    return sorted(Run.objects.published().values_list("pk", flat=True))

run_id, wait = int(sys.argv[1]), sys.argv[2] == "wait"
with replicas.replica_reads():
    before = cache.cached("probe", compute=published)
run_withdraw(run=Run.objects.get(pk=run_id), reason="cache probe")
with connections["default"].cursor() as cursor:
    cursor.execute("SELECT pg_current_wal_insert_lsn()::text")
    position = cursor.fetchone()[0]
with connections["replica_0"].cursor() as cursor:
    for _ in range(200):
        cursor.execute("SELECT pg_last_wal_replay_lsn() >= %s::pg_lsn", [position])
        if cursor.fetchone()[0] or not wait:
            break
        time.sleep(0.05)
with replicas.replica_reads():
    with CaptureQueriesContext(connections["replica_0"]) as on_replica:
        from_replica = cache.cached("probe", compute=published)
from_primary = cache.cached("probe", compute=published)
print(json.dumps({
    "before": run_id in before,
    "replica": run_id in from_replica,
    "primary": run_id in from_primary,
    "computed_on_replica": len(on_replica) > 1,
}))
"""


def cached_read_around_a_withdrawal(site, run_id: int, *, wait: bool) -> dict:
    """A value cached before withdrawing run_id, then read through the cache from the
    replica (once it has replayed the withdrawal, when wait) and from the primary, in one
    process."""
    result = subprocess.run(
        [sys.executable, "-c", CACHED_READ, str(run_id), "wait" if wait else "now"],
        cwd=ROOT,
        env=server_environment(site.env()),
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    return json.loads(result.stdout)


def test_a_value_from_a_lagging_replica_is_never_served_to_a_reader_of_the_primary(
    site, paused_replica
):
    run_id, _ = published_run(site)
    seen = cached_read_around_a_withdrawal(site, run_id, wait=False)
    # The replica has not replayed the withdrawal: its version has not moved, and the value
    # kept is as current as the replica. The primary's version has: it computes its own.
    assert seen == {"before": True, "replica": True, "primary": False, "computed_on_replica": False}


def test_a_replica_that_has_replayed_the_change_computes_cached_values(site):
    run_id, _ = published_run(site)
    seen = cached_read_around_a_withdrawal(site, run_id, wait=True)
    assert seen == {"before": True, "replica": False, "primary": False, "computed_on_replica": True}


WITHDRAW = (
    "from results.models import Run; from results.services import run_withdraw; "
    "run_withdraw(run=Run.objects.get(pk={run_id}), reason='replica probe')"
)


def test_kept_pages_follow_the_database_they_were_read_from(site, reader, paused_replica):
    run_id, slug = published_run(site)
    with site.server(BENCH_RESPONSE_CACHE="1") as server:
        page = f"{server.url}/drives/{slug}/"
        assert f"run-{run_id}" in reader.get(page).text
        assert reader.get(page).headers[CACHE_STATUS_HEADER] == "hit"
        site.manage("shell", "-c", WITHDRAW.format(run_id=run_id))
        # The replica lags: its version has not moved, and its readers keep its page.
        lagging = reader.get(page)
        assert lagging.headers[CACHE_STATUS_HEADER] == "hit" and f"run-{run_id}" in lagging.text
        resume_replay(site)
        assert wait_until(lambda: f"run-{run_id}" not in reader.get(page).text, 20)
