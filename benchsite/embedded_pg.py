"""A private PostgreSQL cluster for `make run` and the test suite.

Bench never needs a database server installed and running: this module finds the
PostgreSQL server binaries on the machine (BENCH_PG_BIN, PATH, /usr/lib/postgresql/*/bin,
or the `pgserver` wheel that ships them), creates a cluster in a folder, starts it on a
Unix socket only (no TCP), and stops it cleanly when the command it wraps ends or is
interrupted.

    python -m benchsite.embedded_pg run [--data-dir var/pg | --ephemeral] [--replica] -- COMMAND...

runs COMMAND with DATABASE_URL pointing at the cluster (and, with --replica, a streaming
replica of it made with pg_basebackup -R, in DATABASE_REPLICA_URLS). When DATABASE_URL is
already set, that server is used and no cluster is started.

A server left behind by a launcher that was killed outright is stopped before the next
start (fast shutdown, then immediate, then SIGKILL), and its postmaster.pid is removed only
once none of its processes is left.

PostgreSQL refuses to run as root; when started by root the server runs as the
unprivileged user BENCH_PG_USER (default "nobody") and the cluster folder belongs to it.
"""

from __future__ import annotations

import argparse
import contextlib
import ctypes
import fcntl
import hashlib
import importlib.util
import os
import pwd
import re
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import time
from pathlib import Path

DEFAULT_DATABASE = "bench"
SUPERUSER = "bench"
START_TIMEOUT_S = 60
STOP_TIMEOUT_S = 30  # for a fast shutdown; an immediate one and SIGKILL get KILL_TIMEOUT_S
KILL_TIMEOUT_S = 10
REQUIRED_PROGRAMS = ("initdb", "postgres")
DEBIAN_PG_ROOT = Path("/usr/lib/postgresql")
# Where server programs out of the unprivileged server user's reach are copied (as root).
SHARED_BIN_ROOT = Path("/var/tmp")
PR_SET_PDEATHSIG = 1

# Settings for a throw-away cluster: durability buys nothing there.
EPHEMERAL_SETTINGS = {
    "fsync": "off",
    "synchronous_commit": "off",
    "full_page_writes": "off",
}


class EmbeddedPostgresError(RuntimeError):
    """A problem a user can act on; printed without a traceback."""


def find_bin_dir() -> Path | None:
    """The folder holding initdb and postgres, or None when the machine has none."""
    candidates: list[Path] = []
    if os.environ.get("BENCH_PG_BIN"):
        candidates.append(Path(os.environ["BENCH_PG_BIN"]))
    on_path = shutil.which("postgres") or shutil.which("pg_ctl")
    if on_path:
        candidates.append(Path(on_path).resolve().parent)

    def version_key(path: Path) -> tuple[int, ...]:
        return tuple(int(n) for n in re.findall(r"\d+", path.parent.name)) or (0,)

    candidates += sorted(DEBIAN_PG_ROOT.glob("*/bin"), key=version_key, reverse=True)
    spec = importlib.util.find_spec("pgserver")
    if spec and spec.origin:
        candidates.append(Path(spec.origin).parent / "pginstall" / "bin")
    for folder in candidates:
        if all((folder / program).is_file() for program in REQUIRED_PROGRAMS):
            return folder
    return None


def _server_user() -> pwd.struct_passwd | None:
    """The account the server runs as, or None to run as the current user."""
    if os.geteuid() != 0:
        return None
    name = os.environ.get("BENCH_PG_USER", "nobody")
    try:
        return pwd.getpwnam(name)
    except KeyError as exc:
        raise EmbeddedPostgresError(
            f"running as root, PostgreSQL needs an unprivileged account; '{name}' does not "
            "exist (set BENCH_PG_USER to one that does)"
        ) from exc


def _closed_folder(path: Path, user: pwd.struct_passwd) -> Path | None:
    """The first of path's parents that user cannot enter, or None."""
    for folder in reversed(path.parents):
        st = folder.stat()
        owner, group = st.st_uid == user.pw_uid, st.st_gid == user.pw_gid
        allowed = 0o100 if owner else 0o010 if group else 0o001
        if not st.st_mode & allowed:
            return folder
    return None


