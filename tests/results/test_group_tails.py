"""A group's tail (results.tails): the leaderboard refresh merges the histograms of a
group's results and writes the group's percentiles and I/O count on its entry; a group whose
results do not all carry one has none, and says so."""

import csv
import io
import math
from pathlib import Path
from types import SimpleNamespace

import pytest
from django.urls import reverse

from results import histograms
from results.models import LeaderboardEntry
from results.tails import RANKED_IOS
from results.units import latency
from tests.results.helpers import ingest
from tests.results.tails_data import MIXED_TEST, TEST, mixed_document, run_document, samples

pytestmark = pytest.mark.django_db


def _entry(run) -> LeaderboardEntry:
    return LeaderboardEntry.objects.get(drive=run.drive, test__identifier=TEST)


@pytest.mark.parametrize("sizes", [(4_000, 3_500), (4_000, 3_500, 5_000), (9_000,)])
def test_the_entrys_percentiles_are_those_of_every_sample_together(sizes):
    passes = [samples(seed, n) for seed, n in enumerate(sizes, start=1)]
    run = ingest(run_document(passes))
    entry = _entry(run)
    together = histograms.Histogram.of_samples(v for values in passes for v in values)
    assert entry.runs == len(sizes)
    assert entry.histograms == len(sizes)
    assert entry.tail == "merged"
    assert entry.latency_io_count == sum(sizes) == together.total
    assert entry.latency_percentiles_ns == {
        q: together.percentile(float(q)) for q in histograms.PERCENTILE_KEYS
    }
    assert entry.latency_max_ns == max(max(values) for values in passes)
    # Within the histogram's precision of the samples' nearest-rank percentile (the rank as
    # loadgen reckons it, in doubles).
    ordered = sorted(v for values in passes for v in values)
    for q, value in entry.latency_percentiles_ns.items():
        exact = ordered[min(max(math.ceil(float(q) / 100 * len(ordered)), 1), len(ordered)) - 1]
        assert abs(value - exact) <= exact * histograms.RELATIVE_PRECISION + 1
    # The p99.9 is ranked only where the group's I/Os support it.
    supported = sum(sizes) >= RANKED_IOS
    assert entry.latency_p999_ns == (entry.latency_percentiles_ns["99.9"] if supported else None)


def test_a_group_not_every_result_of_which_has_a_histogram_has_no_tail():
    passes = [samples(seed, 4_000) for seed in (1, 2, 3)]
    run = ingest(run_document(passes, without_histogram=(2,)))
    entry = _entry(run)
    assert (entry.runs, entry.histograms, entry.tail) == (3, 2, "unmerged")
    assert entry.latency_percentiles_ns is None
    assert entry.latency_io_count is None
    assert entry.latency_p999_ns is None


def test_a_result_alone_without_a_histogram_keeps_its_own_percentiles():
    values = samples(7, 12_000)
    run = ingest(run_document([values], without_histogram=(1,)))
    entry = _entry(run)
    result = entry.result
    assert (entry.runs, entry.histograms, entry.tail) == (1, 0, "result")
    assert entry.latency_percentiles_ns == result.latency_percentiles_ns
    assert entry.latency_io_count == result.io_count == 12_000
    assert entry.latency_p999_ns == result.latency_percentiles_ns["99.9"]


def test_a_refresh_that_changes_nothing_writes_nothing():
    from results.services import leaderboard_refresh

    passes = [samples(seed, 3_000) for seed in (1, 2)]
    run = ingest(run_document(passes))
    assert leaderboard_refresh(drive_ids=[run.drive_id]) == 0
    assert leaderboard_refresh(drive_ids=None) == 0


# -- where group figures are shown ----------------------------------------------------------


def _pair():
    """A drive whose group of three passes merges to 12,500 I/Os (each pass alone under the
    10,000 a p99.9 needs), beside one of a single pass of 6,000 I/Os."""
    passes = [samples(seed, n) for seed, n in ((11, 4_000), (12, 4_500), (13, 4_000))]
    merged = ingest(run_document(passes, model="Merged")).drive
    single = ingest(run_document([samples(21, 6_000)], model="Single")).drive
    return merged, passes, single


