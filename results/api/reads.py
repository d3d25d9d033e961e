"""The results' read API: the test catalog, results, consistency series, TRIM validations,
write-saturation series, and the pages' own reads — a comparison of two drives, a test's
leaderboard, the value view — through the same selectors and filters the pages use, so the
API and the pages always show the same numbers. Withdrawn runs and synthetic drives stay
out, as on the pages."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from typing import Any

import django_filters
from django.core.exceptions import ImproperlyConfigured
from django.db.models import QuerySet
from django.http import Http404
from drf_spectacular.openapi import AutoSchema
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers, viewsets
from rest_framework.exceptions import NotFound, ValidationError
from rest_framework.pagination import Cursor, CursorPagination
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.utils.urls import replace_query_param
from rest_framework.views import APIView

from core.filters import (
    FilterSet,
    WholeNumberField,
    choices_description,
    declared_filters,
    field_schema,
    query_boolean,
    query_description,
    query_errors,
    query_schema,
    whole_number,
    whole_number_schema,
)
from core.links import SLUG
from core.serializers import RowWriter
from drives.filters import DriveFilter
from drives.models import Drive
from results import sweeps
from results.api.shapes import (
    ComparisonShape,
    KindRankingShape,
    LeaderboardShape,
    ValueShape,
    derived_field,
    missing_rates_field,
)
from results.entries_index import ValuePoint
from results.filters import (
    ENTRIES,
    LeaderboardFilter,
    QueueDepthFilter,
    ValueFilter,
    ValueForm,
    catalog_value_tests,
    highlight_slugs,
    value_query,
)
from results.kinds import KIND_OF, RANKED_KINDS, compare_sections
from results.kinds.throughput import DirectionSerializer, LatencySerializer
from results.models import (
    ConsistencySeries,
    DataPattern,
    Result,
    Run,
    SaturationSeries,
    Suite,
    Test,
    TrimValidation,
)
from results.selectors.common import SERIES_POINTS
from results.selectors.compare import (
    SIDE_KEYS,
    Comparison,
    RepeatedDrive,
    Side,
    compare,
)
from results.selectors.kind_rankings import METHODS as KIND_METHODS
from results.selectors.kind_rankings import (
    KindRow,
    RankedBy,
    chosen_drives,
    kind_ranking,
    ranked_test,
)
from results.selectors.rankings import (
    Metric,
    leaderboard,
    suites_with_tests,
    throughput_test,
    too_few_ios,
)
from results.selectors.runs import results_listed
from results.selectors.value import value_choices, value_frontier
from results.tails import RANKED_IOS

MAX_LEADERBOARD_PAGE = 200
MAX_PAGE = 500


class NewestFirst(CursorPagination):
    """Long lists (results, series): stable pages whatever is added meanwhile, and no OFFSET
    scan however deep the page."""

    page_size = 100
    page_size_query_param = "limit"
    max_page_size = MAX_PAGE
    ordering = "-id"

    def get_page_size(self, request: Request) -> int:
        """`limit`: a whole number within the bounds, or a 400 (DRF's reads any other value
        as the default page size)."""
        return whole_number(
            request.query_params,
            self.page_size_query_param,
            default=self.page_size,
            minimum=1,
            maximum=self.max_page_size,
        )

    def get_schema_operation_parameters(self, view) -> list[dict[str, Any]]:
        parameters = super().get_schema_operation_parameters(view)
        for parameter in parameters:
            if parameter["name"] == self.page_size_query_param:
                parameter["schema"] = whole_number_schema(1, self.max_page_size)
        return parameters


class NewestRowsFirst(NewestFirst):
    """NewestFirst over a selector that reads rows by id (`read(limit=, before=, after=)`,
    newest first) instead of a queryset. Ids are unique, so a cursor is only a direction
    and an id, written plainly (CURSOR: "before-<id>", the page of older rows; "after-<id>",
    of newer ones): any cursor of that form names a page, and the schema can say which."""

    CURSOR = re.compile(r"(before|after)-([0-9]{1,19})")
    cursor_description = (
        "A page's place, from a list's next or previous link: \"before-<id>\" (rows older than "
        'result <id>) or "after-<id>" (newer)'
    )

    def paginate_rows(self, read: Callable[..., list[dict]], request: Request) -> list[dict]:
        self.request = request
        self.page_size = self.get_page_size(request)
        self.base_url = request.build_absolute_uri()
        cursor = self.decode_cursor(request)
        position = min(int(cursor.position), 2**63 - 1) if cursor is not None else None
        backwards = cursor is not None and cursor.reverse
        side = "after" if backwards else "before"
        rows = read(limit=self.page_size + 1, **{side: position})
        more = len(rows) > self.page_size
        if backwards:  # the page just newer than the cursor: drop the extra, the oldest
            rows = rows[-self.page_size :] if more else rows
            self.has_next, self.has_previous = True, more
        else:
            rows = rows[: self.page_size]
            self.has_next, self.has_previous = more, position is not None
        self.rows = rows
        return rows

    def decode_cursor(self, request: Request) -> Cursor | None:
        raw = request.query_params.get(self.cursor_query_param)
        if raw is None:
            return None
        found = self.CURSOR.fullmatch(raw)
        if found is None:
            raise query_errors({self.cursor_query_param: [self.invalid_cursor_message]})
        return Cursor(offset=0, reverse=found[1] == "after", position=found[2])

    def encode_cursor(self, cursor: Cursor) -> str:
        written = f"{'after' if cursor.reverse else 'before'}-{cursor.position}"
        return replace_query_param(self.base_url, self.cursor_query_param, written)

    def get_next_link(self) -> str | None:
        if not self.has_next or not self.rows:
            return None
        return self.encode_cursor(
            Cursor(offset=0, reverse=False, position=str(self.rows[-1]["id"]))
        )

    def get_previous_link(self) -> str | None:
        if not self.has_previous or not self.rows:
            return None
        return self.encode_cursor(Cursor(offset=0, reverse=True, position=str(self.rows[0]["id"])))

    def get_schema_operation_parameters(self, view) -> list[dict[str, Any]]:
        parameters = super().get_schema_operation_parameters(view)
        for parameter in parameters:
            if parameter["name"] == self.cursor_query_param:
                parameter["schema"] = {"type": "string", "pattern": f"^{self.CURSOR.pattern}$"}
                parameter["description"] = self.cursor_description
        return parameters


def shown_runs() -> QuerySet[Run]:
    """The runs pages show: published (not withdrawn), of real drives."""
    return Run.objects.published().real()


# -- the test catalog ------------------------------------------------------------------------


class TestSerializer(serializers.ModelSerializer):
    class Meta:
        model = Test
        fields = [
            "identifier",
            "name",
            "kind",
            "operation",
            "access",
            "block_size",
            "queue_depth",
            "span",
            "span_bytes",
            "duration_s",
            "metrics",
            "unit",
            "higher_is_better",
            "produced_by",
        ]


class SuiteSerializer(serializers.ModelSerializer):
    tests = serializers.SlugRelatedField(slug_field="identifier", many=True, read_only=True)

    class Meta:
        model = Suite
        fields = ["id", "name", "version", "title", "tests"]


class TestViewSet(viewsets.ReadOnlyModelViewSet):
    serializer_class = TestSerializer
    lookup_field = "identifier"
    lookup_value_regex = "[-a-zA-Z0-9_]+"
    queryset = Test.objects.order_by("identifier")


class SuiteViewSet(viewsets.ReadOnlyModelViewSet):
    serializer_class = SuiteSerializer

    def get_queryset(self) -> QuerySet[Suite]:
        return suites_with_tests()


# -- results and series ----------------------------------------------------------------------


class FioSteadySerializer(serializers.Serializer):
    """fio's own steady-state verdict of the job a result was imported from: fio's rule
    (its steadystate option), not SNIA PTS's steady state."""

    criterion = serializers.CharField(help_text="fio's criterion, metric:limit (iops:20%)")
    window_s = serializers.IntegerField(help_text="Its window in seconds (fio's ss_dur)")
    attained = serializers.BooleanField(help_text="Whether fio found the criterion met")
    value = serializers.CharField(
        required=False, help_text="fio's value of the criterion when the job ended"
    )


