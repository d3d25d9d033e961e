"""Kept responses follow what they show (benchsite/response_cache.py, the scopes of
benchsite/urls.py, core.versions): an upload, a withdrawal or an edit makes every kept page
that shows it stale before the writing request returns, and leaves the others kept. Every
page is checked both ways: served through the response cache it is exactly the page the
view makes now, and it is a hit or a miss as its scopes say."""

import json
from dataclasses import dataclass

import pytest
from django.core.cache import cache
from django.db import transaction
from django.test import Client

from benchsite import response_cache
from benchsite.response_cache import CACHE_STATUS_HEADER
from benchsite.settings.base import cache_settings
from drives.models import Drive
from results.models import Run
from results.services import run_ingest
from results.synthetic import measured_document
from tests.api.conftest import make_user, post_document, token_client, withdraw_url
from tests.factories import ControllerFactory, PriceFactory
from tests.results.helpers import published

pytestmark = pytest.mark.django_db(transaction=True)

FOUR_K = "randread-4k-qd3"  # a test value views price
SEQUENTIAL = "seqread-128k-qd1"
OTHER = "seqwrite-128k-qd1"  # only Z is ranked in it


@dataclass
class Shop:
    x: Drive
    y: Drive
    z: Drive
    pages: dict[str, str]


def figures(test: str, iops: float) -> dict:
    return {"test": test, "pattern": "unspecified", "iops": iops}


@pytest.fixture
def shop(settings, test_catalog) -> Shop:
    """Three drives: X and Y ranked in FOUR_K and SEQUENTIAL and priced, Z ranked in OTHER;
    and the pages and API reads that show them."""
    settings.CACHES = cache_settings("")
    settings.BENCH_RESPONSE_CACHE = True
    cache.clear()
    response_cache._recent.entries.clear()
    x, y, z = (
        published(manufacturer=f"{n} maker", model=f"{n} drive", results=results).drive
        for n, results in (
            # 4K figures within the tenfold of upload_for's (else an upload is held).
            ("X", [figures(FOUR_K, 2000), figures(SEQUENTIAL, 900)]),
            ("Y", [figures(FOUR_K, 4000), figures(SEQUENTIAL, 800)]),
            ("Z", [figures(OTHER, 700)]),
        )
    )
    PriceFactory(drive=x, amount="50.00")
    PriceFactory(drive=y, amount="90.00")
    Drive.objects.filter(pk=z.pk).update(controller=ControllerFactory())
    pages = {
        "X's page": f"/drives/{x.slug}/",
        "Y's page": f"/drives/{y.slug}/",
        "X vs Y": f"/bench/compare/{x.slug}/{y.slug}/",
        "X vs Y, CSV": f"/bench/compare/{x.slug}/{y.slug}/compare.csv",
        "X vs Y, API": f"/api/v1/compare/{x.slug}/{y.slug}/",
        "Y vs Z": f"/bench/compare/{y.slug}/{z.slug}/",
        # Three drives depend on each: X's upload makes this page stale, X third.
        "Y, Z and X": f"/bench/compare/{y.slug}/{z.slug}/{x.slug}/",
        "Y, Z and X, API": f"/api/v1/compare/{y.slug}/{z.slug}/{x.slug}/",
        "4K ranking": f"/bench/tests/{FOUR_K}/",
        "4K ranking, API": f"/api/v1/tests/{FOUR_K}/leaderboard/",
        "sequential ranking": f"/bench/tests/{SEQUENTIAL}/",
        "other ranking": f"/bench/tests/{OTHER}/",
        "other ranking, X highlighted": f"/bench/tests/{OTHER}/?highlight={x.slug}",
        "value": f"/bench/value/?test={FOUR_K}",
        "value, API": f"/api/v1/value/?test={FOUR_K}",
        "drives, API": "/api/v1/drives/",
        "Y, API": f"/api/v1/drives/{y.slug}/",
    }
    shop = Shop(x, y, z, pages)
    served(shop, settings, missed=set(pages))
    served(shop, settings, missed=set())
    return shop


def served(shop: Shop, settings, *, missed: set[str]) -> None:
    """Each page through the response cache: the page the view makes now, a miss when named
    in `missed`, else a hit."""
    reader = Client()
    for name, path in shop.pages.items():
        response = reader.get(path)
        assert response.status_code == 200, name
        assert response.headers.get(CACHE_STATUS_HEADER) == ("miss" if name in missed else "hit"), (
            name
        )
        settings.BENCH_RESPONSE_CACHE = False
        now = reader.get(path)
        settings.BENCH_RESPONSE_CACHE = True
        assert response.content == now.content, name


def upload_for(drive: Drive, *, tests: tuple[str, ...], consistency: bool = False) -> dict:
    """A measured document for `drive` with results in `tests` only, and the consistency
    series when asked."""
    document = measured_document(series_seconds=300)
    document["drive"] = {"manufacturer": drive.manufacturer.name, "model": drive.model}
    document["results"] = [r for r in document["results"] if r["test"] in tests]
    if not consistency:
        del document["consistency"]
    return document


