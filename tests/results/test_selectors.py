import datetime
from unittest import mock

import pytest
from django.db import transaction
from hypothesis import example, given, settings
from hypothesis import strategies as st

from drives.filters import DriveFilter
from drives.models import Drive, NandType
from results.filters import LeaderboardFilter
from results.models import LeaderboardEntry, Test
from results.selectors.common import Figures, entries
from results.selectors.compare import compare
from results.selectors.rankings import leaderboard
from results.selectors.value import value_frontier
from results.services import run_withdraw
from results.synthetic import measured_document
from tests.factories import ControllerFactory, DriveFactory, NandTypeFactory, PriceFactory
from tests.results.helpers import ingest, measured, published

pytestmark = pytest.mark.django_db


def test_compare_pairs_every_test_and_pattern_and_says_who_wins():
    measured(manufacturer="A", model="One", seed=1)
    measured(manufacturer="B", model="Two", seed=2)
    a, b = (d.slug for d in Drive.objects.order_by("manufacturer__name"))
    c = compare([a, b])
    assert [p.test.identifier for p in c.tests][:2] == ["randread-4k-qd3", "randwrite-4k-qd3-8g"]
    for pair in c.tests:
        assert [p.pattern for p in pair.rows] == ["compressible", "incompressible"]
        for p in pair.rows:
            high = max(p.figures[0].bytes_per_second, p.figures[1].bytes_per_second)
            low = min(p.figures[0].bytes_per_second, p.figures[1].bytes_per_second)
            assert p.verdicts[1].difference_percent == pytest.approx((high / low - 1) * 100)
            assert p.verdicts[1].winner in ("a", "b", "tie", "untested")
            if p.verdicts[1].winner in ("a", "b"):
                winner = p.figures[0] if p.verdicts[1].winner == "a" else p.figures[1]
                assert winner.bytes_per_second == high
    assert c.consistency_levels == [0, 25]
    assert (
        c.sides[0].consistency[0].points == 2000 == len(c.sides[0].consistency[0].iops_json.parsed)
    )


def test_compare_reads_every_result_field_it_shows_and_defers_the_rest():
    """The statement leaves out the fields no comparison shows (RESULT_UNREAD): those stay
    deferred (read on access, as the ORM would), every other field is the row's own."""
    from results.models import Result
    from results.selectors.compare import RESULT_UNREAD

    run = measured(manufacturer="A", model="One", seed=1)
    Result.objects.filter(run=run).update(jobs=2, partial=True, span_bytes=2**20)
    slug = Drive.objects.get().slug
    c = compare([slug, slug])
    read = [f.result for f in c.sides[0].results.values()]
    assert len(read) == Result.objects.filter(run=run).count() > 0
    unread = {Result._meta.get_field(name).attname for name in RESULT_UNREAD}
    for result in read:
        assert result.get_deferred_fields() == unread
        stored = Result.objects.get(pk=result.pk)
        for field in Result._meta.concrete_fields:
            if field.attname not in unread:
                assert getattr(result, field.attname) == getattr(stored, field.attname), field
        assert result.deviations == stored.deviations != []
    first = read[0]
    assert first.io_count == Result.objects.get(pk=first.pk).io_count  # loaded when asked


def test_compare_counts_each_series_seconds_at_zero_iops():
    """The seconds a drive stalled (0 IOPS), which a log axis cannot draw, counted for each
    series by the comparison's statement."""
    from results.models import ConsistencySeries

    run = measured(manufacturer="A", model="One", seed=1)
    series = ConsistencySeries.objects.filter(run=run).order_by("pk")
    stalled = series.first()
    iops = list(stalled.iops)
    iops[5:9] = [0, 0, 0, 0]
    iops[-1] = 0
    ConsistencySeries.objects.filter(pk=stalled.pk).update(iops=iops)
    slug = Drive.objects.get().slug
    c = compare([slug, slug])
    counted = {s.spare_area_percent: s.stalls for s in c.sides[0].consistency.values()}
    expected = {s.spare_area_percent: list(s.iops).count(0) for s in series}
    assert counted == expected and counted[stalled.spare_area_percent] >= 5


