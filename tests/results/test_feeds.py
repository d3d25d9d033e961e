"""The Atom feeds of newly published runs (results/views/feeds.py): valid Atom as a real
feed parser reads it, each entry linking to its run's page; a catalog filter's feed holds
exactly the runs of the drives the filter keeps, over generated filters; a held run never
appears and a withdrawn one leaves, through the response cache at once; the pages
advertise their feed; a bad filter is a 400, an unknown drive or test a 404."""

import json
import re

import feedparser
import pytest
from django.core.cache import cache
from django.test import Client
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from benchsite import response_cache
from benchsite.response_cache import CACHE_STATUS_HEADER
from benchsite.settings.base import cache_settings
from drives.filters import DriveFilter
from drives.models import Drive
from drives.selectors import drive_list
from results.models import Run
from results.selectors.feeds import FEED_ENTRIES
from results.services import run_ingest, run_withdraw
from results.synthetic import measured_document
from tests.factories import ControllerFactory, NandTypeFactory
from tests.filter_queries import filter_queries
from tests.results.helpers import published

pytestmark = pytest.mark.django_db

GB = 10**9
SITE = "/bench/runs/feed/"
FOUR_K = "randread-4k-qd3"
CONSISTENCY = "consistency-4k-qd32"
RUN_LINK = re.compile(r"^http://testserver/bench/runs/(\d+)/$")
# Words of the catalog's drives (and of none) for generated searches.
WORDS = ["Acme", "Zeta", "vertex", "120GB", "240gb", "ctl", "x", "zz"]


def upload(*, maker: str, model: str, seed: int = 1, capacity_gb: int = 240) -> Run:
    document = measured_document(
        seed=seed,
        manufacturer=maker,
        model=model,
        capacity_bytes=capacity_gb * GB,
        series_seconds=300,
    )
    return run_ingest(document=json.dumps(document), submitter=None).run


def feed(client, path: str):
    """The feed at `path`, parsed by feedparser: valid Atom, or the test fails."""
    response = client.get(path)
    assert response.status_code == 200, (path, response.content[:300])
    assert response["Content-Type"].startswith("application/atom+xml")
    parsed = feedparser.parse(response.content)
    assert parsed.bozo == 0, (path, parsed.get("bozo_exception"))
    assert parsed.version == "atom10"
    return parsed


def run_ids(parsed) -> list[int]:
    """The runs a parsed feed lists, in order, from each entry's link to its run page."""
    ids = []
    for entry in parsed.entries:
        found = RUN_LINK.match(entry.link)
        assert found, entry.link
        ids.append(int(found[1]))
    return ids


def newest_first(runs) -> list[int]:
    return list(runs.order_by("-ingested_at", "-pk").values_list("pk", flat=True)[:FEED_ENTRIES])


@pytest.fixture
def catalog(test_catalog) -> dict[str, Drive]:
    """Drives of several kinds, interfaces, controllers, NAND and capacities, each with a
    measured run (two for A); published figures of D (a 4K test only); a held run of B; a
    run of C withdrawn; E awaiting staff review."""
    ctl, other_ctl = ControllerFactory(slug="ctl-a"), ControllerFactory(slug="ctl-b")
    tlc = NandTypeFactory(slug="nand-tlc", cell_type="tlc")
    mlc = NandTypeFactory(slug="nand-mlc", cell_type="mlc")
    specs = {
        "A": ("Acme", "Vertex 4", 120, dict(controller=ctl, nand=mlc)),
        "B": ("Acme", "Vertex 3", 240, dict(controller=other_ctl, nand=tlc)),
        "C": ("Zeta", "Ultra", 240, dict(kind=Drive.Kind.HDD, interface="sata-3g")),
        "E": ("Zeta", "Nova", 512, dict(interface="pcie-nvme", controller=ctl, nand=tlc)),
    }
    drives = {
        key: upload(maker=maker, model=model, seed=seed, capacity_gb=capacity).drive
        for seed, (key, (maker, model, capacity, _)) in enumerate(specs.items(), start=1)
    }
    upload(maker="Acme", model="Vertex 4", seed=9, capacity_gb=120)
    held = upload(maker="Acme", model="Vertex 3", seed=10, capacity_gb=240)
    Run.objects.filter(pk=held.pk).update(status=Run.Status.HELD, held_reason="far off")
    withdrawn = upload(maker="Zeta", model="Ultra", seed=11, capacity_gb=240)
    run_withdraw(run=withdrawn, reason="wrong drive")
    # The specs once the runs are in (the uploads' figures are an SSD's on SATA 6 Gb/s).
    for key, (*_, changes) in specs.items():
        Drive.objects.filter(pk=drives[key].pk).update(**changes)
        drives[key] = Drive.objects.get(pk=drives[key].pk)
    Drive.objects.filter(pk=drives["E"].pk).update(needs_review=True)
    d = published(
        manufacturer="Rival",
        model="<script>alert(1)</script>",
        results=[{"test": FOUR_K, "pattern": "unspecified", "iops": 5000}],
    )
    drives["D"] = d.drive
    return drives


