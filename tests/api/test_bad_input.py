"""Bad uploads, class by class: every case generated from a valid document (the loadgen
sample) at a place hypothesis picks, then sent to the API. Each one is a 400 whose errors
say what is wrong and where (a JSON pointer), never a 5xx, and nothing is written. Then the
request-level classes: too large (413, unread), unsupported media types (415), no body."""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import urlencode

import pytest
from django.conf import settings
from hypothesis import HealthCheck, given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st

from results import documents
from results.documents import pointer
from tests.api.conftest import FIO_RUNS, RUNS, SAMPLES, post_document, rows

pytestmark = pytest.mark.django_db

SAMPLE = json.loads((SAMPLES / "measured-loadgen-quick.json").read_text())
EXAMPLES = hypothesis_settings(
    max_examples=12,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


def leaves(value: Any, path: tuple = ()) -> list[tuple[tuple, Any]]:
    if isinstance(value, dict):
        return [leaf for k, v in value.items() for leaf in leaves(v, (*path, k))]
    if isinstance(value, list):
        return [leaf for i, v in enumerate(value) for leaf in leaves(v, (*path, i))]
    return [(path, value)]


def objects(value: Any, path: tuple = ()) -> list[tuple]:
    found = [path] if isinstance(value, dict) and value else []
    if isinstance(value, dict | list):
        items = value.items() if isinstance(value, dict) else enumerate(value)
        for k, v in items:
            found.extend(objects(v, (*path, k)))
    return found


STRINGS = [p for p, v in leaves(SAMPLE) if isinstance(v, str)]
NUMBERS = [p for p, v in leaves(SAMPLE) if type(v) in (int, float)]
INTEGERS = [p for p, v in leaves(SAMPLE) if type(v) is int]
OBJECTS = objects(SAMPLE)
MARK = "\u2603MARK\u2603"  # put where the raw JSON text is then spliced


def with_value(path: tuple, value: Any) -> dict:
    document = json.loads(json.dumps(SAMPLE))
    parent = document
    for part in path[:-1]:
        parent = parent[part]
    parent[path[-1]] = value
    return document


def spliced(path: tuple, raw_value: str) -> bytes:
    """The sample with the value at path replaced by raw JSON text (what json.dumps cannot
    write: NaN as a bare token, 2**70, invalid UTF-8...)."""
    return json.dumps(with_value(path, MARK)).replace(json.dumps(MARK), raw_value).encode()


def rejected(client, body: bytes | str | dict, url: str = RUNS, **extra) -> list[dict]:
    """Send the body; it must be a 400 with at least one error, each with a pointer and a
    message, and no row written. Returns the errors."""
    before = rows()
    response = post_document(client, body, url, **extra)
    assert response.status_code == 400, (response.status_code, response.content[:500])
    body = response.json()
    assert isinstance(body["detail"], str) and body["detail"]
    errors = body["errors"]
    assert errors, body
    for error in errors:
        assert isinstance(error["pointer"], str) and (
            error["pointer"] in ("",) or error["pointer"].startswith("/")
        )
        assert isinstance(error["message"], str) and error["message"]
    assert rows() == before, "a rejected upload wrote rows"
    return errors


def messages(errors: list[dict]) -> str:
    return " | ".join(f"{e['pointer']}: {e['message']}" for e in errors)


def test_the_sample_itself_is_accepted(api):
    response = post_document(api, SAMPLE)
    assert response.status_code == 201, response.content


@EXAMPLES
@given(path=st.sampled_from(STRINGS), at=st.integers(0, 20))
def test_nul_characters(api, path, at):
    value = with_value(path, None)  # noqa: F841 (the path exists)
    original = _get(SAMPLE, path)
    errors = rejected(api, with_value(path, original[:at] + "\x00" + original[at:]))
    assert any(e["pointer"] == pointer(*path) for e in errors), messages(errors)
    assert "NUL" in messages(errors)


@EXAMPLES
@given(path=st.sampled_from(STRINGS), surrogate=st.integers(0xD800, 0xDFFF))
def test_lone_surrogates(api, path, surrogate):
    errors = rejected(api, spliced(path, f'"text \\u{surrogate:04x} here"'))
    assert any(e["pointer"] == pointer(*path) for e in errors), messages(errors)
    assert "surrogate" in messages(errors)


@EXAMPLES
@given(
    path=st.sampled_from(STRINGS),
    bad=st.sampled_from([b"\xff", b"\xc3\x28", b"\xed\xa0\x80", b"\xf8\x88\x80\x80\x80", b"\x80"]),
)
def test_invalid_utf8(api, path, bad):
    body = spliced(path, '"' + MARK + '"').replace(MARK.encode(), bad)
    errors = rejected(api, body)
    assert documents.NOT_UTF8 in messages(errors)


@EXAMPLES
@given(path=st.sampled_from(INTEGERS), excess=st.integers(0, 2**80))
def test_integers_beyond_64_bits(api, path, excess):
    errors = rejected(api, spliced(path, str(2**64 + excess)))
    assert any(e["pointer"] == pointer(*path) for e in errors), messages(errors)


@EXAMPLES
@given(
    path=st.sampled_from(NUMBERS), token=st.sampled_from(["NaN", "Infinity", "-Infinity", "1e999"])
)
def test_nan_and_infinity(api, path, token):
    errors = rejected(api, spliced(path, token))
    if token == "1e999":  # valid JSON syntax, infinite as a double
        assert any(e["pointer"] == pointer(*path) for e in errors), messages(errors)
    else:
        assert "is not a JSON number" in messages(errors)


@EXAMPLES
@given(path=st.sampled_from(NUMBERS), flag=st.booleans())
def test_booleans_where_numbers_belong(api, path, flag):
    errors = rejected(api, with_value(path, flag))
    # schema_version is read first: "schema_version false is not supported".
    said = "not supported" if path == ("schema_version",) else "boolean"
    assert any(e["pointer"] == pointer(*path) and said in e["message"] for e in errors), messages(
        errors
    )


@EXAMPLES
@given(path=st.sampled_from([*STRINGS, *NUMBERS]), depth=st.integers(2_000, 200_000))
def test_deeply_nested_json(api, path, depth):
    errors = rejected(api, spliced(path, "[" * depth + "]" * depth))
    assert messages(errors)


@EXAMPLES
@given(where=st.sampled_from(OBJECTS), data=st.data())
def test_duplicate_keys(api, where, data):
    parent = _get(SAMPLE, where)
    key = data.draw(st.sampled_from(sorted(parent)))
    first = json.dumps(with_value((*where, key), MARK))
    # The same key again, right after the first one, with another value.
    raw = first.replace(json.dumps(MARK), json.dumps(parent[key]) + f", {json.dumps(key)}: 1", 1)
    errors = rejected(api, raw.encode())
    assert documents.DUPLICATE_KEY.format(key=documents.quote(key)) in messages(errors)


@EXAMPLES
@given(cut=st.integers(1, len(json.dumps(SAMPLE)) - 1))
def test_malformed_json(api, cut):
    errors = rejected(api, json.dumps(SAMPLE)[:cut])
    assert "not valid JSON" in messages(errors)


@EXAMPLES
@given(path=st.sampled_from([p for p in NUMBERS if "results" in p]), value=st.integers(-(2**40), 0))
def test_meaning_errors_name_their_place(api, path, value):
    errors = rejected(api, with_value(path, value))
    assert all(e["pointer"] for e in errors), messages(errors)


@pytest.mark.parametrize(
    "body",
    [b"[]", b"42", b'"text"', b"null", b"{}", b"\xef\xbb\xbf{}", b"{} {}", b" ", b"\x00"],
)
def test_not_a_document(api, body):
    rejected(api, body)


@pytest.mark.parametrize("url", [RUNS, FIO_RUNS])
def test_fio_output_that_is_broken(api, url):
    raw = json.dumps({"fio version": "fio-3.33", "jobs": [{"jobname": 1}]})
    errors = rejected(api, raw, url + "?manufacturer=M&model=X")
    assert messages(errors)


def test_fio_output_without_its_drive_is_a_400(api):
    from pathlib import Path

    raw = (Path(__file__).parent.parent / "results/fio/fio-3.33-standard.json").read_bytes()
    errors = rejected(api, raw, FIO_RUNS)
    assert errors[0]["pointer"] == "/drive"
    assert "manufacturer" in errors[0]["message"]
    for capacity in ("lots", "1.5", "2.4e-3", "240,000,000,000", "9" * 45, "0x10", "-5", "9" * 25):
        query = urlencode({"manufacturer": "M", "model": "X", "capacity_bytes": capacity})
        errors = rejected(api, raw, f"{FIO_RUNS}?{query}")
        assert [e["pointer"] for e in errors] == ["/drive/capacity_bytes"], capacity
        if capacity not in ("-5", "9" * 25):  # whole numbers: beyond the schema's bounds
            assert "whole number of bytes" in errors[0]["message"], errors
            assert json.dumps(capacity)[:20] in errors[0]["message"]


# -- the request itself --------------------------------------------------------------------
def test_a_body_over_the_limit_is_a_413_that_says_the_limit(api, settings):
    settings.BENCH_MAX_DOCUMENT_BYTES = 1000
    before = rows()
    response = post_document(api, json.dumps(SAMPLE))
    assert response.status_code == 413
    assert "the limit is 1000 bytes" in response.json()["detail"]
    assert rows() == before


def test_the_size_is_checked_before_the_body_is_read(api):
    """A Content-Length over the limit is refused with no byte of the body read (the
    stream here would fail if it were)."""
    from io import BytesIO

    class Unreadable(BytesIO):
        def read(self, *args):
            raise AssertionError("the body was read")

        readline = read

    limit = settings.BENCH_MAX_DOCUMENT_BYTES
    response = api.generic(
        "POST",
        RUNS,
        b"",
        content_type="application/json",
        CONTENT_LENGTH=str(limit + 1),
        **{"wsgi.input": Unreadable()},
    )
    assert response.status_code == 413
    assert f"the limit is {limit} bytes" in response.json()["detail"]


def test_a_file_over_the_limit_is_a_413(api, settings):
    from django.core.files.uploadedfile import SimpleUploadedFile

    settings.BENCH_MAX_DOCUMENT_BYTES = 2000
    big = SimpleUploadedFile("run.json", b" " * 3000 + json.dumps(SAMPLE).encode())
    response = api.post(RUNS, {"document": big}, format="multipart")
    assert response.status_code == 413
    assert "the limit is 2000 bytes" in response.json()["detail"]


@pytest.mark.parametrize(
    "content_type",
    ["text/plain", "application/xml", "application/x-www-form-urlencoded", "image/png", ""],
)
def test_unsupported_media_types_are_a_415(api, content_type):
    before = rows()
    response = api.generic("POST", RUNS, json.dumps(SAMPLE), content_type=content_type)
    assert response.status_code == 415
    assert "application/json" in response.json()["detail"]
    assert rows() == before


def test_a_charset_other_than_utf8_is_a_400(api):
    response = api.generic(
        "POST",
        RUNS,
        json.dumps(SAMPLE).encode("utf-16"),
        content_type="application/json; charset=utf-16",
    )
    assert response.status_code == 400
    assert "UTF-8" in response.json()["errors"][0]["message"]


def test_an_empty_body_is_a_400(api):
    errors = rejected(api, b"")
    assert "no body" in errors[0]["message"]


def test_a_form_without_the_file_is_a_400(api):
    response = api.post(RUNS, {"other": "x"}, format="multipart")
    assert response.status_code == 400
    assert response.json()["errors"][0]["pointer"] == "/form/document"


def test_a_withdrawal_without_a_reason_is_a_400(api, reviewer):
    from results.models import Run
    from results.services import run_ingest
    from tests.api.conftest import withdraw_url

    run = run_ingest(document=json.dumps(SAMPLE), submitter=reviewer).run
    for body in (
        {},
        {"reason": ""},
        {"reason": "   "},
        {"reason": 5 * "x" * 1000},
        {"reason": "a\x00b"},
        {"reason": 5},
        {"reason": True},
        {"reason": ["why"]},
        {"reason": {"why": "x"}},
        {"reason": None},
    ):
        response = api.post(withdraw_url(run.pk), body, format="json")
        assert response.status_code == 400, (body, response.content)
        assert response.json()["errors"][0]["pointer"] == "/reason"
    response = api.generic(
        "POST", withdraw_url(run.pk), '{"reason": "\\ud800"}', content_type="application/json"
    )
    assert response.status_code == 400
    response = api.generic(
        "POST", withdraw_url(run.pk), "{not json", content_type="application/json"
    )
    assert response.status_code == 400
    run.refresh_from_db()
    assert run.status == Run.Status.PUBLISHED


def _get(value: Any, path: tuple) -> Any:
    for part in path:
        value = value[part]
    return value


# -- bodies streamed without a Content-Length (Transfer-Encoding: chunked) -------------------
def streamed(reviewer, body: bytes, **environ) -> tuple[str, dict]:
    """POST `body` through the whole WSGI stack as gunicorn hands on a chunked request: the
    body de-chunked, no CONTENT_LENGTH, wsgi.input_terminated."""
    from io import BytesIO

    from django.core.handlers.wsgi import WSGIHandler
    from django.test import RequestFactory
    from knox.models import AuthToken

    from benchsite.chunked import ChunkedBodies

    _, token = AuthToken.objects.create(user=reviewer)
    request = RequestFactory().generic(
        "POST", RUNS, CONTENT_TYPE="application/json", HTTP_AUTHORIZATION=f"Token {token}"
    )
    env = dict(request.environ)
    env.pop("CONTENT_LENGTH", None)
    env.update({"wsgi.input": BytesIO(body), "wsgi.input_terminated": True})
    env.update({"HTTP_TRANSFER_ENCODING": "chunked", **environ})
    status = []
    answer = b"".join(ChunkedBodies(WSGIHandler())(env, lambda s, h, e=None: status.append(s)))
    return status[0], json.loads(answer)


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("extra", [0, 20, 21, 40, 41, 5000])  # bytes past the document
def test_a_streamed_body_is_read_whole_up_to_the_limit(reviewer, settings, extra):
    """A body streamed without its length is taken as if it had one: a document within the
    limit is ingested; one over it is a 413 saying the limit, and one that goes on past what
    the server reads says it is more than that, never a size it does not know."""
    raw = json.dumps(SAMPLE).encode()
    settings.BENCH_MAX_DOCUMENT_BYTES = len(raw) + 20
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = len(raw) + 40
    before = rows()
    status, answer = streamed(reviewer, raw + b" " * extra)
    if extra <= 20:
        assert status.startswith(("201", "200")), answer
        assert answer["run"]["tool"]["name"] == "loadgen"
        return
    assert status.startswith("413"), answer
    limit = f"the limit is {len(raw) + 20} bytes"
    assert limit in answer["detail"]
    if extra <= 40:
        assert f"the document is {len(raw) + extra} bytes" in answer["detail"]
    else:
        assert f"the document is more than {len(raw) + 40} bytes" in answer["detail"]
    assert rows() == before


@pytest.mark.django_db(transaction=True)
def test_only_a_streamed_body_the_server_dechunked_is_read(reviewer):
    """A server that does not de-chunk (no wsgi.input_terminated: the body would still hold
    the chunks' framing) and a request with a Content-Length are left as they came."""
    raw = json.dumps(SAMPLE).encode()
    status, answer = streamed(reviewer, raw, **{"wsgi.input_terminated": False})
    assert status.startswith("400") and "no body" in answer["errors"][0]["message"]
    status, answer = streamed(reviewer, raw + b"tail", CONTENT_LENGTH=str(len(raw)))
    assert status.startswith("201"), answer
