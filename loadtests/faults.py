"""`make test-faults`: the production server under faults, each scenario scripted, its
result printed as one row of a table.

    python -m loadtests.faults [SCENARIO ...]      (all of them by default; --list names them)

Every scenario starts what it needs on loopback (a PostgreSQL cluster with the demo data,
gunicorn with the production settings), sends requests from a few client threads while it
injects one fault, and checks what the clients saw:

  db-stop-immediate  PostgreSQL stopped hard (`pg_ctl stop -m immediate`) while pages are
                     requested, then started again: every answer is a 200 or, while the
                     database is down, a 503 with Retry-After; never a 500, never a traceback;
                     all 200 again soon after the restart. The database stays down until a
                     503 has come in (3 s at least, 30 s at most), so a busy machine, whose
                     requests wait in the queue longer than 3 s, passes too.
  worker-killed      a worker SIGKILLed in the middle of a request (held on a table lock):
                     that one request gets no answer, every other request a 200, gunicorn
                     replaces the worker, and the killed worker's database session ends.
  disk-full          the results tables on a tablespace on a small tmpfs, filled up: the
                     import that does not fit is refused whole (not one row of it is left),
                     the pages keep answering 200, and once space is freed the same import
                     goes in, exactly once. Needs root (it mounts the tmpfs).
  uploads-db-stop    reviewers upload distinct documents through POST /api/v1/runs/, each with
                     its own Idempotency-Key, retried with it on no answer and on 503, while
                     PostgreSQL is stopped hard and restarted: every upload a client saw
                     accepted is stored exactly once and whole; no other 5xx.
  upload-derived-killed  the worker doing an upload's derived work (the drive listed, its
                     leaderboard entries, the copies' change log and scope versions, all in the
                     upload's transaction) SIGKILLed mid-way: no row of it is left, every page
                     answers 200, and the upload retried with its Idempotency-Key is stored once,
                     its entries exactly what a rebuild makes (the rebuild writes none).
  upload-disconnect  clients that close the connection half-way through an upload, more of
                     them than there are workers: nothing stored, every worker free again,
                     the next whole upload stored.

A scenario is a function taking a Stage and returning an Outcome, registered in SCENARIOS.
"""

from __future__ import annotations

import argparse
import collections
import contextlib
import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import psycopg

from benchsite.embedded_pg import Cluster, wait_until
from loadtests.appserver import ROOT, AppServer, prepare, server_environment
from results.synthetic import measured_document  # plain Python: no Django set up here

CLIENTS = 4
REQUEST_TIMEOUT_S = 15
PAGES = ["/", "/drives/corsair-force-100gb/", "/?q=intel", "/healthz"]


# -- what the clients saw ------------------------------------------------------------------
@dataclass
class Answer:
    at: float  # seconds since the traffic started, when the request was sent
    done: float  # ... when its answer (or the lack of one) was in
    path: str
    status: int | None  # None: no answer (connection reset, timeout)
    retry_after: bool = False
    traceback: bool = False


@dataclass
class Outcome:
    passed: bool
    answers: list[Answer] = field(default_factory=list)
    recovered_s: float | None = None
    note: str = ""

    def counts(self) -> collections.Counter:
        return collections.Counter(_bucket(a) for a in self.answers)


def _bucket(answer: Answer) -> str:
    if answer.status is None:
        return "no answer"
    if answer.status == 503:
        return "503" if answer.retry_after else "503 without Retry-After"
    return f"{answer.status // 100}xx" if answer.status != 500 else "500"


def fetch(url: str, path: str, started: float) -> Answer:
    at = time.monotonic() - started
    try:
        with urllib.request.urlopen(url + path, timeout=REQUEST_TIMEOUT_S) as response:
            body, status, headers = response.read(), response.status, response.headers
    except urllib.error.HTTPError as error:
        body, status, headers = error.read(), error.code, error.headers
    except (OSError, urllib.error.URLError):
        return Answer(at, time.monotonic() - started, path, None)
    done = time.monotonic() - started
    return Answer(at, done, path, status, "Retry-After" in headers, b"Traceback" in body)


