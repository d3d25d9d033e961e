"""The shapes of the compare, leaderboard and value responses and of a run's results, for
the OpenAPI schema: what results.api.reads writes (comparison_body, _point, and each
leaderboard row by RankedEntry.as_item) and results.api.runs (a run's results), field by
field. The shapes never write a response; tests/api/test_schemathesis.py validates every
response against them. The fields every read of results declares alike (derived_field,
missing_rates_field) are made here; a result's latency summary is its kind's
(results.kinds.throughput.LatencyShape)."""

from rest_framework import serializers

from results.kinds.throughput import LatencyShape, PercentilesField
from results.models import (
    ConsistencySeries,
    DataPattern,
    LeaderboardEntry,
    Method,
    Run,
    SaturationSeries,
    TailSource,
    TrimValidation,
)
from results.selectors.common import MISSING_RATES_REASONS
from results.selectors.rankings import Metric
from results.spread import NOT_COMPARED, Comparability

NUMBER = {"allow_null": True}
DERIVED = [value for value in LeaderboardEntry.Derived.values if value]


def derived_field() -> serializers.ChoiceField:
    """Which of a result's rates was derived from the other (results.selectors.common.
    Figures), as every read of results says it."""
    return serializers.ChoiceField(
        choices=DERIVED,
        allow_null=True,
        help_text="Which rate was derived from the other through the test's block size "
        "(IOPS = bytes/s ÷ block size): the source gave only the other; null: both as given, "
        "or neither given",
    )


def missing_rates_field() -> serializers.ChoiceField:
    """Why a result has neither rate (results.selectors.common.missing_rates_reason)."""
    return serializers.ChoiceField(
        choices=MISSING_RATES_REASONS,
        allow_null=True,
        help_text="Why bytes_per_second and iops are both null: the source published, or "
        "the run measured, only latency for this test; null when they are given",
    )


class SpreadShape(serializers.Serializer):
    """A figure's group (results.spread): the mean of n results, their range and CV."""

    n = serializers.IntegerField(min_value=1)
    mean_bytes_per_second = serializers.FloatField()
    low_bytes_per_second = serializers.FloatField()
    high_bytes_per_second = serializers.FloatField()
    cv = serializers.FloatField(
        allow_null=True, help_text="coefficient of variation; null with one result"
    )
    wide = serializers.BooleanField(help_text="CV above 3.5%: the runs disagree")
    label = serializers.CharField(help_text='"± 2.1% (n = 3)" or "one run"')


class VerdictShape(serializers.Serializer):
    """The winner rule's verdict (docs/methodology.md, "Spread and the winner rule")."""

    winner = serializers.ChoiceField(
        choices=["a", "b", "c", "d", "tie", "untested", NOT_COMPARED],
        allow_null=True,
        help_text="the drive with a real lead (of A and the drive compared with it); "
        f"{NOT_COMPARED}: the two figures are of different comparability classes (a quick "
        "run against a full-length run or a published figure), never ranked together; "
        "null: a side untested",
    )
    difference_percent = serializers.FloatField(allow_null=True, help_text="null when not compared")
    margin_percent = serializers.FloatField(
        allow_null=True, help_text="a lead beyond this is real; null when not tested"
    )
    label = serializers.CharField(allow_null=True)


class TailFiguresShape(serializers.Serializer):
    """A group tail's figures: the I/Os its percentiles rest on, the percentiles, the
    maximum, and each percentile its I/Os do not support."""

    io_count = serializers.IntegerField(**NUMBER, help_text="the I/Os the percentiles rest on")
    percentiles_ns = PercentilesField(allow_null=True)
    max_ns = serializers.IntegerField(**NUMBER)
    needs_ios = serializers.DictField(
        child=serializers.IntegerField(),
        help_text="each percentile its I/Os do not support, with the I/Os it needs",
    )


