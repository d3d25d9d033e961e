"""The private PostgreSQL of `make run` and `make test`: start, stop, crash recovery."""

import importlib
import os
import signal
import subprocess
import sys
from pathlib import Path

import psycopg
import pytest

from benchsite import embedded_pg
from benchsite.embedded_pg import (
    Cluster,
    EmbeddedPostgresError,
    find_bin_dir,
    server_pids,
    wait_until,
)
from tests.site.support import ROOT

LAUNCHER = [sys.executable, "-m", "benchsite.embedded_pg", "run"]


def postmasters(data_dir: Path) -> list[int]:
    """The servers running on data_dir: server processes whose parent is not one."""
    parents = {}
    for pid in server_pids(data_dir):
        try:
            stat = Path(f"/proc/{pid}/stat").read_text()
        except FileNotFoundError:  # a server process that ended since it was listed
            continue
        parents[pid] = int(stat.rsplit(")", 1)[1].split()[1])
    return [pid for pid, parent in parents.items() if parent not in parents]


def write_row(url: str) -> None:
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("CREATE TABLE kept (n int)")
        conn.execute("INSERT INTO kept VALUES (42)")


def read_rows(url: str) -> list[int]:
    with psycopg.connect(url) as conn:
        return [n for (n,) in conn.execute("SELECT n FROM kept ORDER BY n")]


def launch(data_dir: Path, marker: Path, *command: str) -> subprocess.Popen:
    """A launcher whose command writes DATABASE_URL to marker, then sleeps."""
    script = (
        # Written whole, then renamed: the test reads it as soon as it exists.
        f"import os,time; m={str(marker)!r}; "
        "open(m+'.part','w').write(os.environ['DATABASE_URL']); "
        "os.replace(m+'.part',m); time.sleep(120)"
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("DATABASE_")}
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


@pytest.mark.skipif(os.geteuid() != 0, reason="only root hands the server to another user")
def test_unreachable_folder_is_a_clear_error(tmp_path):
    private = tmp_path / "private"
    private.mkdir(mode=0o700)
    with pytest.raises(EmbeddedPostgresError, match="chmod o\\+x"):
        Cluster(private / "pg").start()


@pytest.mark.skipif(os.geteuid() != 0, reason="only root hands the server to another user")
def test_programs_only_root_can_reach_are_copied_where_the_server_user_can(workdir, monkeypatch):
    """A clone in /root (mode 700) as root, with pgserver's programs in its .venv: the server,
    run as an unprivileged user, could not start them (a fresh machine's `make test` failed
    so). They are copied once to a folder of root's every user may enter."""
    private = workdir / "root-only"
    private.mkdir(mode=0o700)
    # the programs this machine's server runs (themselves a copy where pgserver's lie in /root)
    reachable = Cluster(workdir / "probe", ephemeral=True).bin_dir
    (private / "bin").symlink_to(reachable, target_is_directory=True)
    monkeypatch.setenv("BENCH_PG_BIN", str(private / "bin"))
    monkeypatch.setattr(embedded_pg, "SHARED_BIN_ROOT", workdir)
    cluster = Cluster(workdir / "pg", ephemeral=True)
    shared_dir = cluster.bin_dir.parents[2]  # <copy>/<package>/<installation>/bin
    assert shared_dir.parent == workdir and cluster.bin_dir.name == "bin"
    shared = shared_dir.stat()
    assert shared.st_uid == 0 and shared.st_mode & 0o777 == 0o755
    cluster.start()
    try:
        cluster.create_database("bench")
        write_row(cluster.url("bench"))
        assert read_rows(cluster.url("bench")) == [42]
    finally:
        cluster.stop()
    # the same programs again: the copy is reused, not made anew
    assert Cluster(workdir / "pg2", ephemeral=True).bin_dir == cluster.bin_dir
    assert len(list(workdir.glob("bench-postgresql-*"))) == 1


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
        assert wait_until(marker.exists), "the command never started"
        url = marker.read_text()
        assert "host=" in url and str(data_dir) in url
        assert server_pids(data_dir), "no server running while the command runs"
        os.killpg(launcher.pid, signal.SIGINT)  # what the terminal does on Ctrl-C
        assert launcher.wait(timeout=30) != 0
    finally:
        if launcher.poll() is None:
            os.killpg(launcher.pid, signal.SIGKILL)
    assert wait_until(lambda: not server_pids(data_dir), timeout=10)
    assert not (data_dir / "postmaster.pid").exists()


