"""gunicorn settings for Bench (`make serve`; `gunicorn -c benchsite/gunicorn.conf.py
benchsite.wsgi`). Each can be overridden on gunicorn's command line or in GUNICORN_CMD_ARGS.

Sync workers: a request holds a worker for its whole life, so the worker count is what
bounds concurrency; the reverse proxy (deploy/nginx.conf) buffers slow clients so a worker
is never held by the network.
"""

import os
from pathlib import Path

chdir = str(Path(__file__).resolve().parent.parent)  # the project, wherever started from
# BENCH_BIND: one address or several, comma-separated (host:port, or unix:/path).
bind = os.environ.get("BENCH_BIND", "127.0.0.1:8000").split(",")

# (2 x CPUs) + 1: while one worker waits on PostgreSQL, another uses the CPU. The CPUs this
# process may run on (cgroup and affinity limits), not the machine's. WEB_CONCURRENCY wins.
workers = int(os.environ.get("WEB_CONCURRENCY", 2 * len(os.sched_getaffinity(0)) + 1))

# A worker silent this long is killed and replaced; the statement timeout (10 s, wsgi.py)
# ends a slow query well before. Restarts and stops give requests in flight this long.
timeout = 30
graceful_timeout = 30
keepalive = 5  # behind the proxy, which keeps connections to the app servers open
# Replace each worker after a while (jittered so they do not restart together): bounds
# whatever a long-lived process accumulates. A new worker imports the whole site, about
# 0.9 s of CPU: at 2,000 requests a life that cost 0.45 ms a request, a third of what the
# lightest request costs, and took a third of the machine at 1,600 requests a second.
max_requests = 50_000
max_requests_jitter = 5_000
limit_request_line = 8190
worker_tmp_dir = "/dev/shm" if os.path.isdir("/dev/shm") else None  # heartbeats off the disk

# Access log to stdout, errors to stderr: the service manager collects both. %(M)s is the
# request's duration in milliseconds.
accesslog = "-"
errorlog = "-"
access_log_format = '%(h)s "%(r)s" %(s)s %(B)s %(M)sms "%(a)s"'

# X-Forwarded-* are trusted from these proxy addresses only (gunicorn's default: loopback).
forwarded_allow_ips = os.environ.get("BENCH_FORWARDED_ALLOW_IPS", "127.0.0.1,::1")
# Several servers may run on one machine (tests, app servers side by side): no shared
# control socket; manage gunicorn with signals (HUP reloads, TERM stops gracefully).
control_socket_disable = True
proc_name = "bench"


def post_worker_init(worker):
    """Read the in-process copies (the drive list, the value views' entries) before the
    worker takes its first request: on a large catalog a copy takes seconds to read, and a
    new worker's first readers would otherwise wait for it (every worker at once after a
    start). A database that does not answer leaves them to the first request, as before."""
    import time

    from drives.catalog_index import catalog_index
    from results.value_index import value_index

    started = time.monotonic()
    try:
        catalog_index()
        value_index()
    except Exception:  # any failure only means the first request reads them
        worker.log.warning("in-process copies not read at start", exc_info=True)
    # What a benchmark waits for before it measures (loadtests.appserver).
    worker.log.info("%s (%.1f s)", WORKER_READY, time.monotonic() - started)


WORKER_READY = "Worker ready: in-process copies read"
