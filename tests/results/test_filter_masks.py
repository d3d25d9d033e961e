"""The leaderboard and value filters as masks over the copy of the entries (FilterSet.mask,
results.entries_index) keep exactly the entries their ORM filters keep, for generated
combinations of every filter; and the rankings and value views built on them are the ones
the ORM's queryset gives."""

from io import StringIO

import pytest
from django.core.management import call_command
from django.db.models import F, Q
from django.http import QueryDict
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from drives.models import Drive
from results.entries_index import entries_index
from results.filters import LeaderboardFilter, ValueFilter, ValueForm
from results.models import LeaderboardEntry, Test
from results.selectors.common import entries
from results.selectors.rankings import Metric, leaderboard, ranking_batches
from results.selectors.value import value_frontier
from tests.filter_queries import filter_queries

pytestmark = pytest.mark.django_db

EXAMPLES = settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)


@pytest.fixture
def catalog(settings):
    """About 60 synthetic drives of every kind, interface, cell type and capacity, with
    prices and both data patterns; shown as real unless a test says otherwise."""
    call_command(
        "seed_scale",
        "--drives=60",
        "--results=1200",
        "--series=0",
        "--points=10",
        stdout=StringIO(),
    )
    settings.BENCH_SHOW_SYNTHETIC = True
    names = list(Drive.objects.values_list("model", flat=True))
    return {
        "words": sorted({w for name in names for w in name.split()})[:40],
        "tests": list(Test.objects.filter(kind=Test.Kind.THROUGHPUT)),
    }


def queries(catalog, *, value: bool = False):
    """Query strings of any combination of the filters (tests.filter_queries), with words
    that match some entries, none, or text that means something to LIKE (%, _, backslash);
    for a value view, with a day prices are taken as of, or none."""
    words = st.one_of(
        st.sampled_from(catalog["words"]),
        st.sampled_from(["240GB", "1TB", "0.5TB", "120gb"]),
        st.sampled_from(["%", "_", "S%c", "yn_h", "\\", "100%"]),
        st.text(alphabet="aeS%_\\ 1", min_size=1, max_size=6),
    )
    drawn = filter_queries(LeaderboardFilter, words=words)
    if not value:
        return drawn
    days = st.fixed_dictionaries(
        {}, optional={"as_of": st.sampled_from(["2025-06-01", "2010-01-01"])}
    )
    return st.tuples(drawn, days).map(lambda both: {**both[0], **both[1]})


# Each ranking's figure and whether higher is better, as the metrics' choices say.
ORDERS = {
    Metric.THROUGHPUT: ("bytes_per_second", True),
    **{latency: ("latency_mean_ns", False) for latency in Metric.LATENCIES},
    Metric.IOPS_MIN: ("iops_min", True),
    Metric.LATENCY_P999: ("latency_p999_ns", False),
}


def mask_ids(filters) -> set[int]:
    """The ids of the entries the copy holds (none awaiting review) that `filters`' mask
    keeps."""
    entries = entries_index().entries
    keep = filters.mask(entries)
    ids = entries["id"].array
    return set((ids if keep is None else ids[keep]).tolist())


def valid(filter_set, query: dict):
    filters = filter_set(QueryDict(mutable=True) | query, queryset=LeaderboardEntry.objects.all())
    assert filters.is_valid(), (query, filters.errors)
    return filters


@EXAMPLES
@given(data=st.data())
def test_the_filter_masks_keep_what_the_orm_filters_keep(catalog, data):
    filter_set = data.draw(st.sampled_from([LeaderboardFilter, ValueFilter]))
    query = data.draw(queries(catalog, value=filter_set is ValueFilter))
    filters = valid(filter_set, query)
    expected = set(filters.qs.filter(needs_review=False).values_list("pk", flat=True))
    assert mask_ids(filters) == expected, query