class ResultSerializer(RowWriter, serializers.Serializer):
    """A result as a values() row: the declared fields document it, to_representation
    writes it (thousands of rows a second, without a field object per value)."""

    id = serializers.IntegerField()
    run = serializers.IntegerField()
    drive = serializers.CharField()
    test = serializers.CharField()
    pattern = serializers.ChoiceField(choices=DataPattern.choices)
    source = serializers.ChoiceField(choices=Run.Source.choices)
    block_size = serializers.IntegerField(allow_null=True)
    queue_depth = serializers.IntegerField(allow_null=True)
    span_bytes = serializers.IntegerField(allow_null=True)
    duration_ns = serializers.IntegerField(allow_null=True)
    io_count = serializers.IntegerField(allow_null=True)
    bytes = serializers.IntegerField(allow_null=True)
    bytes_per_second = serializers.FloatField(
        allow_null=True, help_text="Derived from iops when the source gave only those (derived)"
    )
    iops = serializers.FloatField(
        allow_null=True,
        help_text="Derived from bytes_per_second when the source gave only those (derived)",
    )
    derived = derived_field()
    missing_rates_reason = missing_rates_field()
    iops_stddev = serializers.FloatField(
        allow_null=True, help_text="Standard deviation of the IOPS of each second of the run"
    )
    iops_min = serializers.FloatField(
        allow_null=True, help_text="The IOPS of the run's slowest second"
    )
    latency_kind = serializers.CharField(
        help_text="Which latency `latency` is: lat (issue to completion), clat (completion "
        "only), or published (as the article states)"
    )
    latency = LatencySerializer(source="*", allow_null=True)
    clat = LatencySerializer(
        source="*", prefix="clat", allow_null=True, help_text="The completion part (fio's clat)"
    )
    jobs = serializers.IntegerField()
    repeat = serializers.IntegerField(help_text="Which pass of its run (loadgen --repeat), from 1")
    partial = serializers.BooleanField()
    read = DirectionSerializer(
        source="*", side="read", allow_null=True, help_text="A mixed test's reads apart"
    )
    write = DirectionSerializer(
        source="*", side="write", allow_null=True, help_text="A mixed test's writes apart"
    )
    fio_steadystate = FioSteadySerializer(
        allow_null=True,
        help_text="fio's own steady-state verdict (fio's steadystate option), imported with "
        "the result; fio's rule, not SNIA PTS's",
    )


