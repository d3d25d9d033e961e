"""The error pages: under /api/ every error is the API's one error body, also where no view
runs (an address no route matches, a request Django refuses before routing); elsewhere the
site's own page, in its style, with what was not found."""

from urllib.parse import quote

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

pytestmark = pytest.mark.django_db

SEGMENT = st.text(st.characters(codec="utf-8"), min_size=1, max_size=12)
API_ERROR_FIELDS = {"detail", "errors"}


def _api_error(response) -> dict:
    assert response["Content-Type"].startswith("application/json"), response.content[:200]
    body = response.json()
    assert set(body) == API_ERROR_FIELDS and body["detail"]
    return body


@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
@given(
    first=st.sampled_from(["", "v1/", "v1/drives/", "v1/compare/a/", "v1/runs/", "v2/"]),
    segments=st.lists(SEGMENT, min_size=1, max_size=3),
    slash=st.booleans(),
)
def test_any_address_under_the_api_answers_in_its_error_body(client, first, segments, slash):
    path = "/api/" + first + "/".join(quote(s, safe="") for s in segments) + ("/" if slash else "")
    response = client.get(path)
    assert response.status_code < 500, path
    if response.status_code >= 400:
        _api_error(response)


@pytest.mark.parametrize("debug", [False, True])  # make run's DEBUG: Django's HTML 404 was
@pytest.mark.parametrize(
    "path",
    ["/api/v1/nope/", "/api/v1/drives/%00/", "/api/v1/drives/%C3%A9/", "/api/v1/compare/a%20b/c/"],
)
def test_examples_of_api_addresses_no_route_matches(client, settings, path, debug):
    settings.DEBUG = debug
    for method in ("GET", "POST"):
        response = client.generic(method, path)
        assert response.status_code == 404
        assert _api_error(response)["detail"] == "There is nothing at this address."


def test_a_page_that_does_not_exist_is_the_sites_page(client):
    response = client.get("/no/such/page/")
    assert response.status_code == 404
    text = response.content.decode()
    assert 'class="site-header"' in text and "There is nothing at this address." in text
    response = client.get("/drives/no-such-drive/")
    assert response.status_code == 404
    assert "No such drive" in response.content.decode()


def test_more_fields_than_django_reads_is_a_400_in_the_right_form(client, settings):
    fields = "&".join(f"f{i}=1" for i in range(settings.DATA_UPLOAD_MAX_NUMBER_FIELDS + 1))
    api = client.get(f"/api/v1/drives/?{fields}")
    assert api.status_code == 400
    _api_error(api)
    page = client.get(f"/?{fields}")
    assert page.status_code == 400
    assert 'class="site-header"' in page.content.decode()
    upload = client.post(
        "/api/v1/runs/", {f"f{i}": "1" for i in range(settings.DATA_UPLOAD_MAX_NUMBER_FIELDS + 1)}
    )
    assert upload.status_code in (400, 401)
    _api_error(upload)


@pytest.mark.parametrize("debug", [False, True])
@pytest.mark.parametrize("method", ["GET", "POST", "PUT", "PATCH", "DELETE"])
def test_an_address_without_its_slash_is_redirected_keeping_method_and_body(
    client, settings, method, debug
):
    settings.DEBUG = debug
    for path in ("/api/v1/runs", "/bench/tests", "/api/v1/drives"):
        response = client.generic(method, f"{path}?a=1", b"{}", "text/plain")
        assert response.status_code == 308, (method, path)
        assert response["Location"] == f"{path}/?a=1"
