"""A consistency run stopped by SIGINT after a few seconds, its document ingested: the site
keeps what the run measured until the interrupt, as a partial series of an incomplete run,
shows it as partial and leaves it out of rankings. loadgen is built (make loadgen) when the
tree has no binary yet."""

import signal
import subprocess
import tempfile
import time
from pathlib import Path

import pytest
from django.conf import settings
from django.urls import reverse

from results.models import ConsistencySeries
from results.services import run_ingest

pytestmark = pytest.mark.django_db

ROOT = Path(settings.BASE_DIR)
LOADGEN = ROOT / "loadgen" / "build" / "loadgen"


@pytest.fixture(scope="module")
def loadgen() -> Path:
    subprocess.run(
        ["make", "--no-print-directory", "loadgen"],
        cwd=ROOT,
        check=True,
        capture_output=True,
        timeout=600,
    )
    return LOADGEN


def interrupted_consistency_run(loadgen: Path, directory: Path) -> bytes:
    """The document of a 2,000 s consistency run interrupted 2 s into its random writes."""
    out = directory / "doc.json"
    cmd = [
        str(loadgen), "run", "--target", str(directory / "target.bin"), "--size", "64M",
        "--tests", "consistency-4k-qd32", "--spare-area", "0", "--seed", "7", "--output",
        str(out), "--drive", "manufacturer=Generic,model=Interrupted test target",
    ]  # fmt: skip
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        for line in proc.stderr:  # the phases, until the random writes begin
            if "4KB random write" in line:
                break
        time.sleep(2)
        proc.send_signal(signal.SIGINT)
        proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 130
    return out.read_bytes()


def test_sigint_document_is_ingested_as_partial(loadgen, client):
    with tempfile.TemporaryDirectory(dir="/var/tmp") as directory:
        raw = interrupted_consistency_run(loadgen, Path(directory))
    run = run_ingest(document=raw, submitter=None).run
    assert run.complete is False and run.schema_version == 5
    series = ConsistencySeries.objects.get(run=run)
    assert series.partial
    assert 1 <= len(series.iops) <= 5 and sum(series.iops) > 0
    html = client.get(reverse("bench:drive", args=[run.drive.slug])).content.decode()
    assert "partial: the run was interrupted" in html