class RunIdFilter(django_filters.NumberFilter):
    """A run's id: a whole number (1.5 is refused, not read as run 1)."""

    field_class = WholeNumberField


class RunChildFilter(FilterSet):
    drive = django_filters.CharFilter(
        field_name="run__drive__slug", max_length=255, label="A drive's slug"
    )
    test = django_filters.CharFilter(
        field_name="test__identifier", max_length=64, label="A test's identifier"
    )
    source = django_filters.ChoiceFilter(
        field_name="run__source", choices=Run.Source.choices, label="Where the run came from"
    )
    run = RunIdFilter(field_name="run_id", min_value=1, max_value=2**63 - 1, label="A run's id")


class ResultFilter(RunChildFilter):
    pattern = django_filters.ChoiceFilter(choices=DataPattern.choices, label="Data pattern")

    class Meta:
        model = Result
        fields: list[str] = []


def equalities(filters: FilterSet) -> dict[str, Any]:
    """A valid FilterSet's chosen filters as the value each one's field must equal (by
    field_name), for a statement that applies them itself: its filters are equalities on
    fields, without a method."""
    where = {}
    for flt, value in filters.chosen():
        if flt.lookup_expr != "exact" or flt.method is not None or hasattr(flt, "sql"):
            raise ImproperlyConfigured(f"{flt.field_name}: not an equality on a field")
        where[flt.field_name] = value
    return where


class ResultViewSet(viewsets.ReadOnlyModelViewSet):
    """Every published result; cursor pages, newest first."""

    serializer_class = ResultSerializer
    filterset_class = ResultFilter
    pagination_class = NewestRowsFirst

    def list(self, request: Request, *args, **kwargs) -> Response:
        # The filters' form validates and cleans the query; the rows come from one prepared
        # statement (results_listed) on the fields the filters name, not from their queryset.
        filters = ResultFilter(request.query_params, queryset=Result.objects.none())
        if not filters.is_valid():
            raise query_errors(filters.errors)
        where = equalities(filters)
        rows = self.paginator.paginate_rows(
            lambda **page: results_listed(where=where, **page), request
        )
        return self.paginator.get_paginated_response(self.get_serializer(rows, many=True).data)

    def retrieve(self, request: Request, *args, **kwargs) -> Response:
        pk = kwargs["pk"]
        rows = (
            results_listed(where={"id": int(pk)}, limit=1)
            if pk.isascii() and pk.isdigit() and int(pk) < 2**63
            else []
        )
        if not rows:
            raise Http404("No such result")
        return Response(self.get_serializer(rows[0]).data)

    def get_queryset(self) -> QuerySet[Result]:
        # The model, for the schema's filters: reads go through results_listed.
        return Result.objects.none()