class GroupLatencyShape(TailFiguresShape):
    """A side's group tail (results.tails): the latency percentiles of its group (the results
    its figures are the mean of), merged from every result's histogram when each carries
    one, else its one result's own as its tool wrote them; none for a group not merged. A
    mixed test's reads and writes each have theirs, merged from every result's histogram of
    that direction."""

    tail_source = serializers.ChoiceField(
        choices=TailSource.choices,
        allow_null=True,
        help_text="merged: from the histograms; result: one result's own (its tool's: fio's "
        "for an import); unmerged: not every result carries a histogram; null: no percentiles",
    )
    label = serializers.CharField(
        allow_null=True, help_text="where they come from, as the page says it (null: plain)"
    )
    runs = serializers.IntegerField(help_text="the group's results")
    histograms = serializers.IntegerField(help_text="how many of them carry a histogram")
    read = TailFiguresShape(
        allow_null=True,
        help_text="a mixed test's reads' tail, merged from every result's reads' histogram; "
        "null where not every result carries one (or the test is not mixed)",
    )
    write = TailFiguresShape(allow_null=True, help_text="a mixed test's writes' tail, as read")


class FiguresShape(serializers.Serializer):
    """One side's figures in a test and pattern: its group's means."""

    result = serializers.IntegerField(help_text="the group's latest result")
    run = serializers.IntegerField()
    bytes_per_second = serializers.FloatField(**NUMBER)
    iops = serializers.FloatField(**NUMBER)
    iops_stddev = serializers.FloatField(**NUMBER)
    iops_min = serializers.FloatField(**NUMBER)
    derived = derived_field()
    missing_rates_reason = missing_rates_field()
    method = serializers.ChoiceField(choices=Method.choices, allow_null=True)
    method_label = serializers.CharField(
        allow_null=True, help_text='the class, with its tool: "published, Iometer"'
    )
    spread = SpreadShape(allow_null=True)
    quick = serializers.BooleanField()
    comparability = serializers.ChoiceField(
        choices=[value for value, _ in Comparability.CHOICES],
        help_text="The class it is ranked and compared within: the leaderboard's `method` "
        "(full: full-length runs and published figures; quick: quick runs); figures of "
        "two classes are not compared",
    )
    partial = serializers.BooleanField()
    latency_kind = serializers.CharField(allow_blank=True)
    latency = LatencyShape(allow_null=True)
    io_count = serializers.IntegerField(
        allow_null=True, help_text="the I/Os the latencies were measured over; null: not stated"
    )
    latency_needs_ios = serializers.DictField(
        child=serializers.IntegerField(),
        help_text="Each percentile of `latency` its I/Os do not support, with the I/Os it "
        "needs (ten beyond it: 100,000 for 99.99, docs/methodology.md); the page shows none",
    )
    group_latency = GroupLatencyShape(
        allow_null=True,
        help_text="the group's tail, as its leaderboard entry holds it; null for a chosen run "
        "(its passes are not merged on a read)",
    )
    read = serializers.DictField(
        allow_null=True,
        help_text="A mixed test's reads: iops, latency_mean_ns, latency_max_ns, "
        "latency_percentiles_ns; null for a test that is not mixed",
    )
    write = serializers.DictField(allow_null=True, help_text="A mixed test's writes, as read")


class VerdictsShape(serializers.Serializer):
    """Each drive against A, the reference, by the winner rule."""

    b = VerdictShape()
    c = VerdictShape(required=False, help_text="where a third drive is compared")
    d = VerdictShape(required=False, help_text="where a fourth drive is compared")


SIDE_CHOICES = ["a", "b", "c", "d"]


class PatternPairShape(serializers.Serializer):
    pattern = serializers.CharField()
    a = FiguresShape(allow_null=True)
    b = FiguresShape(allow_null=True)
    c = FiguresShape(allow_null=True, required=False, help_text="where a third drive is compared")
    d = FiguresShape(allow_null=True, required=False, help_text="where a fourth drive is compared")
    winner = serializers.ChoiceField(
        choices=["a", "b", "tie", "untested", NOT_COMPARED],
        allow_null=True,
        help_text="A against B",
    )
    difference_percent = serializers.FloatField(**NUMBER, help_text="A against B")
    verdict = VerdictShape(help_text="A against B")
    verdicts = VerdictsShape()
    best = serializers.ChoiceField(
        choices=SIDE_CHOICES,
        allow_null=True,
        help_text="the drive better than every other with a real difference; null: none is",
    )


