"""The demo data says what its articles say: each figure tied to the method that produced
it, in the data pattern the article names, prices dated when they were quoted, specs
from reader comments never stated as fact, configurations not passed off as products,
and units kept as printed. The facts below are the seed articles' (AnandTech 2009-2013)."""

import json
import re
from io import StringIO
from pathlib import Path

import pytest
from django.conf import settings
from django.core.management import call_command
from django.db import transaction
from django.urls import reverse

from drives.models import Drive, Price
from results.models import Result, Run, Test, TrimValidation

pytestmark = pytest.mark.django_db

DEMO = Path(settings.BASE_DIR) / "demo"
RUN_FILES = sorted((DEMO / "runs").glob("*.json"))
# The published methods loadgen reproduces: AnandTech's Iometer scripts are its suites.
LOADGEN_REPRODUCES = {"Iometer"}
# Tools an article may name in a locator; the figures must be stored as that tool's.
TOOLS = ("Iometer", "AS-SSD", "HDTach", "PCMark")


@pytest.fixture(scope="module")
def demo(django_db_setup, django_db_blocker):
    """The demo loaded once for the module, in a transaction rolled back after it (each
    test's own is a savepoint within it, so what one test changes the next never sees)."""
    with django_db_blocker.unblock(), transaction.atomic():
        call_command("load_demo", stdout=StringIO())
        yield
        transaction.set_rollback(True)


def published_entries():
    for path in RUN_FILES:
        document = json.loads(path.read_text())
        for section in ("results", "consistency", "trim"):
            for entry in document.get(section, []):
                yield path.name, document, entry


@pytest.mark.parametrize(
    "name, document, entry",
    list(published_entries()),
    ids=lambda v: v if isinstance(v, str) else "",
)
def test_a_published_figure_is_stored_under_the_method_its_article_names(name, document, entry):
    test = Test.objects.get(identifier=entry["test"])
    tool = document["tool"]["name"]
    if test.produced_by == "loadgen":
        assert tool in LOADGEN_REPRODUCES, (name, tool, test.identifier)
    else:
        assert tool == test.produced_by, (name, tool, test.identifier)
    locator = document["source"]["citation"]["locator"]
    for named in TOOLS:
        if named in locator:
            assert tool == named, (name, locator)


def test_drive_pages_name_each_trim_test_and_who_produced_it(demo, client):
    """The published AS-SSD figures and loadgen's own TRIM validation are different tests:
    a drive page names the test of each row, and says when loadgen did not produce it."""
    html = client.get("/drives/intel-ssd-530-240gb/").content.decode()
    table = html.split("TRIM validation (sequential write)", 1)[1].split("</table>", 1)[0]
    trim = TrimValidation.objects.select_related("test").get(run__drive__slug="intel-ssd-530-240gb")
    assert trim.test.name in table and "published with AS-SSD" in table
    html = client.get("/drives/linux-zram-compressed-ram-disk/").content.decode()
    table = html.split("TRIM validation (sequential write)", 1)[1].split("</table>", 1)[0]
    assert "trim" in table.lower() and "published with" not in table


def test_intel_ssd_530_trim_figures_are_as_ssd_not_loadgen(demo):
    trim = TrimValidation.objects.select_related("test").get(run__drive__slug="intel-ssd-530-240gb")
    assert trim.test.identifier == "trim-as-ssd-seqwrite"
    assert trim.test.produced_by == "AS-SSD"
    assert (trim.test.block_size, trim.test.queue_depth, trim.test.span_bytes) == (
        16 * 2**20,
        1,
        2**30,
    )
    # loadgen's own TRIM validation (the measured sample's) is another test: a comparison,
    # which pairs results of one test, never sets the two side by side.
    measured = TrimValidation.objects.filter(run__source=Run.Source.MEASURED).select_related("test")
    assert measured
    for validation in measured:
        assert validation.test.identifier == "trim-validation" and validation.test != trim.test


# (drive, test): the data pattern as the article states it.
ARTICLE_PATTERNS = {
    # 2011 m4 review: the latency charts ran on "highly compressible data".
    ("crucial-m4-256gb", "randwrite-4k-qd3-8g"): {"compressible"},
    ("crucial-c300", "randwrite-4k-qd3-8g"): {"compressible"},
    # 2010 Vertex 2 review: "Normal Data" and "Random Data" columns.
    ("corsair-force-100gb", "randwrite-4k-qd3-8g"): {"compressible", "incompressible"},
    ("ocz-agility-2-100gb", "randwrite-4k-qd3-8g"): {"compressible", "incompressible"},
    # 2013 SSD 530 review: AS-SSD writes incompressible data.
    ("intel-ssd-530-240gb", "trim-as-ssd-seqwrite"): {"incompressible"},
}


def test_data_patterns_are_the_articles(demo):
    for (slug, test), patterns in ARTICLE_PATTERNS.items():
        stored = set(
            Result.objects.filter(run__drive__slug=slug, test__identifier=test).values_list(
                "pattern", flat=True
            )
        ) | set(
            TrimValidation.objects.filter(run__drive__slug=slug, test__identifier=test).values_list(
                "pattern", flat=True
            )
        )
        assert stored == patterns, (slug, test)
    # The 2009 article does not say which data Iometer wrote.
    assert set(
        Result.objects.filter(run__citation__published_on="2009-03-18").values_list(
            "pattern", flat=True
        )
    ) == {"unspecified"}