class ConsistencySerializer(serializers.ModelSerializer):
    drive = serializers.CharField(source="run.drive.slug", read_only=True)
    test = serializers.CharField(source="test.identifier", read_only=True)

    class Meta:
        model = ConsistencySeries
        fields = [
            "id",
            "run",
            "drive",
            "test",
            "spare_area_percent",
            "pattern",
            "span_bytes",
            "interval_ns",
            "steady",
            "steady_state_start_s",
            "steady_state_end_s",
            "steady_excursion",
            "steady_slope",
            "steady_mean_iops",
            "steady_stddev_iops",
            "steady_min_iops",
            "partial",
        ]


class ConsistencyDetailSerializer(ConsistencySerializer):
    class Meta(ConsistencySerializer.Meta):
        fields = [*ConsistencySerializer.Meta.fields, "iops"]


class SeriesFilter(RunChildFilter):
    class Meta:
        model = ConsistencySeries
        fields: list[str] = []


class ConsistencyViewSet(viewsets.ReadOnlyModelViewSet):
    """Performance-consistency series; one series (detail) has its IOPS of every second."""

    filterset_class = SeriesFilter

    def get_serializer_class(self):
        return ConsistencyDetailSerializer if self.action == "retrieve" else ConsistencySerializer

    def get_queryset(self) -> QuerySet[ConsistencySeries]:
        qs = ConsistencySeries.objects.filter(run__in=shown_runs()).select_related(
            "test", "run__drive"
        )
        # A list has no points; one series reads them from `iops` (its JSON text unread).
        points = SERIES_POINTS if self.action != "retrieve" else ("iops_text",)
        return qs.defer(*points).order_by("-id")


class TrimSerializer(serializers.ModelSerializer):
    drive = serializers.CharField(source="run.drive.slug", read_only=True)
    test = serializers.CharField(source="test.identifier", read_only=True)

    class Meta:
        model = TrimValidation
        fields = [
            "id",
            "run",
            "drive",
            "test",
            "pattern",
            "span_bytes",
            "torture_seconds",
            "discard_method",
            "clean_bytes_per_second",
            "after_torture_bytes_per_second",
            "after_trim_bytes_per_second",
        ]


class TrimFilter(RunChildFilter):
    class Meta:
        model = TrimValidation
        fields: list[str] = []


class TrimViewSet(viewsets.ReadOnlyModelViewSet):
    serializer_class = TrimSerializer
    filterset_class = TrimFilter

    def get_queryset(self) -> QuerySet[TrimValidation]:
        return (
            TrimValidation.objects.filter(run__in=shown_runs())
            .select_related("test", "run__drive")
            .order_by("-id")
        )


class SaturationSerializer(serializers.ModelSerializer):
    drive = serializers.CharField(source="run.drive.slug", read_only=True)
    test = serializers.CharField(source="test.identifier", read_only=True)

    class Meta:
        model = SaturationSeries
        exclude = ["bytes_per_interval"]


class SaturationDetailSerializer(SaturationSerializer):
    class Meta:
        model = SaturationSeries
        fields = "__all__"


class SaturationFilter(RunChildFilter):
    class Meta:
        model = SaturationSeries
        fields: list[str] = []


class SaturationViewSet(viewsets.ReadOnlyModelViewSet):
    """Write-saturation series; one series (detail) has its bytes written every second."""

    filterset_class = SaturationFilter

    def get_serializer_class(self):
        return SaturationDetailSerializer if self.action == "retrieve" else SaturationSerializer

    def get_queryset(self) -> QuerySet[SaturationSeries]:
        qs = SaturationSeries.objects.filter(run__in=shown_runs()).select_related(
            "test", "run__drive"
        )
        if self.action != "retrieve":
            qs = qs.defer("bytes_per_interval")
        return qs.order_by("-id")


# -- the pages' reads: compare, leaderboard, value ---------------------------------------------