class DifferenceShape(serializers.Serializer):
    parameter = serializers.CharField(help_text="tool, engine, test bench, firmware, …")
    values = serializers.DictField(
        child=serializers.CharField(),
        help_text="each drive's value, by its key (its values in the test's rows, ' / ')",
    )


class TestPairShape(serializers.Serializer):
    test = serializers.CharField()
    name = serializers.CharField()
    unit = serializers.CharField()
    higher_is_better = serializers.BooleanField()
    patterns = PatternPairShape(many=True)
    differences = DifferenceShape(
        many=True, help_text="the parameters in which the drives' figures differ"
    )
    same = serializers.ListField(
        child=serializers.CharField(), help_text="the parameters that are the same"
    )


class SweepPointShape(TestPairShape):
    queue_depth = serializers.IntegerField(min_value=1)


class SweepShape(serializers.Serializer):
    """A queue-depth sweep: its tests, shallowest first (results.sweeps)."""

    family = serializers.CharField()
    name = serializers.CharField()
    points = SweepPointShape(many=True)


def _each_side(field: type[serializers.Field], **kwargs) -> serializers.DictField:
    return serializers.DictField(child=field(allow_null=True), **kwargs)


class CurveSideShape(serializers.Serializer):
    """One drive's figures at one offered load of a curve."""

    result = serializers.IntegerField()
    iops = serializers.FloatField(**NUMBER, help_text="the IOPS achieved at this load")
    quick = serializers.BooleanField()
    io_count = serializers.IntegerField(allow_null=True)
    percentiles_ns = serializers.DictField(
        child=serializers.IntegerField(allow_null=True),
        help_text="p50, p99, p99.9 and p99.99 as measured (see needs_ios before reading one)",
    )
    needs_ios = serializers.DictField(
        child=serializers.IntegerField(),
        help_text="each percentile its I/Os do not support, with the I/Os it needs",
    )


class CurveLoadShape(serializers.Serializer):
    load_percent = serializers.IntegerField(min_value=1, max_value=100)
    test = serializers.CharField()
    a = CurveSideShape(allow_null=True)
    b = CurveSideShape(allow_null=True)
    c = CurveSideShape(allow_null=True, required=False, help_text="where a third drive is compared")
    d = CurveSideShape(
        allow_null=True, required=False, help_text="where a fourth drive is compared"
    )
    verdicts = serializers.DictField(
        child=serializers.DictField(child=VerdictShape()),
        help_text="at each tail percentile (99, 99.9, 99.99), each drive against A by the winner "
        "rule on the latency (lower wins); not tested where that percentile's run-to-run "
        "variation is unknown",
    )
    best = serializers.DictField(
        child=serializers.ChoiceField(choices=SIDE_CHOICES, allow_null=True),
        help_text="at each tail percentile, the drive lower than every other with a real "
        "difference; null: none is",
    )


class CurveShape(serializers.Serializer):
    """A response-time curve in one data pattern (results.curves): each drive's maximum, knee
    and the queue depth of its sweep at 95% of peak, and its figures at each offered load."""

    curve = serializers.CharField(help_text="the curve's unpaced test")
    name = serializers.CharField()
    pattern = serializers.CharField()
    sweep = serializers.CharField(
        allow_null=True, help_text="the queue-depth sweep of the same workload"
    )
    maximum_iops = _each_side(serializers.FloatField, help_text="each drive's unpaced IOPS")
    knee_percent = _each_side(
        serializers.IntegerField,
        help_text="each drive's knee: the lowest load whose p99 exceeds twice its 10% load's; "
        "null: none",
    )
    depth_at_peak = _each_side(
        serializers.IntegerField,
        help_text="each drive's lowest queue depth of the sweep reaching 95% of its peak IOPS; "
        "null: no sweep",
    )
    loads = CurveLoadShape(many=True)


