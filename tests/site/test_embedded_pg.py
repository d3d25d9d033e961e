"""The private PostgreSQL of `make run` and `make test`: start, stop, crash recovery."""

import importlib
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from benchsite import database_url, embedded_pg
from benchsite.embedded_pg import Cluster, EmbeddedPostgresError, find_bin_dir

LAUNCHER = [sys.executable, "-m", "benchsite.embedded_pg", "run"]
ROOT = Path(__file__).resolve().parents[2]


def postgres_pids(data_dir: Path) -> list[int]:
    """Processes of a server running on data_dir (the postmaster and its children)."""
    found = []
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            if (
                Path(os.readlink(proc / "cwd")) == data_dir.resolve()
                and b"postgres" in (proc / "cmdline").read_bytes()
            ):
                found.append(int(proc.name))
        except OSError:
            continue
    return found


def wait_for(condition, timeout=30.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.05)
    return False


def launch(data_dir: Path, marker: Path, *command: str) -> subprocess.Popen:
    """A launcher whose command writes DATABASE_URL to marker, then sleeps."""
    script = (
        f"import os,time; open({str(marker)!r},'w').write(os.environ['DATABASE_URL']); "
        "time.sleep(120)"
    )
    env = {k: v for k, v in os.environ.items() if k != "DATABASE_URL"}
    return subprocess.Popen(
        [
            *LAUNCHER,
            "--data-dir",
            str(data_dir),
            "--",
            *(command or (sys.executable, "-c", script)),
        ],
        cwd=ROOT,
        env=env,
        start_new_session=True,
    )


@pytest.fixture
def workdir():
    # Not pytest's tmp_path: its parents are private to the user, and as root the server
    # runs as an unprivileged user who must reach the folder.
    folder = Path(tempfile.mkdtemp(prefix="bench-pg-test-"))
    folder.chmod(0o755)
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


@pytest.mark.skipif(os.geteuid() != 0, reason="only root hands the server to another user")
def test_unreachable_folder_is_a_clear_error(tmp_path):
    private = tmp_path / "private"
    private.mkdir(mode=0o700)
    with pytest.raises(EmbeddedPostgresError, match="chmod o\\+x"):
        Cluster(private / "pg").start()


def test_binaries_are_found():
    assert (find_bin_dir() / "postgres").is_file()


def fake_bin(folder: Path) -> Path:
    folder.mkdir(parents=True)
    for program in ("initdb", "postgres"):
        (folder / program).write_text("")
    return folder


