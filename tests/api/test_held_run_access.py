"""A held run is its submitter's (issue 43, item 7): the links the upload's answer, their run
list and the run API hand them open its page without a session (a signed key bound to the
run and its submitter) and the run API answers them; everyone else, and a key that is not
this run's, gets the 404 of any run held for review. What only they see is never cached."""

from html import unescape
from urllib.parse import parse_qs, urlsplit

import pytest
from django.core.cache import cache
from django.test import Client

from benchsite import response_cache
from benchsite.response_cache import CACHE_STATUS_HEADER
from drives.models import Drive
from results import permissions
from results.models import Run
from results.services import run_approve, run_withdraw
from tests.api.conftest import MY_RUNS, RUNS, make_user, post_document, token_client

pytestmark = pytest.mark.django_db
TEST = "randwrite-4k-qd3-8g"
HELD_NOTE = "Held for review: not public."
NOINDEX = '<meta name="robots" content="noindex, nofollow">'


def published(iops: float, *, title: str, model: str = "Held One") -> dict:
    return {
        "schema_version": 1,
        "status": "complete",
        "source": {
            "kind": "published",
            "citation": {"publisher": "Site", "title": title, "published_on": "2011-04-01"},
        },
        "tool": {"name": "Iometer"},
        "drive": {"manufacturer": "Maker", "model": model},
        "results": [{"test": TEST, "pattern": "incompressible", "iops": iops}],
    }


def upload_held(client, *, model: str = "Held One") -> dict:
    """A figure twelve times the drive's other, uploaded by `client`: the answer's run."""
    assert post_document(client, published(5_000, title="First", model=model)).status_code == 201
    Drive.objects.filter(model=model).update(needs_review=False)
    response = post_document(client, published(60_000, title="Twelve times", model=model))
    assert response.status_code == 201, response.content
    run = response.json()["run"]
    assert run["status"] == "held"
    return run


def key_of(link: str) -> str:
    (key,) = parse_qs(urlsplit(link).query)[permissions.HELD_KEY_PARAMETER]
    return key


def path_of(link: str) -> str:
    parts = urlsplit(link)
    return parts.path + (f"?{parts.query}" if parts.query else "")


def page_url(run_id: int, key: str | None = None) -> str:
    return f"/bench/runs/{run_id}/" + ("" if key is None else f"?key={key}")


def is_held_view(response) -> bool:
    """The held run's page, marked held and private."""
    html = response.content.decode()
    return (
        response.status_code == 200
        and HELD_NOTE in html
        and "Twelve times" in html
        and NOINDEX in html
        and response["Cache-Control"] == "private, no-store"
        and response["X-Robots-Tag"] == "noindex, nofollow"
        and response["Referrer-Policy"] == "no-referrer"
    )


@pytest.fixture
def held(api):
    """The reviewer's held run, as their upload's answer gave it."""
    return upload_held(api)


def test_the_upload_answer_hands_its_submitter_a_page_link_that_opens_without_a_session(api, held):
    page = held["page"]
    assert page.startswith(f"http://testserver/bench/runs/{held['id']}/?key=")
    response = Client().get(path_of(page))  # no session, as loadgen's and curl's users
    assert is_held_view(response)
    html = unescape(response.content.decode())
    (reason,) = held["held_reasons"]
    assert reason in html and "share it with no one" in html
    # Its document, from the page's link, which carries the key on.
    document = f"/bench/runs/{held['id']}/document.json?key={key_of(page)}"
    assert f'href="{document}"' in html
    download = Client().get(document)
    assert download.status_code == 200 and download["Cache-Control"] == "private, no-store"
    assert Client().get(f"/bench/runs/{held['id']}/document.json").status_code == 404
    # The answer's url is the run in the API, which answers its submitter.
    assert held["url"] == f"http://testserver{RUNS}{held['id']}/"
    detail = api.get(held["url"])
    assert detail.status_code == 200
    body = detail.json()
    assert (body["status"], body["held_reasons"], body["page"]) == ("held", [reason], page)
    assert detail["Cache-Control"] == "private, no-store"


