from django.contrib import admin, messages

from results.models import (
    Citation,
    ConsistencySeries,
    Result,
    Run,
    Suite,
    SuiteTest,
    Test,
    TestBench,
    TrimValidation,
)
from results.services import run_approve, run_withdraw


class SuiteTestInline(admin.TabularInline):
    model = SuiteTest
    extra = 0
    autocomplete_fields = ["test"]


@admin.register(Suite)
class SuiteAdmin(admin.ModelAdmin):
    list_display = ["name", "version", "title"]
    search_fields = ["name", "title"]
    inlines = [SuiteTestInline]


@admin.register(Test)
class TestAdmin(admin.ModelAdmin):
    list_display = [
        "identifier",
        "name",
        "kind",
        "operation",
        "access",
        "block_size",
        "queue_depth",
        "span",
        "duration_s",
        "higher_is_better",
    ]
    list_filter = ["kind", "operation", "access", "suites"]
    search_fields = ["identifier", "name"]


@admin.register(TestBench)
class TestBenchAdmin(admin.ModelAdmin):
    list_display = ["__str__", "cpu", "chipset", "os", "storage_driver"]
    search_fields = ["name", "cpu", "motherboard", "chipset", "os"]


@admin.register(Citation)
class CitationAdmin(admin.ModelAdmin):
    list_display = ["title", "publisher", "author", "published_on"]
    list_filter = ["publisher"]
    search_fields = ["title", "publisher", "author"]
    date_hierarchy = "published_on"


class ResultInline(admin.TabularInline):
    model = Result
    extra = 0
    fields = ["test", "pattern", "bytes_per_second", "iops", "latency_mean_ns", "latency_max_ns"]
    readonly_fields = fields
    can_delete = False
    show_change_link = True


@admin.action(description="Withdraw the selected runs")
def withdraw_runs(modeladmin, request, queryset):
    done = 0
    for run in queryset.exclude(status=Run.Status.WITHDRAWN):
        run_withdraw(run=run, reason=f"withdrawn in the admin by {request.user}", by=request.user)
        done += 1
    modeladmin.message_user(request, f"{done} run(s) withdrawn", messages.SUCCESS)


@admin.action(description="Approve the selected runs held for review")
def approve_runs(modeladmin, request, queryset):
    done = 0
    for run in queryset.filter(status=Run.Status.HELD):
        run_approve(run=run)
        done += 1
    modeladmin.message_user(request, f"{done} run(s) approved", messages.SUCCESS)


@admin.register(Run)
class RunAdmin(admin.ModelAdmin):
    list_display = [
        "pk",
        "drive",
        "source",
        "tool_name",
        "tool_version",
        "status",
        "reviewed",
        "started_at",
        "submitter",
        "ingested_at",
    ]
    list_filter = [
        "status",
        "reviewed",
        "source",
        "drive_state",
        "tool_name",
        "suite",
        "citation__publisher",
    ]
    search_fields = ["drive__model", "drive__manufacturer__name", "content_hash", "citation__title"]
    list_select_related = ["drive__manufacturer", "submitter"]
    autocomplete_fields = ["drive", "firmware", "bench", "citation", "submitter"]
    # A run's status changes through its actions (results.services), which refresh the
    # rankings it is in.
    readonly_fields = [
        "status",
        "reviewed",
        "held_reason",
        "document",
        "content_hash",
        "ingested_at",
        "withdrawn_at",
        "withdrawn_by",
    ]
    inlines = [ResultInline]
    actions = [approve_runs, withdraw_runs]
    show_full_result_count = False


@admin.register(Result)
class ResultAdmin(admin.ModelAdmin):
    list_display = ["run", "test", "pattern", "bytes_per_second", "iops", "latency_mean_ns"]
    list_filter = ["test", "pattern", "run__source"]
    search_fields = ["run__drive__model", "run__drive__manufacturer__name"]
    list_select_related = ["run__drive__manufacturer", "test"]
    raw_id_fields = ["run"]
    show_full_result_count = False


@admin.register(ConsistencySeries)
class ConsistencySeriesAdmin(admin.ModelAdmin):
    list_display = ["run", "test", "spare_area_percent", "steady_mean_iops", "steady_min_iops"]
    list_filter = ["spare_area_percent", "test"]
    search_fields = ["run__drive__model", "run__drive__manufacturer__name"]
    list_select_related = ["run__drive__manufacturer", "test"]
    raw_id_fields = ["run"]
    exclude = ["iops"]
    show_full_result_count = False


@admin.register(TrimValidation)
class TrimValidationAdmin(admin.ModelAdmin):
    list_display = [
        "run",
        "pattern",
        "clean_bytes_per_second",
        "after_torture_bytes_per_second",
        "after_trim_bytes_per_second",
    ]
    list_filter = ["pattern"]
    search_fields = ["run__drive__model", "run__drive__manufacturer__name"]
    list_select_related = ["run__drive__manufacturer"]
    raw_id_fields = ["run"]
