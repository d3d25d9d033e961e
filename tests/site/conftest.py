"""Fixtures for the serving tests: a real redis-server, and a site served by gunicorn on a
PostgreSQL primary with a streaming replica, the demo data and an admin account."""

import secrets
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

import psycopg
import pytest

from benchsite.embedded_pg import Cluster, wait_until
from loadtests.appserver import AppServer, prepare, server_environment
from tests.site.support import ROOT

ADMIN = ("admin", "a-long-test-password-41")


def _folder(prefix: str) -> Path:
    # Not pytest's tmp_path: its parents are private to the user, and as root the server
    # runs as an unprivileged user who must reach the folder.
    folder = Path(tempfile.mkdtemp(prefix=prefix))
    folder.chmod(0o755)
    return folder


@pytest.fixture
def workdir():
    folder = _folder("bench-site-test-")
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture(scope="session")
def redis_url():
    """A redis-server of our own on a Unix socket (Debian's package; `make test` installs it)."""
    binary = shutil.which("redis-server")
    if binary is None:
        pytest.fail("redis-server is missing: `make test-python` installs Debian's package")
    folder = _folder("bench-redis-")
    socket = folder / "redis.sock"
    server = subprocess.Popen(
        [binary, "--port", "0", "--unixsocket", str(socket), "--unixsocketperm", "700"]
        + ["--save", "", "--appendonly", "no", "--dir", str(folder)],
        stdout=subprocess.DEVNULL,
    )
    try:
        assert wait_until(socket.exists, timeout=10), "redis-server did not start"
        yield f"unix://{socket}"
    finally:
        server.terminate()
        server.wait(10)
        shutil.rmtree(folder, ignore_errors=True)


def query(url: str, sql: str, params=()) -> list[tuple]:
    with psycopg.connect(url, autocommit=True) as conn:
        cursor = conn.execute(sql, params)
        return cursor.fetchall() if cursor.description else []


@dataclass
class Site:
    primary: Cluster
    replica: Cluster
    folder: Path

    def env(self, *, replica: bool = True, **extra: str) -> dict[str, str]:
        env = {
            "DATABASE_URL": self.primary.url(),
            "DJANGO_SECRET_KEY": secrets.token_urlsafe(50),
            "BENCH_STATIC_ROOT": str(self.folder / "static"),
        }
        if replica:
            env["DATABASE_REPLICA_URLS"] = self.replica.url()
        return {**env, **extra}

    def server(self, *, workers: int = 2, replica: bool = True, **extra: str) -> AppServer:
        log = self.folder / f"gunicorn-{secrets.token_hex(4)}.log"
        return AppServer(env=self.env(replica=replica, **extra), log=log, workers=workers)

    def manage(self, *args: str, **env: str) -> subprocess.CompletedProcess:
        return subprocess.run(
            [sys.executable, "manage.py", *args],
            cwd=ROOT,
            env=server_environment({**self.env(), **env}),
            capture_output=True,
            text=True,
            check=True,
        )


@pytest.fixture(scope="session")
def site():
    folder = _folder("bench-site-")
    primary = Cluster(folder / "primary", ephemeral=True)
    replica = Cluster(folder / "replica", ephemeral=True, primary=primary)
    try:
        primary.start()
        primary.create_database("bench")
        served = Site(primary, replica, folder)
        prepare(served.env(replica=False), demo=True)
        served.manage(
            "createsuperuser",
            "--noinput",
            f"--username={ADMIN[0]}",
            "--email=admin@example.org",
            DJANGO_SUPERUSER_PASSWORD=ADMIN[1],
        )
        replica.start()
        yield served
    finally:
        replica.stop()
        primary.stop()
        shutil.rmtree(folder, ignore_errors=True)