def _drive(drive: Drive) -> dict[str, Any]:
    return {
        "slug": drive.slug,
        "name": str(drive),
        "manufacturer": drive.manufacturer.name,
        "model": drive.model,
        "capacity_bytes": drive.capacity_bytes,
        "kind": drive.kind,
        "interface": drive.interface,
        "form_factor": drive.form_factor,
        "controller": str(drive.controller) if drive.controller else None,
        "nand": str(drive.nand) if drive.nand else None,
        "page": drive.get_absolute_url(),
    }


def _side(side: Side, value_test: str) -> dict[str, Any]:
    price = side.price
    per_gb = side.price_per_gb
    return {
        "drive": _drive(side.drive),
        "runs": [run.pk for run in side.runs],
        "chosen_run": side.chosen_run.pk if side.chosen_run else None,
        "firmware": side.firmware,
        "price_usd": float(price.amount) if price else None,
        "price_observed_on": price.observed_on if price else None,
        "price_per_gb_usd": float(per_gb) if per_gb is not None else None,
        "price_per_kiops_usd": side.price_per_kiops(value_test),
    }


def comparison_body(comparison: Comparison, *, points: bool) -> dict[str, Any]:
    sides = comparison.sides
    keys = [side.key for side in sides]
    body = {
        "sides": [{"key": side.key, "slug": side.drive.slug} for side in sides],
        **{side.key: _side(side, comparison.value_test) for side in sides},
        "value_test": comparison.value_test,
    }
    for section in compare_sections(comparison):
        if section.body:
            key, write = section.body
            body[key] = write(keys, points)
    return body


MAX_RUN_ID = 2**63 - 1
DRIVE_PATH = {"type": "string", "pattern": f"^{SLUG.pattern}$"}


def _compare_parameters(keys: str) -> list[OpenApiParameter]:
    """The parameters of the compare of these drives (A and B, then C and D)."""
    return [
        *(
            OpenApiParameter(
                f"run_{side}",
                whole_number_schema(1, MAX_RUN_ID),
                description=f"Show drive {side.upper()} from this run (default: its latest)",
            )
            for side in keys
        ),
        OpenApiParameter(
            "points",
            bool,
            description="Include every second of the consistency and write-saturation series "
            "(otherwise each series links to its points)",
        ),
        *(
            OpenApiParameter(
                side,
                DRIVE_PATH,
                OpenApiParameter.PATH,
                description="A drive's slug"
                + (" (the reference the others are compared with)" if side == "a" else "")
                + (": three or four drives must all differ" if side in "cd" else ""),
            )
            for side in keys
        ),
    ]


# How an operation of the compare names its count of drives: (summary word, id suffix).
_COUNTS = {2: ("two", ""), 3: ("three", "_three"), 4: ("four", "_four")}


class CompareSchema(AutoSchema):
    """The compare's OpenAPI operation at each of its paths: its summary, id and parameters
    follow from the drives the path names (two to four), as the view's answer does."""

    def path_keys(self) -> str:
        return "".join(key for key in SIDE_KEYS if f"{{{key}}}" in self.path)

    def get_summary(self) -> str:
        return f"Compare {_COUNTS[len(self.path_keys())][0]} drives"

    def get_operation_id(self) -> str:
        return f"v1_compare{_COUNTS[len(self.path_keys())][1]}_retrieve"

    def get_override_parameters(self) -> list[OpenApiParameter]:
        return _compare_parameters(self.path_keys())


# One view at the address of each count of drives (benchsite/urls.py).
class CompareView(APIView):
    """Two to four drives head to head, A the reference: the numbers of the compare page.
    Three or four drives must differ (400 when one is named twice); two may be the same."""

    schema = CompareSchema()

    @extend_schema(responses={200: ComparisonShape})
    def get(
        self, request: Request, a: str, b: str, c: str | None = None, d: str | None = None
    ) -> Response:
        params = request.query_params
        slugs = [slug for slug in (a, b, c, d) if slug is not None]
        runs = [
            whole_number(params, f"run_{side}", default=None, minimum=1, maximum=MAX_RUN_ID)
            for side in SIDE_KEYS[: len(slugs)]
        ]
        points = query_boolean(params, "points")
        try:
            comparison = compare(slugs, runs, points=points)
        except Drive.DoesNotExist as missing:
            raise Http404(str(missing)) from missing
        except RepeatedDrive as repeated:
            raise ValidationError({"drives": [str(repeated)]}) from repeated
        return Response(comparison_body(comparison, points=points))

    @staticmethod
    def csv_items(body: dict[str, Any]) -> list[dict[str, Any]]:
        """The comparison as the CSV writes it, long: one row per drive, test and data
        pattern (a consistency series per spare-area level), its figures as dotted columns,
        a throughput row with the drive's verdict against A and the best."""
        if "sides" not in body:  # not a comparison (the OPTIONS answer): as it is
            return [body]
        return list(compare_long_rows(body))


