"""The run page's command repeats the run: a quick loadgen run on a file is ingested, the
command its page gives is run as it is (on a file of its own), and the second document's
settings are the first's, test for test (results.reproduce), its seed too, which the first
command did not give. tests/loadgen/test_options.py holds the same as a property of every
option loadgen records. loadgen is built (make loadgen) when the tree has no binary yet."""

import json
import shlex
import subprocess
import tempfile
from pathlib import Path

import pytest
from django.urls import reverse

from results.reproduce import FILE
from results.services import run_ingest
from results.synthetic import measured_document
from tests.loadgen.test_interrupted_run import loadgen  # noqa: F401 - the fixture

pytestmark = pytest.mark.django_db

DRIVE = "manufacturer=Generic,model=Reproduced test target"


def _run(argv: list[str], cwd: Path) -> None:
    done = subprocess.run(argv, cwd=cwd, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr


@pytest.mark.parametrize(
    "options",
    [
        ["--tests", "randread-4k-qd3,seqwrite-128k-qd1", "--quick", "--pattern", "incompressible"],
        ["--tests", "randwrite-4k-qd3-8g", "--duration-scale", "0.01", "--repeat", "2"],
        # Run 24: a sweep deeper than QD32 (--qd-max); run 25: WSAT's rounds (--round).
        ["--tests", "randread-4k-qd64-sweep", "--qd-max", "64", "--duration-scale", "0.01",
         "--pattern", "compressible"],
        ["--tests", "wsat-4k-qd32", "--time", "1", "--round", "0.25"],
    ],
)  # fmt: skip
def test_the_page_command_repeats_the_run(loadgen, client, options):  # noqa: F811
    with tempfile.TemporaryDirectory(dir="/var/tmp") as directory:
        cwd = Path(directory)
        first = ["run", "--target", "first.bin", "--size", "64M"]
        _run([str(loadgen), *first, *options, "--output", "a.json", "--drive", DRIVE], cwd)
        original = json.loads((cwd / "a.json").read_text())
        run = run_ingest(document=(cwd / "a.json").read_bytes(), submitter=None).run

        page = client.get(reverse("bench:run", args=[run.pk])).content.decode()
        command = next(line for line in page.splitlines() if "loadgen run" in line)
        argv = shlex.split(command.split("<code>")[1].split("</code>")[0].replace("&#39;", "'"))
        assert argv[:2] == ["loadgen", "run"] and FILE in argv
        _run([str(loadgen), *argv[1:], "--output", "b.json", "--drive", DRIVE], cwd)
        repeated = json.loads((cwd / "b.json").read_text())

    assert repeated["parameters"] == original["parameters"]
    assert [(r["test"], r["pattern"], r.get("repeat")) for r in repeated["results"]] == [
        (r["test"], r["pattern"], r.get("repeat")) for r in original["results"]
    ]
    saturation = [
        (s["test"], s["interval_ns"], s.get("time_cap_ns")) for s in original.get("saturation", [])
    ]
    assert [
        (s["test"], s["interval_ns"], s.get("time_cap_ns")) for s in repeated.get("saturation", [])
    ] == saturation


def test_no_command_for_a_document_loadgen_did_not_write(client):
    document = measured_document()
    document["tool"] = {"name": "fio", "version": "3.33"}
    run = run_ingest(document=json.dumps(document).encode(), submitter=None).run
    page = client.get(reverse("bench:run", args=[run.pk])).content.decode()
    assert "no loadgen command to repeat it" in page and "loadgen run" not in page


@pytest.mark.parametrize(
    "name, option",
    [("workloads-file", ["--qd-max", "128"]), ("wsat-zram", ["--round", "1"])],
)
def test_the_demo_runs_of_the_issue_repeat_through_their_page(client, name, option):
    """Run 24 and run 25 of the demo (issue 48, item 5), recorded before loadgen recorded
    --qd-max and --round: their pages give them, as their command lines did."""
    raw = (Path(__file__).resolve().parents[2] / "demo" / "measured" / f"{name}.json").read_bytes()
    run = run_ingest(document=raw, submitter=None).run
    page = client.get(reverse("bench:run", args=[run.pk])).content.decode()
    command = next(line for line in page.splitlines() if "loadgen run" in line)
    argv = shlex.split(command.split("<code>")[1].split("</code>")[0].replace("&#39;", "'"))
    at = argv.index(option[0])
    assert argv[at : at + 2] == option