class Traffic:
    """CLIENTS threads requesting paths in turn until stopped."""

    def __init__(self, url: str, paths: list[str]) -> None:
        self.url, self.paths = url, paths
        self.answers: list[Answer] = []
        self._stop = threading.Event()
        self._threads = [threading.Thread(target=self._client, args=(n,)) for n in range(CLIENTS)]
        self.started = time.monotonic()

    def _client(self, n: int) -> None:
        i = n
        while not self._stop.is_set():
            self.answers.append(fetch(self.url, self.paths[i % len(self.paths)], self.started))
            i += 1

    def now(self) -> float:
        return time.monotonic() - self.started

    def seen(self, status: int, sent_after: float) -> bool:
        """Whether an answer with this status came in for a request sent at or after
        sent_after (seconds since the traffic started)."""
        return any(a.status == status and a.at >= sent_after for a in list(self.answers))

    def hold(self, minimum: float, until: Callable[[], bool], deadline: float) -> float:
        """Wait at least `minimum` seconds and until `until()` holds, `deadline` seconds at
        most; return the seconds waited."""
        t0 = time.monotonic()
        time.sleep(minimum)
        wait_until(until, timeout=max(0.0, deadline - (time.monotonic() - t0)))
        return time.monotonic() - t0

    def __enter__(self) -> Traffic:
        for thread in self._threads:
            thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        for thread in self._threads:
            thread.join()
        self.answers.sort(key=lambda a: a.at)


# -- the stage: a database with the demo data, servers on it -------------------------------
class Stage:
    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.cluster = Cluster(folder / "pg")  # durable: crashes replay the WAL
        self.env = {
            "DATABASE_URL": self.cluster.url(),
            "DJANGO_SECRET_KEY": secrets.token_urlsafe(50),
            "BENCH_STATIC_ROOT": str(folder / "static"),
            # The upload scenarios stream uploads: the per-reviewer limit is not under test.
            "BENCH_UPLOAD_RATE": "100000/hour",
        }

    def start(self) -> None:
        self.cluster.start()
        self.cluster.create_database("bench")
        prepare(self.env, demo=True)

    def server(self, workers: int = 2) -> AppServer:
        return AppServer(env=self.env, log=self.folder / "gunicorn.log", workers=workers)

    def sql(self, statement: str, params=()) -> list[tuple]:
        with psycopg.connect(self.cluster.url(), autocommit=True) as conn:
            cursor = conn.execute(statement, params)
            return cursor.fetchall() if cursor.description else []

    def manage(self, *args: str) -> subprocess.CompletedProcess:
        return subprocess.run(
            [sys.executable, "manage.py", *args],
            cwd=ROOT,
            env=server_environment(self.env),
            capture_output=True,
            text=True,
            timeout=300,
        )

    def workers_waiting(self) -> list[tuple[int, str | None]]:
        """The server's workers whose database session waits for a lock: (pid, the table
        it waits for, None for a lock on no table)."""
        rows = self.sql(
            "SELECT a.application_name, l.relation::regclass::text "
            "FROM pg_stat_activity a JOIN pg_locks l ON l.pid = a.pid AND NOT l.granted "
            "WHERE a.application_name LIKE 'bench %%'"
        )
        return [(int(name.rsplit(" ", 1)[1]), relation) for name, relation in rows]

    def stop(self) -> None:
        self.cluster.stop()


def server_replaced(server: AppServer, victim: int, workers: int) -> bool:
    """Whether gunicorn has started a worker in place of the killed one (20 s at most)."""
    return wait_until(lambda: len(set(server.worker_pids()) - {victim}) == workers, 20)


@contextlib.contextmanager
def staged() -> Iterator[Stage]:
    folder = Path(tempfile.mkdtemp(prefix="bench-faults-"))
    folder.chmod(0o755)  # as root the server runs as an unprivileged user
    stage = Stage(folder)
    try:
        stage.start()
        yield stage
    finally:
        stage.stop()
        shutil.rmtree(folder, ignore_errors=True)


