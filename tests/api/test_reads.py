"""The read API (/api/v1/): every endpoint answers with the numbers the pages show, filters,
pages (limit/offset and cursors), CSV, conditional requests and cache headers, the one error
body, and withdrawn runs and synthetic drives left out."""

import csv
import io
import json

import pytest
from django.contrib.auth.models import User
from django.core.cache import cache
from knox.models import AuthToken

from benchsite.api import MAX_PAGE
from drives.models import Drive
from results.models import Result, Run, Test
from results.selectors.compare import compare
from results.selectors.rankings import leaderboard
from results.services import run_ingest, run_withdraw
from results.synthetic import measured_document
from tests.factories import with_changes
from tests.results.helpers import published

pytestmark = pytest.mark.django_db


def ingest(document: dict) -> Run:
    return run_ingest(document=json.dumps(document), submitter=None).run


@pytest.fixture
def two_drives():
    a = ingest(measured_document(seed=1, model="Alpha 240GB", series_seconds=60))
    b = ingest(measured_document(seed=2, model="Beta 480GB", capacity_bytes=480 * 10**9))
    return Drive.objects.get(pk=a.drive_id), Drive.objects.get(pk=b.drive_id)


def get(client, url, **params):
    response = client.get(url, params)
    assert response.status_code == 200, response.content[:500]
    return response.json()


def errors_of(response) -> dict:
    body = response.json()
    assert set(body) == {"detail", "errors"} and body["detail"]
    return body


def test_the_catalog_lists_drives_with_the_pages_filters(client, two_drives):
    alpha, beta = two_drives
    body = get(client, "/api/v1/drives/")
    assert body["count"] == 2
    assert {d["slug"] for d in body["results"]} == {alpha.slug, beta.slug}
    assert get(client, "/api/v1/drives/", q="alpha")["count"] == 1
    assert get(client, "/api/v1/drives/", capacity_min=300)["results"][0]["slug"] == beta.slug
    assert get(client, "/api/v1/drives/", ordering="-capacity_bytes")["results"][0]["slug"] == (
        beta.slug
    )
    assert get(client, "/api/v1/drives/", manufacturer=alpha.manufacturer.slug)["count"] == 2
    detail = get(client, f"/api/v1/drives/{alpha.slug}/")
    assert detail["model"] == "Alpha 240GB" and detail["page"] == alpha.get_absolute_url()
    for name in ("manufacturers", "controllers", "nand-types", "firmware", "prices", "suites"):
        assert "results" in get(client, f"/api/v1/{name}/")
    test = get(client, "/api/v1/tests/randread-4k-qd3/")
    assert test["block_size"] == 4096 and test["queue_depth"] == 3


def test_bad_filters_are_a_400_with_pointers(client, two_drives):
    for url, params in [
        ("/api/v1/drives/", {"kind": "floppy"}),
        ("/api/v1/drives/", {"capacity_min": "lots"}),
        ("/api/v1/results/", {"pattern": "zeros"}),
        ("/api/v1/results/", {"run": "-1"}),
        ("/api/v1/tests/randread-4k-qd3/leaderboard/", {"metric": "vibes"}),
        ("/api/v1/tests/randread-4k-qd3/leaderboard/", {"page": "0"}),
        ("/api/v1/value/", {"as_of": "yesterday"}),
        ("/api/v1/compare/x/y/", {"run_a": "one"}),
    ]:
        response = client.get(url, params)
        assert response.status_code == 400, (url, params, response.content[:300])
        body = errors_of(response)
        assert body["errors"] and all(e["pointer"].startswith("/") for e in body["errors"])
    missing = client.get("/api/v1/drives/no-such-drive/")
    assert missing.status_code == 404 and errors_of(missing)["errors"] == []
    assert client.get("/api/v1/tests/no-such-test/leaderboard/").status_code == 404
    assert client.get("/api/v1/compare/no-such/drive/").status_code == 404


