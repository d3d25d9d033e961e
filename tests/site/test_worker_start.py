"""A gunicorn worker reads the in-process copies (the drive list, the value views' entries)
when it starts, before its first request (benchsite/gunicorn.conf.py post_worker_init)."""

from benchsite.embedded_pg import wait_until
from tests.site.conftest import query


def test_a_worker_reads_the_copies_before_its_first_request(site):
    with site.server(workers=1, replica=False) as server:
        (pid,) = server.worker_pids()

        def last_statement() -> str:
            rows = query(
                site.primary.url(),
                "SELECT query FROM pg_stat_activity WHERE application_name LIKE %s",
                [f"bench % pid {pid}"],
            )
            return " ".join(q for (q,) in rows)

        # No request was made: only the start can have connected, and its last statement
        # is the value views' copy, read after the drive list's.
        assert wait_until(lambda: "results_leaderboardentry" in last_statement(), timeout=30)