def test_compare_prices_each_side_by_its_latest_usd_price_to_the_cent():
    a = measured(manufacturer="A", model="One", seed=1).drive
    b = measured(manufacturer="B", model="Two", seed=2).drive
    PriceFactory(drive=a, amount="250.00", observed_on="2013-01-01", source="old shop")
    PriceFactory(
        drive=a,
        amount="199.90",
        observed_on="2013-06-01",
        source="shop",
        source_url="https://x.example/",
    )
    PriceFactory(drive=a, amount="99.00", currency="EUR", observed_on="2013-07-01", source="eu")
    c = compare([a.slug, b.slug])
    price = c.sides[0].price
    assert (str(price.amount), price.currency, price.observed_on) == (
        "199.90",
        "USD",
        datetime.date(2013, 6, 1),
    )
    assert (price.source, price.source_url, price.drive) == ("shop", "https://x.example/", a)
    assert c.sides[1].price is None and c.sides[1].price_per_gb is None


def test_compare_says_not_tested_and_uses_the_latest_run_unless_one_is_chosen():
    old = measured(manufacturer="A", model="One", seed=1)
    doc = measured_document(seed=5, manufacturer="A", model="One")
    doc["started_at"], doc["finished_at"] = "2026-11-22T00:00:00Z", "2026-11-22T01:00:00Z"
    doc["results"] = [r for r in doc["results"] if r["test"] == "randread-4k-qd3"]
    doc["consistency"] = []
    new = ingest(doc)
    other = published(
        manufacturer="B",
        model="Two",
        results=[{"test": "seqwrite-2m-qd1", "pattern": "unspecified", "bytes_per_second": 2e8}],
    )
    c = compare([old.drive.slug, other.drive.slug])
    by_test = {p.test.identifier: p for p in c.tests}
    assert by_test["randread-4k-qd3"].rows[0].figures[0].result.run_id == new.pk  # latest
    assert by_test["randwrite-4k-qd3-8g"].rows[0].figures[0].result.run_id == old.pk
    assert by_test["seqwrite-2m-qd1"].rows[0].figures[0] is None  # not tested by A
    assert by_test["randread-4k-qd3"].rows[0].figures[1] is None
    assert by_test["randread-4k-qd3"].rows[0].verdicts[1].winner == ""
    chosen = compare([old.drive.slug, other.drive.slug], [old.pk])
    assert chosen.sides[0].chosen_run == old
    assert {f.result.run_id for f in chosen.sides[0].results.values()} == {old.pk}
    # A run of another drive is no choice at all: the latest results again.
    assert compare([old.drive.slug, other.drive.slug], [other.pk]).sides[0].chosen_run is None


def test_a_drive_compared_with_itself_run_against_run():
    first = measured(manufacturer="A", model="One", seed=1)
    doc = measured_document(seed=9, manufacturer="A", model="One")
    doc["started_at"], doc["finished_at"] = "2026-11-22T00:00:00Z", "2026-11-22T01:00:00Z"
    second = ingest(doc)
    slug = first.drive.slug
    c = compare([slug, slug], [first.pk, second.pk])
    assert {f.result.run_id for f in c.sides[0].results.values()} == {first.pk}
    assert {f.result.run_id for f in c.sides[1].results.values()} == {second.pk}
    assert (
        c.sides[0].consistency[0].run_id == first.pk
        and c.sides[1].consistency[0].run_id == second.pk
    )
    latest_against_first = compare([slug, slug], [None, first.pk])
    assert {f.result.run_id for f in latest_against_first.sides[0].results.values()} == {second.pk}
    assert latest_against_first.sides[0].consistency[0].run_id == second.pk


def test_compare_of_unknown_or_withdrawn_data():
    run = measured()
    with pytest.raises(Drive.DoesNotExist):
        compare([run.drive.slug, "nope"])
    run_withdraw(run=run, reason="wrong drive")
    c = compare([run.drive.slug, run.drive.slug])
    assert c.tests == [] and c.consistency_levels == []


def test_figures_derive_the_missing_unit_from_the_block_size():
    run = published(
        manufacturer="P",
        model="Q",
        results=[
            {"test": "randwrite-4k-qd3-8g", "pattern": "compressible", "bytes_per_second": 4096e3},
            {"test": "seqread-128k-qd1", "pattern": "unspecified", "iops": 1000},
        ],
    )
    figures = {f.result.test.identifier: f for f in map(Figures.of, run.results.all())}
    assert (
        figures["randwrite-4k-qd3-8g"].iops == 1000
        and figures["randwrite-4k-qd3-8g"].derived == "iops"
    )
    seq = figures["seqread-128k-qd1"]
    assert seq.bytes_per_second == 1000 * 131072 and seq.derived == "bytes_per_second"
    entry = LeaderboardEntry.objects.get(drive=run.drive, test__identifier="seqread-128k-qd1")
    assert entry.bytes_per_second == 1000 * 131072 and entry.derived == "bytes_per_second"


