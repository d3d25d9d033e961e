"""The shape docs/deploy.md recommends beyond one machine, on one machine: nginx in front
(deploy/nginx.conf, TLS included), gunicorn behind it with the production settings, Redis
for the cache (REDIS_URL) and a streaming read replica of the primary
(DATABASE_REPLICA_URLS). For bench_load's deployed shape and its test.

    with DeployedShape(env=env, folder=folder, workers=5) as shape:
        shape.url        # https://127.0.0.1:<port>, nginx
        shape.server     # the AppServer behind it

Every component is the real program, started here on loopback only (PostgreSQL on Unix
sockets, as the embedded cluster is) and stopped when the block ends, however it ends:

- the replica: DATABASE_REPLICA_URLS when env sets it; otherwise a streaming replica of the
  embedded primary that DATABASE_URL names, made afresh with pg_basebackup -R
  (benchsite.embedded_pg.Cluster) in a folder beside the primary's, removed afterwards, and
  waited for until it has replayed everything the primary had written;
- Redis: REDIS_URL when env sets it; otherwise a redis-server of its own on a free loopback
  port, configured as docs/deploy.md says (maxmemory with allkeys-lru, no persistence);
- gunicorn: loadtests.appserver.AppServer with BENCH_TLS=1, as behind the deployed proxy;
- nginx: deploy/nginx.conf with only its "yours" values replaced (this gunicorn as the one
  upstream, loopback ports, a certificate made for the run), so what is measured is the
  file that is deployed.

The one change to the proxy's configuration: deploy/nginx.conf stamps each request with
X-Request-Start "t=${msec}" (when nginx read it). The benchmark's clients stamp their own
(the moment they sent it), which nginx passes on where present, so that "queued" means the
same in both of bench_load's shapes: from the client's send to a worker taking it up.
"""

from __future__ import annotations

import contextlib
import secrets
import shutil
import socket
import subprocess
import tempfile
from pathlib import Path

import psycopg
from psycopg.conninfo import conninfo_to_dict

from benchsite.embedded_pg import Cluster, EmbeddedPostgresError, wait_until
from loadtests.appserver import ROOT, AppServer, prepare

START_TIMEOUT_S = 60
CATCH_UP_TIMEOUT_S = 120
STOP_TIMEOUT_S = 10
NGINX_CONF = ROOT / "deploy" / "nginx.conf"
# Redis as docs/deploy.md has it: bounded, least recently used keys evicted, no persistence.
REDIS_MAXMEMORY = "256mb"

# deploy/nginx.conf's example values ("yours"), each replaced for one machine.
EXAMPLE_UPSTREAMS = "\n".join(
    f"    server 10.0.0.{n}:8000 max_fails=3 fail_timeout=10s;" for n in (11, 12, 13)
)
REQUEST_START = 'proxy_set_header X-Request-Start "t=${msec}";'
# The client's own X-Request-Start where it sent one (the benchmark's), else nginx's.
CLIENT_REQUEST_START = """map $http_x_request_start $bench_request_start {
    "" "t=${msec}";
    default $http_x_request_start;
}
"""


class ShapeError(RuntimeError):
    """A component of the deployed shape could not be started; says which, and why."""


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def listening(port: int) -> bool:
    with socket.socket() as probe:
        return probe.connect_ex(("127.0.0.1", port)) == 0


def program(name: str, package: str) -> str:
    """The path of a program the shape runs (Debian's package `package`), or a clear error."""
    found = shutil.which(name) or next(
        (str(p) for p in (Path("/usr/sbin") / name, Path("/sbin") / name) if p.exists()), None
    )
    if found is None:
        raise ShapeError(
            f"{name} is not installed: the deployed shape runs it (Debian: apt-get install "
            f"{package}; `make bench-load SHAPE=deployed` installs it as root)"
        )
    return found


def _tail(path: Path, lines: int = 20) -> str:
    try:
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])
    except OSError:
        return "(no log)"


