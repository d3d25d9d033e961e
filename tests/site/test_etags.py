"""Every page and API read carries an ETag of its body and answers a conditional request
that matches it with 304 (benchsite.etags)."""

import hashlib

import pytest
from django.http import HttpResponse
from django.test import RequestFactory
from hypothesis import given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st

from benchsite.etags import ConditionalGetMiddleware


def _answer(body: bytes, method: str = "get", headers=None, **request_headers):
    request = getattr(RequestFactory(), method)("/page/", **request_headers)
    middleware = ConditionalGetMiddleware(lambda r: HttpResponse(body, headers=headers))
    return middleware(request)


@hypothesis_settings(max_examples=200, derandomize=True, database=None)
@given(one=st.binary(min_size=1), other=st.binary(min_size=1))
def test_the_etag_is_the_bodys_and_only_that_body_matches_it(one, other):
    first = _answer(one)
    assert first.status_code == 200 and first.content == one
    assert first["ETag"] == f'"{hashlib.sha256(one).hexdigest()[:32]}"'
    again = _answer(one, HTTP_IF_NONE_MATCH=first["ETag"])
    assert again.status_code == 304 and again.content == b""
    changed = _answer(other, HTTP_IF_NONE_MATCH=first["ETag"])
    assert changed.status_code == (304 if other == one else 200)


def test_no_etag_for_a_head_request_an_empty_body_or_no_store():
    assert not _answer(b"page", method="head").has_header("ETag")
    assert not _answer(b"").has_header("ETag")
    assert not _answer(b"page", headers={"Cache-Control": "no-store"}).has_header("ETag")


@pytest.mark.django_db
def test_a_page_answers_304_to_its_own_etag(client):
    page = client.get("/")
    assert page.status_code == 200 and page["ETag"]
    assert client.get("/", HTTP_IF_NONE_MATCH=page["ETag"]).status_code == 304