def test_results_page_by_cursor_and_filter(client, two_drives):
    alpha, _ = two_drives
    first = get(client, "/api/v1/results/", limit=5)
    assert len(first["results"]) == 5 and first["next"]
    ids = [r["id"] for r in first["results"]]
    assert ids == sorted(ids, reverse=True)
    second = client.get(first["next"]).json()
    assert not set(ids) & {r["id"] for r in second["results"]}
    mine = get(client, "/api/v1/results/", drive=alpha.slug, test="randread-4k-qd3")
    assert {r["drive"] for r in mine["results"]} == {alpha.slug}
    assert {r["pattern"] for r in mine["results"]} == {"compressible", "incompressible"}
    assert all(r["latency_kind"] and r["latency"]["mean_ns"] for r in mine["results"])
    only = get(client, "/api/v1/results/", pattern="incompressible", source="measured")
    assert {r["pattern"] for r in only["results"]} == {"incompressible"}


@pytest.mark.parametrize("limit", [1, 3, 7, 40])
def test_results_cursors_walk_every_result_once_both_ways(client, two_drives, limit):
    """Next links from the first page visit every shown result once, newest first; previous
    links from the last page come back through the same pages."""
    expected = list(
        Result.objects.filter(run__status=Run.Status.PUBLISHED)
        .order_by("-id")
        .values_list("id", flat=True)
    )
    pages, url, params = [], "/api/v1/results/", {"limit": limit}
    while url:
        body = get(client, url, **params)
        pages.append([r["id"] for r in body["results"]])
        assert bool(body["previous"]) == (len(pages) > 1)
        url, params = body["next"], {}
    assert [i for page in pages for i in page] == expected
    assert all(len(page) == limit for page in pages[:-1]) and 0 < len(pages[-1]) <= limit
    back, url = [], body["previous"]
    while url:
        body = get(client, url)
        back.append([r["id"] for r in body["results"]])
        assert body["next"]
        url = body["previous"]
    assert back == pages[-2::-1]


def test_one_result_and_the_listed_rows_are_the_same(client, two_drives):
    listed = get(client, "/api/v1/results/", limit=3)["results"]
    for row in listed:
        assert get(client, f"/api/v1/results/{row['id']}/") == row
    for bad in ("0", "x1", "\u0663", str(2**64), str(max(r["id"] for r in listed) + 1000)):
        assert client.get(f"/api/v1/results/{bad}/").status_code == 404
    for cursor in ("cD1hYmM=", "garbage"):  # p=abc, not base64
        response = client.get("/api/v1/results/", {"cursor": cursor})
        assert response.status_code == 400, cursor
        assert response.json()["errors"][0]["pointer"] == "/query/cursor"


def test_series_carry_their_points_in_detail_only(client, two_drives):
    alpha, _ = two_drives
    listed = get(client, "/api/v1/consistency/", drive=alpha.slug)["results"]
    assert listed and all("iops" not in s for s in listed)
    one = get(client, f"/api/v1/consistency/{listed[0]['id']}/")
    assert len(one["iops"]) == 60


def test_compare_shows_the_compare_pages_numbers(client, two_drives):
    alpha, beta = two_drives
    body = get(client, f"/api/v1/compare/{alpha.slug}/{beta.slug}/")
    page = compare([alpha.slug, beta.slug])
    assert body["a"]["drive"]["slug"] == alpha.slug and body["b"]["drive"]["slug"] == beta.slug
    assert [t["test"] for t in body["tests"]] == [p.test.identifier for p in page.tests]
    for test, pair in zip(body["tests"], page.tests, strict=True):
        for shown, expected in zip(test["patterns"], pair.rows, strict=True):
            assert shown["a"]["bytes_per_second"] == expected.figures[0].bytes_per_second
            assert shown["b"]["iops"] == expected.figures[1].iops
            assert shown["winner"] == (expected.verdicts[1].winner or None)
    assert [c["spare_area_percent"] for c in body["consistency"]] == page.consistency_levels
    first = body["consistency"][0]["a"]
    assert "iops" not in first and client.get(first["url"]).json()["iops"]
    full = get(client, f"/api/v1/compare/{alpha.slug}/{beta.slug}/", points="true")
    assert full["consistency"][0]["a"]["iops"] == page.sides[0].consistency[0].iops_json.parsed
    run = Run.objects.filter(drive=alpha).first()
    assert get(client, f"/api/v1/compare/{alpha.slug}/{beta.slug}/", run_a=run.pk)["a"][
        "chosen_run"
    ] == (run.pk)