def _stop(process: subprocess.Popen | None) -> None:
    if process is None or process.poll() is not None:
        return
    process.terminate()
    try:
        process.wait(STOP_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def _folder(parent: Path | None, prefix: str) -> Path:
    # Reachable by the unprivileged users servers run as under root (PostgreSQL's, nginx's
    # workers'): not mode 0700, as mkdtemp makes it.
    folder = Path(tempfile.mkdtemp(prefix=prefix, dir=parent))
    folder.chmod(0o755)
    return folder


# -- the replica ----------------------------------------------------------------------------


def primary_cluster(database_url: str) -> Cluster:
    """The embedded cluster DATABASE_URL reaches (through its socket folder, DATA_DIR/socket),
    to make a replica of; an error when it is another server."""
    host = conninfo_to_dict(database_url).get("host", "")
    socket_dir = Path(host) if host.startswith("/") else None
    if socket_dir is None or not (socket_dir.parent / "PG_VERSION").exists():
        raise ShapeError(
            "the deployed shape makes its read replica from the embedded PostgreSQL; with "
            "DATABASE_URL set to another server, set DATABASE_REPLICA_URLS to a replica of it"
        )
    return Cluster(socket_dir.parent)


def replay_lag_bytes(primary_url: str, replica_url: str) -> int:
    """How far the replica's replay is behind what the primary has written, in WAL bytes."""
    with psycopg.connect(primary_url, autocommit=True) as primary:
        written = primary.execute("SELECT pg_current_wal_lsn()").fetchone()[0]
    with psycopg.connect(replica_url, autocommit=True) as replica:
        behind = replica.execute(
            "SELECT pg_wal_lsn_diff(%s::pg_lsn, pg_last_wal_replay_lsn())", [str(written)]
        ).fetchone()[0]
    return max(int(behind), 0)


@contextlib.contextmanager
def streaming_replica(database_url: str, database: str):
    """A streaming replica of the embedded primary (pg_basebackup -R), made beside it and
    removed afterwards; yields its URL once it has replayed all the primary had written."""
    primary = primary_cluster(database_url)
    folder = _folder(primary.data_dir.parent, f"{primary.data_dir.name}-replica-")
    replica = Cluster(folder / "replica", primary=primary)
    try:
        try:
            replica.start()
        except EmbeddedPostgresError as error:
            raise ShapeError(f"the streaming replica did not start: {error}") from error
        url = replica.url(database)
        if not wait_until(lambda: replay_lag_bytes(database_url, url) == 0, CATCH_UP_TIMEOUT_S):
            raise ShapeError(
                f"the replica did not catch up with the primary in {CATCH_UP_TIMEOUT_S} s:\n"
                + _tail(replica.log_file)
            )
        yield url
    finally:
        replica.stop()
        shutil.rmtree(folder, ignore_errors=True)


def streaming_standbys(primary_url: str) -> int:
    """How many standbys stream from the primary now (pg_stat_replication)."""
    with psycopg.connect(primary_url, autocommit=True) as conn:
        return conn.execute(
            "SELECT count(*) FROM pg_stat_replication WHERE state = 'streaming'"
        ).fetchone()[0]


# -- Redis ----------------------------------------------------------------------------------


@contextlib.contextmanager
def redis_server(folder: Path):
    """A redis-server of our own on a free loopback port; yields its REDIS_URL."""
    import redis

    binary = program("redis-server", "redis-server")
    port = free_port()
    log = folder / "redis.log"
    command = [binary, "--bind", "127.0.0.1", "--port", str(port), "--protected-mode", "yes"]
    command += ["--save", "", "--appendonly", "no", "--dir", str(folder)]
    command += ["--maxmemory", REDIS_MAXMEMORY, "--maxmemory-policy", "allkeys-lru"]
    command += ["--logfile", str(log)]
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
    client = redis.Redis(host="127.0.0.1", port=port, socket_connect_timeout=1)
    try:

        def answers() -> bool:
            if process.poll() is not None:
                raise ShapeError(f"redis-server exited at its start:\n{_tail(log)}")
            with contextlib.suppress(redis.RedisError):
                return bool(client.ping())
            return False

        if not wait_until(answers, START_TIMEOUT_S):
            raise ShapeError(f"redis-server did not answer in {START_TIMEOUT_S} s:\n{_tail(log)}")
        yield f"redis://127.0.0.1:{port}/0"
    finally:
        client.close()
        _stop(process)


def redis_stats(url: str) -> dict[str, int]:
    """Redis's own counts: keys held, lookups that found a key and that did not, evictions."""
    import redis

    client = redis.Redis.from_url(url, socket_timeout=2)
    try:
        info = client.info()
        return {
            "keys": int(client.dbsize()),
            "hits": int(info["keyspace_hits"]),
            "misses": int(info["keyspace_misses"]),
            "evicted": int(info["evicted_keys"]),
            "memory": int(info["used_memory"]),
        }
    finally:
        client.close()


# -- nginx ----------------------------------------------------------------------------------


def nginx_site(
    *, upstream: str, http_port: int, https_port: int, folder: Path, static_root: Path
) -> str:
    """deploy/nginx.conf for this machine: its "yours" values replaced, nothing else but the
    request stamp (see the module's docstring). static_root: collectstatic's output."""
    conf = NGINX_CONF.read_text()
    (folder / "www").mkdir(exist_ok=True)
    static = folder / "www" / "static"
    if not static.exists():
        static.symlink_to(static_root)
    replacements = {
        EXAMPLE_UPSTREAMS: f"    server {upstream} max_fails=3 fail_timeout=10s;",
        "listen 80;": f"listen 127.0.0.1:{http_port};",
        "listen [::]:80;": "",
        "listen 443 ssl;": f"listen 127.0.0.1:{https_port} ssl;",
        "listen [::]:443 ssl;": "",
        "/etc/ssl/certs/bench.example.org.pem": str(folder / "cert.pem"),
        "/etc/ssl/private/bench.example.org.key": str(folder / "key.pem"),
        "root /srv/bench;": f"root {folder / 'www'};",
        REQUEST_START: "proxy_set_header X-Request-Start $bench_request_start;",
    }
    for example, ours in replacements.items():
        if example not in conf:
            raise ShapeError(f"deploy/nginx.conf no longer has {example!r}: update {__file__}")
        conf = conf.replace(example, ours)
    return CLIENT_REQUEST_START + conf


def nginx_main(folder: Path) -> str:
    """The main context Debian's /etc/nginx/nginx.conf gives deploy/nginx.conf (a worker per
    CPU, sendfile), with every file in folder."""
    temp = " ".join(
        f"{kind}_temp_path {folder / kind};"
        for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi")
    )
    log_format = (
        "log_format bench '$msec $request_time $upstream_connect_time "
        '$upstream_response_time $status "$request"\';'
    )
    return (
        f"daemon off; worker_processes auto; pid {folder / 'nginx.pid'};\n"
        f"error_log {folder / 'error.log'};\n"
        "events { worker_connections 1024; }\n"
        "http { sendfile on; tcp_nopush on; types_hash_max_size 2048;\n"
        f"include /etc/nginx/mime.types; default_type application/octet-stream; {temp}\n"
        f"{log_format} access_log {folder / 'access.log'} bench;\n"
        f"include {folder / 'bench.conf'}; }}\n"
    )


def make_certificate(folder: Path) -> None:
    """A throw-away certificate for 127.0.0.1 (openssl)."""
    openssl = program("openssl", "openssl")
    done = subprocess.run(
        [openssl, "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1"]
        + ["-subj", "/CN=bench.example.org", "-addext", "subjectAltName=IP:127.0.0.1"]
        + ["-keyout", str(folder / "key.pem"), "-out", str(folder / "cert.pem")],
        capture_output=True,
        text=True,
        timeout=60,
    )
    if done.returncode != 0:
        raise ShapeError(f"openssl could not make the proxy's certificate:\n{done.stderr}")


@contextlib.contextmanager
def nginx_proxy(upstream: str, folder: Path, static_root: Path):
    """nginx with deploy/nginx.conf in front of upstream (host:port), serving static_root
    at /static/; yields its HTTPS URL."""
    binary = program("nginx", "nginx")
    make_certificate(folder)
    http_port, https_port = free_port(), free_port()
    site = nginx_site(
        upstream=upstream,
        http_port=http_port,
        https_port=https_port,
        folder=folder,
        static_root=static_root,
    )
    (folder / "bench.conf").write_text(site)
    (folder / "nginx.conf").write_text(nginx_main(folder))
    check = subprocess.run(
        [binary, "-t", "-c", str(folder / "nginx.conf")], capture_output=True, text=True
    )
    if check.returncode != 0:
        raise ShapeError(f"nginx refuses the configuration:\n{check.stderr}")
    process = subprocess.Popen(
        [binary, "-c", str(folder / "nginx.conf")],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.STDOUT,
    )
    try:

        def up() -> bool:
            if process.poll() is not None:
                raise ShapeError(f"nginx exited at its start:\n{_tail(folder / 'error.log')}")
            return listening(http_port) and listening(https_port)

        if not wait_until(up, START_TIMEOUT_S):
            raise ShapeError(f"nginx did not listen in {START_TIMEOUT_S} s")
        yield f"https://127.0.0.1:{https_port}"
    finally:
        _stop(process)  # SIGTERM: nginx's fast shutdown


def proxy_times(access_log: Path) -> list[tuple[float, float, float]]:
    """Each proxied request of nginx's log (the bench format of nginx_main): (its time in
    nginx from first byte read to last byte sent, the upstream's connect, the upstream's
    response), in ms."""
    found = []
    for line in access_log.read_text(errors="replace").splitlines() if access_log.exists() else []:
        fields = line.split(" ", 5)
        try:
            request, connect, upstream = (float(f) * 1e3 for f in fields[1:4])
        except ValueError:  # "-": answered by nginx itself
            continue
        found.append((request, connect, upstream))
    return found


# -- the whole shape ------------------------------------------------------------------------


class DeployedShape:
    """See the module's docstring. env: the app server's environment (DATABASE_URL and the
    rest, as for AppServer); prepared here (migrate, collectstatic) once Redis is known."""

    def __init__(
        self, *, env: dict[str, str], folder: Path, workers: int | None, database: str = "bench"
    ) -> None:
        self.env = dict(env)
        self.folder = folder
        self.workers = workers
        self.database = database
        self.url = ""
        self.server: AppServer | None = None
        self.replica_urls: list[str] = []
        self.redis_url = ""
        self._stack = contextlib.ExitStack()

    @property
    def access_log(self) -> Path:
        return self.folder / "nginx" / "access.log"

    def start(self) -> str:
        try:
            return self._start()
        except BaseException:
            self._stack.close()
            raise

    def _start(self) -> str:
        stack = self._stack
        self.folder.mkdir(parents=True, exist_ok=True)
        self.folder.chmod(0o755)  # nginx's workers (another user under root) write below it
        replicas = self.env.get("DATABASE_REPLICA_URLS", "")
        if not replicas:
            replicas = stack.enter_context(
                streaming_replica(self.env["DATABASE_URL"], self.database)
            )
        self.replica_urls = [u.strip() for u in replicas.split(",") if u.strip()]
        self.redis_url = self.env.get("REDIS_URL", "")
        if not self.redis_url:
            self.redis_url = stack.enter_context(redis_server(_folder(self.folder, "redis-")))
        self.env.update(
            DATABASE_REPLICA_URLS=",".join(self.replica_urls),
            REDIS_URL=self.redis_url,
            BENCH_TLS="1",  # behind the TLS-terminating proxy
        )
        self.env.setdefault("DJANGO_SECRET_KEY", secrets.token_urlsafe(50))
        prepare(self.env)
        self.server = stack.enter_context(
            AppServer(env=self.env, log=self.folder / "gunicorn.log", workers=self.workers)
        )
        nginx_folder = self.folder / "nginx"
        nginx_folder.mkdir(mode=0o755, exist_ok=True)
        nginx_folder.chmod(0o755)
        upstream = self.server.url.removeprefix("http://")
        static_root = Path(self.env.get("BENCH_STATIC_ROOT", ROOT / "static_root"))
        self.url = stack.enter_context(nginx_proxy(upstream, nginx_folder, static_root))
        return self.url

    def stop(self) -> None:
        self._stack.close()

    def __enter__(self) -> DeployedShape:
        self.start()
        return self

    def __exit__(self, *exc) -> None:
        self.stop()


def database_activity(url: str) -> int:
    """Transactions the server has counted in its database so far (pg_stat_database)."""
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("SELECT pg_stat_clear_snapshot()")
        return conn.execute(
            "SELECT xact_commit + xact_rollback FROM pg_stat_database "
            "WHERE datname = current_database()"
        ).fetchone()[0]