def test_binary_search_order(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", "")
    monkeypatch.delenv("BENCH_PG_BIN", raising=False)
    monkeypatch.setattr(embedded_pg, "DEBIAN_PG_ROOT", tmp_path / "debian")
    # Nothing on PATH, no Debian packages, and no pgserver wheel importable: none found.
    monkeypatch.setattr(sys, "path", [str(tmp_path / "site")])
    monkeypatch.delitem(sys.modules, "pgserver", raising=False)
    importlib.invalidate_caches()
    assert find_bin_dir() is None
    # The pgserver wheel, for machines without PostgreSQL of their own.
    wheel = fake_bin(tmp_path / "site" / "pgserver" / "pginstall" / "bin")
    (wheel.parent.parent / "__init__.py").write_text("")
    importlib.invalidate_caches()
    assert find_bin_dir() == wheel
    # Debian's packages, newest version first, beat the wheel.
    fake_bin(tmp_path / "debian" / "9.6" / "bin")
    newest = fake_bin(tmp_path / "debian" / "15" / "bin")
    assert find_bin_dir() == newest
    # An explicit choice beats everything.
    chosen = fake_bin(tmp_path / "chosen")
    monkeypatch.setenv("BENCH_PG_BIN", str(chosen))
    assert find_bin_dir() == chosen


def test_ctrl_c_stops_command_and_server_leaving_no_process(workdir):
    data_dir, marker = workdir / "pg", workdir / "url"
    launcher = launch(data_dir, marker)
    try:
        assert wait_for(marker.exists), "the command never started"
        url = marker.read_text()
        assert "host=" in url and str(data_dir) in url
        assert postgres_pids(data_dir), "no server running while the command runs"
        os.killpg(launcher.pid, signal.SIGINT)  # what the terminal does on Ctrl-C
        assert launcher.wait(timeout=30) != 0
    finally:
        if launcher.poll() is None:
            os.killpg(launcher.pid, signal.SIGKILL)
    assert wait_for(lambda: not postgres_pids(data_dir), timeout=10)
    assert not (data_dir / "postmaster.pid").exists()


def test_killed_launcher_leaves_no_orphan_and_next_start_recovers(workdir):
    data_dir, marker = workdir / "pg", workdir / "url"
    launcher = launch(data_dir, marker)
    assert wait_for(marker.exists)
    os.killpg(launcher.pid, signal.SIGKILL)  # no chance to clean up
    launcher.wait()
    assert wait_for(lambda: not postgres_pids(data_dir), timeout=20), "orphaned server"
    marker.unlink()
    launcher = launch(data_dir, marker)
    try:
        assert wait_for(marker.exists), "could not start again after a crash"
    finally:
        os.killpg(launcher.pid, signal.SIGINT)
        launcher.wait(timeout=30)


@pytest.mark.parametrize("stale_pid", ["dead", "alive-but-not-postgres"])
def test_stale_postmaster_pid_is_recovered(workdir, stale_pid):
    data_dir = workdir / "pg"
    cluster = Cluster(data_dir)
    cluster.start()
    cluster.stop()
    if stale_pid == "dead":
        gone = subprocess.Popen(["true"])
        gone.wait()
        pid = gone.pid
    else:
        pid = os.getpid()
    (data_dir / "postmaster.pid").write_text(f"{pid}\n{data_dir}\n0\n5432\n")
    cluster = Cluster(data_dir)
    cluster.start()
    try:
        assert postgres_pids(data_dir)
    finally:
        cluster.stop()


def test_second_launcher_on_the_same_folder_is_refused(workdir):
    data_dir, marker = workdir / "pg", workdir / "url"
    first = launch(data_dir, marker)
    try:
        assert wait_for(marker.exists)
        second = subprocess.run(
            [*LAUNCHER, "--data-dir", str(data_dir), "--", "true"],
            cwd=ROOT,
            capture_output=True,
            text=True,
            env={k: v for k, v in os.environ.items() if k != "DATABASE_URL"},
        )
        assert second.returncode == 1
        assert "already running the database" in second.stderr
        assert "Traceback" not in second.stderr
    finally:
        os.killpg(first.pid, signal.SIGINT)
        first.wait(timeout=30)


def test_database_url_from_the_environment_is_used_as_is(workdir):
    env = {**os.environ, "DATABASE_URL": "postgresql://someone@db.example:5433/other"}
    out = subprocess.run(
        [*LAUNCHER, "--data-dir", str(workdir / "pg"), "--", "sh", "-c", "echo $DATABASE_URL"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    assert out.stdout.strip() == "postgresql://someone@db.example:5433/other"
    assert not (workdir / "pg").exists()


def test_command_exit_status_is_passed_on(workdir):
    env = {k: v for k, v in os.environ.items() if k != "DATABASE_URL"}
    result = subprocess.run(
        [*LAUNCHER, "--ephemeral", "--", "sh", "-c", "exit 7"], cwd=ROOT, env=env
    )
    assert result.returncode == 7


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        (
            "postgresql://u:p%40ss@db:5433/bench?sslmode=require",
            {
                "USER": "u",
                "PASSWORD": "p@ss",
                "HOST": "db",
                "PORT": "5433",
                "NAME": "bench",
                "OPTIONS": {"sslmode": "require"},
            },
        ),
        (
            "postgresql://bench@/bench?host=/tmp/sock",
            {"USER": "bench", "HOST": "/tmp/sock", "PORT": "", "NAME": "bench", "OPTIONS": {}},
        ),
        (
            "postgres://%2Fvar%2Frun%2Fpostgresql/site",
            {"HOST": "/var/run/postgresql", "NAME": "site"},
        ),
    ],
)
def test_database_url_forms(url, expected):
    parsed = database_url.parse(url)
    for key, value in expected.items():
        assert parsed[key] == value


@pytest.mark.parametrize("url", ["sqlite:///db.sqlite3", "postgresql://host/"])
def test_database_url_refusals(url):
    with pytest.raises(database_url.DatabaseURLError):
        database_url.parse(url)