def compare_long_rows(body: dict[str, Any]) -> Iterator[dict[str, Any]]:
    """The rows of CompareView.csv_items, from the compare body."""
    sides = [(side["key"], side["slug"]) for side in body["sides"]]

    def each_side(head: dict[str, Any], entry: dict[str, Any]) -> Iterator[dict[str, Any]]:
        for key, slug in sides:
            if entry.get(key) is not None:
                yield {**head, "drive": slug, "side": key, **entry[key]}

    def test_rows(section: str, test: dict[str, Any], depth: int | None = None):
        for p in test["patterns"]:
            head = {"section": section, "test": test["test"], "pattern": p["pattern"]}
            if depth is not None:
                head["queue_depth"] = depth
            for row in each_side(head, p):
                row["verdict"] = p["verdicts"].get(row["side"])  # against A; A's own: none
                row["best"] = p["best"]
                yield row

    for test in body.get("tests", []):
        yield from test_rows("throughput", test)
    for sweep in body.get("sweeps", []):
        for point in sweep["points"]:
            yield from test_rows("sweeps", point, point["queue_depth"])
    for level in body.get("consistency", []):
        head = {"section": "consistency", "spare_area_percent": level["spare_area_percent"]}
        yield from each_side(head, level)
    for trim in body.get("trim", []):
        head = {"section": "trim", "test": trim["test"], "pattern": trim["pattern"]}
        yield from each_side(head, trim)
    for section in ("saturation", "wsat"):
        for entry in body.get(section, []):
            yield from each_side({"section": section, "pattern": entry["pattern"]}, entry)


def filter_parameters(filterset: type[FilterSet]) -> list[OpenApiParameter]:
    """A FilterSet's query parameters for the schema, each described by its filter
    (core.filters.query_schema, query_description; read without a database), as the lists'
    filters are (benchsite.api.FilterSetParameters)."""
    return [
        OpenApiParameter(name, query_schema(flt), description=query_description(flt))
        for name, flt in declared_filters(filterset).items()
    ]


HIGHLIGHT = OpenApiParameter(
    "highlight", str, many=True, description="drive slugs to highlight (and rank) too"
)
MAX_LEADERBOARD_PAGES = 10_000
TEST_PATH = OpenApiParameter(
    "identifier", DRIVE_PATH, OpenApiParameter.PATH, description="A test's identifier"
)
LEADERBOARD_PARAMETERS = [
    *filter_parameters(LeaderboardFilter),
    OpenApiParameter(
        "metric",
        {"type": "string", "enum": [m for m, _ in Metric.CHOICES]},
        description="The figure ranked: "
        + ", ".join(f"{value} ({label})" for value, label in Metric.CHOICES),
    ),
    OpenApiParameter("page", whole_number_schema(1, MAX_LEADERBOARD_PAGES), description="1-based"),
    OpenApiParameter("page_size", whole_number_schema(1, MAX_LEADERBOARD_PAGE)),
    HIGHLIGHT,
    TEST_PATH,
]