def _reachable_bin_dir(bin_dir: Path, user: pwd.struct_passwd) -> Path:
    """The server's programs where its unprivileged user can run them. As root in a clone
    under a folder only root may enter (/root), pgserver's programs inside .venv are out of
    that user's reach: their installation (bin, lib, share) is copied once, with the
    libraries the wheel ships beside its package (pgserver.libs, which the programs' RPATH
    names relative to them), to a folder of root's in /var/tmp that every user may enter and
    none but root may write."""
    if _closed_folder(bin_dir / "initdb", user) is None:
        return bin_dir
    install = bin_dir.parent
    package = install.parent
    postgres = (bin_dir / "postgres").stat()
    key = hashlib.sha256(
        f"{install.resolve()}:{postgres.st_size}:{postgres.st_mtime_ns}".encode()
    ).hexdigest()[:16]
    target = SHARED_BIN_ROOT / f"bench-postgresql-{key}"
    programs = target / package.name / install.name / bin_dir.name
    if not (programs / "initdb").is_file():
        made = Path(tempfile.mkdtemp(prefix=f"{target.name}.", dir=SHARED_BIN_ROOT))
        try:
            tree = made / "tree"
            shutil.copytree(install, tree / package.name / install.name, symlinks=True)
            for libs in package.parent.glob(f"{package.name}.libs"):
                shutil.copytree(libs, tree / libs.name, symlinks=True)
            for folder in (made, tree, tree / package.name, tree / package.name / install.name):
                folder.chmod(0o755)
            try:
                os.rename(tree, target)
            except OSError:
                if not (programs / "initdb").is_file():  # not another start's copy
                    raise
        finally:
            shutil.rmtree(made, ignore_errors=True)
    st = target.lstat()
    if st.st_uid != 0 or st.st_mode & 0o022 or not stat.S_ISDIR(st.st_mode):
        raise EmbeddedPostgresError(
            f"{target} is not root's alone (owner {st.st_uid}, mode {oct(st.st_mode)}): "
            "remove it, or set BENCH_PG_BIN to server programs every user can reach"
        )
    return programs


def _die_with_parent() -> None:
    # Runs in the child after the user switch: if the launcher is killed outright,
    # the kernel sends the postmaster SIGINT (fast shutdown), so no server is orphaned.
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(PR_SET_PDEATHSIG, signal.SIGINT, 0, 0, 0)