# -- scenarios -----------------------------------------------------------------------------
DOWN_S = 3.0
RECOVERY_LIMIT_S = 5.0
# On a busy machine a request can wait in gunicorn's queue behind pages rendered before the
# fault for longer than DOWN_S: every request sent while the database was down was then
# served after the restart, with a 200, and the scenario saw "no 503 while the database was
# down" though the site did nothing wrong. So the database stays down until the clients have
# had a 503 for a request sent after the stop (DOWN_S at least, DOWN_LIMIT_S at most: a site
# that never answers 503 still fails), and the traffic goes on after the restart until a
# request sent after it has had its 200 (RECOVERY_LIMIT_S + 2 s at least, RECOVERY_WAIT_S at
# most). Time in the queue is not the site's recovery: "recovered" is still judged by send time.
DOWN_LIMIT_S = 30.0
RECOVERY_WAIT_S = 30.0


def db_stop_immediate(stage: Stage) -> Outcome:
    with stage.server() as server, Traffic(server.url, PAGES) as traffic:
        time.sleep(2)
        stopping = traffic.now()
        stage.cluster.stop_immediate()
        stopped = traffic.now()
        down = traffic.hold(DOWN_S, lambda: traffic.seen(503, stopped), DOWN_LIMIT_S)
        stage.cluster.start()
        restarted = traffic.now()
        traffic.hold(RECOVERY_LIMIT_S + 2, lambda: traffic.seen(200, restarted), RECOVERY_WAIT_S)
    answers = traffic.answers
    failures = [a for a in answers if a.status is not None and a.status >= 500]
    after = [a for a in answers if a.at >= restarted]
    first_good = next((a.at for a in after if a.status == 200), None)
    recovered = None if first_good is None else first_good - restarted
    problems = []
    if any(a.status not in (200, 503) for a in answers):
        problems.append("an answer other than 200 or 503")
    if any(not a.retry_after for a in failures):
        problems.append("a 503 without Retry-After")
    if any(a.traceback for a in answers):
        problems.append("a traceback in a page")
    if not any(a.status == 503 for a in answers if stopped <= a.at < restarted):
        problems.append("no 503 while the database was down")
    if any(a.status != 200 for a in answers if a.done < stopping):
        problems.append("errors before the fault")
    late = [a for a in after if a.at > restarted + RECOVERY_LIMIT_S and a.status != 200]
    if recovered is None or late:
        problems.append(f"not all 200 within {RECOVERY_LIMIT_S:.0f} s of the restart")
    note = "; ".join(problems) or (
        f"down {down:.1f} s: only 503 with Retry-After, no 500, no traceback; "
        "recovered: restart to the first 200"
    )
    if problems:
        note += f" (the database down {down:.1f} s, {DOWN_LIMIT_S:.0f} s at most)"
    return Outcome(not problems, answers, recovered, note)


def worker_killed(stage: Stage) -> Outcome:
    with stage.server(workers=2) as server:
        # Every worker past its warm-up (which reads runs too) before the table is locked:
        # the one worker then waiting for the lock is the request's.
        server.wait_ready()
        workers_before = set(server.worker_pids())
        # A run's page reads its run from the table (the catalog's pages read the drives from
        # the in-process copies, which a lock on their table does not hold up).
        ((run,),) = stage.sql("SELECT min(id) FROM results_run")
        with psycopg.connect(stage.cluster.url()) as locker:
            locker.execute("LOCK TABLE results_run IN ACCESS EXCLUSIVE MODE")
            started = time.monotonic()
            held = []
            blocked = threading.Thread(
                target=lambda: held.append(fetch(server.url, f"/bench/runs/{run}/", started))
            )
            blocked.start()

            if not wait_until(lambda: bool(stage.workers_waiting()), 10):
                return Outcome(False, note="the request never reached the database")
            victim, _ = stage.workers_waiting()[0]
            with Traffic(server.url, ["/healthz", "/static/css/bench.css"]) as traffic:
                killed = time.monotonic()
                os.kill(victim, signal.SIGKILL)
                blocked.join(REQUEST_TIMEOUT_S + 5)
                locker.rollback()  # release the table
                replaced = server_replaced(server, victim, len(workers_before))
                recovered = time.monotonic() - killed
                time.sleep(1)
                for _ in range(CLIENTS):
                    traffic.answers.append(fetch(server.url, "/", traffic.started))
        session_gone = wait_until(
            lambda: (
                not stage.sql(
                    "SELECT 1 FROM pg_stat_activity WHERE application_name = %s",
                    [f"bench default pid {victim}"],
                )
            ),
            10,
        )
    answers = held + traffic.answers
    problems = []
    if not held or held[0].status is not None:
        problems.append("the killed worker's request got an answer")
    if any(a.status != 200 for a in traffic.answers):
        problems.append("another request failed")
    if not replaced:
        problems.append("the worker was not replaced")
    if not session_gone:
        problems.append("the killed worker's database session lingers")
    note = "; ".join(problems) or (
        "only the killed request unanswered; recovered: kill to a replacement worker"
    )
    return Outcome(not problems, answers, recovered, note)