def test_a_command_while_the_site_runs_uses_its_database(workdir):
    """`make run` in one terminal, a management command in another: the second launcher
    runs its command on the first one's server, and leaves it running."""
    data_dir, marker = workdir / "pg", workdir / "url"
    site = launch(data_dir, marker)
    try:
        assert wait_until(marker.exists), "the site never started"
        write_row(marker.read_text())
        script = "import os,sys; sys.path.insert(0, '.'); print(os.environ['DATABASE_URL'])"
        env = {k: v for k, v in os.environ.items() if not k.startswith("DATABASE_")}
        done = subprocess.run(
            [*LAUNCHER, "--data-dir", str(data_dir), "--", sys.executable, "-c", script],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert done.returncode == 0, done.stderr
        assert "the running site" in done.stderr
        assert read_rows(done.stdout.strip()) == [42]
        assert site.poll() is None and server_pids(data_dir)  # still the site's, still up
    finally:
        os.killpg(site.pid, signal.SIGINT)
        site.wait(timeout=30)
    assert wait_until(lambda: not server_pids(data_dir), timeout=10)


def test_killed_launcher_leaves_no_orphan_and_next_start_recovers(workdir):
    data_dir, marker = workdir / "pg", workdir / "url"
    launcher = launch(data_dir, marker)
    assert wait_until(marker.exists)
    os.killpg(launcher.pid, signal.SIGKILL)  # no chance to clean up
    launcher.wait()
    assert wait_until(lambda: not server_pids(data_dir), timeout=20), "orphaned server"
    marker.unlink()
    launcher = launch(data_dir, marker)
    try:
        assert wait_until(marker.exists), "could not start again after a crash"
    finally:
        os.killpg(launcher.pid, signal.SIGINT)
        launcher.wait(timeout=30)


def test_launcher_killed_outright_and_started_again_at_once_runs_one_server(workdir):
    data_dir, marker = workdir / "pg", workdir / "url"
    launcher = launch(data_dir, marker)
    assert wait_until(marker.exists)
    write_row(marker.read_text())
    os.killpg(launcher.pid, signal.SIGKILL)
    launcher.wait()
    marker.unlink()
    # At once: the old server may still be shutting down.
    launcher = launch(data_dir, marker)
    try:
        assert wait_until(marker.exists), "could not start again after a crash"
        assert len(postmasters(data_dir)) == 1
        assert read_rows(marker.read_text()) == [42]
    finally:
        os.killpg(launcher.pid, signal.SIGINT)
        launcher.wait(timeout=30)
    assert wait_until(lambda: not server_pids(data_dir), timeout=10)


def test_orphan_that_ignores_shutdown_is_gone_before_its_pid_file(workdir, monkeypatch):
    data_dir, marker = workdir / "pg", workdir / "url"
    launcher = launch(data_dir, marker)
    assert wait_until(marker.exists)
    url = marker.read_text()
    write_row(url)
    orphan = int((data_dir / "postmaster.pid").read_text().split()[0])
    os.kill(orphan, signal.SIGSTOP)  # a server that answers no signal (stuck in I/O, say)
    os.killpg(launcher.pid, signal.SIGKILL)
    launcher.wait()
    monkeypatch.setattr(embedded_pg, "STOP_TIMEOUT_S", 1)
    monkeypatch.setattr(embedded_pg, "KILL_TIMEOUT_S", 5)
    cluster = Cluster(data_dir)
    cluster.start()
    try:
        assert orphan not in server_pids(data_dir)
        assert postmasters(data_dir) == [cluster.process.pid]
        assert read_rows(url) == [42]
    finally:
        cluster.stop()
    assert not server_pids(data_dir)


def test_stop_immediate_then_start_replays_the_wal(workdir):
    cluster = Cluster(workdir / "pg")
    cluster.start()
    try:
        cluster.create_database("bench")
        write_row(cluster.url())
        cluster.stop_immediate()
        assert not server_pids(cluster.data_dir)
        with pytest.raises(psycopg.OperationalError):
            read_rows(cluster.url())
        cluster.start()
        assert read_rows(cluster.url()) == [42]
    finally:
        cluster.stop()


def test_streaming_replica(workdir):
    primary = Cluster(workdir / "primary", ephemeral=True)
    primary.start()
    replica = Cluster(workdir / "replica", ephemeral=True, primary=primary)
    try:
        primary.create_database("bench")
        write_row(primary.url())
        replica.start()
        with psycopg.connect(replica.url(), autocommit=True) as conn:
            assert conn.execute("SELECT pg_is_in_recovery()").fetchone() == (True,)
            assert read_rows(replica.url()) == [42]
            with pytest.raises(psycopg.errors.ReadOnlySqlTransaction):
                conn.execute("INSERT INTO kept VALUES (1)")
        with psycopg.connect(primary.url(), autocommit=True) as conn:
            conn.execute("INSERT INTO kept VALUES (43)")
            assert conn.execute(
                "SELECT application_name, state FROM pg_stat_replication"
            ).fetchall() == [("replica", "streaming")]
        assert wait_until(lambda: read_rows(replica.url()) == [42, 43], timeout=10)
    finally:
        replica.stop()
        primary.stop()


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
        assert server_pids(data_dir)
    finally:
        cluster.stop()


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
    env = {k: v for k, v in os.environ.items() if not k.startswith("DATABASE_")}
    result = subprocess.run(
        [*LAUNCHER, "--ephemeral", "--", "sh", "-c", "exit 7"], cwd=ROOT, env=env
    )
    assert result.returncode == 7