def server_pids(data_dir: Path) -> list[int]:
    """Live processes of a server running on data_dir: its postmaster and the postmaster's
    children (a server's processes all work in its data folder)."""
    data_dir = data_dir.resolve()
    found = []
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            if (
                Path(os.readlink(proc / "cwd")) == data_dir
                and b"postgres" in (proc / "cmdline").read_bytes()
                and (proc / "stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
            ):
                found.append(int(proc.name))
        except (OSError, IndexError):
            continue  # gone meanwhile (a zombie has no cwd)
    return found


def wait_until(condition, timeout: float = 30.0) -> bool:
    """Poll condition until it holds (True) or timeout seconds have passed (False)."""
    deadline = time.monotonic() + timeout
    while True:
        if condition():
            return True
        if time.monotonic() >= deadline:
            return False
        time.sleep(0.05)


class Cluster:
    """One PostgreSQL cluster in data_dir, reachable through a socket in data_dir/socket."""

    def __init__(
        self,
        data_dir: Path,
        *,
        ephemeral: bool = False,
        primary: Cluster | None = None,
    ) -> None:
        self.data_dir = data_dir.resolve()
        self.primary = primary  # when set, this cluster is a streaming replica of it
        self.socket_dir = self.data_dir / "socket"
        self.log_file = self.data_dir.parent / f"{self.data_dir.name}.log"
        self.ephemeral = ephemeral
        self.bin_dir = find_bin_dir()
        if self.bin_dir is None:
            raise EmbeddedPostgresError(
                "no PostgreSQL server binaries found (looked at BENCH_PG_BIN, PATH, "
                "/usr/lib/postgresql/*/bin and the pgserver package); `make` installs pgserver "
                "when the machine has none"
            )
        self.user = _server_user()
        if self.user is not None:
            self.bin_dir = _reachable_bin_dir(self.bin_dir, self.user)
        self.process: subprocess.Popen | None = None
        self._lock_fd: int | None = None

    # -- helpers ---------------------------------------------------------------------
    def _run_as_kwargs(self) -> dict:
        if self.user is None:
            return {}
        return {"user": self.user.pw_uid, "group": self.user.pw_gid, "extra_groups": []}

    def _run(self, command: list[str]) -> None:
        """Run one of the server's programs as the server's user; its output on failure."""
        result = subprocess.run(
            command, capture_output=True, text=True, check=False, **self._run_as_kwargs()
        )
        if result.returncode != 0:
            name = Path(command[0]).name
            raise EmbeddedPostgresError(f"{name} failed:\n{result.stdout}{result.stderr}")

    def _chown(self, path: Path) -> None:
        if self.user is not None:
            os.chown(path, self.user.pw_uid, self.user.pw_gid)

    def url(self, database: str = DEFAULT_DATABASE) -> str:
        return f"postgresql://{SUPERUSER}@/{database}?host={self.socket_dir}"

    # -- lifecycle -------------------------------------------------------------------
    def _take_lock(self) -> None:
        if self._lock_fd is not None:
            return  # started before (and stopped hard): the lock is still ours
        lock_path = self.data_dir.parent / f".{self.data_dir.name}.lock"
        fd = os.open(lock_path, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError as exc:
            os.close(fd)
            raise EmbeddedPostgresError(
                f"another Bench process is already running the database in {self.data_dir}; "
                "stop it first (Ctrl-C in its terminal)"
            ) from exc
        self._lock_fd = fd

    def served_by_another(self) -> bool:
        """Whether another launcher runs this cluster now (it holds the lock and the server
        is up): a command can use its database without starting one of its own."""
        lock_path = self.data_dir.parent / f".{self.data_dir.name}.lock"
        if not lock_path.exists():
            return False
        fd = os.open(lock_path, os.O_RDWR)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            held = True
        else:
            fcntl.flock(fd, fcntl.LOCK_UN)
            held = False
        finally:
            os.close(fd)
        return held and (self.data_dir / "postmaster.pid").exists()

    def _clear_stale_server(self) -> None:
        """Remove what a crash left behind: an orphaned server or a stale postmaster.pid."""
        pid_file = self.data_dir / "postmaster.pid"
        try:
            recorded = int(pid_file.read_text().split("\n", 1)[0])
        except (ValueError, OSError):
            recorded = 0
        leftovers = server_pids(self.data_dir)
        if leftovers:
            # We hold the launcher lock, so no live launcher owns this server: an orphan.
            postmaster = recorded if recorded in leftovers else min(leftovers)
            print(f"stopping an orphaned PostgreSQL server (pid {postmaster})", file=sys.stderr)
            self._shut_down(postmaster)
        # No process of the cluster is left: the file (and the sockets) are stale.
        with contextlib.suppress(FileNotFoundError):
            pid_file.unlink()
        for stale in self.socket_dir.glob(".s.PGSQL.*"):
            stale.unlink()

    def _shut_down(self, postmaster: int) -> None:
        """Stop the server and return only when none of its processes is left: a fast
        shutdown, then an immediate one, then SIGKILL. Raises when they will not go."""
        steps = (
            (signal.SIGINT, STOP_TIMEOUT_S),
            (signal.SIGQUIT, KILL_TIMEOUT_S),
            (signal.SIGKILL, KILL_TIMEOUT_S),
        )
        for signum, timeout in steps:
            targets = server_pids(self.data_dir) if signum == signal.SIGKILL else [postmaster]
            for pid in targets:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signum)
            if wait_until(lambda: not server_pids(self.data_dir), timeout):
                return
        raise EmbeddedPostgresError(
            f"PostgreSQL processes {server_pids(self.data_dir)} on {self.data_dir} do not "
            "stop; stop them by hand, then start again"
        )

    def _check_reachable(self) -> None:
        """The server user must be able to reach the cluster folder through its parents."""
        if self.user is None:
            return
        folder = _closed_folder(self.data_dir, self.user)
        if folder is not None:
            raise EmbeddedPostgresError(
                f"PostgreSQL cannot run as root, so it runs as '{self.user.pw_name}', who "
                f"cannot enter {folder}; allow it (chmod o+x {folder}), choose another "
                "folder, or set BENCH_PG_USER"
            )

    def _initdb(self) -> None:
        self.data_dir.mkdir(parents=True, exist_ok=True)
        self.data_dir.chmod(0o700)
        self._chown(self.data_dir)
        command = [
            str(self.bin_dir / "initdb"),
            "-D",
            str(self.data_dir),
            "-U",
            SUPERUSER,
            "--auth=trust",
            "--encoding=UTF8",
            "--locale=C",
        ]
        if self.ephemeral:
            command.append("--no-sync")
        self._run(command)

    def _base_backup(self) -> None:
        """Copy the running primary with pg_basebackup -R: this cluster starts as its standby."""
        self.data_dir.mkdir(parents=True, exist_ok=True)
        self.data_dir.chmod(0o700)
        self._chown(self.data_dir)
        conninfo = (
            f"host={self.primary.socket_dir} user={SUPERUSER} application_name={self.data_dir.name}"
        )
        command = [
            str(self.bin_dir / "pg_basebackup"),
            *("-D", str(self.data_dir), "-d", conninfo),
            *("-R", "-X", "stream", "-c", "fast"),
        ]
        if self.ephemeral:
            command.append("--no-sync")
        self._run(command)

    def start(self) -> None:
        self.data_dir.parent.mkdir(parents=True, exist_ok=True)
        self._check_reachable()
        self._take_lock()
        if not (self.data_dir / "PG_VERSION").exists():
            if self.data_dir.exists() and any(self.data_dir.iterdir()):
                raise EmbeddedPostgresError(
                    f"{self.data_dir} exists but holds no PostgreSQL cluster; move it away"
                )
            if self.primary is not None:
                self._base_backup()
            else:
                self._initdb()
        self._clear_stale_server()
        self.socket_dir.mkdir(exist_ok=True)
        self.socket_dir.chmod(0o700)
        self._chown(self.socket_dir)
        settings = {"listen_addresses": "", "unix_socket_directories": str(self.socket_dir)}
        if self.ephemeral:
            settings.update(EPHEMERAL_SETTINGS)
        command = [str(self.bin_dir / "postgres"), "-D", str(self.data_dir)]
        for key, value in settings.items():
            command += ["-c", f"{key}={value}"]
        log = open(self.log_file, "ab")  # noqa: SIM115 - kept open for the server's life
        self._chown(self.log_file)
        self.process = subprocess.Popen(
            command,
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # Ctrl-C reaches the launcher, which stops the server
            preexec_fn=_die_with_parent,
            **self._run_as_kwargs(),
        )
        log.close()
        self._wait_ready()

    def _wait_ready(self) -> None:
        socket = self.socket_dir / ".s.PGSQL.5432"
        deadline = time.monotonic() + START_TIMEOUT_S
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise EmbeddedPostgresError(
                    f"PostgreSQL exited during start-up:\n{self._log_tail()}"
                )
            if socket.exists() and self._accepts_connections():
                return
            time.sleep(0.05)
        self.stop()
        raise EmbeddedPostgresError(
            f"PostgreSQL did not start in {START_TIMEOUT_S} s:\n{self._log_tail()}"
        )

    def _accepts_connections(self) -> bool:
        import psycopg

        try:
            with psycopg.connect(self.url("postgres"), connect_timeout=2):
                return True
        except psycopg.OperationalError:
            return False

    def _log_tail(self, lines: int = 20) -> str:
        try:
            return "\n".join(self.log_file.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return "(no log)"

    def create_database(self, name: str) -> None:
        import psycopg
        from psycopg import sql

        with psycopg.connect(self.url("postgres"), autocommit=True) as conn:
            exists = conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", [name]).fetchone()
            if not exists:
                conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))

    def stop(self) -> None:
        """Stop the server (waiting until it is gone) and release the folder."""
        if self.process is not None and self.process.poll() is None:
            self._shut_down(self.process.pid)
            self.process.wait()  # gone already: reap it
        self.process = None
        if self._lock_fd is not None:
            os.close(self._lock_fd)
            self._lock_fd = None

    def stop_immediate(self) -> None:
        """What a crash does to the server: `pg_ctl stop -m immediate` (no shutdown checkpoint;
        the next start replays the WAL). The folder stays ours; start() starts it again."""
        if self.process is None or self.process.poll() is not None:
            return
        self._run(
            [str(self.bin_dir / "pg_ctl"), "stop", "-D", str(self.data_dir), "-m", "immediate"]
        )
        self.process.wait(KILL_TIMEOUT_S)
        self.process = None


