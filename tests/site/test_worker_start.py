"""The in-process copies (the drive list, the value views' entries) are read once, in the
gunicorn master before it forks, and every worker starts with them: before its first
request a worker only checks their versions (benchsite/gunicorn.conf.py on_starting,
post_worker_init). Without the preload (BENCH_PRELOAD=0), each worker reads them at its
start, before its first request."""

import urllib.request

import orjson

from benchsite.embedded_pg import wait_until
from tests.site.conftest import query

MASTER_READ = "In-process copies read before the workers were forked"  # gunicorn.conf.py


def _statements(site, pid: int) -> str:
    rows = query(
        site.primary.url(),
        "SELECT query FROM pg_stat_activity WHERE application_name LIKE %s",
        [f"bench % pid {pid}"],
    )
    return " ".join(q for (q,) in rows)


def test_the_master_reads_the_copies_and_a_worker_starts_with_them(site):
    with site.server(workers=2, replica=False) as server:
        server.wait_ready()
        assert server.log.read_text().count(MASTER_READ) == 1
        for pid in server.worker_pids():
            # No request was made: only the start can have connected, and its last
            # statement checked the value views' version; it read nothing whole.
            assert wait_until(lambda p=pid: "core_scopeversion" in _statements(site, p), 30)
            assert "results_leaderboardentry" not in _statements(site, pid)


def test_without_the_preload_a_worker_reads_the_copies_before_its_first_request(site):
    with site.server(workers=1, replica=False, BENCH_PRELOAD="0") as server:
        (pid,) = server.worker_pids()
        # Its last statement is the value views' copy, read after the drive list's.
        assert wait_until(lambda: "results_leaderboardentry" in _statements(site, pid), 30)
        assert MASTER_READ not in server.log.read_text()


def _slugs(site) -> list[str]:
    rows = query(
        site.primary.url(),
        "SELECT DISTINCT d.slug FROM drives_drive d JOIN results_leaderboardentry e "
        "ON e.drive_id = d.id ORDER BY d.slug LIMIT 2",
    )
    return [slug for (slug,) in rows]


def _first_requests(site, workdir, **env) -> list[dict]:
    """A freshly started one-worker server's first requests, one of each page family (and
    the drive list's API), as the load benchmark's timing logs them."""
    log = workdir / "timing.jsonl"
    a, b = _slugs(site)
    test = query(
        site.primary.url(),
        "SELECT t.identifier FROM results_test t JOIN results_leaderboardentry e "
        "ON e.test_id = t.id WHERE t.block_size = 4096 LIMIT 1",
    )[0][0]
    paths = [
        "/",
        f"/bench/compare/{a}/{b}/",
        f"/bench/tests/{test}/",
        f"/bench/value/?test={test}",
        f"/drives/{a}/",
        "/api/v1/drives/",
        f"/api/v1/compare/{a}/{b}/",
    ]
    settings = {"DJANGO_SETTINGS_MODULE": "benchsite.settings.bench", "BENCH_TIMING_LOG": str(log)}
    with site.server(workers=1, **settings, **env) as server:
        server.wait_ready()
        for path in paths:
            with urllib.request.urlopen(server.url + path, timeout=30) as response:
                assert response.status == 200, path
    lines = [orjson.loads(line) for line in log.read_bytes().splitlines()]
    requests = [line for line in lines if "path" in line]
    assert [line["path"] for line in requests] == paths
    return requests


def test_a_fresh_workers_first_requests_compile_and_make_nothing(site, workdir):
    """The worker was warmed before its first request (benchsite/warmup.py): the master
    compiled every template and made every column of the copies it read, on the primary
    and on the replica the pages read from; the worker's first page of each family compiles
    no template and makes no column."""
    for line in _first_requests(site, workdir):
        assert line["warmed"] == "worker", line["path"]
        assert (line["compiled"], line["made"], line["copies"]) == (0, 0, []), line["path"]


def test_without_the_preload_each_worker_warms_itself_before_its_first_request(site, workdir):
    for line in _first_requests(site, workdir, BENCH_PRELOAD="0"):
        assert line["warmed"] == "worker", line["path"]
        assert (line["compiled"], line["made"], line["copies"]) == (0, 0, []), line["path"]