TABLESPACE_BYTES = 16 * 2**20
RESULTS_TABLES = [
    "results_run",
    "results_result",
    "results_consistencyseries",
    "results_trimvalidation",
]


def disk_full(stage: Stage) -> Outcome:
    if os.geteuid() != 0:
        return Outcome(False, note="NOT RUN: needs root to mount a tmpfs")
    space = stage.folder / "small"
    space.mkdir()
    user = stage.cluster.user
    owner = f",uid={user.pw_uid},gid={user.pw_gid}" if user else ""
    subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={TABLESPACE_BYTES},mode=0700{owner}", "tmpfs", space],
        check=True,
    )
    try:
        return _fill_the_tablespace(stage, space)
    finally:
        stage.cluster.stop()  # the server lets go of the tablespace before it is unmounted
        subprocess.run(["umount", space], check=False)


def _fill_the_tablespace(stage: Stage, space: Path) -> Outcome:
    stage.sql(f"CREATE TABLESPACE small LOCATION '{space}'")
    for table in RESULTS_TABLES:
        stage.sql(f"ALTER TABLE {table} SET TABLESPACE small")
    filler = space / "filler"
    with open(filler, "wb") as out:  # leave the database about 256 KiB
        free = shutil.disk_usage(space).free - 256 * 1024
        out.write(b"\0" * max(free, 0))
    counts_sql = "SELECT " + ", ".join(f"(SELECT count(*) FROM {t})" for t in RESULTS_TABLES)
    documents = stage.folder / "documents"
    documents.mkdir()
    refused = None
    with stage.server() as server, Traffic(server.url, PAGES) as traffic:
        for seed in range(1, 40):
            path = documents / f"run-{seed}.json"
            document = measured_document(seed=1000 + seed, model=f"Disk Full {seed}")
            path.write_text(json.dumps(document))
            before = stage.sql(counts_sql)
            result = stage.manage("import_results", str(path))
            if result.returncode != 0:
                refused = (path, before, result)
                break
        if refused is None:
            return Outcome(False, traffic.answers, note="the tablespace never filled up")
        path, before, result = refused
        unchanged = stage.sql(counts_sql) == before
        filler.unlink()
        again = stage.manage("import_results", str(path))
        twice = stage.manage("import_results", str(path))
        time.sleep(1)
    problems = []
    if "No space left on device" not in result.stderr:
        problems.append(f"refused for another reason: {result.stderr.strip()[-200:]}")
    if not unchanged:
        problems.append("the refused import left rows behind")
    if any(a.status != 200 for a in traffic.answers):
        problems.append("a page failed while the disk was full")
    if "1 imported" not in again.stdout or "1 already present" not in twice.stdout:
        problems.append("the import did not go in exactly once after space was freed")
    note = "; ".join(problems) or f"{path.name} refused whole when full, then stored once"
    return Outcome(not problems, traffic.answers, note=note)


# -- uploads -------------------------------------------------------------------------------
UPLOADERS = 2
RUN_ROWS_SQL = (
    "SELECT d.model, count(DISTINCT r.id), count(res.id) FROM results_run r "
    "JOIN drives_drive d ON d.id = r.drive_id LEFT JOIN results_result res ON res.run_id = r.id "
    "WHERE d.model LIKE %s GROUP BY d.model"
)


def reviewer_token(stage: Stage, *, trusted: bool = False) -> str:
    name = "faults-trusted" if trusted else "faults-reviewer"
    made = stage.manage("reviewer_token", name, "--create", *(["--trusted"] if trusted else []))
    if made.returncode != 0:
        raise RuntimeError(f"could not make a reviewer token: {made.stderr}")
    return made.stdout.strip().splitlines()[-1]