def test_the_compare_page_exports_and_api_show_the_groups_tail_with_its_count(client):
    merged, passes, single = _pair()
    together = histograms.Histogram.of_samples(v for values in passes for v in values)
    p999 = together.percentile(99.9)
    slugs = [merged.slug, single.slug]
    page = client.get(reverse("bench:compare", args=slugs)).content.decode()
    assert "merged from the histograms of 3 results" in page
    assert ">12,500<" in page  # the group's I/Os, not its latest pass's 4,000
    assert latency(p999) in page  # its p99.9, supported by the merge
    assert "needs 10,000 I/Os" in page  # the single pass's p99.9, unsupported
    rows = list(csv.reader(io.StringIO(client.get(reverse("bench:compare_csv", args=slugs)).text)))
    ios = next(r for r in rows if r[3] == "I/Os measured")
    assert ios[5:7] == ["12500", "merged from the histograms of 3 results"]
    assert ios[7] == "6000"
    p999_row = next(r for r in rows if r[3] == "p99.9")
    assert float(p999_row[5]) == p999 / 1e3 and p999_row[7] == ""
    body = client.get(f"/api/v1/compare/{merged.slug}/{single.slug}/").json()
    test = next(t for t in body["tests"] if t["test"] == TEST)
    a, b = test["patterns"][0]["a"], test["patterns"][0]["b"]
    assert a["group_latency"]["tail_source"] == "merged"
    assert a["group_latency"]["io_count"] == 12_500 and a["group_latency"]["runs"] == 3
    assert a["group_latency"]["percentiles_ns"]["99.9"] == p999
    assert a["group_latency"]["needs_ios"] == {"99.99": 100_000}
    assert a["io_count"] == 4_000  # the latest result's own, as before
    assert b["group_latency"]["needs_ios"] == {"99.9": 10_000, "99.99": 100_000}


def test_the_p999_ranking_holds_only_groups_its_ios_support(client):
    merged, passes, single = _pair()
    fewer = ingest(run_document([samples(31, 9_999)], model="Fewer")).drive
    more = ingest(run_document([samples(32, 20_000)], model="More")).drive
    url = reverse("bench:leaderboard", args=[TEST])
    page = client.get(url, {"metric": "latency_p999", "method": "quick"}).content.decode()
    assert "p99.9 latency, issue to completion, at the test's load" in page
    assert "queue depth 1, unpaced" in page
    assert "2 entries with a p99.9 of fewer I/Os are left out" in page
    table = page[page.index('id="leaderboard-table"') :]
    assert str(merged) in table and str(more) in table
    assert str(single) not in table and str(fewer) not in table
    body = client.get(
        f"/api/v1/tests/{TEST}/leaderboard/", {"metric": "latency_p999", "method": "quick"}
    ).json()
    ranked = {row["drive"]: row for row in body["rows"]}
    assert set(ranked) == {merged.slug, more.slug}
    assert (body["too_few_ios"], body["needs_ios"]) == (2, RANKED_IOS)
    values = [row["latency_p999_ns"] for row in body["rows"]]
    assert values == sorted(values)  # lower is better
    assert ranked[merged.slug]["latency_io_count"] == 12_500
    assert ranked[merged.slug]["latency_tail"] == "merged from the histograms of 3 results"
    text = client.get(
        f"/api/v1/tests/{TEST}/leaderboard/",
        {"metric": "latency_p999", "method": "quick", "format": "csv"},
    ).content.decode()
    assert merged.slug in text and single.slug not in text and "latency_p999_ns" in text
    other = client.get(f"/api/v1/tests/{TEST}/leaderboard/", {"method": "quick"}).json()
    assert (other["too_few_ios"], other["needs_ios"]) == (None, None)
    assert single.slug in {row["drive"] for row in other["rows"]}


def test_fios_percentiles_are_labelled_as_fios(client):
    from results.importers.fio import fio_ingest

    fixture = Path(__file__).parent / "fio" / "fio-3.33-standard.json"
    run = fio_ingest(
        fio_json=fixture.read_bytes(),
        drive={"manufacturer": "Bench Test", "model": "fio target"},
        submitter=None,
    ).outcome.run
    entries = LeaderboardEntry.objects.filter(drive=run.drive).exclude(latency_percentiles_ns=None)
    assert entries and {e.tail for e in entries} == {"result"}
    other = ingest(run_document([samples(41, 3_000)], model="Other")).drive
    page = client.get(reverse("bench:compare", args=[run.drive.slug, other.slug])).content
    assert "fio&#39;s own percentiles" in page.decode()
    body = client.get(f"/api/v1/compare/{run.drive.slug}/{other.slug}/").json()
    labels = {
        p["a"]["group_latency"]["label"]
        for t in body["tests"]
        for p in t["patterns"]
        if p["a"] and p["a"]["group_latency"] and p["a"]["latency"]
    }
    assert labels == {"fio's own percentiles"}