class LeaderboardView(APIView):
    """One test's ranking, as on its leaderboard page; for a queue-depth sweep (its name, or
    any of its tests) the ranking at the depth ?qd= chooses."""

    @extend_schema(
        summary="A test's leaderboard",
        parameters=[*LEADERBOARD_PARAMETERS],
        responses={200: LeaderboardShape},
    )
    def get(self, request: Request, identifier: str) -> Response:
        filters = LeaderboardFilter(request.query_params, queryset=ENTRIES)
        valid = filters.is_valid()
        errors = filters.errors if not valid else {}
        try:
            ranked = sweeps.member(
                identifier,
                QueueDepthFilter.depth(filters.form.cleaned_data.get("qd")) if valid else None,
            )
        except sweeps.SweepDepthError as error:
            # A depth the schema lists, of a test not measured at it: no such ranking, as
            # an unknown test is none (a 400 would refuse a value the schema allows).
            raise NotFound([{"pointer": "/query/qd", "message": str(error)}]) from error
        test = throughput_test(ranked)
        if test is None:
            raise Http404("no such test")
        if errors:
            raise query_errors(errors)
        metric = request.query_params.get("metric", Metric.THROUGHPUT)
        metrics = [m for m, _ in Metric.CHOICES]
        if metric not in metrics:
            raise ValidationError(
                [{"pointer": "/query/metric", "message": f"must be one of {metrics}"}]
            )
        params = request.query_params
        page = whole_number(params, "page", default=1, minimum=1, maximum=MAX_LEADERBOARD_PAGES)
        size = whole_number(
            params, "page_size", default=50, minimum=1, maximum=MAX_LEADERBOARD_PAGE
        )
        highlight = highlight_slugs(request.query_params.getlist("highlight"))
        board = leaderboard(
            test=test,
            filters=filters,
            metric=metric,
            page=page,
            page_size=size,
            highlight=highlight,
        )
        return Response(
            {
                "test": test.identifier,
                "queue_depth": test.queue_depth,
                "load_percent": test.load_percent,
                "load": test.load_label,
                "sweep": test.family or None,
                "metric": metric,
                "page": board.page,
                "page_size": board.page_size,
                "has_next": board.has_next,
                "rows": [r.as_item() for r in board.rows],
                "elsewhere": [r.as_item() for r in board.elsewhere],
                **(
                    {
                        "too_few_ios": too_few_ios(test=test, filters=filters),
                        "needs_ios": RANKED_IOS,
                    }
                    if metric == Metric.LATENCY_P999
                    else {"too_few_ios": None, "needs_ios": None}
                ),
            }
        )

    @staticmethod
    def csv_items(body: dict[str, Any]) -> list[dict[str, Any]]:
        """The ranking as the CSV writes it: its rows, then its highlighted drives ranked
        elsewhere, each with the load the test is measured at, which the body states once."""
        if "rows" not in body:  # not a ranking (the OPTIONS answer): as it is
            return [body]
        load = {key: body[key] for key in ("queue_depth", "load_percent", "load")}
        return [{**row, **load} for row in body["rows"] + body["elsewhere"]]


def _kind_row(row: KindRow, by: RankedBy) -> dict[str, Any]:
    return {
        "rank": row.rank,
        "drive": row.drive.slug,
        "drive_name": str(row.drive),
        "run": row.row.run_id,
        "figure": row.row.figure,
        "figures": {column.key: column.value(row.row) for column in by.columns},
        "note": by.note(row.row),
        "highlighted": row.highlighted,
    }


KIND_RANKING_PARAMETERS = [
    *filter_parameters(DriveFilter),
    OpenApiParameter(
        "spare",
        whole_number_schema(0, 90),
        description="A consistency test's spare-area level, percent (default: the lowest)",
    ),
    OpenApiParameter(
        "pattern",
        {"type": "string", "enum": list(DataPattern.values)},
        description="The data pattern of a TRIM, write-saturation or WSAT test (default: the "
        "first recorded)",
    ),
    OpenApiParameter(
        "method",
        {"type": "string", "enum": list(KIND_METHODS)},
        description="Full-length runs and published figures (the default), or quick runs",
    ),
    OpenApiParameter("page", whole_number_schema(1, MAX_LEADERBOARD_PAGES), description="1-based"),
    OpenApiParameter("page_size", whole_number_schema(1, MAX_LEADERBOARD_PAGE)),
    HIGHLIGHT,
    TEST_PATH,
]


NO_CHOICE = "a {test} test is ranked without a {name}"