def test_leaderboard_ranks_pages_and_places_highlighted_drives():
    test = Test.objects.get(identifier="randwrite-4k-qd3-8g")
    speeds = {f"D{i}": (i + 1) * 1e7 for i in range(7)}
    for model, bps in speeds.items():
        published(
            manufacturer="M",
            model=model,
            results=[{"test": test.identifier, "pattern": "unspecified", "bytes_per_second": bps}],
        )
    board = leaderboard(test=test, page=1, page_size=3)
    assert [r.entry.drive.model for r in board.rows] == ["D6", "D5", "D4"]
    assert [r.rank for r in board.rows] == [1, 2, 3] and board.has_next
    last = leaderboard(test=test, page=3, page_size=3)
    assert [r.entry.drive.model for r in last.rows] == ["D0"] and not last.has_next
    slow = Drive.objects.get(model="D0").slug
    board = leaderboard(test=test, page=1, page_size=3, highlight=(slow,))
    assert [(r.rank, r.entry.drive.model) for r in board.elsewhere] == [(7, "D0")]
    run_withdraw(run=Drive.objects.get(model="D6").runs.get(), reason="x")
    board = leaderboard(test=test, page=1, page_size=3)
    assert board.rows[0].entry.drive.model == "D5"


def test_rankings_indexes_hold_every_column_a_ranking_filters_on():
    """Where a highlighted drive ranks is counted from a ranking index alone: each column a
    leaderboard filter reads (search aside, which reads the drive) is in those indexes."""
    indexes = {i.name: i for i in LeaderboardEntry._meta.indexes}
    filtered = {
        f.field_name.split("__")[0]
        for name, f in LeaderboardFilter.base_filters.items()
        if name != "q"
    } | {"synthetic"}
    for name in (
        "leaderboard_test_bps_idx",
        "leaderboard_real_bps_idx",
        "leaderboard_test_latency_idx",
    ):
        # The test (a sweep's depth reads it) is the key each of them starts with.
        assert indexes[name].expressions[0].name == "test", name
        assert filtered <= {"test", *indexes[name].include}, name


def _value_catalog(points):
    test = Test.objects.get(identifier="randwrite-4k-qd3-8g")
    for i, (price, iops, capacity) in enumerate(points):
        run = published(
            manufacturer="V",
            model=f"V{i}",
            capacity_bytes=capacity * 10**9,
            results=[{"test": test.identifier, "pattern": "unspecified", "iops": iops}],
        )
        PriceFactory(drive=run.drive, amount=f"{price}.00", observed_on="2013-01-01")
    return test


VALUE_POINTS = st.lists(
    st.tuples(st.integers(1, 60), st.integers(1, 60), st.sampled_from([120, 240, 480])),
    min_size=1,
    max_size=12,
    unique_by=lambda p: p[:2],
)


@pytest.mark.parametrize("as_of", [None, datetime.date(2014, 1, 1)], ids=["latest", "as-of"])
@settings(max_examples=20, deadline=None)
@given(points=VALUE_POINTS)
@example(points=[(10, 50, 240), (20, 50, 120), (15, 40, 480), (10, 30, 120), (30, 60, 240)])
def test_the_value_frontier_and_cheapest_are_exactly_what_the_prices_say(points, as_of):
    """Latest prices (walked in the order kept with the copy) and prices as of a date
    (looked up and sorted for the request)."""
    # Lists of 3, so that the cheapest are fewer than the drives.
    with (
        mock.patch("results.selectors.value.VALUE_TABLE_ROWS", 3),
        transaction.atomic(),
    ):
        sid = transaction.savepoint()
        test = _value_catalog(points)
        # No sample: the points are the frontier and the cheapest, each from its own read.
        view = value_frontier(test=test, sample=0, as_of=as_of)
        got = {(round(p.price), round(p.iops)) for p in view.frontier}
        expected = {
            (price, iops)
            for price, iops, _ in points
            if not any(
                (p2 <= price and i2 >= iops) and (p2, i2) != (price, iops) for p2, i2, _ in points
            )
        }
        assert got == expected
        assert view.considered == len(points)

        def cheapest(key):  # ties by the drive's id, that is the order of creation
            return {
                points[i][:2]
                for i in sorted(range(len(points)), key=lambda i: (key(points[i]), i))[:3]
            }

        per_gb = cheapest(lambda p: p[0] / p[2])
        per_kiops = cheapest(lambda p: p[0] / p[1])
        assert {
            (round(p.price), round(p.iops)) for p in view.points
        } == expected | per_gb | per_kiops
        transaction.savepoint_rollback(sid)


