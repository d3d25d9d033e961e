import json
from html import unescape

import pytest
from django.urls import reverse

from tests.factories import DriveFactory, PriceFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def demo(django_db_setup, db):
    from django.core.management import call_command

    call_command("load_demo", verbosity=0)


def test_home_lists_drives_with_key_specs(client, demo):
    response = client.get(reverse("drives:home"))
    assert response.status_code == 200
    html = response.content.decode()
    assert "Intel SSD 530" in html
    assert "SandForce SF-2281" in html
    assert "240GB" in html
    assert "<html" in html


def test_home_search_by_htmx_returns_only_the_table(client, demo):
    response = client.get(reverse("drives:home"), {"q": "corsair force"}, HTTP_HX_REQUEST="true")
    html = response.content.decode()
    assert response.status_code == 200
    assert "<html" not in html and "<table" in html
    assert "Force F115" in html and "X25-E" not in html


def test_home_filters_and_bad_parameters(client, demo):
    html = client.get(reverse("drives:home"), {"kind": "hdd"}).content.decode()
    assert "VelociRaptor" in html and "X25-E" not in html
    # A filter value the page does not know is a 400 naming it (the same FilterSet as the
    # leaderboards and the API), and so is a page that is no page number (core.query); a
    # page beyond the last is the last.
    for bad in ({"kind": "floppy"}, {"interface": "usb"}, {"capacity_min": "big"}):
        response = client.get(reverse("drives:home"), bad)
        assert response.status_code == 400, bad
        assert next(iter(bad)) in response.content.decode()
    for bad in ({"page": "x"}, {"page": "-1"}, {"page": "0"}, {"page": "99999"}):
        response = client.get(reverse("drives:home"), bad)
        assert response.status_code == 400, bad
        assert (
            "<code>page</code>: must be a whole number from 1 to 10,000"
            in response.content.decode()
        )
    default = client.get(reverse("drives:home"))
    assert client.get(reverse("drives:home"), {"page": "50"}).content == default.content


def test_price_per_gb(client):
    drive = DriveFactory(model="Priced", capacity_bytes=240 * 10**9)
    PriceFactory(drive=drive, amount="150.00")
    html = client.get(reverse("drives:home")).content.decode()
    assert "$150.00" in html
    assert "$0.63" in html  # $0.625: half a cent up


def test_drive_page_shows_specs_results_provenance_and_prices(client, demo):
    html = client.get(reverse("bench:drive", args=["corsair-force-100gb"])).content.decode()
    assert "SandForce SF-1200" in html
    assert "251.7" in html and "144.4" in html  # MB/s, 10^6 bytes
    # The citation's title as text (an apostrophe is &#39; or &#x27;, whichever writes it).
    assert "OCZ's Vertex 2, Special Sauce SF-1200 Reviewed" in unescape(html)
    assert "Intel DX58SO" in html
    html = client.get(reverse("bench:drive", args=["intel-ssd-530-240gb"])).content.decode()
    assert "315.1" in html and "183.3" in html and "193.3" in html
    html = client.get(reverse("bench:drive", args=["samsung-ssd-840-pro-512gb"])).content.decode()
    assert "$480.00" in html and "$0.76" in html  # units.money: USD as dollars


def test_drive_page_query_count_does_not_grow(client, demo, django_assert_max_num_queries):
    # drive_page's ten: the eight of its runs and specs, its entries' run-to-run spread, and
    # each run's rate by test, pattern and method (where each run falls).
    with django_assert_max_num_queries(10):
        client.get(reverse("bench:drive", args=["corsair-force-100gb"]))


def test_unknown_drive_is_404(client):
    assert client.get(reverse("bench:drive", args=["nope"])).status_code == 404


def test_admin_lists_every_model(admin_client):
    from django.contrib import admin

    for model in admin.site._registry:
        url = reverse(f"admin:{model._meta.app_label}_{model._meta.model_name}_changelist")
        response = admin_client.get(url, {"q": "x"})
        assert response.status_code == 200, url


def test_home_query_count_does_not_grow_with_the_catalog(client, django_assert_max_num_queries):
    for drive in DriveFactory.create_batch(120, controller=None):
        PriceFactory(drive=drive)
    # The count, the page's ids, its rows with their specs, their latest prices.
    with django_assert_max_num_queries(4):
        html = client.get(reverse("drives:home"), {"page": 2}).content.decode()
    assert "page 2 of 3" in html


def test_drive_page_flags_results_measured_off_method(client, demo):
    from results.models import Run

    run = Run.objects.filter(source=Run.Source.MEASURED).select_related("drive").first()
    html = client.get(reverse("bench:drive", args=[run.drive.slug])).content.decode()
    assert "ran 2 s, not 180 s" in html
    assert "span 256 MiB, not 8 GiB" in html


def test_drive_page_says_which_latency_and_marks_partial_results(client, document):
    from results.services import run_ingest
    from tests.results.test_ingest_v2 import version_2

    doc = version_2(document)
    doc["status"] = "incomplete"
    doc["results"][0]["partial"] = True
    run = run_ingest(document=json.dumps(doc), submitter=None).run
    older = run_ingest(document=json.dumps(document), submitter=None)  # version 1
    html = client.get(reverse("bench:drive", args=[run.drive.slug])).content.decode()
    assert '<small class="latency-kind">issue to completion</small>' in html  # each row says
    assert '<small class="latency-kind">completion only (fio&#39;s clat)</small>' in html
    assert html.count("partial: the run was interrupted") == 1
    assert "latency: completion only (fio&#39;s clat)" in html  # the version 1 run's
    assert older.run.drive == run.drive