class RankingView(APIView):
    """The ranking of a consistency, TRIM, write-saturation or WSAT test, as on its page:
    each drive once, by its kind's figure of its latest whole row at one spare-area level or
    data pattern."""

    @extend_schema(
        summary="A test's ranking (a kind other than throughput)",
        parameters=KIND_RANKING_PARAMETERS,
        responses={200: KindRankingShape},
    )
    def get(self, request: Request, identifier: str) -> Response:
        test = ranked_test(identifier, RANKED_KINDS)
        if test is None:
            raise Http404("no such test (a throughput test's ranking is its leaderboard)")
        by = KIND_OF[test.kind].ranked_by(test)
        params = request.query_params
        filters = DriveFilter(params, queryset=Drive.objects.all())
        errors = dict(filters.errors) if not filters.is_valid() else {}
        given = {
            "spare": whole_number(params, "spare", default=None, minimum=0, maximum=90),
            "pattern": params.get("pattern"),
        }
        if given["pattern"] is not None and given["pattern"] not in DataPattern.values:
            errors["pattern"] = [f"must be one of {list(DataPattern.values)}"]
        method = params.get("method", KIND_METHODS[0])
        if method not in KIND_METHODS:
            errors["method"] = [f"must be one of {list(KIND_METHODS)}"]
        if errors:
            raise query_errors(errors)
        # A value the schema allows of a ranking the test does not have (a pattern of a
        # consistency test, a spare-area level never recorded): no such ranking, as an
        # unknown test is none.
        for name, value in given.items():
            if value is not None and name != by.choice_param:
                message = NO_CHOICE.format(test=test.get_kind_display(), name=name)
                raise NotFound([{"pointer": f"/query/{name}", "message": message}])
        chosen = given[by.choice_param]
        page = whole_number(params, "page", default=1, minimum=1, maximum=MAX_LEADERBOARD_PAGES)
        size = whole_number(
            params, "page_size", default=50, minimum=1, maximum=MAX_LEADERBOARD_PAGE
        )
        ranking = kind_ranking(
            test=test,
            by=by,
            choice=chosen,
            method=method,
            drives=chosen_drives(filters),
            page=page,
            page_size=size,
            highlight=highlight_slugs(params.getlist("highlight")),
        )
        if chosen is not None and ranking.choice != chosen:
            recorded = [str(c) for c in ranking.choices]
            raise NotFound(
                [{"pointer": f"/query/{by.choice_param}", "message": f"recorded: {recorded}"}]
            )
        return Response(
            {
                "test": test.identifier,
                "kind": test.kind,
                "unit": by.unit,
                "choice_parameter": by.choice_param,
                "choice": None if ranking.choice is None else str(ranking.choice),
                "choices": [str(c) for c in ranking.choices],
                "method": ranking.method,
                "page": ranking.page,
                "page_size": ranking.page_size,
                "has_next": ranking.has_next,
                "considered": ranking.considered,
                "rows": [_kind_row(r, by) for r in ranking.rows],
                "elsewhere": [_kind_row(r, by) for r in ranking.elsewhere],
            }
        )


def _point(point: ValuePoint) -> dict[str, Any]:
    return {
        "drive": point.drive.slug,
        "drive_name": str(point.drive),
        "iops": point.iops,
        "price_usd": point.price,
        "price_observed_on": point.observed_on,
        "price_per_gb_usd": point.per_gb,
        "price_per_kiops_usd": point.per_kiops,
        "frontier": point.frontier,
        "quick": point.quick,
        "highlighted": point.highlighted,
    }


class ValueView(APIView):
    """Price against performance in a 4KB test: the value page's numbers."""

    @extend_schema(
        summary="Value: price per GB, per 1,000 IOPS, and the value frontier",
        parameters=[
            *filter_parameters(ValueFilter),
            *(
                OpenApiParameter(
                    name,
                    field_schema(field),
                    description=f"{field.label}{choices_description(field)}",
                )
                for name, field in ValueForm(None, tests=catalog_value_tests()).fields.items()
            ),
            HIGHLIGHT,
        ],
        responses={200: ValueShape},
    )
    def get(self, request: Request) -> Response:
        choices = value_choices()
        filters, options = value_query(request.query_params, choices.tests)
        errors = {**filters.errors, **options.errors}
        if errors:
            raise query_errors(errors)
        view = value_frontier(
            test=options.chosen_test(),
            filters=filters,
            as_of=options.cleaned_data["as_of"],
            highlight=highlight_slugs(request.query_params.getlist("highlight")),
            worst_case=not filters.form.cleaned_data.get("pattern"),
            priced=choices.priced,
        )
        return Response(
            {
                "test": view.test.identifier,
                "as_of": view.as_of,
                "considered": view.considered,
                "rows": [_point(p) for p in view.points],
                "frontier": [p.drive.slug for p in view.frontier],
                "cheapest_per_gb": [p.drive.slug for p in view.cheapest_per_gb],
                "cheapest_per_kiops": [p.drive.slug for p in view.cheapest_per_kiops],
            }
        )
