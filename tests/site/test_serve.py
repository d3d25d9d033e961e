"""`make serve`: gunicorn with the production settings, static files, connections."""

import json
import os
import re
import signal
import stat
import subprocess
import sys

import requests

from benchsite.embedded_pg import wait_until
from loadtests.appserver import AppServer, server_environment
from tests.site.conftest import ADMIN, query
from tests.site.support import ROOT


def log_in(session: requests.Session, url: str) -> None:
    session.get(f"{url}/admin/login/")
    response = session.post(
        f"{url}/admin/login/?next=/admin/",
        data={
            "username": ADMIN[0],
            "password": ADMIN[1],
            "csrfmiddlewaretoken": session.cookies["csrftoken"],
        },
        allow_redirects=False,
    )
    assert response.status_code == 302, response.text[:500]


def test_loopback_serving_needs_no_configuration_and_keeps_its_key(site, workdir):
    key_file = workdir / "var" / "secret_key"
    env = site.env(replica=False, BENCH_SECRET_KEY_FILE=str(key_file))
    del env["DJANGO_SECRET_KEY"]  # and no DJANGO_ALLOWED_HOSTS: what a fresh clone has
    server = AppServer(env=env, log=workdir / "gunicorn.log", workers=None)
    session = requests.Session()
    with server:
        assert requests.get(f"{server.url}/").status_code == 200
        # Workers from the CPU count: (2 x CPUs) + 1.
        expected = 2 * len(os.sched_getaffinity(0)) + 1
        assert wait_until(lambda: len(server.worker_pids()) == expected)
        log_in(session, server.url)
    key = key_file.read_text()
    assert len(key.strip()) >= 50
    assert stat.S_IMODE(key_file.stat().st_mode) == 0o600
    # The access log: one line per request, with its status and duration.
    assert re.search(r'"GET / HTTP/1.1" 200 \d+ \d+ms', (workdir / "gunicorn.log").read_text())
    # Restarted, the server signs with the same key: the session is still valid.
    with AppServer(env=env, log=workdir / "gunicorn2.log", workers=1) as server:
        response = session.get(f"{server.url}/admin/", allow_redirects=False)
        assert response.status_code == 200
    assert key_file.read_text() == key


def test_serving_beyond_loopback_needs_a_key_and_host_names(site):
    env = site.env(replica=False)
    del env["DJANGO_SECRET_KEY"]
    result = subprocess.run(
        [sys.executable, "-m", "benchsite.serve", "--bind", "0.0.0.0:0", "--no-prepare"],
        cwd=ROOT,
        env=server_environment(env),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode != 0
    assert "needs DJANGO_SECRET_KEY and DJANGO_ALLOWED_HOSTS set" in result.stderr
    assert "Traceback" not in result.stderr


def test_static_files_have_hashed_names_compression_and_far_future_caching(site):
    with site.server(replica=False, workers=1) as server:
        page = requests.get(f"{server.url}/").text
        css = re.search(r'href="(/static/css/bench\.[0-9a-f]{12}\.css)"', page)
        assert css, "the stylesheet is not referenced by its hashed name"
        response = requests.get(server.url + css.group(1), headers={"Accept-Encoding": "gzip"})
        assert response.status_code == 200
        assert response.headers["Content-Encoding"] == "gzip"
        assert response.headers["Cache-Control"] == "max-age=315360000, public, immutable"
        assert "text/css" in response.headers["Content-Type"]


def test_workers_keep_their_connection_between_requests(site):
    with site.server(replica=False, workers=1) as server:
        (worker,) = server.worker_pids()
        name = f"bench default pid {worker}"
        sql = "SELECT pid, backend_start FROM pg_stat_activity WHERE application_name = %s"
        for _ in range(3):
            assert requests.get(f"{server.url}/").status_code == 200
        first = query(site.primary.url(), sql, [name])
        for _ in range(3):
            assert requests.get(f"{server.url}/").status_code == 200
        assert len(first) == 1
        assert query(site.primary.url(), sql, [name]) == first


def test_the_server_counts_the_workers_it_started(site):
    """What the load benchmarks print: a worker replaced while they measure is one import of
    the whole site more."""
    with site.server(replica=False, workers=2) as server:
        assert server.boots() == 2
        os.kill(server.worker_pids()[0], signal.SIGKILL)
        assert wait_until(lambda: server.boots() == 3 and len(server.worker_pids()) == 2)
        assert requests.get(f"{server.url}/healthz").status_code == 200


def run_python(site, code: str, **env: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        env=server_environment(site.env(replica=False, **env)),
        capture_output=True,
        text=True,
        timeout=60,
    )


SHOW_TIMEOUT = (
    "{setup}\nfrom django.db import connection\n"
    "with connection.cursor() as c:\n"
    "    c.execute('SHOW statement_timeout'); print(c.fetchone()[0])\n"
    "    c.execute('SELECT pg_sleep(0.5)')\n"
)
WEB = "import benchsite.wsgi"
COMMAND = "import django; django.setup()"


def test_web_workers_cancel_slow_statements(site):
    web = run_python(site, SHOW_TIMEOUT.format(setup=WEB))
    assert web.stdout.split()[0] == "10s"
    assert web.returncode == 0
    short = run_python(site, SHOW_TIMEOUT.format(setup=WEB), BENCH_STATEMENT_TIMEOUT_MS="100")
    assert short.stdout.split()[0] == "100ms"
    assert "canceling statement due to statement timeout" in short.stderr
    # Management commands (migrate, imports) have no limit.
    command = run_python(
        site, SHOW_TIMEOUT.format(setup=COMMAND), DJANGO_SETTINGS_MODULE="benchsite.settings.prod"
    )
    assert command.stdout.split()[0] == "0"


def test_web_workers_start_with_their_views_loaded_and_the_collector_settled(site):
    """What a worker holds after start is left out of full collections, views included (so
    that the first request does not import them into the young generation)."""
    shown = run_python(
        site,
        f"{WEB}\nimport gc, sys\nprint(gc.get_freeze_count(), gc.get_threshold()[0], "
        "'results.views.compare' in sys.modules)",
    )
    frozen, young, views = shown.stdout.split()
    assert shown.returncode == 0, shown.stderr
    assert int(frozen) > 10_000 and int(young) == 10_000 and views == "True"


def test_an_upload_streamed_without_its_length_is_taken(site):
    """A reviewer piping a document to the API as the README shows (`curl -T -`: chunked, no
    Content-Length) gets it ingested when gunicorn serves alone, not refused as empty."""
    create = "from django.contrib.auth.models import User; User.objects.create_user('pip')"
    site.manage("shell", "-c", create)
    token = site.manage("reviewer_token", "pip").stdout.strip()
    raw = (ROOT / "results/schema/samples/measured-loadgen-quick.json").read_bytes()
    with site.server(replica=False, workers=1) as server:
        sent = subprocess.run(
            ["curl", "-sS", "-v", "-X", "POST", "-T", "-", "-w", "\n%{http_code}"]
            + ["-H", f"Authorization: Token {token}", "-H", "Content-Type: application/json"]
            + [f"{server.url}/api/v1/runs/"],
            input=raw,
            capture_output=True,
            timeout=60,
        )
        headers = sent.stderr.decode().lower()
        assert "> transfer-encoding: chunked" in headers and "> content-length" not in headers
        body, status = sent.stdout.decode().rsplit("\n", 1)
        # The demo holds this sample already: the upload answers with that run (200).
        assert status in ("200", "201"), body
        run = requests.get(json.loads(body)["run"]["url"], timeout=30).json()
        assert run["tool"]["name"] == "loadgen" and run["complete"]