def test_the_migration_fills_the_entries_standing_as_the_refresh_writes_them():
    import importlib

    from django.db import connection

    fill = importlib.import_module("results.migrations.0044_leaderboard_tails").fill
    merged, _, single = _pair()
    unmerged = ingest(
        run_document([samples(s, 3_000) for s in (51, 52)], model="Un", without_histogram=(1,))
    ).drive
    own = ingest(run_document([samples(61, 2_000)], model="Own", without_histogram=(1,))).drive
    columns = [
        "histograms",
        "tail",
        "latency_io_count",
        "latency_percentiles_ns",
        "latency_max_ns",
        "latency_p999_ns",
    ]
    written = list(LeaderboardEntry.objects.order_by("id").values_list("id", *columns))
    assert {row[2] for row in written} >= {"merged", "unmerged", "result"}
    LeaderboardEntry.objects.update(
        histograms=0,
        tail="",
        latency_io_count=None,
        latency_percentiles_ns=None,
        latency_max_ns=None,
        latency_p999_ns=None,
    )

    fill(None, SimpleNamespace(connection=connection))  # as migrate calls it
    assert list(LeaderboardEntry.objects.order_by("id").values_list("id", *columns)) == written
    assert {merged.pk, single.pk, unmerged.pk, own.pk} <= {
        e.drive_id for e in LeaderboardEntry.objects.all()
    }


# -- a mixed test's reads and writes ---------------------------------------------------------


def _mixed(seed: int, sizes: list[tuple[int, int]]) -> list[tuple[list[int], list[int]]]:
    """Passes of a 70/30 mix: each (reads around 30 µs, writes about twice as slow)."""
    return [
        (samples(seed + 2 * k, reads), [2 * v for v in samples(seed + 2 * k + 1, writes)])
        for k, (reads, writes) in enumerate(sizes)
    ]


def _together(values: list[int], *, exact_min: bool) -> histograms.Histogram:
    h = histograms.Histogram.of_samples(values)
    if not exact_min:
        h.min = None  # a direction's exact minimum is not stored: its merge is not clamped by it
    return h


def test_a_mixed_groups_reads_and_writes_are_merged_apart_through_the_refresh():
    passes = _mixed(100, [(2_800, 1_200), (3_500, 1_500), (2_100, 900)])
    run = ingest(mixed_document(passes))
    entry = LeaderboardEntry.objects.get(drive=run.drive, test__identifier=MIXED_TEST)
    assert (entry.runs, entry.histograms, entry.tail) == (3, 3, "merged")
    reads = [v for r, _ in passes for v in r]
    writes = [v for _, w in passes for v in w]
    for values, prefix, exact_min in (
        (reads + writes, "", True),
        (reads, "read_", False),
        (writes, "write_", False),
    ):
        together = _together(values, exact_min=exact_min)
        shown = getattr(entry, f"{prefix}latency_percentiles_ns")
        assert getattr(entry, f"{prefix}latency_io_count") == len(values) == together.total
        assert shown == {q: together.percentile(float(q)) for q in histograms.PERCENTILE_KEYS}
        assert getattr(entry, f"{prefix}latency_max_ns") == max(values)
        ordered = sorted(values)
        for q, value in shown.items():
            rank = min(max(math.ceil(float(q) / 100 * len(ordered)), 1), len(ordered))
            exact = ordered[rank - 1]
            assert abs(value - exact) <= exact * histograms.RELATIVE_PRECISION + 1
    # the writes are the slower: their merged tail is not the reads'
    assert entry.write_latency_percentiles_ns["99"] > entry.read_latency_percentiles_ns["99"]


def test_a_test_that_is_not_mixed_has_no_reads_or_writes_tail():
    run = ingest(run_document([samples(s, 3_000) for s in (1, 2)]))
    entry = _entry(run)
    assert entry.tail == "merged"
    assert entry.read_latency_percentiles_ns is None and entry.write_latency_io_count is None


