"""Uploads take turns (results.services.upload_turn, BENCH_UPLOAD_TURNS): at most that many
are taken in at once, across database connections as across server processes; the others
wait for a turn, and readers never do. Each upload here is a real POST from its own thread
with its own connection, against turns held by other connections' open transactions."""

import json
import threading
import time

import pytest
from django.db import connection, connections, transaction

from results.models import Run
from results.services import UPLOAD_TURNS_LOCK, upload_turn
from results.synthetic import measured_document
from tests.api.conftest import make_user, post_document, token_client

pytestmark = pytest.mark.django_db(transaction=True)


class Holder:
    """A connection of its own holding an upload turn in an open transaction until let go."""

    def __init__(self) -> None:
        self.taken = threading.Event()
        self.release = threading.Event()
        self.turn: int | None = None
        self.thread = threading.Thread(target=self._hold)
        self.thread.start()
        assert self.taken.wait(30)

    def _hold(self) -> None:
        try:
            with transaction.atomic():
                self.turn = upload_turn()
                self.taken.set()
                self.release.wait(60)
        finally:
            connections.close_all()

    def let_go(self) -> None:
        self.release.set()
        self.thread.join(30)


class Upload:
    """One upload of a new document, from a thread of its own."""

    def __init__(self, user, seed: int, timeout_ms: int = 0) -> None:
        self.response = None
        body = json.dumps(measured_document(seed=seed, model=f"Turns {seed}", series_seconds=60))

        def send() -> None:
            try:
                if timeout_ms:  # as the web workers' BENCH_STATEMENT_TIMEOUT_MS sets it
                    with connection.cursor() as cursor:
                        cursor.execute(f"SET statement_timeout = {timeout_ms}")
                client = token_client(user)
                client.raise_request_exception = False  # answered as a server answers it
                self.response = post_document(client, body)
            finally:
                connections.close_all()

        self.thread = threading.Thread(target=send)
        self.thread.start()

    def done(self, timeout: float) -> bool:
        self.thread.join(timeout)
        return not self.thread.is_alive()


def waiting_for_a_turn() -> int:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND classid = %s "
            "AND objsubid = 2 AND NOT granted",
            [UPLOAD_TURNS_LOCK],
        )
        return cursor.fetchone()[0]


def until(condition, timeout: float = 30) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.02)
    return condition()


@pytest.fixture
def rita(settings):
    settings.BENCH_UPLOAD_TURNS = 1
    return make_user("rita", reviewer=True, trusted=True)


def test_an_upload_waits_for_the_turn_while_readers_do_not(rita, client):
    holder = Holder()
    upload = Upload(rita, 1)
    try:
        assert until(lambda: waiting_for_a_turn() == 1), "the upload never waited for its turn"
        assert not upload.done(0.3)
        # Reads go on while the upload waits: a page and an API list.
        assert client.get("/api/v1/drives/").status_code == 200
        assert client.get("/").status_code == 200
        assert Run.objects.count() == 0
    finally:
        holder.let_go()
    assert upload.done(60)
    assert upload.response.status_code == 201, upload.response.content[:300]
    assert Run.objects.count() == 1
    assert waiting_for_a_turn() == 0


@pytest.mark.parametrize("turns", [2, 3])
def test_as_many_uploads_go_at_once_as_there_are_turns(rita, settings, turns):
    settings.BENCH_UPLOAD_TURNS = turns
    holders = [Holder() for _ in range(turns - 1)]
    try:
        assert sorted(h.turn for h in holders) == list(range(turns - 1))
        free = Upload(rita, 10)  # one turn is still free: taken without waiting
        assert free.done(60) and free.response.status_code == 201
        holders.append(Holder())  # every turn held now
        waits = Upload(rita, 11)
        assert until(lambda: waiting_for_a_turn() == 1)
        assert not waits.done(0.3)
    finally:
        for holder in holders:
            holder.let_go()
    assert waits.done(60) and waits.response.status_code == 201
    assert Run.objects.count() == 2


def test_an_upload_that_waits_past_the_statement_timeout_is_told_to_retry(rita):
    holder = Holder()
    try:
        upload = Upload(rita, 30, timeout_ms=300)
        assert upload.done(30)
    finally:
        holder.let_go()
    assert upload.response.status_code == 503, upload.response.content[:300]
    assert upload.response.headers["Retry-After"]
    assert b"Traceback" not in upload.response.content
    assert Run.objects.count() == 0


def test_no_limit_takes_no_turn(rita, settings):
    settings.BENCH_UPLOAD_TURNS = 0
    holder = Holder()
    try:
        assert holder.turn is None
        upload = Upload(rita, 20)
        assert upload.done(60) and upload.response.status_code == 201
    finally:
        holder.let_go()


def test_a_rejected_upload_gives_its_turn_back(rita):
    response = post_document(token_client(rita), {"schema_version": 3})
    assert response.status_code == 400
    holder = Holder()  # would wait forever if the rejected upload had kept its turn
    holder.let_go()
    connections.close_all()


def test_a_turn_is_taken_in_a_transaction():
    with pytest.raises(RuntimeError, match="transaction"):
        upload_turn()