def upload_document(n: int, prefix: str) -> dict:
    return measured_document(seed=5000 + n, model=f"{prefix} {n}", series_seconds=60)


class Uploads:
    """UPLOADERS threads sending distinct documents, each with its own Idempotency-Key, each
    retried with the same key on no answer and on 503 until it gets another answer."""

    def __init__(self, url: str, token: str, prefix: str) -> None:
        self.url, self.token, self.prefix = url, token, prefix
        self.answers: list[Answer] = []  # every attempt
        self.accepted: dict[int, int] = {}  # document number -> the status that accepted it
        self.refused: dict[int, int] = {}
        self._stop = threading.Event()
        self._threads = [threading.Thread(target=self._client, args=(n,)) for n in range(UPLOADERS)]
        self.started = time.monotonic()

    def send(self, n: int) -> Answer:
        body = json.dumps(upload_document(n, self.prefix)).encode()
        request = urllib.request.Request(
            self.url + "/api/v1/runs/",
            data=body,
            method="POST",
            headers={
                "Authorization": f"Token {self.token}",
                "Content-Type": "application/json",
                "Idempotency-Key": f"{self.prefix}-{n}",
            },
        )
        at = time.monotonic() - self.started
        try:
            with urllib.request.urlopen(request, timeout=REQUEST_TIMEOUT_S) as response:
                status, headers, text = response.status, response.headers, response.read()
        except urllib.error.HTTPError as error:
            status, headers, text = error.code, error.headers, error.read()
        except (OSError, urllib.error.URLError):
            return Answer(at, time.monotonic() - self.started, f"upload {n}", None)
        done = time.monotonic() - self.started
        return Answer(
            at, done, f"upload {n}", status, "Retry-After" in headers, b"Traceback" in text
        )

    def _client(self, k: int) -> None:
        n = k
        while not self._stop.is_set():
            while True:  # the same document and key until it is answered for good
                answer = self.send(n)
                self.answers.append(answer)
                if answer.status not in (None, 503):
                    break
                time.sleep(0.2)
            (self.accepted if answer.status in (200, 201) else self.refused)[n] = answer.status
            n += UPLOADERS

    def __enter__(self) -> Uploads:
        for thread in self._threads:
            thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        for thread in self._threads:
            thread.join()
        self.answers.sort(key=lambda a: a.at)


def stored_uploads(stage: Stage, prefix: str) -> dict[int, tuple[int, int]]:
    """document number -> (runs, results) stored for it."""
    rows = stage.sql(RUN_ROWS_SQL, [f"{prefix} %"])
    return {int(model.rsplit(" ", 1)[1]): (runs, results) for model, runs, results in rows}


def uploads_across_db_stop(stage: Stage) -> Outcome:
    token = reviewer_token(stage)
    prefix = f"Upload Fault {secrets.token_hex(3)}"
    expected_results = len(upload_document(0, prefix)["results"])
    with stage.server() as server, Uploads(server.url, token, prefix) as uploads:
        time.sleep(2)
        stage.cluster.stop_immediate()
        time.sleep(DOWN_S)
        stage.cluster.start()
        time.sleep(RECOVERY_LIMIT_S + 2)
    stored = stored_uploads(stage, prefix)
    problems = []
    if uploads.refused:
        problems.append(f"uploads refused: {sorted(set(uploads.refused.values()))}")
    missing = [n for n in uploads.accepted if n not in stored]
    twice = [n for n, (runs, _) in stored.items() if runs != 1]
    partial = [n for n, (_, results) in stored.items() if results != expected_results]
    unasked = [n for n in stored if n not in uploads.accepted]
    if missing:
        problems.append(f"{len(missing)} accepted uploads not stored")
    if twice:
        problems.append(f"{len(twice)} uploads stored more than once")
    if partial:
        problems.append(f"{len(partial)} uploads half-written")
    if len(unasked) > UPLOADERS:  # at most the ones in flight when the clients stopped
        problems.append(f"{len(unasked)} runs stored that no client saw accepted")
    if any(a.status is not None and a.status >= 500 and a.status != 503 for a in uploads.answers):
        problems.append("an upload answered with a 5xx other than 503")
    if any(a.status == 503 and not a.retry_after for a in uploads.answers):
        problems.append("a 503 without Retry-After")
    if any(a.traceback for a in uploads.answers):
        problems.append("a traceback in an answer")
    if not any(a.status in (503, None) for a in uploads.answers):
        problems.append("no upload met the stopped database")
    note = "; ".join(problems) or (
        f"{len(uploads.accepted)} uploads accepted, each stored exactly once and whole; "
        f"retried through the restart with their Idempotency-Keys"
    )
    return Outcome(not problems, uploads.answers, None, note)