def feeds_of(drives: dict[str, Drive]) -> dict[str, str]:
    return {
        "every run": SITE,
        "A's": f"/drives/{drives['A'].slug}/feed/",
        "4K test's": f"/bench/tests/{FOUR_K}/feed/",
        "consistency test's": f"/bench/tests/{CONSISTENCY}/feed/",
        "filter's": f"{SITE}?kind=ssd&controller=ctl-a",
    }


# Queries each feed costs, whatever the catalog's size: its runs and their tests, and the
# drive or test it is of.
BUDGETS = {"every run": 2, "A's": 3, "4K test's": 3, "consistency test's": 3, "filter's": 3}


def test_every_feed_is_valid_atom_whose_entries_link_their_run_pages(
    client, catalog, django_assert_max_num_queries
):
    for name, path in feeds_of(catalog).items():
        with django_assert_max_num_queries(BUDGETS[name]):
            parsed = feed(client, path)
        assert parsed.feed.title.startswith("Bench"), name
        assert parsed.feed.id == f"http://testserver{path}", name
        assert {link.rel for link in parsed.feed.links} >= {"self", "alternate"}, name
        assert parsed.entries, name
        for entry, pk in zip(parsed.entries, run_ids(parsed), strict=True):
            run = Run.objects.get(pk=pk)
            assert entry.id == entry.link == f"http://testserver{run.get_absolute_url()}"
            assert entry.title.startswith(str(run.drive)), entry.title
            assert run.tool_name in entry.title and run.get_source_display() in entry.title
            assert entry.published_parsed and entry.updated_parsed
            assert "Tests:" in entry.summary


def test_the_site_feed_lists_every_published_run_newest_first(client, catalog):
    listed = run_ids(feed(client, SITE))
    assert listed == newest_first(Run.objects.published())
    assert len(listed) == 6  # A twice, B, C, E and D's figures


def test_a_drive_and_a_test_feed_list_their_runs(client, catalog):
    a = catalog["A"]
    assert run_ids(feed(client, f"/drives/{a.slug}/feed/")) == newest_first(
        Run.objects.published().filter(drive=a)
    )
    # D's published figures hold the 4K test alone: not a consistency run.
    with_4k = run_ids(feed(client, f"/bench/tests/{FOUR_K}/feed/"))
    consistency = run_ids(feed(client, f"/bench/tests/{CONSISTENCY}/feed/"))
    assert with_4k == newest_first(Run.objects.published())
    assert consistency == newest_first(Run.objects.published().exclude(drive=catalog["D"]))


def test_each_entry_says_what_the_run_measured_and_who_ran_it(client, catalog):
    entries = {pk: e for pk, e in zip(*_listed(client, SITE), strict=True)}
    cited = Run.objects.get(drive=catalog["D"])
    assert entries[cited.pk].author == "Site"  # the citation's publisher
    assert "4KB random read" in entries[cited.pk].summary
    assert "Figures published in" in entries[cited.pk].summary
    # A hostile name is text in the title, never markup in the feed.
    assert entries[cited.pk].title.startswith("Rival <script>alert(1)</script>")
    assert b"<script>" not in Client().get(SITE).content
    measured = Run.objects.filter(drive=catalog["A"]).first()
    assert "Performance consistency" in entries[measured.pk].summary
    unreviewed = Run.objects.get(drive=catalog["E"])
    assert "awaits staff review" in entries[unreviewed.pk].summary


def test_a_submitters_run_is_theirs(client, catalog, django_user_model):
    rita = django_user_model.objects.create_user("rita")
    document = measured_document(
        seed=20, manufacturer="Acme", model="Vertex 4", capacity_bytes=120 * GB, series_seconds=300
    )
    run = run_ingest(document=json.dumps(document), submitter=rita).run
    assert run.status == Run.Status.PUBLISHED
    entries = dict(zip(*_listed(client, f"/drives/{run.drive.slug}/feed/"), strict=True))
    assert entries[run.pk].author == "rita"