def test_the_value_sample_is_about_its_size_the_same_each_time_and_keeps_the_frontier():
    test = _value_catalog([(10 + i, 1 + (i * 37) % 97, 240) for i in range(90)])
    highlighted = Drive.objects.order_by("pk")[40].slug
    for as_of in (None, datetime.date(2014, 1, 1)):
        first = value_frontier(test=test, sample=15, as_of=as_of)
        again = value_frontier(test=test, sample=15, as_of=as_of, highlight=(highlighted,))
        assert first.considered == 90
        chosen = {p.drive.slug for p in first.points}
        cheapest = {p.drive.slug for p in first.cheapest_per_gb + first.cheapest_per_kiops}
        sampled = chosen - cheapest - {p.drive.slug for p in first.frontier}
        assert 5 <= len(sampled) <= 30  # about 15 of 90, drawn by a hash of the id
        assert {p.drive.slug for p in again.points} == chosen | {highlighted}
        assert [p.highlighted for p in again.points].count(True) == 1


def test_value_prices_as_of_a_date_and_worst_case_of_compressing_drives():
    run = measured(manufacturer="Z", model="Zip")
    PriceFactory(drive=run.drive, amount="100.00", observed_on="2012-01-01")
    PriceFactory(drive=run.drive, amount="80.00", observed_on="2013-01-01")
    test = Test.objects.get(identifier="randwrite-4k-qd3-8g")
    latest = value_frontier(test=test)
    (point,) = latest.points
    assert point.price == 80.0
    worst = min(r.iops for r in run.results.filter(test=test))
    assert point.iops == pytest.approx(worst)
    older = value_frontier(test=test, as_of=datetime.date(2012, 6, 1))
    assert older.points[0].price == 100.0
    # Two prices seen the same day: the lower, as for the latest price.
    PriceFactory(drive=run.drive, amount="90.50", observed_on="2012-01-01")
    PriceFactory(drive=run.drive, amount="120.00", observed_on="2012-01-01")
    older = value_frontier(test=test, as_of=datetime.date(2012, 6, 1))
    assert older.points[0].price == 90.5
    assert value_frontier(test=test, as_of=datetime.date(2000, 1, 1)).points == []


def test_entry_prices_follow_price_writes():
    run = measured()
    PriceFactory(drive=run.drive, amount="50.00", observed_on="2013-01-01")
    entry = LeaderboardEntry.objects.filter(drive=run.drive).first()
    assert entry.price_usd == 50.0
    newer = PriceFactory(drive=run.drive, amount="40.00", observed_on="2014-01-01")
    entry.refresh_from_db()
    assert entry.price_usd == 40.0
    newer.delete()
    entry.refresh_from_db()
    assert entry.price_usd == 50.0


def test_entry_capacity_follows_the_drive():
    run = measured()
    Drive.objects.filter(pk=run.drive_id).update(capacity_bytes=512 * 10**9)
    assert {e.capacity_bytes for e in LeaderboardEntry.objects.filter(drive=run.drive)} == {
        512 * 10**9
    }


SPEC_CHANGES = st.lists(
    st.sampled_from(["controller", "interface", "kind", "nand", "capacity", "cell_type"]),
    min_size=1,
    max_size=6,
)