def test_their_run_list_and_the_run_api_give_the_same_link(api, held):
    (mine,) = [r for r in api.get(MY_RUNS).json()["results"] if r["id"] == held["id"]]
    assert mine["page"] == held["page"] and mine["url"] == held["url"]
    assert api.get(held["url"]).json()["page"] == held["page"]
    # A published run's links carry no key.
    (first,) = [r for r in api.get(MY_RUNS).json()["results"] if r["status"] == "published"]
    assert "?" not in first["page"] and first["url"]


@pytest.mark.parametrize("who", ["submitter", "other reviewer", "anonymous", "staff"])
@pytest.mark.parametrize("key", ["none", "its own", "tampered", "another run's", "empty"])
def test_who_sees_the_held_page_with_which_key(client, api, held, other_reviewer, staff, who, key):
    other_run = upload_held(token_client(other_reviewer), model="Another One")
    own = key_of(held["page"])
    keys = {
        "none": None,
        "its own": own,
        "tampered": own[:-1] + ("A" if own[-1] != "A" else "B"),
        "another run's": key_of(other_run["page"]),
        "empty": "",
    }
    users = {
        "submitter": Run.objects.get(pk=held["id"]).submitter,
        "other reviewer": other_reviewer,
        "anonymous": None,
        "staff": staff,
    }
    if users[who] is not None:
        client.force_login(users[who])
    response = client.get(page_url(held["id"], keys[key]))
    if who in ("submitter", "staff") or key == "its own":
        assert is_held_view(response)
    else:
        assert response.status_code == 404
        assert "Twelve times" not in response.content.decode()


@pytest.mark.parametrize("who", ["submitter", "other reviewer", "anonymous", "staff"])
def test_the_run_api_answers_its_submitter_and_staff_only(held, other_reviewer, staff, who):
    users = {
        "submitter": Run.objects.get(pk=held["id"]).submitter,
        "other reviewer": other_reviewer,
        "anonymous": None,
        "staff": staff,
    }
    client = token_client(users[who])
    response = client.get(f"{RUNS}{held['id']}/")
    if who in ("submitter", "staff"):
        assert response.status_code == 200
        body = response.json()
        assert body["status"] == "held" and body["held_reasons"] == held["held_reasons"]
        assert body["page"] == held["page"]  # bound to the run and its submitter
        assert response["Cache-Control"] == "private, no-store"
    else:
        assert response.status_code == 404
        assert "Twelve times" not in response.content.decode()
    # By session as well as by token.
    session = Client()
    if users[who] is not None:
        session.force_login(users[who])
    assert session.get(f"{RUNS}{held['id']}/").status_code == response.status_code
    # Never in the public list, whoever asks.
    listed = client.get(RUNS).json()["results"]
    assert held["id"] not in [r["id"] for r in listed]


def test_no_one_else_is_handed_the_key(held, other_reviewer):
    """Another reviewer uploading the same document gets the run back, without its key, its
    reasons or a working API address; their run list does not hold it."""
    other = token_client(other_reviewer)
    again = post_document(other, published(60_000, title="Twelve times"))
    assert again.status_code == 200
    run = again.json()["run"]
    assert run["id"] == held["id"] and run["status"] == "held"
    assert "key=" not in run["page"] and run["url"] is None and run["held_reasons"] is None
    assert "key=" not in again.content.decode() and "Location" not in again
    assert held["id"] not in [r["id"] for r in other.get(MY_RUNS).json()["results"]]
    assert key_of(held["page"]) not in again.content.decode()


def test_a_key_is_bound_to_its_run_and_its_submitter(held, other_reviewer):
    run = Run.objects.get(pk=held["id"])
    key = key_of(held["page"])
    assert permissions.held_key(run) == key and permissions.held_key_opens(run, key)
    assert len(key) >= 43  # 256 bits of HMAC, URL-safe base64
    # The same run credited to another user: the key no longer opens it.
    Run.objects.filter(pk=run.pk).update(submitter=other_reviewer)
    assert Client().get(page_url(run.pk, key)).status_code == 404


