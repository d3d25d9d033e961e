"""The production server in a subprocess on a free loopback port: for the tests, the fault
scenarios (`make test-faults`) and load benchmarks.

    with AppServer(env={"DATABASE_URL": url}, log=folder / "gunicorn.log") as server:
        urllib.request.urlopen(server.url + "/")

The database must be prepared first (`python -m benchsite.serve --prepare-only` with the same
environment: migrate and collectstatic; prepare() here does it).
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
START_TIMEOUT_S = 60
LISTENING = re.compile(r"Listening at: (http://\S+)")
WORKER_READY = "Worker ready: in-process copies read"  # benchsite/gunicorn.conf.py logs it


def server_environment(env: dict[str, str]) -> dict[str, str]:
    """os.environ with the given variables, for the production settings on loopback."""
    base = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("DATABASE_", "REDIS_", "DJANGO_", "BENCH_", "WEB_CONCURRENCY"))
    }
    base.update({"DJANGO_SETTINGS_MODULE": "benchsite.settings.prod", "PYTHONUNBUFFERED": "1"})
    base.update(env)
    return base


def prepare(env: dict[str, str], *, demo: bool = False, root: Path | None = None) -> None:
    """migrate and collectstatic (and the demo data) for a server with this environment (of
    the site in `root`: this checkout by default, another for a paired benchmark)."""
    command = [sys.executable, "-m", "benchsite.serve", "--prepare-only"]
    subprocess.run(
        command + (["--demo"] if demo else []),
        cwd=root or ROOT,
        env=server_environment(env),
        check=True,
        stdout=subprocess.DEVNULL,
    )


def _boots(log: str) -> int:
    return log.count("Booting worker")


def children(pid: int) -> list[int]:
    """A process's live children (none when it is gone)."""
    try:
        return [int(c) for c in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
    except OSError:
        return []


class AppServer:
    def __init__(
        self, *, env: dict[str, str], log: Path, workers: int | None = 2, root: Path | None = None
    ) -> None:
        """workers=None: as many as benchsite/gunicorn.conf.py picks; root: the checkout of
        the site to serve (this one by default)."""
        self.root = root or ROOT
        settings = {"BENCH_BIND": "127.0.0.1:0", **env}
        if workers is not None:
            settings["WEB_CONCURRENCY"] = str(workers)
        self.env = server_environment(settings)
        self.workers = workers
        self.log = log
        self.log_from = 0
        self.process: subprocess.Popen | None = None
        self.url = ""

    def start(self) -> str:
        # The log may hold servers' before this one (appended): this one's starts here.
        self.log_from = self.log.stat().st_size if self.log.exists() else 0
        out = open(self.log, "ab")  # noqa: SIM115 - the server's for its whole life
        self.process = subprocess.Popen(
            [sys.executable, "-m", "benchsite.serve", "--no-prepare"],
            cwd=self.root,
            env=self.env,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        out.close()
        deadline = time.monotonic() + START_TIMEOUT_S
        while time.monotonic() < deadline:
            log = self.own_log()
            found = LISTENING.search(log)
            wanted = self.workers or 1
            # Every worker forked and its start logged (boots() counts from the log).
            if found and len(self.worker_pids()) >= wanted and _boots(log) >= wanted:
                self.url = found.group(1)
                return self.url
            if self.process.poll() is not None:
                break
            time.sleep(0.05)
        self.stop()
        raise RuntimeError(f"gunicorn did not start:\n{self.log.read_text(errors='replace')}")

    def wait_ready(self, timeout: float = START_TIMEOUT_S) -> float:
        """Wait until every worker has taken its first request's place (read the in-process
        copies at its start: gunicorn.conf.py's post_worker_init, which logs WORKER_READY);
        the seconds waited. Until then the server listens, but no worker accepts."""
        started = time.monotonic()
        while self.own_log().count(WORKER_READY) < (self.workers or 1):
            if time.monotonic() - started > timeout or self.process.poll() is not None:
                raise RuntimeError(f"gunicorn's workers not ready in {timeout} s")
            time.sleep(0.05)
        return time.monotonic() - started

    def boots(self) -> int:
        """How many workers the server has started so far (the first ones included): a
        benchmark reports those started while it measured, each a whole import of the site."""
        return _boots(self.own_log())

    def own_log(self) -> str:
        """What this server has logged (since its start)."""
        with open(self.log, "rb") as log:
            log.seek(self.log_from)
            return log.read().decode(errors="replace")

    def worker_pids(self) -> list[int]:
        """The master's live children."""
        return children(self.process.pid) if self.process is not None else []

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)  # graceful: finish requests in flight
            try:
                self.process.wait(40)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait()
        self.process = None

    def __enter__(self) -> AppServer:
        self.start()
        return self

    def __exit__(self, *exc) -> None:
        self.stop()