@settings(max_examples=15, deadline=None, derandomize=True, database=None)
@given(changes=SPEC_CHANGES, data=st.data())
def test_entries_filter_as_their_drives_specs_whatever_changes(changes, data):
    """The specs an entry keeps follow every write to its drive or NAND type, so that each
    leaderboard filter on the entries selects what the same filter on the drives selects."""
    with transaction.atomic():
        runs = [measured(manufacturer="M", model=f"Drive {i}", seed=i) for i in range(2)]
        controllers = [ControllerFactory(), ControllerFactory()]
        nands = [NandTypeFactory(cell_type="mlc"), NandTypeFactory(cell_type="tlc")]
        for change in changes:
            drive = Drive.objects.get(pk=data.draw(st.sampled_from(runs)).drive_id)
            if change == "cell_type":
                nand = data.draw(st.sampled_from(nands))
                NandType.objects.filter(pk=nand.pk).update(
                    cell_type=data.draw(st.sampled_from(["slc", "mlc", "tlc", "qlc"]))
                )
                continue
            value = {
                "controller": lambda: data.draw(st.sampled_from([*controllers, None])),
                "interface": lambda: data.draw(st.sampled_from(["sata-3g", "pcie-nvme", ""])),
                "kind": lambda: data.draw(st.sampled_from(["ssd", "hdd"])),
                "nand": lambda: data.draw(st.sampled_from([*nands, None])),
                "capacity": lambda: data.draw(st.sampled_from([None, 120 * 10**9, 10**12])),
            }[change]()
            field = "capacity_bytes" if change == "capacity" else change
            if data.draw(st.booleans()):
                setattr(drive, field, value)
                drive.save()
            else:
                Drive.objects.filter(pk=drive.pk).update(**{field: value})
        queries = [
            {"controller": controllers[0].slug},
            {"interface": "pcie-nvme"},
            {"kind": "hdd"},
            {"cell_type": "tlc"},
            {"capacity_min": "200"},
            {"capacity_max": "200"},
        ]
        for query in queries:
            chosen = LeaderboardFilter(query, queryset=entries()).qs
            drives = DriveFilter(query, queryset=Drive.objects.all()).qs
            expected = set(entries().filter(drive__in=drives).values_list("pk", flat=True))
            assert set(chosen.values_list("pk", flat=True)) == expected, query
        transaction.set_rollback(True)


def test_synthetic_drives_stay_out_unless_the_benchmark_shows_them(settings):
    drive = DriveFactory(synthetic=True)
    assert not Drive.objects.real().filter(pk=drive.pk).exists()
    settings.BENCH_SHOW_SYNTHETIC = True
    assert Drive.objects.real().filter(pk=drive.pk).exists()


PATTERNS = ["compressible", "incompressible", "unspecified"]


@settings(max_examples=60, deadline=None, derandomize=True, database=None)
@given(
    st.sets(st.sampled_from(PATTERNS), min_size=1),
    st.sets(st.sampled_from(PATTERNS), min_size=1),
)
def test_every_figure_of_a_test_both_drives_have_is_compared(patterns_a, patterns_b):
    """For any data patterns two drives have figures in for one test: "not tested" only
    beside a pattern the drive lacks, never for a drive whose one figure has no stated
    pattern (it stands against each pattern the other states, unless the other has such a
    figure too, to pair with), and every figure appears in some row."""
    from drives.models import Drive
    from results.models import Result, Test
    from results.selectors.common import Figures
    from results.selectors.compare import Side, _comparison

    test = Test(identifier="randwrite-4k-qd3-8g", name="4KB random write", block_size=4096)
    test.duration_s = 180
    sides = []
    for key, patterns in (("a", patterns_a), ("b", patterns_b)):
        side = Side(drive=Drive(slug=key), runs=[], chosen_run=None)
        for n, pattern in enumerate(sorted(patterns)):
            result = Result(pattern=pattern, bytes_per_second=1e8 * (n + 1), test=test)
            side.results[(test.identifier, pattern)] = Figures.of(result)
        sides.append(side)
    (pair,) = _comparison(sides).tests
    for row in pair.rows:
        for mine, other, figures in (
            (patterns_a, patterns_b, row.figures[0]),
            (patterns_b, patterns_a, row.figures[1]),
        ):
            if figures is None:  # only beside a pattern it lacks, its own figures shown apart
                assert row.pattern not in mine
                assert mine != {"unspecified"} or "unspecified" in other
            else:
                assert figures.result.pattern in (row.pattern, "unspecified")
        if row.figures[0] and row.figures[1]:
            assert row.verdicts[1].winner in ("a", "b", "tie", "untested")
    shown = {
        (k, f.result.pattern)
        for r in pair.rows
        for k, f in (("a", r.figures[0]), ("b", r.figures[1]))
        if f
    }
    assert shown == {("a", p) for p in patterns_a} | {("b", p) for p in patterns_b}
    assert len({r.pattern for r in pair.rows}) == len(pair.rows)