@contextlib.contextmanager
def running_cluster(
    data_dir: Path | None, *, database: str = DEFAULT_DATABASE, replica: bool = False
):
    """Yield a DATABASE_URL for a started cluster (a temporary one when data_dir is None).

    With replica=True, yield (primary URL, replica URL): a streaming replica of the cluster
    is started next to it (in DATA_DIR-replica), after the database is created.
    """
    with contextlib.ExitStack() as stack:
        ephemeral = data_dir is None
        if ephemeral:
            parent = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="bench-pg-")))
            parent.chmod(0o755)
            data_dir = parent / "data"
        cluster = Cluster(data_dir, ephemeral=ephemeral)
        if not replica and cluster.served_by_another():
            # The running site's database (`make run` in another terminal): used, not owned.
            print(f"using the database the running site serves ({data_dir})", file=sys.stderr)
            yield cluster.url(database)
            return
        stack.callback(cluster.stop)
        cluster.start()
        cluster.create_database(database)
        if not replica:
            yield cluster.url(database)
            return
        standby = Cluster(
            data_dir.with_name(f"{data_dir.name}-replica"), ephemeral=ephemeral, primary=cluster
        )
        stack.callback(standby.stop)
        standby.start()
        yield cluster.url(database), standby.url(database)


def run_command(
    command: list[str], *, data_dir: Path | None, database: str, replica: bool = False
) -> int:
    """Run command with DATABASE_URL set, starting a cluster when none is configured."""
    if os.environ.get("DATABASE_URL"):
        return subprocess.call(command)
    # The terminal's Ctrl-C reaches the command (same process group); the launcher waits
    # for it to finish, then stops the server. SIGTERM is passed on to the command.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    with running_cluster(data_dir, database=database, replica=replica) as urls:
        env = {**os.environ}
        if replica:
            env["DATABASE_URL"], env["DATABASE_REPLICA_URLS"] = urls
        else:
            env["DATABASE_URL"] = urls
        child = subprocess.Popen(
            command,
            env=env,
            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
        )
        signal.signal(signal.SIGTERM, lambda signum, frame: child.send_signal(signum))
        return child.wait()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m benchsite.embedded_pg",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    sub = parser.add_subparsers(dest="action", required=True)
    run = sub.add_parser("run", help="run a command against the project's PostgreSQL")
    where = run.add_mutually_exclusive_group()
    where.add_argument(
        "--data-dir", type=Path, default=Path("var/pg"), help="cluster folder (default: var/pg)"
    )
    where.add_argument(
        "--ephemeral", action="store_true", help="a throw-away cluster in a temporary folder"
    )
    run.add_argument("--database", default=DEFAULT_DATABASE)
    run.add_argument(
        "--replica",
        action="store_true",
        help="also start a streaming replica (DATA_DIR-replica) and set DATABASE_REPLICA_URLS",
    )
    run.add_argument("command", nargs=argparse.REMAINDER)
    sub.add_parser("bin-dir", help="print the server binaries folder; exit 1 when none")
    args = parser.parse_args(argv)

    if args.action == "bin-dir":
        found = find_bin_dir()
        if found:
            print(found)
        return 0 if found else 1
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        parser.error("run needs a command after --")
    try:
        return run_command(
            command,
            data_dir=None if args.ephemeral else args.data_dir,
            database=args.database,
            replica=args.replica,
        )
    except EmbeddedPostgresError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
