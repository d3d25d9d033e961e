"""bench_load's deployed shape for real (loadtests/deployed.py): nginx with deploy/nginx.conf
and TLS in front of gunicorn, Redis for the cache, a streaming replica made for it from the
primary; a request through nginx reads from the replica and is kept in Redis, and nothing is
left running afterwards."""

import shutil
import tempfile
import uuid
from pathlib import Path

import pytest
import redis
import requests
from psycopg.conninfo import conninfo_to_dict

from benchsite.embedded_pg import wait_until
from benchsite.response_cache import CACHE_STATUS_HEADER
from loadtests.deployed import DeployedShape, listening, redis_stats, streaming_standbys
from tests.site.conftest import query


def ran_on(url: str, marker: str) -> bool:
    """Whether the site's connections to this server last ran a query with marker."""
    sql = "SELECT query FROM pg_stat_activity WHERE application_name LIKE 'bench %%'"
    return any(marker in q for (q,) in query(url, sql))


@pytest.fixture(scope="module")
def folder():
    made = Path(tempfile.mkdtemp(prefix="bench-shape-test-"))
    yield made
    shutil.rmtree(made, ignore_errors=True)


@pytest.fixture(scope="module")
def shape(site, folder):
    # Parameters bound on the client: the search marker is in the statement text that
    # pg_stat_activity shows (tests/site/test_replicas.py).
    env = site.env(replica=False, BENCH_DB_PREPARE="0")
    with DeployedShape(env=env, folder=folder / "shape", workers=1) as started:
        yield started


@pytest.fixture
def client(shape):
    session = requests.Session()
    session.verify = str(shape.folder / "nginx" / "cert.pem")  # made for 127.0.0.1
    session.trust_env = False
    return session


def test_a_read_through_nginx_runs_on_the_replica(site, shape, client):
    assert streaming_standbys(site.primary.url()) >= 1
    assert query(shape.replica_urls[0], "SELECT pg_is_in_recovery()") == [(True,)]
    marker = uuid.uuid4().hex
    response = client.get(f"{shape.url}/", params={"q": marker + "é"})
    assert response.status_code == 200
    assert response.headers["Server"].startswith("nginx")
    # HTTPS as the app saw it through X-Forwarded-Proto (BENCH_TLS=1 trusts it).
    assert response.headers["Strict-Transport-Security"].startswith("max-age=")
    assert ran_on(shape.replica_urls[0], marker)
    assert not ran_on(site.primary.url(), marker)


def bench_keys(url: str) -> set[bytes]:
    kept = redis.Redis.from_url(url)
    try:
        return {key for key in kept.scan_iter(match="bench:*", count=1000)}
    finally:
        kept.close()


def test_a_kept_response_is_written_to_redis(shape, client):
    path = f"{shape.url}/api/v1/drives/?q={uuid.uuid4().hex}"
    keys, looked_up = bench_keys(shape.redis_url), redis_stats(shape.redis_url)["misses"]
    first = client.get(path)
    assert first.status_code == 200 and first.headers[CACHE_STATUS_HEADER] == "miss"
    # Looked for in Redis, not found; written there once sent.
    assert redis_stats(shape.redis_url)["misses"] > looked_up
    assert wait_until(lambda: bench_keys(shape.redis_url) - keys, 5)
    second = client.get(path)
    assert second.status_code == 200 and second.headers[CACHE_STATUS_HEADER] == "hit"
    assert second.content == first.content


def test_the_shape_stops_everything_it_started(site, shape):  # the last: it stops the shape
    primary = site.primary.url()
    standbys = streaming_standbys(primary)
    port = int(shape.url.rsplit(":", 1)[1])
    redis_port = int(shape.redis_url.rsplit(":", 1)[1].split("/")[0])
    gunicorn = shape.server.process.pid
    replica_folder = Path(conninfo_to_dict(shape.replica_urls[0])["host"]).parents[1]
    assert replica_folder.is_dir()
    shape.stop()
    assert not listening(port) and not listening(redis_port)
    assert not Path(f"/proc/{gunicorn}").exists()
    assert wait_until(lambda: streaming_standbys(primary) == standbys - 1, 10)
    assert not replica_folder.exists()