def test_leaderboard_and_value_show_the_pages_numbers(client, two_drives):
    body = get(client, "/api/v1/tests/randread-4k-qd3/leaderboard/")
    board = leaderboard(test=Test.objects.get(identifier="randread-4k-qd3"))
    assert [(r["rank"], r["drive"], r["bytes_per_second"]) for r in body["rows"]] == [
        (r.rank, r.entry.drive.slug, r.entry.bytes_per_second) for r in board.rows
    ]
    latency = get(client, "/api/v1/tests/randread-4k-qd3/leaderboard/", metric="latency_clat")
    assert latency["rows"]  # version 1 loadgen documents: completion latency
    assert [r["latency_mean_ns"] for r in latency["rows"]] == sorted(
        r["latency_mean_ns"] for r in latency["rows"]
    )
    value = get(client, "/api/v1/value/")
    assert value["considered"] == 0  # no prices yet: nothing to price


def test_withdrawn_runs_and_synthetic_drives_stay_out(client, two_drives, settings):
    alpha, beta = two_drives
    run_withdraw(run=Run.objects.get(drive=alpha), reason="wrong drive")
    assert {r["drive"] for r in get(client, "/api/v1/results/")["results"]} == {beta.slug}
    assert get(client, "/api/v1/consistency/", drive=alpha.slug)["results"] == []
    board = get(client, "/api/v1/tests/randread-4k-qd3/leaderboard/")
    assert {r["drive"] for r in board["rows"]} == {beta.slug}
    # Alpha's only run withdrawn, it left the list; its own address still answers.
    assert {d["slug"] for d in get(client, "/api/v1/drives/")["results"]} == {beta.slug}
    assert client.get(f"/api/v1/drives/{alpha.slug}/").status_code == 200
    Drive.objects.filter(pk=beta.pk).update(synthetic=True)
    assert get(client, "/api/v1/drives/")["count"] == 0
    assert client.get(f"/api/v1/drives/{beta.slug}/").status_code == 404


def test_every_list_as_csv_with_formulas_neutralised(client, document):
    hostile = '=HYPERLINK("http://evil.example","x")'
    ingest(with_changes(document, drive={**document["drive"], "model": hostile}))
    for url in (
        "/api/v1/drives/",
        "/api/v1/results/",
        "/api/v1/tests/randread-4k-qd3/leaderboard/",
        "/api/v1/value/",
        "/api/v1/manufacturers/",
    ):
        by_format = client.get(url, {"format": "csv"})
        by_accept = client.get(url, HTTP_ACCEPT="text/csv")
        for response in (by_format, by_accept):
            assert response.status_code == 200 and response["Content-Type"].startswith("text/csv")
        rows = list(csv.reader(io.StringIO(by_format.content.decode())))
        assert rows[0] or url == "/api/v1/value/"  # nothing priced: no rows, no columns
        cells = [cell for row in rows for cell in row]
        assert not any(cell.startswith(("=", "+", "@")) for cell in cells), url
    drives = client.get("/api/v1/drives/", {"format": "csv"}).content.decode()
    assert "'=HYPERLINK" in drives
    listed = get(client, "/api/v1/drives/")["results"][0]
    assert listed["model"] == hostile  # JSON carries it as plain data


def csv_rows(response) -> list[list[str]]:
    assert response.status_code == 200 and response["Content-Type"].startswith("text/csv")
    return list(csv.reader(io.StringIO(response.content.decode())))