class DriveShape(serializers.Serializer):
    slug = serializers.CharField()
    name = serializers.CharField()
    manufacturer = serializers.CharField()
    model = serializers.CharField()
    capacity_bytes = serializers.IntegerField(**NUMBER)
    kind = serializers.CharField(allow_blank=True)
    interface = serializers.CharField(allow_blank=True)
    form_factor = serializers.CharField(allow_blank=True)
    controller = serializers.CharField(**NUMBER)
    nand = serializers.CharField(**NUMBER)
    page = serializers.CharField()


class SideShape(serializers.Serializer):
    drive = DriveShape()
    runs = serializers.ListField(child=serializers.IntegerField())
    chosen_run = serializers.IntegerField(**NUMBER)
    firmware = serializers.ListField(child=serializers.CharField())
    price_usd = serializers.FloatField(**NUMBER)
    price_observed_on = serializers.DateField(**NUMBER)
    price_per_gb_usd = serializers.FloatField(**NUMBER)
    price_per_kiops_usd = serializers.FloatField(**NUMBER)


class SeriesShape(serializers.ModelSerializer):
    """A side's consistency series (results.api.reads._series): its points only with
    ?points=true, else at its url."""

    steady_label = serializers.CharField()
    url = serializers.CharField(help_text="The series with its points")
    iops = serializers.ListField(
        child=serializers.IntegerField(), required=False, help_text="With ?points=true"
    )

    class Meta:
        model = ConsistencySeries
        fields = [
            "id",
            "run",
            "pattern",
            "interval_ns",
            "steady",
            "steady_label",
            "steady_state_start_s",
            "steady_state_end_s",
            "steady_excursion",
            "steady_slope",
            "steady_mean_iops",
            "steady_min_iops",
            "partial",
            "url",
            "iops",
        ]


class TrimSideShape(serializers.ModelSerializer):
    """A side's TRIM validation (results.api.reads._trim)."""

    class Meta:
        model = TrimValidation
        fields = [
            "run",
            "clean_bytes_per_second",
            "after_torture_bytes_per_second",
            "after_trim_bytes_per_second",
        ]


class SaturationSideShape(serializers.ModelSerializer):
    """A side's write-saturation series (results.api.reads._saturation)."""

    url = serializers.CharField(help_text="The series with its points")
    bytes_per_interval = serializers.ListField(
        child=serializers.IntegerField(), required=False, help_text="With ?points=true"
    )

    class Meta:
        model = SaturationSeries
        fields = [
            "run",
            "interval_ns",
            "bytes_written",
            "exhausted",
            "exhausted_at_s",
            "bytes_before_exhausted",
            "bytes_per_second_before",
            "bytes_per_second_after",
            "partial",
            "url",
            "bytes_per_interval",
        ]


MORE = {"allow_null": True, "required": False}  # drives C and D, where compared


class ConsistencyPairShape(serializers.Serializer):
    spare_area_percent = serializers.IntegerField()
    a = SeriesShape(allow_null=True)
    b = SeriesShape(allow_null=True)
    c = SeriesShape(**MORE)
    d = SeriesShape(**MORE)


class TrimPairShape(serializers.Serializer):
    test = serializers.CharField()
    pattern = serializers.ChoiceField(choices=DataPattern.choices)
    a = TrimSideShape(allow_null=True)
    b = TrimSideShape(allow_null=True)
    c = TrimSideShape(**MORE)
    d = TrimSideShape(**MORE)


class SaturationPairShape(serializers.Serializer):
    pattern = serializers.ChoiceField(choices=DataPattern.choices)
    a = SaturationSideShape(allow_null=True)
    b = SaturationSideShape(allow_null=True)
    c = SaturationSideShape(**MORE)
    d = SaturationSideShape(**MORE)


class WsatSideShape(serializers.ModelSerializer):
    """A side's WSAT, SNIA PTS's write saturation (results.api.reads._wsat)."""

    url = serializers.CharField(help_text="The series with its rounds")
    bytes_per_interval = serializers.ListField(
        child=serializers.IntegerField(), required=False, help_text="With ?points=true"
    )

    class Meta:
        model = SaturationSeries
        fields = [
            "run",
            "interval_ns",
            "bytes_written",
            "target_bytes",
            "time_cap_ns",
            "stopped_by",
            "halved_at_s",
            "bytes_before_halved",
            "partial",
            "url",
            "bytes_per_interval",
        ]