def test_the_value_view_has_a_frontier_out_of_the_box(demo, client):
    """A drive with a published 4KB random-write figure and a price quoted in its article:
    the value view has something to show (its IOPS derived from the published MB/s)."""
    html = client.get("/bench/value/").content.decode()
    assert "Samsung SLC" in html and "No drive has both a price" not in html
    assert "derived" in html


def test_prices_from_reader_comments_carry_the_comments_date(demo):
    # Samsung 840 Pro: a reader comment of 2013-11-17 on the review of 2013-11-15.
    samsung = Price.objects.filter(drive__slug__startswith="samsung-ssd-840-pro")
    assert sorted((str(p.amount), str(p.observed_on)) for p in samsung) == [
        ("240.00", "2013-11-17"),
        ("389.00", "2013-11-17"),
        ("480.00", "2013-11-17"),
    ]
    # Every price quoted in a comment or an article names its date, and is dated by it.
    assert Price.objects.count() == 8
    for price in Price.objects.all():
        said = re.search(r"(?:reader comment|article) of (\d{4}-\d{2}-\d{2})", price.source)
        assert said, price.source
        assert str(price.observed_on) == said.group(1), price.source


def test_specs_from_reader_comments_are_blank_or_unverified(demo, client):
    # Patriot Wildfire: the article says Toggle NAND; the vendor and process came from a
    # reader comment (and reviews disagree with it), so they are left blank.
    wildfire = Drive.objects.select_related("nand__vendor").get(slug="patriot-wildfire")
    assert wildfire.nand.interface == "toggle"
    assert (wildfire.nand.vendor, wildfire.nand.process_nm) == (None, None)
    # Corsair F115: its NAND is a reader's assumption.
    f115 = Drive.objects.get(slug="corsair-force-f115")
    assert f115.unverified_specs == ["nand"]
    html = client.get(reverse("bench:drive", args=["corsair-force-f115"])).content.decode()
    assert '<span class="tag">unverified</span>' in html
    assert "not stated as fact" in html
    html = client.get(reverse("bench:drive", args=["corsair-force-gt"])).content.decode()
    assert "unverified" not in html


def test_a_charted_controller_configuration_is_not_a_product(demo, client):
    for slug in ("jmicron-jmf602b-mlc", "jmicron-jmf602bx2-mlc"):
        drive = Drive.objects.select_related("controller").get(slug=slug)
        assert drive.configuration and drive.controller.model == "JMF602B"
        html = client.get(reverse("bench:drive", args=[slug])).content.decode()
        assert "not a product sold under this name" in html
        assert "Controller: JMicron JMF602B." in html
    assert str(Drive.objects.get(slug="jmicron-jmf602b-mlc")) == "JMicron JMF602B MLC"
    html = client.get(reverse("bench:drive", args=["intel-x25-m"])).content.decode()
    assert "not a product" not in html
    assert not Drive.objects.filter(configuration=True, controller=None).exists()


def test_rates_keep_the_printed_unit_and_say_its_basis_is_uncertain(demo, client):
    runs = Run.objects.filter(source=Run.Source.PUBLISHED).select_related("citation")
    for run in runs:
        has_rates = run.results.exclude(bytes_per_second=None).exists() or (
            run.trim_validations.exists()
        )
        assert (run.citation.rate_unit == "MB/s") == has_rates, run.citation
        assert run.citation.rate_unit_bytes is None  # none of the articles says
    html = client.get(reverse("bench:drive", args=["intel-x25-e"])).content.decode()
    assert "31.7" in html  # the number as published
    assert "does not say whether its MB is 10^6 or 2^20 bytes" in html
    html = client.get(reverse("bench:drive", args=["crucial-m4-256gb"])).content.decode()
    assert "2^20" not in html  # latencies only: no rate, no unit question


def test_reloading_after_a_correction_withdraws_the_superseded_run(demo):
    run = Run.objects.get(drive__slug="crucial-c300")
    # The run as an older demo loaded it: another document for the same article and drive.
    old = Run.objects.create(
        drive=run.drive,
        citation=run.citation,
        source=Run.Source.PUBLISHED,
        tool_name="Iometer",
        document="{}",
        content_hash="0" * 64,
    )
    call_command("load_demo", stdout=StringIO())
    old.refresh_from_db()
    run.refresh_from_db()
    assert old.status == Run.Status.WITHDRAWN and run.status == Run.Status.PUBLISHED
    assert Run.objects.published().filter(drive=run.drive).get() == run
    # Runs of other submitters or other articles are not the demo's to withdraw.
    assert Run.objects.filter(status=Run.Status.WITHDRAWN).count() == 1


def test_the_demo_wsat_is_loaded_and_drawn(demo, client):
    """demo/measured/wsat-zram.json: WSAT on a 4 GiB zram device, written to 4x its capacity,
    stored as measured, and drawn on its drive's page with its half-rate point."""
    from results.models import SaturationSeries

    document = json.loads((DEMO / "measured" / "wsat-zram.json").read_text())
    (entry,) = document["saturation"]
    series = SaturationSeries.objects.select_related("run__drive").get(
        test__identifier="wsat-4k-qd32", run__source=Run.Source.MEASURED
    )
    assert series.stopped_by == entry["stopped_by"] == "bytes"
    assert series.bytes_written == series.target_bytes == 4 * entry["span_bytes"]
    assert series.halved_at_s == entry.get("halved_at_s")
    html = client.get(reverse("bench:drive", args=[series.run.drive.slug])).content.decode()
    assert 'id="wsat"' in html and "four times the capacity written" in html