def test_the_compare_page_exports_and_api_show_a_mixed_groups_reads_and_writes(client):
    passes = _mixed(200, [(2_800, 1_200), (3_500, 1_500), (4_200, 1_800)])
    a = ingest(mixed_document(passes, model="Mixed Three")).drive
    b = ingest(mixed_document(_mixed(300, [(2_000, 800)]), model="Mixed One")).drive
    reads = _together([v for r, _ in passes for v in r], exact_min=False)
    writes = _together([v for _, w in passes for v in w], exact_min=False)
    slugs = [a.slug, b.slug]

    page = client.get(reverse("bench:compare", args=slugs)).content.decode()
    table = page[page.index('<section id="latency">') :]
    table = table[: table.index("</section>")]
    for side, together, q in (("reads", reads, 99.9), ("writes", writes, 99.0)):
        row = table[table.index(f"incompressible: {side}</td>") :]
        row = row[: row.index("</tr>")]
        assert latency(together.percentile(q)) in row
        assert f">{together.total:,}<" in row  # 10,500 reads, 4,500 writes
        assert "merged from the histograms of 3 results" in row
    # the writes' 4,500 I/Os do not support a p99.9
    assert "needs 10,000 I/Os" in row

    rows = list(csv.reader(io.StringIO(client.get(reverse("bench:compare_csv", args=slugs)).text)))
    found = {r[3]: r for r in rows if r[0] == "latency" and r[1].startswith("4KB")}
    assert float(found["reads: p99.9"][5]) == reads.percentile(99.9) / 1e3
    assert found["writes: p99.9"][5] == "" and found["writes: p99.9"][6] == "needs 10,000 I/Os"
    assert found["reads: I/Os measured"][5:7] == [
        str(reads.total),
        "merged from the histograms of 3 results",
    ]
    assert found["writes: I/Os measured"][7] == "800"  # B's single pass
    assert float(found["writes: max"][5]) == writes.max / 1e3

    body = client.get(f"/api/v1/compare/{a.slug}/{b.slug}/").json()
    test = next(t for t in body["tests"] if t["test"] == MIXED_TEST)
    group = test["patterns"][0]["a"]["group_latency"]
    assert group["read"]["io_count"] == reads.total == 10_500
    assert group["read"]["percentiles_ns"]["99.9"] == reads.percentile(99.9)
    assert group["read"]["needs_ios"] == {"99.99": 100_000}
    assert group["write"]["max_ns"] == writes.max
    assert group["write"]["needs_ios"] == {"99.9": 10_000, "99.99": 100_000}
    assert group["io_count"] == reads.total + writes.total
    single = test["patterns"][0]["b"]["group_latency"]
    assert single["read"]["io_count"] == 2_000 and single["write"]["io_count"] == 800
    other = client.get(f"/api/v1/compare/{a.slug}/{b.slug}/").json()
    assert all(
        p["a"]["group_latency"]["read"] is None
        for t in other["tests"]
        if t["test"] != MIXED_TEST
        for p in t["patterns"]
        if p["a"] and p["a"]["group_latency"]
    )


def test_the_migration_fills_a_mixed_entrys_reads_and_writes_as_the_refresh_writes_them():
    import importlib

    from django.db import connection

    fill = importlib.import_module("results.migrations.0045_leaderboard_direction_tails").fill
    ingest(mixed_document(_mixed(400, [(2_000, 900), (2_500, 1_000)]), model="Two"))
    ingest(mixed_document(_mixed(500, [(1_500, 700)]), model="One"))
    ingest(run_document([samples(s, 3_000) for s in (1, 2)]))
    columns = [
        f"{side}_latency_{figure}"
        for side in ("read", "write")
        for figure in ("io_count", "percentiles_ns", "max_ns")
    ]
    written = list(LeaderboardEntry.objects.order_by("id").values_list("id", *columns))
    assert sum(1 for row in written if row[1] is not None) == 2
    LeaderboardEntry.objects.update(**dict.fromkeys(columns))
    fill(None, SimpleNamespace(connection=connection))  # as migrate calls it
    assert list(LeaderboardEntry.objects.order_by("id").values_list("id", *columns)) == written