@pytest.mark.parametrize(
    ("url", "nothing"),
    [
        ("/api/v1/results/", {"drive": "no-such-drive"}),
        ("/api/v1/drives/", {"q": "no such drive"}),
        ("/api/v1/runs/", {"drive": "no-such-drive"}),
        ("/api/v1/consistency/", {"drive": "no-such-drive"}),
        ("/api/v1/trim/", {"drive": "no-such-drive"}),
    ],
)
def test_a_list_as_csv_has_the_same_columns_on_every_page(client, two_drives, url, nothing):
    """The columns of a list's CSV are its serializer's, whatever each page holds: every
    page has the same header (measured rows with latency and published ones without), an
    empty list has it too, and the pages' links travel in the Link header."""
    published(
        manufacturer="Old",
        model="Disk",
        results=[{"test": "randread-4k-qd3", "pattern": "unspecified", "bytes_per_second": 9e6}],
    )
    headers = set()
    page = client.get(url, {"format": "csv", "limit": 1})
    seen = 0
    while True:
        rows = csv_rows(page)
        headers.add(tuple(rows[0]))
        seen += len(rows) - 1
        link = page.get("Link", "")
        if 'rel="next"' not in link:
            break
        page = client.get(link.split(">", 1)[0].lstrip("<"))  # format=csv is in it
    assert seen == len(get(client, url, limit=MAX_PAGE)["results"]) and len(headers) == 1, headers
    (header,) = headers
    assert csv_rows(client.get(url, {"format": "csv", **nothing})) == [list(header)]
    assert all("." not in column or column.split(".")[0] not in header for column in header)


def test_a_ranking_as_csv_holds_the_highlighted_drives_ranked_elsewhere(client, two_drives):
    a, b = two_drives
    url = "/api/v1/tests/randread-4k-qd3/leaderboard/"
    board = get(client, url, page_size=1, highlight=[a.slug, b.slug])
    shown = {r["drive"] for r in board["rows"] + board["elsewhere"]}
    assert board["elsewhere"]
    rows = csv_rows(
        client.get(url, {"page_size": 1, "highlight": [a.slug, b.slug], "format": "csv"})
    )
    column = rows[0].index("drive")
    assert {r[column] for r in rows[1:]} == shown == {a.slug, b.slug}


def test_html_in_names_is_plain_data(client, document):
    script = "<script>alert(1)</script>"
    ingest(with_changes(document, drive={**document["drive"], "model": script}))
    response = client.get("/api/v1/drives/")
    assert response["Content-Type"] == "application/json"
    assert response.json()["results"][0]["model"] == script


def test_conditional_requests_and_cache_headers(client, two_drives):
    cache.clear()
    first = client.get("/api/v1/drives/")
    assert first["ETag"] and "public" in first["Cache-Control"]
    again = client.get("/api/v1/drives/", HTTP_IF_NONE_MATCH=first["ETag"])
    assert again.status_code == 304
    changed = client.get("/api/v1/drives/", HTTP_IF_NONE_MATCH='"something-else"')
    assert changed.status_code == 200
    assert client.get("/api/v1/drives/", HTTP_AUTHORIZATION="Token nope").status_code == 401
    _, token = AuthToken.objects.create(user=User.objects.create_user("reader"))
    signed = client.get("/api/v1/drives/", HTTP_AUTHORIZATION=f"Token {token}")
    assert signed.status_code == 200 and "private" in signed["Cache-Control"]


def test_pages_have_a_maximum(client, two_drives):
    """A page holds at most MAX_PAGE items: a larger limit is refused, saying the maximum
    (it was read as the maximum, which the schema's bound on limit does not allow)."""
    for url in ("/api/v1/results/", "/api/v1/drives/"):
        response = client.get(url, {"limit": 100_000})
        assert response.status_code == 400
        assert f"from 1 to {MAX_PAGE}" in response.json()["detail"]
        assert len(get(client, url, limit=MAX_PAGE)["results"]) <= MAX_PAGE
    assert get(client, "/api/v1/drives/", limit=MAX_PAGE)["count"] == 2


def test_prices_filter_by_currency_whatever_its_case(client, two_drives):
    from tests.factories import PriceFactory

    a, _ = two_drives
    PriceFactory(drive=a, amount="99.00", currency="USD")
    PriceFactory(drive=a, amount="89.00", currency="EUR")
    for currency in ("USD", "usd", "Usd"):
        listed = get(client, "/api/v1/prices/", currency=currency)["results"]
        assert [p["currency"] for p in listed] == ["USD"], currency
