"""A measured run records its test bench: what the reviewer describes, and where they are
silent what the tool read of the host (CPU, memory, OS, kernel) and of the drive's link; the
run's card shows it, and a comparison of runs on different benches says so."""

import json

import pytest
from django.urls import reverse
from hypothesis import given
from hypothesis import strategies as st

from results.documents import DocumentRejected, bench_fields
from results.models import TestBench
from results.selectors.compare import compare
from results.services import run_ingest
from results.synthetic import measured_document
from tests.results.helpers import ingest, published

pytestmark = pytest.mark.django_db

HOST = {
    "hostname": "lab-7",
    "os": "Debian GNU/Linux 12 (bookworm)",
    "kernel": "Linux 6.1.0-18-amd64",
    "cpu": "AMD Ryzen 9 7950X",
    "cpu_count": 32,
    "memory_bytes": 64 * 2**30,
}
NVME = {"interface": "nvme", "link": "PCIe 4.0 x4 (16.0 GT/s)"}


def document(*, bench=None, host=HOST, link=NVME, model="Linked", version=2):
    doc = measured_document(seed=1, manufacturer="Acme", model=model)
    doc["schema_version"] = version
    doc["host"] = host
    doc["target"] = {**doc["target"], **link}
    if bench is None:
        doc.pop("bench")
    else:
        doc["bench"] = bench
    return doc


def test_a_run_without_a_described_bench_records_what_the_tool_read(client):
    run = ingest(document())
    bench = run.bench
    assert (bench.cpu, bench.memory, bench.os, bench.kernel, bench.link) == (
        "AMD Ryzen 9 7950X (32 CPUs)",
        "64.0 GiB",
        "Debian GNU/Linux 12 (bookworm)",
        "Linux 6.1.0-18-amd64",
        "nvme, PCIe 4.0 x4 (16.0 GT/s)",
    )
    assert bench.name == "" and "lab-7" not in json.dumps(bench_fields(document()))
    html = client.get(run.drive.get_absolute_url()).content.decode()
    card = html.split(f'id="run-{run.pk}"', 1)[1].split("</div>", 1)[0]
    assert "kernel: Linux 6.1.0-18-amd64" in card
    assert "drive link: nvme, PCIe 4.0 x4 (16.0 GT/s)" in card


def test_the_reviewers_description_wins_where_given():
    bench = ingest(document(bench={"name": "Rig A", "cpu": "Ryzen 9 (overclocked)"})).bench
    assert (bench.name, bench.cpu, bench.kernel) == (
        "Rig A",
        "Ryzen 9 (overclocked)",
        "Linux 6.1.0-18-amd64",
    )


@given(
    st.fixed_dictionaries(
        {},
        optional={
            "cpu": st.text(max_size=220),
            "cpu_count": st.integers(1, 512),
            "memory_bytes": st.integers(1, 2**50),
            "os": st.text(max_size=220),
            "kernel": st.text(max_size=220),
        },
    ),
    st.fixed_dictionaries(
        {}, optional={"cpu": st.text(max_size=200), "name": st.text(max_size=200)}
    ),
)
def test_bench_fields_fit_the_model_and_keep_what_is_given(host, given_bench):
    fields = bench_fields({"host": host, "bench": given_bench})
    read_cpu = host.get("cpu") and "cpu" not in given_bench  # the reviewer's word wins
    if fields is None:
        assert not any(given_bench.values()) and not read_cpu
        assert not any(host.get(k) for k in ("os", "kernel", "memory_bytes"))
        return
    assert set(fields) == set(TestBench.FIELDS)
    assert all(len(v) <= 200 for v in fields.values())
    for name, value in given_bench.items():
        assert fields[name] == value  # given, even empty: stored as given
    if host.get("kernel"):
        assert fields["kernel"] == host["kernel"][:200]


def test_published_figures_have_no_bench_read():
    run = published(
        manufacturer="Old",
        model="Disk",
        results=[{"test": "randread-4k-qd3", "pattern": "unspecified", "bytes_per_second": 9e6}],
    )
    assert run.bench is None


def test_runs_on_benches_that_differ_only_in_kernel_or_link_are_not_the_same_bench():
    a = ingest(document(model="One")).drive
    b = ingest(document(model="Two")).drive
    assert compare([a.slug, b.slug]).guard is None  # the same bench, read the same
    c = ingest(document(model="Three", host={**HOST, "kernel": "Linux 6.12.0"})).drive
    d = ingest(document(model="Four", link={"interface": "sata", "link": "SATA 3.0 Gb/s"})).drive
    for other in (c, d):
        assert compare([a.slug, other.slug]).guard is not None


def test_a_version_1_document_may_not_say_the_link():
    with pytest.raises(DocumentRejected) as rejected:
        run_ingest(document=json.dumps(document(version=1)), submitter=None)
    pointers = {p.pointer for p in rejected.value.problems}
    assert pointers & {"/target/interface", "/target/link", "/target"}
    assert ingest(document(version=1, link={})).bench.link == ""


def test_the_bench_is_written_on_the_run_card_as_text(client):
    run = ingest(document(host={**HOST, "kernel": "<script>x</script>"}))
    html = client.get(reverse("bench:drive", args=[run.drive.slug])).content.decode()
    assert "<script>x</script>" not in html and "&lt;script&gt;x&lt;/script&gt;" in html
