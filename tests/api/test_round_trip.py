"""A reviewer's path end to end: a loadgen document and a real fio 3.x run (fio runs here)
uploaded through the API, then seen in the API and on the drive's page."""

import json
import shutil
import subprocess

import pytest

from results.models import Result, Run
from tests.api.conftest import FIO_RUNS, RUNS, post_document

pytestmark = pytest.mark.django_db

JOBS = """
[global]
filename={target}
size=16M
direct=1
time_based
runtime=1
ioengine=libaio
zero_buffers=0

[qd3-reads]
rw=randread
bs=4k
iodepth=3

[seq-writes]
stonewall
rw=write
bs=128k
ioengine=psync
refill_buffers=1

[no-test-at-its-depth]
stonewall
runtime=200ms
rw=randread
bs=8k
iodepth=3
"""


@pytest.fixture(scope="module")
def fio_output(tmp_path_factory) -> dict:
    binary = shutil.which("fio")
    assert binary, "fio is not installed: `make test-python` installs Debian's fio package"
    work = tmp_path_factory.mktemp("fio-upload")
    (work / "jobs.fio").write_text(JOBS.format(target=work / "target.bin"))
    version = subprocess.run(
        [binary, "--version"], capture_output=True, text=True, timeout=30, check=True
    ).stdout.strip()
    output = work / "out.json"
    subprocess.run(
        [binary, "--output-format=json", f"--output={output}", str(work / "jobs.fio")],
        capture_output=True,
        timeout=120,
        check=True,
    )
    return {"raw": output.read_bytes(), "version": version.removeprefix("fio-")}


def test_a_loadgen_document_round_trip(api, client, loadgen_sample):
    response = post_document(api, loadgen_sample)
    assert response.status_code == 201, response.content
    run = Run.objects.get()
    document = json.loads(loadgen_sample)

    shown = api.get(response["Location"]).json()
    assert shown["tool"] == {
        "name": "loadgen",
        "version": document["tool"]["version"],
        "engine": document["tool"]["engine"],
    }
    assert shown["bench"]["name"] == document["bench"]["name"]
    assert shown["started_at"].startswith(document["started_at"][:19])
    assert shown["submitter"] == "rita"
    assert [r["id"] for r in api.get(RUNS).json()["results"]] == [run.pk]
    # What it measured, as uploaded.
    sent = {(r["test"], r["pattern"]): r for r in document["results"]}
    got = {(r["test"], r["pattern"]): r for r in shown["results"]}
    assert got.keys() == sent.keys()
    for key, result in got.items():
        assert result["bytes_per_second"] == pytest.approx(sent[key]["bytes_per_second"])
    assert [c["test"] for c in shown["consistency"]] == [
        c["test"] for c in document.get("consistency", [])
    ]
    assert len(shown["trim"]) == len(document.get("trim", []))
    listed = api.get("/api/v1/results/", {"run": run.pk}).json()["results"]
    assert {(r["test"], r["pattern"]) for r in listed} == set(sent)

    page = client.get(shown["page"].removeprefix("http://testserver"))
    html = page.content.decode()
    assert page.status_code == 200
    assert f'id="run-{run.pk}"' in html
    assert document["bench"]["name"] in html
    tests = {r["test"] for r in document["results"]}
    assert Result.objects.filter(run=run).count() == len(document["results"])
    for test in tests:
        assert f"/bench/tests/{test}/" in html or test in html


@pytest.mark.parametrize("url", [FIO_RUNS, RUNS])  # its own endpoint, or told by content
def test_a_real_fio_run_round_trip(api, client, fio_output, url):
    query = "?manufacturer=Bench+Test&model=fio+target&capacity_bytes=16777216&drive_state=used"
    response = post_document(api, fio_output["raw"], url + query)
    assert response.status_code == 201, response.content
    body = response.json()
    mapped = {m["job"]: (m["test"], m["pattern"]) for m in body["fio"]["mapped"]}
    assert mapped == {
        "qd3-reads": ("randread-4k-qd3", "unspecified"),
        "seq-writes": ("seqwrite-128k-qd1", "incompressible"),
    }
    not_mapped = {u["job"]: u["reason"] for u in body["fio"]["not_mapped"]}
    # 8KiB random reads are a standard test only at QD1 (the latency test): at QD3, none.
    assert list(not_mapped) == ["no-test-at-its-depth"]
    reason = not_mapped["no-test-at-its-depth"]
    assert "iodepth=3" in reason and "8KiB random read" in reason, reason

    run = Run.objects.get()
    assert (run.tool_name, run.tool_version) == ("fio", fio_output["version"])
    assert run.engine == "libaio, psync"
    assert run.drive_state == "used"
    assert run.drive.capacity_bytes == 16777216 and run.drive.needs_review
    options = json.loads(run.document)["tool"]["command_line"]
    assert "--name=qd3-reads" in options and "--iodepth=3" in options
    assert "--name=no-test-at-its-depth" not in options

    shown = api.get(response["Location"]).json()
    assert shown["tool"] == {"name": "fio", "version": fio_output["version"], "engine": run.engine}
    assert {(r["test"], r["pattern"]) for r in shown["results"]} == set(mapped.values())
    assert all(r["iops"] > 0 for r in shown["results"])
    listed = api.get("/api/v1/results/", {"run": run.pk}).json()["results"]
    assert {(r["test"], r["pattern"]) for r in listed} == set(mapped.values())
    html = client.get(shown["page"].removeprefix("http://testserver")).content.decode()
    assert f'id="run-{run.pk}"' in html
    assert f"fio {fio_output['version']}" in html
    assert "/bench/tests/randread-4k-qd3/" in html or "randread-4k-qd3" in html

    # The same output again, at either endpoint: the first run.
    for again_url in (FIO_RUNS, RUNS):
        again = post_document(api, fio_output["raw"], again_url + query)
        assert again.status_code == 200
        assert again.json()["run"]["id"] == run.pk
    assert Run.objects.count() == 1


def test_markup_in_an_upload_is_plain_data_in_json_and_escaped_on_the_page(api, client):
    from results.synthetic import measured_document
    from tests.results.helpers import HOSTILE

    document = measured_document(series_seconds=300)
    document["bench"]["name"] = HOSTILE[0]
    document["drive"]["model"] = HOSTILE[1]
    response = post_document(api, document)
    assert response.status_code == 201
    shown = api.get(response["Location"]).json()
    assert shown["bench"]["name"] == HOSTILE[0]  # the text as sent, as JSON data
    assert HOSTILE[1] in shown["drive"]["name"]
    assert response["Content-Type"] == "application/json"
    html = client.get(shown["page"].removeprefix("http://testserver")).content.decode()
    for text in HOSTILE:
        assert text not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