def _listed(client, path):
    parsed = feed(client, path)
    return run_ids(parsed), parsed.entries


def test_a_held_or_withdrawn_run_never_appears(client, catalog):
    hidden = set(Run.objects.exclude(status=Run.Status.PUBLISHED).values_list("pk", flat=True))
    assert len(hidden) == 2
    paths = [
        *feeds_of(catalog).values(),
        f"/drives/{catalog['B'].slug}/feed/",
        f"/drives/{catalog['C'].slug}/feed/",
        f"{SITE}?q=vertex",
    ]
    for path in paths:
        assert not hidden & set(run_ids(feed(client, path))), path


@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(data=st.data())
def test_a_filter_feed_holds_exactly_the_runs_of_the_drives_the_catalog_filter_keeps(
    client, catalog, data
):
    query = data.draw(filter_queries(DriveFilter, words=st.sampled_from(WORDS), max_size=4))
    filters = DriveFilter(query, queryset=Drive.objects.all())
    assert filters.is_valid(), filters.errors
    expected = newest_first(
        Run.objects.published().filter(drive__in=drive_list(drives=filters.qs).values("pk"))
    )
    response = client.get(SITE, query)
    parsed = feedparser.parse(response.content)
    assert response.status_code == 200 and parsed.bozo == 0
    assert run_ids(parsed) == expected, query


@pytest.mark.parametrize(
    "query",
    [{"capacity_min": "abc"}, {"kind": "tape"}, {"capacity_max": "-1"}, {"q": "x" * 101}],
)
def test_a_bad_filter_is_a_400_as_on_the_catalog(client, catalog, query):
    assert client.get("/", query).status_code == 400
    assert client.get(SITE, query).status_code == 400


def test_an_unknown_drive_or_test_is_a_404(client, catalog):
    assert client.get("/drives/no-such-drive/feed/").status_code == 404
    assert client.get("/bench/tests/no-such-test/feed/").status_code == 404


def _advertised(html: str) -> list[str]:
    return re.findall(
        r'<link rel="alternate" type="application/atom\+xml" title="[^"]*" href="([^"]+)">', html
    )


def test_the_pages_advertise_their_feeds(client, catalog):
    a = catalog["A"].slug
    pages = {
        "/?kind=ssd&controller=ctl-a&page=1": f"{SITE}?kind=ssd&amp;controller=ctl-a",
        "/": SITE,
        f"/drives/{a}/": f"/drives/{a}/feed/",
        f"/bench/tests/{FOUR_K}/": f"/bench/tests/{FOUR_K}/feed/",
        f"/bench/tests/{CONSISTENCY}/": f"/bench/tests/{CONSISTENCY}/feed/",
    }
    for page, advertised in pages.items():
        response = client.get(page)
        assert response.status_code == 200, page
        head = response.content.decode().split("</head>")[0]
        assert _advertised(head) == [advertised], page
        feed(client, advertised.replace("&amp;", "&"))


@pytest.mark.django_db(transaction=True)
def test_a_new_run_and_a_withdrawn_one_change_the_kept_feeds_at_once(settings):
    settings.CACHES = cache_settings("")
    settings.BENCH_RESPONSE_CACHE = True
    cache.clear()
    response_cache._recent.entries.clear()
    a = upload(maker="Acme", model="Vertex 4", seed=1, capacity_gb=120).drive
    b = upload(maker="Zeta", model="Ultra", seed=2, capacity_gb=240).drive
    paths = {
        "every run": SITE,
        "A's": f"/drives/{a.slug}/feed/",
        "B's": f"/drives/{b.slug}/feed/",
        "4K test's": f"/bench/tests/{FOUR_K}/feed/",
        "filter's": f"{SITE}?q=vertex",
    }
    reader = Client()

    def read(missed: set[str]) -> dict[str, list[int]]:
        listed = {}
        for name, path in paths.items():
            response = reader.get(path)
            assert response.status_code == 200, name
            status = "miss" if name in missed else "hit"
            assert response.headers.get(CACHE_STATUS_HEADER) == status, name
            listed[name] = run_ids(feedparser.parse(response.content))
        return listed

    before = read(set(paths))
    assert read(set()) == before
    new = upload(maker="Acme", model="Vertex 4", seed=3, capacity_gb=120)
    changed = set(paths) - {"B's"}  # a run of A: B's feed stays kept
    after = read(changed)
    for name in changed:
        assert after[name] == [new.pk, *before[name]], name
    run_withdraw(run=new, reason="wrong drive")
    assert read(changed) == before