@pytest.fixture
def reviewer_api():
    return token_client(make_user("rita", reviewer=True, trusted=True))


X_IN_FOUR_K = {
    "X's page",
    "X vs Y",
    "Y, Z and X",
    "Y, Z and X, API",
    "X vs Y, CSV",
    "X vs Y, API",
    "4K ranking",
    "4K ranking, API",
    "other ranking, X highlighted",
    "value",
    "value, API",
}


def test_an_upload_and_its_withdrawal_show_at_once_and_only_where_they_show(
    shop, settings, reviewer_api
):
    uploaded = post_document(reviewer_api, upload_for(shop.x, tests=(FOUR_K,)))
    assert uploaded.status_code == 201, uploaded.content
    # X's sequential figure is unchanged: that ranking stays kept, as do Y's and Z's pages.
    served(shop, settings, missed=X_IN_FOUR_K)
    served(shop, settings, missed=set())

    run_id = uploaded.json()["run"]["id"]
    withdrawn = reviewer_api.post(withdraw_url(run_id), {"reason": "wrong drive"}, format="json")
    assert withdrawn.status_code == 200, withdrawn.content
    served(shop, settings, missed=X_IN_FOUR_K)


def test_an_upload_that_changes_no_ranking_leaves_the_rankings_kept(shop, settings, reviewer_api):
    entries = {e.pk: e.iops for e in shop.x.leaderboard_entries.all()}
    uploaded = post_document(reviewer_api, upload_for(shop.x, tests=(), consistency=True))
    assert uploaded.status_code == 201, uploaded.content
    assert {e.pk: e.iops for e in shop.x.leaderboard_entries.all()} == entries
    served(
        shop,
        settings,
        missed={
            *("X's page", "X vs Y", "X vs Y, CSV", "X vs Y, API", "other ranking, X highlighted"),
            *("Y, Z and X", "Y, Z and X, API"),
        },
    )


def test_a_price_moves_its_drive_the_lists_and_the_value_views(shop, settings):
    PriceFactory(drive=shop.y, amount="80.00", observed_on="2014-01-01")
    # Y's entries carry its latest price: both its rankings move.
    kept = {"X's page", "other ranking", "other ranking, X highlighted"}
    served(shop, settings, missed=set(shop.pages) - kept)


def _rename_maker(shop: Shop) -> None:
    maker = shop.z.manufacturer
    maker.name = "Renamed maker"
    maker.save()


def _rename_controller(shop: Shop) -> None:
    controller = Drive.objects.get(pk=shop.z.pk).controller
    controller.model = "Renamed controller"
    controller.save()


def _rename_drive(shop: Shop) -> None:
    drive = Drive.objects.get(pk=shop.z.pk)
    drive.model = "Renamed drive"
    drive.save()


@pytest.mark.parametrize(
    "edit", [_rename_maker, _rename_controller, _rename_drive], ids=lambda f: f.__name__[1:]
)
def test_an_edit_in_the_catalog_makes_every_page_stale(shop, settings, edit):
    edit(shop)
    served(shop, settings, missed=set(shop.pages))


def test_a_rolled_back_upload_leaves_every_page_kept(shop, settings):
    with pytest.raises(RuntimeError), transaction.atomic():
        run_ingest(document=json.dumps(upload_for(shop.x, tests=(FOUR_K,))), submitter=None)
        raise RuntimeError("the request failed after the ingest")
    assert not Run.objects.filter(drive=shop.x, source="measured").exists()
    served(shop, settings, missed=set())


def test_a_sweeps_ranking_is_kept_per_depth(settings, test_catalog):
    """A queue-depth sweep's leaderboard at ?qd= depends on that depth's test: a new figure
    at QD16 makes its QD16 ranking stale (page and API, by the sweep's name or a test's) and
    leaves its QD8 ranking kept."""
    settings.CACHES = cache_settings("")
    settings.BENCH_RESPONSE_CACHE = True
    cache.clear()
    response_cache._recent.entries.clear()
    sweep = {d: f"randread-4k-qd{d}-sweep" for d in (8, 16)}
    x = published(
        manufacturer="X maker",
        model="X drive",
        results=[figures(sweep[8], 30000), figures(sweep[16], 50000)],
    ).drive
    pages = {
        "QD8": "/bench/tests/randread-4k-sweep/?qd=8",
        "QD8 from QD16's page": f"/bench/tests/{sweep[16]}/?qd=8",
        "QD8, API": "/api/v1/tests/randread-4k-sweep/leaderboard/?qd=8",
        "QD16": "/bench/tests/randread-4k-sweep/?qd=16",
        "QD16 from QD8's page": f"/bench/tests/{sweep[8]}/?qd=16",
        "QD16, API": f"/api/v1/tests/{sweep[8]}/leaderboard/?qd=16",
    }
    shop = Shop(x, x, x, pages)
    served(shop, settings, missed=set(pages))
    served(shop, settings, missed=set())
    published(
        manufacturer="X maker", model="X drive", results=[figures(sweep[16], 60000)], title="B"
    )
    served(shop, settings, missed={name for name in pages if name.startswith("QD16")})