def client_disconnects_mid_upload(stage: Stage) -> Outcome:
    token = reviewer_token(stage)
    prefix = f"Disconnect {secrets.token_hex(3)}"
    with stage.server(workers=2) as server:
        host, port = server.url.removeprefix("http://").rsplit(":", 1)
        for n in range(4):  # more than there are workers: each must be freed
            body = json.dumps(upload_document(n, prefix)).encode()
            head = (
                f"POST /api/v1/runs/ HTTP/1.1\r\nHost: {host}\r\n"
                f"Authorization: Token {token}\r\nContent-Type: application/json\r\n"
                f"Content-Length: {len(body)}\r\n\r\n"
            ).encode()
            with socket.create_connection((host, int(port)), timeout=REQUEST_TIMEOUT_S) as conn:
                conn.sendall(head + body[: len(body) // 2])
            # closed with half the document sent
        time.sleep(1)
        started = time.monotonic()
        answers = [fetch(server.url, path, started) for path in PAGES]
        whole = Uploads(server.url, token, prefix)
        answers.append(whole.send(99))
    stored = stored_uploads(stage, prefix)
    problems = []
    if set(stored) - {99}:
        problems.append("a half-sent upload was stored")
    if any(a.status not in (200, 201) for a in answers):
        problems.append("the server did not answer normally afterwards")
    if stored.get(99, (0, 0))[0] != 1:
        problems.append("a whole upload after the disconnects was not stored")
    note = "; ".join(problems) or (
        "4 uploads cut off half-way: nothing stored, every worker free; the next upload stored"
    )
    return Outcome(not problems, answers, None, note)


def upload_derived_work_killed(stage: Stage) -> Outcome:
    """The worker doing an upload's derived work (its drive listed, the drive's leaderboard
    entries rebuilt, the copies' change log and the scope versions their triggers move)
    SIGKILLed in the middle of it, then the client retrying with its Idempotency-Key."""
    # A trusted reviewer's run is published at once, so its upload has entries to write.
    token = reviewer_token(stage, trusted=True)
    prefix = f"Derived Kill {secrets.token_hex(3)}"
    expected_results = len(upload_document(0, prefix)["results"])
    with stage.server(workers=2) as server:
        server.wait_ready()  # as in worker_killed: the worker waiting is the upload's
        uploads = Uploads(server.url, token, prefix)
        workers_before = set(server.worker_pids())
        with psycopg.connect(stage.cluster.url()) as locker:
            # Readers go on (EXCLUSIVE lets SELECTs through); the upload, its run and results
            # written, waits at the write of its entries, inside its transaction.
            locker.execute("LOCK TABLE results_leaderboardentry IN EXCLUSIVE MODE")
            first: list[Answer] = []
            sender = threading.Thread(target=lambda: first.append(uploads.send(0)))
            sender.start()

            if not wait_until(lambda: bool(stage.workers_waiting()), 10):
                return Outcome(False, note="the upload never reached its leaderboard entries")
            victim, waited_on = stage.workers_waiting()[0]
            with Traffic(server.url, PAGES) as traffic:
                os.kill(victim, signal.SIGKILL)
                sender.join(REQUEST_TIMEOUT_S + 5)
                stored_while_killed = stored_uploads(stage, prefix)
                locker.rollback()  # release the table
                replaced = server_replaced(server, victim, len(workers_before))
                retried = uploads.send(0)  # the same document and key
                replayed = uploads.send(0)  # and once more, as a client unsure of its answer
        stored = stored_uploads(stage, prefix)
        listed = fetch(server.url, "/api/v1/drives/?q=" + prefix.replace(" ", "+"), 0.0)
    ((drive,),) = stage.sql("SELECT id FROM drives_drive WHERE model = %s", [f"{prefix} 0"])
    rebuilt = stage.manage(
        "shell",
        "-c",
        "from results.services import leaderboard_refresh; "
        f"print('written', leaderboard_refresh(drive_ids=[{drive}]))",
    )
    entries, shown = stage.sql(
        "SELECT (SELECT count(*) FROM results_leaderboardentry WHERE drive_id = %(d)s), "
        "(SELECT count(DISTINCT (res.test_id, res.pattern)) FROM results_result res "
        " JOIN results_run r ON r.id = res.run_id WHERE r.drive_id = %(d)s "
        " AND r.status = 'published')",
        {"d": drive},
    )[0]
    answers = first + traffic.answers + [retried, replayed]
    problems = []
    if waited_on != "results_leaderboardentry":
        problems.append(f"the worker was killed waiting on {waited_on}, not on its entries")
    if not first or first[0].status is not None:
        problems.append("the killed upload got an answer")
    if stored_while_killed:
        problems.append("the killed upload left rows behind")
    if not replaced:
        problems.append("the worker was not replaced")
    if retried.status != 201 or replayed.status != 201:
        problems.append(f"the retries answered {retried.status} and {replayed.status}")
    if stored.get(0) != (1, expected_results):
        problems.append(f"stored (runs, results) {stored.get(0)}, not (1, {expected_results})")
    said = (rebuilt.stdout.strip().splitlines() or [rebuilt.stderr.strip()[-200:]])[-1]
    if rebuilt.returncode != 0 or said != "written 0":
        problems.append(f"a rebuild of the drive's entries did not leave them as they were: {said}")
    if not entries or entries != shown:
        problems.append(f"{entries} entries for {shown} tests and patterns shown")
    if listed.status != 200:
        problems.append("the drive list failed")
    if any(a.status != 200 for a in traffic.answers):
        problems.append("a page failed while the upload was held and killed")
    note = "; ".join(problems) or (
        "killed mid-way through its entries: nothing left; retried with its key, stored once, "
        f"its {entries} entries as a rebuild makes them"
    )
    return Outcome(not problems, answers, None, note)


SCENARIOS: dict[str, Callable[[Stage], Outcome]] = {
    "db-stop-immediate": db_stop_immediate,
    "worker-killed": worker_killed,
    "disk-full": disk_full,
    "uploads-db-stop": uploads_across_db_stop,
    "upload-disconnect": client_disconnects_mid_upload,
    "upload-derived-killed": upload_derived_work_killed,
}


# -- the table -----------------------------------------------------------------------------
COLUMNS = ["200", "503", "no answer", "other"]


def print_table(rows: list[tuple[str, Outcome]]) -> None:
    header = f"{'scenario':<18} {'requests':>8} " + " ".join(f"{c:>9}" for c in COLUMNS)
    header += f" {'recovered':>9}  result"
    print(header)
    print("-" * len(header))
    for name, outcome in rows:
        counts = outcome.counts()
        shown = [counts.get("2xx", 0), counts.get("503", 0), counts.get("no answer", 0)]
        shown.append(sum(counts.values()) - sum(shown))
        recovered = "-" if outcome.recovered_s is None else f"{outcome.recovered_s:.2f} s"
        verdict = "PASS" if outcome.passed else "FAIL"
        print(
            f"{name:<18} {len(outcome.answers):>8} "
            + " ".join(f"{n:>9}" for n in shown)
            + f" {recovered:>9}  {verdict}{': ' + outcome.note if outcome.note else ''}"
        )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m loadtests.faults", description=__doc__)
    parser.add_argument("scenarios", nargs="*", metavar="SCENARIO")
    parser.add_argument("--list", action="store_true", help="name the scenarios and exit")
    args = parser.parse_args(argv)
    if args.list:
        print("\n".join(SCENARIOS))
        return 0
    unknown = [name for name in args.scenarios if name not in SCENARIOS]
    if unknown:
        parser.error(f"unknown scenario(s): {', '.join(unknown)} (--list names them)")
    rows = []
    for name in args.scenarios or SCENARIOS:
        print(f"running {name} ...", file=sys.stderr, flush=True)
        with staged() as stage:
            rows.append((name, SCENARIOS[name](stage)))
    print_table(rows)
    return 0 if all(outcome.passed for _, outcome in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
