"""gunicorn settings for Bench (`make serve`; `gunicorn -c benchsite/gunicorn.conf.py
benchsite.wsgi`). Each can be overridden on gunicorn's command line or in GUNICORN_CMD_ARGS.

Sync workers: a request holds a worker for its whole life, so the worker count is what
bounds concurrency; the reverse proxy (deploy/nginx.conf) buffers slow clients so a worker
is never held by the network. This is the one place the worker model is chosen (make serve,
deploy/bench.service and make bench-load read it): gthread served more requests a second
under `make bench-load UPLOADS=1` but with a worse, unrepeatable p99 (docs/deploy.md, "The
worker model").

The site is loaded once, in the master, which warms it before it listens
(benchsite/warmup.py): every template compiled, the URL resolvers filled, the in-process
copies (the drive list, the value views' entries: seconds on a large catalog) read from each
database the pages read, with their columns made. Each worker starts with all of it, and
opens its own connections before it accepts a request (BENCH_PRELOAD=0: each worker loads the
site and warms itself). With the preload, HUP starts new workers with the configuration read
again but the code loaded at the start: a release restarts the server (docs/deploy.md).
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


preload_app = os.environ.get("BENCH_PRELOAD", "1") != "0"


def _warm(log, what: str, warm) -> None:
    """Run a warm-up step (benchsite.warmup): a failure only means the first requests do
    the work themselves."""
    try:
        warm()
    except Exception:
        log.warning("not warmed %s", what, exc_info=True)


def on_starting(server):
    """With the site preloaded, warm it once, in the master, before it listens and forks
    (benchsite.warmup.warm_master): every template compiled, the in-process copies read from
    each database with their columns made, the connections closed. Every worker starts with
    all of it, where five workers doing it at once on their first requests took the
    machine's CPUs while requests waited. What it holds then stays out of the garbage
    collector's full collections (as wsgi.py does for the site), which would otherwise write
    to every page of it in each worker."""
    if server.cfg.preload_app:
        import gc

        from benchsite import warmup

        _warm(server.log, "in the master", warmup.warm_master)
        gc.freeze()
        done = warmup.warmed
        server.log.info(
            "%s: %d templates compiled, %d copies on %s (%.1f s)",
            MASTER_READ,
            done.templates if done else 0,
            done.copies if done else 0,
            ", ".join(done.databases) if done else "no database",
            done.seconds if done else 0.0,
        )


def pre_fork(server, worker):
    """A worker forked later (one replaced, max_requests) starts with the copies up to date:
    the master applies what changed since it last read them (core.columns.Copy: the changed
    drives' rows, milliseconds; their columns made), so that the log it would otherwise
    apply in a request never grows long."""
    if server.cfg.preload_app:
        from django.db import connections

        from benchsite import warmup

        _warm(server.log, "before a fork", lambda: warmup.warm_copies(columns=True))
        connections.close_all()  # a forked worker must never share one


def post_fork(server, worker):
    """Preloaded, the settings were read in the master: name the worker's own database
    connections by its pid (pg_stat_activity), as a worker that loads the site does
    (settings/base.py)."""
    if server.cfg.preload_app:
        from django.conf import settings

        for alias, db in settings.DATABASES.items():
            options = db.get("OPTIONS", {})
            if options.get("application_name") == f"bench {alias} pid {server.pid}":
                options["application_name"] = f"bench {alias} pid {os.getpid()}"


def post_worker_init(worker):
    """Warm the worker before it takes its first request (benchsite.warmup.warm_worker):
    gunicorn calls this before the worker's accept loop, so no request waits behind it.
    Preloaded, the worker has the templates and copies from the master and only opens its
    connections and checks the copies' versions; otherwise it makes them itself."""
    from benchsite import warmup

    _warm(worker.log, "at start", lambda: warmup.warm_worker(preloaded=worker.cfg.preload_app))
    done = warmup.warmed if warmup.warmed and warmup.warmed.where == "worker" else None
    # What a benchmark waits for before it measures (loadtests.appserver).
    worker.log.info(
        "%s: %d templates compiled, copies on %s (%.1f s)",
        WORKER_READY,
        done.templates if done else 0,
        ", ".join(done.databases) if done else "no database",
        done.seconds if done else 0.0,
    )


# Logged first on their lines (tests and benchmarks count them).
WORKER_READY = "Worker ready: in-process copies read"
MASTER_READ = "In-process copies read before the workers were forked"