class WsatPairShape(serializers.Serializer):
    pattern = serializers.ChoiceField(choices=DataPattern.choices)
    a = WsatSideShape(allow_null=True)
    b = WsatSideShape(allow_null=True)
    c = WsatSideShape(**MORE)
    d = WsatSideShape(**MORE)


class SideKeyShape(serializers.Serializer):
    key = serializers.ChoiceField(choices=SIDE_CHOICES, help_text="its key in this body")
    slug = serializers.CharField()


class ComparisonShape(serializers.Serializer):
    """Two to four drives head to head, A the reference (results.api.reads.comparison_body)."""

    sides = SideKeyShape(many=True, help_text="the drives compared, in order (A first)")
    a = SideShape()
    b = SideShape()
    c = SideShape(required=False, help_text="a third drive, where compared")
    d = SideShape(required=False, help_text="a fourth drive, where compared")
    value_test = serializers.CharField()
    tests = TestPairShape(
        many=True, help_text="every throughput test but the sweeps' and the curves'"
    )
    sweeps = SweepShape(many=True)
    curves = CurveShape(many=True, help_text="response-time curves, each in each data pattern")
    consistency = ConsistencyPairShape(many=True)
    trim = TrimPairShape(many=True)
    saturation = SaturationPairShape(many=True)
    wsat = WsatPairShape(many=True, help_text="WSAT, SNIA PTS's write saturation, by pattern")


class EntryShape(serializers.Serializer):
    """A ranked leaderboard entry (results.selectors.rankings.RankedEntry.as_item)."""

    rank = serializers.IntegerField(min_value=1)
    drive = serializers.CharField()
    drive_name = serializers.CharField()
    controller = serializers.CharField(**NUMBER)
    pattern = serializers.ChoiceField(choices=DataPattern.choices)
    bytes_per_second = serializers.FloatField(**NUMBER)
    iops = serializers.FloatField(**NUMBER)
    iops_stddev = serializers.FloatField(**NUMBER)
    iops_min = serializers.FloatField(**NUMBER)
    read_iops = serializers.FloatField(**NUMBER, help_text="A mixed test's reads apart")
    write_iops = serializers.FloatField(**NUMBER, help_text="A mixed test's writes apart")
    derived = derived_field()
    missing_rates_reason = missing_rates_field()
    method = serializers.ChoiceField(choices=Method.choices)
    method_label = serializers.CharField(help_text="the class, with its tool")
    tool = serializers.CharField(allow_blank=True, help_text="the run's tool")
    spread = SpreadShape(allow_null=True)
    latency_mean_ns = serializers.FloatField(**NUMBER)
    latency_p999_ns = serializers.IntegerField(
        **NUMBER,
        help_text="its group's p99.9 latency (ns), where 10,000 I/Os or more support it",
    )
    latency_io_count = serializers.IntegerField(
        **NUMBER, help_text="the I/Os its group's latency percentiles rest on"
    )
    latency_tail = serializers.CharField(
        **NUMBER,
        help_text="where its group's percentiles come from: merged from its results' "
        "histograms, or one result's own as its tool (fio, loadgen) wrote them",
    )
    quick = serializers.BooleanField()
    source = serializers.ChoiceField(choices=Run.Source.choices)
    run = serializers.IntegerField()
    price_usd = serializers.FloatField(**NUMBER)
    highlighted = serializers.BooleanField()


