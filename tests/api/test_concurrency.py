"""Two uploads of the same document at once, from two threads with their own database
connections and committed transactions: exactly one run, and neither upload gets a 5xx.
The same with one Idempotency-Key."""

import json
import threading

import pytest
from django.db import connections

from results.models import IdempotencyKey, Run
from results.synthetic import measured_document
from tests.api.conftest import make_user, post_document, token_client

pytestmark = pytest.mark.django_db(transaction=True)


def upload_at_once(user, body: str, count: int = 2, **extra) -> list:
    barrier = threading.Barrier(count)
    responses: list = [None] * count

    def upload(index: int) -> None:
        try:
            client = token_client(user)
            barrier.wait(timeout=30)
            responses[index] = post_document(client, body, **extra)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=upload, args=(i,)) for i in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    return responses


def test_the_same_document_twice_at_once_is_one_run():
    rita = make_user("rita", reviewer=True, trusted=True)
    body = json.dumps(measured_document(series_seconds=300))
    responses = upload_at_once(rita, body)
    codes = sorted(r.status_code for r in responses)
    assert codes == [200, 201], [r.content[:300] for r in responses]
    assert Run.objects.count() == 1
    assert {r.json()["run"]["id"] for r in responses} == {Run.objects.get().pk}


def test_one_idempotency_key_twice_at_once_is_one_run_and_one_response():
    rita = make_user("rita", reviewer=True, trusted=True)
    body = json.dumps(measured_document(series_seconds=300))
    responses = upload_at_once(rita, body, HTTP_IDEMPOTENCY_KEY="same-key")
    assert [r.status_code for r in responses] == [201, 201]
    assert responses[0].json() == responses[1].json()
    assert Run.objects.count() == 1 and IdempotencyKey.objects.count() == 1