@EXAMPLES
@given(data=st.data())
def test_a_ranking_is_the_orm_ranking_of_the_filtered_entries(catalog, data):
    query = data.draw(queries(catalog))
    test = data.draw(st.sampled_from(catalog["tests"]))
    metric = data.draw(st.sampled_from([m for m, _ in Metric.CHOICES]))
    page = data.draw(st.integers(1, 3))
    filters = valid(LeaderboardFilter, query)
    field, higher = ORDERS[metric]
    order = F(field).desc(nulls_last=True) if higher else F(field).asc()
    kind = Metric.KINDS.get(metric, Q())
    shown = filters.qs.filter(kind, test=test, needs_review=False, **{f"{field}__isnull": False})
    ranked = list(shown.order_by(order, "id").values_list("pk", "drive__slug", field))

    def rank(value) -> int:  # competition ranking: one more than the entries better
        return 1 + sum(v > value if higher else v < value for _, _, v in ranked)

    highlight = tuple(slug for _, slug, _ in ranked[::7][:3])
    board = leaderboard(
        test=test,
        filters=filters,
        metric=metric,
        page=page,
        page_size=5,
        highlight=highlight,
    )
    start = (page - 1) * 5
    on_page = ranked[start : start + 5]
    assert [r.entry.id for r in board.rows] == [pk for pk, _, _ in on_page]
    assert [r.rank for r in board.rows] == [rank(v) for _, _, v in on_page]
    assert board.has_next == (len(ranked) > start + 5)
    # A highlighted drive off the page keeps its place: one more than the entries better.
    values = {pk: v for pk, _, v in ranked}
    for row in board.elsewhere:
        assert row.rank == rank(values[row.entry.id])
        assert row.entry.drive.slug in highlight
    # The open-data dump's ranking, read by the ORM in batches, is the same whole ranking.
    whole = LeaderboardFilter(QueryDict(mutable=True) | query, queryset=entries())
    assert whole.is_valid()
    streamed = [
        (r.entry.id, r.rank)
        for rows in ranking_batches(test=test, filters=whole, metric=metric, batch=7)
        for r in rows
    ]
    assert streamed == [(pk, rank(v)) for pk, _, v in ranked]


@EXAMPLES
@given(data=st.data())
def test_a_value_view_prices_the_filtered_entries(catalog, data):
    query = data.draw(queries(catalog, value=True))
    test = data.draw(st.sampled_from([t for t in catalog["tests"] if t.block_size == 4096]))
    sample = data.draw(st.sampled_from([0, 5, 200]))
    filters = valid(ValueFilter, query)
    options = ValueForm(query, tests=[test])
    assert options.is_valid(), options.errors
    view = value_frontier(
        test=test,
        filters=filters,
        as_of=options.cleaned_data["as_of"],
        worst_case=not query.get("pattern"),
        sample=sample,
    )
    chosen = filters.qs.filter(test=test, iops__isnull=False)
    if not query.get("pattern"):
        chosen = chosen.filter(worst=True)
    assert {p.drive.slug for p in view.points} <= set(chosen.values_list("drive__slug", flat=True))
    if "as_of" in query:
        return
    priced = sorted(
        chosen.filter(price_usd__isnull=False).values_list(
            "price_usd", "iops", "drive_id", "drive__slug"
        ),
        key=lambda row: (row[0], -row[1], row[2]),
    )
    assert view.considered == len(priced), query
    frontier, best = [], 0.0
    for _price, iops, _, slug in priced:
        if iops > best:
            frontier.append(slug)
            best = iops
    # Every frontier drive is flagged, also when it is in the sample or a cheapest list too.
    assert [p.drive.slug for p in view.frontier] == frontier, query
    assert len(view.points) <= len(frontier) + 2 * 10 + sample


def test_synthetic_entries_stay_out_of_rankings_and_value_views(catalog, settings):
    settings.BENCH_SHOW_SYNTHETIC = False
    test = Test.objects.get(identifier="randread-4k-qd3")
    assert not entries().filter(test=test).exists()
    assert leaderboard(test=test).rows == []
    assert value_frontier(test=test).points == []
    settings.BENCH_SHOW_SYNTHETIC = True
    assert leaderboard(test=test).rows
    assert value_frontier(test=test).points