def test_a_key_made_under_a_retired_secret_still_opens_the_page(held, settings):
    key = key_of(held["page"])
    settings.SECRET_KEY_FALLBACKS = [settings.SECRET_KEY]
    settings.SECRET_KEY = "a new secret key, rotated in after the upload, 50 characters"
    assert key_of(permissions.page_link(Run.objects.get(pk=held["id"]), _staff())) != key
    assert is_held_view(Client().get(page_url(held["id"], key)))
    settings.SECRET_KEY_FALLBACKS = []
    assert Client().get(page_url(held["id"], key)).status_code == 404


def _staff():
    return make_user("sigrid", staff=True)


def test_the_key_stops_mattering_once_the_run_is_published_or_withdrawn(api, held):
    key = key_of(held["page"])
    run = Run.objects.get(pk=held["id"])
    run_approve(run=run)
    public = Client().get(page_url(run.pk, key))
    assert public.status_code == 200 and HELD_NOTE not in public.content.decode()
    assert NOINDEX not in public.content.decode() and "no-store" not in public.get(
        "Cache-Control", ""
    )
    assert public.content == Client().get(page_url(run.pk)).content
    (mine,) = [r for r in api.get(MY_RUNS).json()["results"] if r["id"] == run.pk]
    assert "key=" not in mine["page"]

    other = upload_held(api, model="Second Drive")
    key = key_of(other["page"])
    run_withdraw(run=Run.objects.get(pk=other["id"]), reason="typed the wrong unit", by=None)
    withdrawn = Client().get(page_url(other["id"], key))
    html = withdrawn.content.decode()
    assert withdrawn.status_code == 200 and "Withdrawn on" in html
    assert "typed the wrong unit" not in html and HELD_NOTE not in html


# -- the response cache --------------------------------------------------------------------


@pytest.fixture
def kept(settings):
    """The response cache on (the database's cache, as in production without Redis)."""
    settings.BENCH_RESPONSE_CACHE = True
    cache.clear()
    response_cache._recent.entries.clear()
    yield
    cache.clear()
    response_cache._recent.entries.clear()


@pytest.mark.django_db(transaction=True)
def test_the_response_cache_never_keeps_or_serves_the_held_view(kept, reviewer):
    held = upload_held(token_client(reviewer))
    keyed = path_of(held["page"])
    for _ in range(3):  # anonymous, as the cache keeps pages for: computed every time
        response = Client().get(keyed)
        assert is_held_view(response)
        assert CACHE_STATUS_HEADER not in response
    assert not response_cache._recent.entries
    # Nobody else is served it: not from the page's address, nor from a wrong key.
    plain = Client().get(page_url(held["id"]))
    assert plain.status_code == 404
    assert Client().get(keyed + "x").status_code == 404
    signed_in = Client()
    signed_in.force_login(make_user("otto", reviewer=True, trusted=True))
    assert signed_in.get(page_url(held["id"])).status_code == 404
    # Once published, its page is public and kept like any other.
    run_approve(run=Run.objects.get(pk=held["id"]))
    assert Client().get(page_url(held["id"]))[CACHE_STATUS_HEADER] == "miss"
    assert Client().get(page_url(held["id"]))[CACHE_STATUS_HEADER] == "hit"


def test_a_private_or_unstored_response_is_never_kept(rf):
    from django.http import HttpResponse

    request = rf.get("/bench/runs/1/")
    for value in ("private, no-store", "no-store", "private", "Private, max-age=0"):
        response = HttpResponse("x")
        response["Cache-Control"] = value
        assert not response_cache.cacheable_response(request, response), value
    assert response_cache.cacheable_response(request, HttpResponse("x"))