class LeaderboardShape(serializers.Serializer):
    """One test's ranking (results.api.reads.LeaderboardView)."""

    test = serializers.CharField(help_text="the test ranked (a sweep's: at the depth chosen)")
    queue_depth = serializers.IntegerField()
    load_percent = serializers.IntegerField(
        allow_null=True,
        help_text="a response-time curve's paced point: its rate as a percentage of the "
        "maximum the curve's unpaced test measured just before; null: unpaced",
    )
    load = serializers.CharField(
        help_text='the load the figures are measured at, as the page states it: "queue depth '
        '32, paced at 50% of its measured maximum", or "queue depth 3, unpaced" (the CSV '
        "writes it, queue_depth and load_percent on every row)"
    )
    sweep = serializers.CharField(allow_null=True, help_text="the queue-depth sweep it is of")
    metric = serializers.ChoiceField(choices=Metric.CHOICES)
    page = serializers.IntegerField()
    page_size = serializers.IntegerField()
    has_next = serializers.BooleanField()
    rows = EntryShape(many=True)
    elsewhere = EntryShape(many=True)
    too_few_ios = serializers.IntegerField(
        allow_null=True,
        help_text="latency_p999 only: the entries left out for a p99.9 over fewer I/Os than "
        "needs_ios; null for another metric",
    )
    needs_ios = serializers.IntegerField(
        allow_null=True, help_text="latency_p999 only: the I/Os a p99.9 needs to be ranked"
    )


# The comparability classes a ranking of another kind orders one of (its `method`), named
# apart from a figure's Method in the schema (settings' ENUM_NAME_OVERRIDES).
RUNS_CLASSES = Comparability.CHOICES


class KindRowShape(serializers.Serializer):
    """A drive ranked in a test of a kind that is not throughput (results.api.reads._kind_row)."""

    rank = serializers.IntegerField(min_value=1)
    drive = serializers.CharField()
    drive_name = serializers.CharField()
    run = serializers.IntegerField()
    figure = serializers.FloatField(help_text="what the ranking orders by, highest first")
    figures = serializers.DictField(
        help_text="the row's figures as the page's columns show them, by key (stored units: "
        "bytes, bytes per second, IOPS, seconds; a share from 0 to 1)"
    )
    note = serializers.CharField(
        allow_blank=True, help_text="a qualification of its figure (never settled, …)"
    )
    highlighted = serializers.BooleanField()


class KindRankingShape(serializers.Serializer):
    """The ranking of a test of a kind that is not throughput (results.api.reads.RankingView)."""

    test = serializers.CharField()
    kind = serializers.CharField()
    unit = serializers.CharField(help_text="what `figure` is")
    choice_parameter = serializers.CharField(help_text="the query's name for the choice")
    choice = serializers.CharField(allow_null=True, help_text="the value ranked at")
    choices = serializers.ListField(child=serializers.CharField())
    method = serializers.ChoiceField(choices=RUNS_CLASSES)
    page = serializers.IntegerField()
    page_size = serializers.IntegerField()
    has_next = serializers.BooleanField()
    considered = serializers.IntegerField(help_text="drives ranked")
    rows = KindRowShape(many=True)
    elsewhere = KindRowShape(many=True)


class ValueRowShape(serializers.Serializer):
    """A priced drive in a value view (results.api.reads._point)."""

    drive = serializers.CharField()
    drive_name = serializers.CharField()
    iops = serializers.FloatField()
    price_usd = serializers.FloatField()
    price_observed_on = serializers.DateField()
    price_per_gb_usd = serializers.FloatField(**NUMBER)
    price_per_kiops_usd = serializers.FloatField()
    frontier = serializers.BooleanField()
    quick = serializers.BooleanField()
    highlighted = serializers.BooleanField()


class ValueShape(serializers.Serializer):
    test = serializers.CharField()
    as_of = serializers.DateField(allow_null=True)
    considered = serializers.IntegerField()
    rows = ValueRowShape(many=True)
    frontier = serializers.ListField(child=serializers.CharField())
    cheapest_per_gb = serializers.ListField(child=serializers.CharField())
    cheapest_per_kiops = serializers.ListField(child=serializers.CharField())


class RunResultShape(serializers.Serializer):
    """A result of a run (results.api.runs.RunDetailSerializer.get_results)."""

    test = serializers.CharField()
    pattern = serializers.ChoiceField(choices=DataPattern.choices)
    bytes_per_second = serializers.FloatField(**NUMBER)
    iops = serializers.FloatField(**NUMBER)
    derived = derived_field()
    missing_rates_reason = missing_rates_field()
    latency_mean_ns = serializers.FloatField(**NUMBER)
    latency_kind = serializers.CharField(allow_blank=True)
    duration_ns = serializers.IntegerField(**NUMBER)
    partial = serializers.BooleanField()
