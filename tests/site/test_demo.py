"""`make run` demo data: the seed articles' figures, loaded idempotently, never invented."""

import json
from io import StringIO
from pathlib import Path

import pytest
from django.conf import settings
from django.core.management import call_command

from drives.models import Drive, Price
from results.models import ConsistencySeries, Result, Run, TrimValidation

pytestmark = pytest.mark.django_db
DEMO = Path(settings.BASE_DIR) / "demo"


def load_demo():
    call_command("load_demo", stdout=StringIO())


def test_demo_loads_twice_without_duplicates():
    load_demo()
    counts = (
        Drive.objects.count(),
        Price.objects.count(),
        Run.objects.count(),
        Result.objects.count(),
    )
    load_demo()
    assert (
        Drive.objects.count(),
        Price.objects.count(),
        Run.objects.count(),
        Result.objects.count(),
    ) == counts


def test_seed_tables_are_present_as_published_runs():
    load_demo()
    # The ten-drive 4KB random write table of the 2009 article.
    anthology = Result.objects.filter(
        test__identifier="randwrite-4k-qd3-8g",
        run__citation__published_on="2009-03-18",
    )
    assert anthology.count() == 10
    x25e = anthology.get(run__drive__model="X25-E")
    assert x25e.bytes_per_second == 31.7e6
    assert anthology.get(run__drive__model="VelociRaptor").run.drive.kind == Drive.Kind.HDD
    # Corsair Force 100GB: normal (compressible) against random (incompressible) data.
    force = Result.objects.filter(run__drive__slug="corsair-force-100gb")
    assert (
        force.get(test__identifier="seqwrite-2m-qd1", pattern="compressible").bytes_per_second
        == 251.7e6
    )
    assert (
        force.get(test__identifier="seqwrite-2m-qd1", pattern="incompressible").bytes_per_second
        == 144.4e6
    )
    # Intel SSD 530 TRIM validation.
    trim = TrimValidation.objects.get(run__drive__slug="intel-ssd-530-240gb")
    assert (
        trim.clean_bytes_per_second,
        trim.after_torture_bytes_per_second,
        trim.after_trim_bytes_per_second,
    ) == (315.1e6, 183.3e6, 193.3e6)
    # Prices quoted in the articles.
    assert Price.objects.filter(drive__slug="samsung-ssd-840-pro-512gb").count() == 2


def test_every_published_demo_run_cites_its_source():
    load_demo()
    published = Run.objects.filter(source=Run.Source.PUBLISHED)
    assert published.count() == len(list((DEMO / "runs").glob("*.json")))
    for run in published.select_related("citation"):
        assert run.citation.publisher and run.citation.title and run.citation_locator
    assert not Run.objects.filter(source=Run.Source.SYNTHETIC).exists()
    assert not Drive.objects.filter(synthetic=True).exists()


def test_measured_demo_runs_are_real_loadgen_output():
    load_demo()
    measured = Run.objects.filter(source=Run.Source.MEASURED)
    samples = sorted((Path(settings.BASE_DIR) / "results/schema/samples").glob("measured-*.json"))
    full_length = sorted((DEMO / "measured").glob("*.json"))
    assert samples and full_length  # a loop over nothing proves nothing
    assert measured.count() == len(samples) + len(full_length)
    for run in measured.select_related("drive"):
        document = json.loads(run.document)
        assert document["tool"]["name"] == "loadgen"
        assert document["host"] and document["target"]
        # The demo's targets are a VM's disk and a RAM disk: never shown as an SSD model.
        assert run.drive.kind == Drive.Kind.VIRTUAL, run.drive


def test_two_measured_drives_have_full_length_consistency_at_both_spare_areas():
    """The compare overlay means something out of the box (issue 9, demo data): two
    different real targets, each measured for the whole 2,000 s at 0% and 25% spare area."""
    load_demo()
    full = {}
    for series in ConsistencySeries.objects.filter(
        run__source=Run.Source.MEASURED, partial=False
    ).select_related("run__drive"):
        if len(series.iops) * series.interval_ns >= series.test.duration_s * 10**9:
            full.setdefault(series.run.drive.slug, set()).add(series.spare_area_percent)
    complete = [slug for slug, levels in full.items() if {0, 25} <= levels]
    assert len(complete) >= 2, full


def test_a_measured_drive_has_a_full_length_trim_validation():
    """TRIM validation at full length (an hour of torture) on at least one measured target."""
    load_demo()
    measured = TrimValidation.objects.filter(run__source=Run.Source.MEASURED)
    assert any(t.torture_seconds and t.torture_seconds >= 3600 for t in measured), list(measured)
