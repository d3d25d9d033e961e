"""The in-process copies (the drive list, the value views' entries) are read once, in the
gunicorn master before it forks, and every worker starts with them: before its first
request a worker only checks their versions (benchsite/gunicorn.conf.py on_starting,
post_worker_init). Without the preload (BENCH_PRELOAD=0), each worker reads them at its
start, before its first request."""

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
