"""The test catalog and everything measured or published against it.

Quantities are stored in base units (bytes, nanoseconds, I/O counts, seconds) and
converted for display only.
"""

import re

from django.conf import settings
from django.contrib.postgres.fields import ArrayField
from django.db import models
from django.db.models import F, Q
from django.urls import reverse

from core.links import safe_http_url
from drives.models import LabelledModel, http_url_validator
from results import units
from results.documents import BENCH_FIELDS, ENTRY_IDENTITY, MIXED_SIDES


class Suite(LabelledModel):
    """A versioned set of tests. A changed method is a new version, never an edit."""

    name = models.SlugField(max_length=64)
    version = models.PositiveSmallIntegerField()
    title = models.CharField(max_length=300)
    tests = models.ManyToManyField("Test", through="SuiteTest", related_name="suites")

    class Meta:
        ordering = ["name", "version"]
        constraints = [
            models.UniqueConstraint(fields=["name", "version"], name="suite_version_unique"),
        ]

    def __str__(self) -> str:
        return f"{self.name} v{self.version}"


class Test(LabelledModel):
    class Kind(models.TextChoices):
        THROUGHPUT = "throughput", "throughput"
        CONSISTENCY = "consistency", "performance consistency"
        TRIM = "trim", "TRIM validation"
        SATURATION = "saturation", "write saturation"

    class Operation(models.TextChoices):
        READ = "read", "read"
        WRITE = "write", "write"
        MIXED = "mixed", "read and write"

    class Access(models.TextChoices):
        RANDOM = "random", "random"
        SEQUENTIAL = "sequential", "sequential"

    class Span(models.TextChoices):
        WHOLE = "whole", "whole drive"
        FIXED = "fixed", "fixed LBA span"

    identifier = models.SlugField(max_length=64, unique=True)
    name = models.CharField(max_length=200)
    family = models.SlugField(
        max_length=64,
        blank=True,
        default="",
        db_default="",
        db_index=False,
        help_text="The queue-depth sweep this test is one depth of (its tests differ only in "
        "queue_depth; results.sweeps); blank: none",
    )
    curve = models.SlugField(
        max_length=64,
        blank=True,
        default="",
        db_default="",
        db_index=False,
        help_text="The response-time curve this test is a point of: the identifier of the "
        "curve's unpaced test, its maximum (results.curves); blank: none",
    )
    load_percent = models.PositiveSmallIntegerField(
        null=True,
        blank=True,
        help_text="A curve's point: its rate as a percentage of the IOPS the curve's unpaced "
        "test reached in the same pass (paced, open loop); blank: unpaced",
    )
    kind = models.CharField(max_length=12, choices=Kind.choices)
    operation = models.CharField(max_length=5, choices=Operation.choices)
    rwmixread = models.PositiveSmallIntegerField(
        null=True,
        blank=True,
        help_text="A mixed test: the percentage of its I/Os that read (the rest write)",
    )
    access = models.CharField(max_length=10, choices=Access.choices)
    block_size = models.PositiveIntegerField()
    queue_depth = models.PositiveSmallIntegerField()
    span = models.CharField(max_length=5, choices=Span.choices)
    span_bytes = models.BigIntegerField(null=True, blank=True)
    duration_s = models.PositiveIntegerField()
    metrics = ArrayField(models.CharField(max_length=64))
    unit = models.CharField(max_length=20)
    higher_is_better = models.BooleanField(default=True)
    produced_by = models.CharField(
        max_length=50,
        default="loadgen",
        help_text="The program whose method this test is: loadgen for the tests it runs, or "
        "the tool a review used (e.g. AS-SSD), whose figures only compare with its own",
    )
    run_to_run_cv = models.FloatField(
        null=True,
        blank=True,
        help_text="loadgen's measured run-to-run variation of this test (coefficient of "
        "variation of bytes/s between full-length runs; catalog.json's run_to_run_variation); "
        "blank: not measured",
    )

    class Meta:
        ordering = ["identifier"]
        constraints = [
            models.CheckConstraint(
                condition=Q(span="whole", span_bytes__isnull=True)
                | Q(span="fixed", span_bytes__isnull=False, span_bytes__gt=0),
                name="test_span_rule",
            ),
            models.CheckConstraint(condition=Q(block_size__gte=512), name="test_block_size"),
            models.CheckConstraint(condition=Q(queue_depth__gte=1), name="test_queue_depth"),
            models.CheckConstraint(
                condition=Q(operation="mixed", rwmixread__isnull=False, rwmixread__lte=100)
                | (~Q(operation="mixed") & Q(rwmixread__isnull=True)),
                name="test_mixed_has_its_share",
            ),
        ]

    @property
    def load_label(self) -> str:
        """The offered load its figures are measured at, as a ranking states it: its queue
        depth, and a response-time curve's paced point's rate as a share of the maximum its
        curve's unpaced test measured just before (load_percent); "unpaced" otherwise."""
        pace = f"paced at {self.load_percent}% of its measured maximum"
        return f"queue depth {self.queue_depth}, {pace if self.load_percent else 'unpaced'}"

    def __str__(self) -> str:
        return self.name

    @property
    def queue_depth_note(self) -> str:
        """The queue depth as pages note it beside the test's name ("QD3"), or "" where the
        name states it already ("4KB random write QD32, 8GB LBA span")."""
        if re.search(rf"\bQD\s*{self.queue_depth}\b", self.name, re.IGNORECASE):
            return ""
        return f"QD{self.queue_depth}"


class SuiteTest(LabelledModel):
    suite = models.ForeignKey(Suite, on_delete=models.CASCADE)
    test = models.ForeignKey(Test, on_delete=models.PROTECT)
    position = models.PositiveSmallIntegerField()

    class Meta:
        ordering = ["suite", "position"]
        constraints = [
            models.UniqueConstraint(fields=["suite", "test"], name="suite_test_unique"),
            models.UniqueConstraint(fields=["suite", "position"], name="suite_position_unique"),
        ]

    def __str__(self) -> str:
        return f"{self.suite} #{self.position}: {self.test_id}"


class TestBench(LabelledModel):
    """The machine a run was made on: as its reviewer describes it, and for a measured run
    what the tool read of the host and of the drive's link where the reviewer is silent."""

    name = models.CharField(max_length=200, blank=True)
    cpu = models.CharField(max_length=200, blank=True)
    motherboard = models.CharField(max_length=200, blank=True)
    chipset = models.CharField(max_length=200, blank=True)
    memory = models.CharField(max_length=200, blank=True)
    os = models.CharField("OS", max_length=200, blank=True)
    storage_driver = models.CharField(max_length=200, blank=True)
    interface = models.CharField(max_length=200, blank=True)
    kernel = models.CharField(
        max_length=200, blank=True, db_default="", help_text="As the tool read it (host.kernel)"
    )
    link = models.CharField(
        "drive link",
        max_length=200,
        blank=True,
        db_default="",
        help_text="The drive's interface and negotiated link as the OS reported them to the "
        'tool (target.interface and target.link): "nvme, PCIe 3.0 x4 (8.0 GT/s)"',
    )

    # Described by the reviewer (the document's `bench`), the rest as the tool read them
    # (documents.bench_fields).
    FIELDS = BENCH_FIELDS

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=[
                    "name",
                    "cpu",
                    "motherboard",
                    "chipset",
                    "memory",
                    "os",
                    "storage_driver",
                    "interface",
                    "kernel",
                    "link",
                ],
                name="test_bench_unique",
            ),
        ]

    def __str__(self) -> str:
        return self.name or " / ".join(v for v in (self.cpu, self.chipset, self.os) if v) or "—"

    def describe(self) -> list[tuple[str, str]]:
        """(label, value) of every field that is filled in."""
        return [
            (self._meta.get_field(f).verbose_name, getattr(self, f))
            for f in self.FIELDS
            if getattr(self, f)
        ]


class Citation(LabelledModel):
    """A published source of figures (a review article)."""

    publisher = models.CharField(max_length=200)
    title = models.CharField(max_length=500)
    author = models.CharField(max_length=200, blank=True)
    published_on = models.DateField()
    url = models.URLField(blank=True, max_length=2000, validators=[http_url_validator])
    rate_unit = models.CharField(
        max_length=20, blank=True, help_text="The unit rates are printed in, e.g. MB/s"
    )
    rate_unit_bytes = models.PositiveIntegerField(
        null=True,
        blank=True,
        choices=[(10**6, "10^6 bytes"), (2**20, "2^20 bytes")],
        help_text="Bytes in the unit's MB, when the source says; empty: it does not, and "
        "the rates were read as 10^6 bytes",
    )

    class Meta:
        ordering = ["-published_on"]
        constraints = [
            models.UniqueConstraint(
                fields=["publisher", "title", "published_on"], name="citation_unique"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.publisher}, “{self.title}” ({self.published_on:%Y-%m-%d})"

    @property
    def safe_url(self) -> str:
        """url when it is an http(s) URL, else "": the only form a page may link."""
        return safe_http_url(self.url)

    @property
    def rate_basis_unstated(self) -> bool:
        """The source prints rates in a unit whose size it does not state (2^20 or 10^6)."""
        return bool(self.rate_unit) and self.rate_unit_bytes is None


class RunQuerySet(models.QuerySet):
    def published(self):
        return self.filter(status=Run.Status.PUBLISHED)

    def real(self):
        """Everything but synthetic runs; the web benchmark alone counts them as real."""
        if settings.BENCH_SHOW_SYNTHETIC:
            return self.all()
        return self.exclude(source=Run.Source.SYNTHETIC)


class Run(LabelledModel):
    """One result document: the tests of one drive on one bench, with their provenance."""

    class Source(models.TextChoices):
        MEASURED = "measured", "measured"
        PUBLISHED = "published", "published figures"
        SYNTHETIC = "synthetic", "synthetic (benchmark data)"

    class DriveState(models.TextChoices):
        FRESH = "fresh", "fresh (secure-erased)"
        PRECONDITIONED = "preconditioned", "preconditioned"
        USED = "used", "used"
        UNKNOWN = "unknown", "unknown"

    class Status(models.TextChoices):
        PUBLISHED = "published", "published"
        HELD = "held", "held for review"
        WITHDRAWN = "withdrawn", "withdrawn"

    drive = models.ForeignKey("drives.Drive", on_delete=models.PROTECT, related_name="runs")
    firmware = models.ForeignKey(
        "drives.FirmwareVersion",
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="runs",
    )
    bench = models.ForeignKey(
        TestBench, on_delete=models.PROTECT, null=True, blank=True, related_name="runs"
    )
    suite = models.ForeignKey(
        Suite, on_delete=models.PROTECT, null=True, blank=True, related_name="runs"
    )
    tool_name = models.CharField(max_length=100)
    tool_version = models.CharField(max_length=100, blank=True)
    engine = models.CharField(max_length=50, blank=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    submitter = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="runs",
        help_text="Empty for runs imported from the command line",
    )
    source = models.CharField(max_length=10, choices=Source.choices)
    citation = models.ForeignKey(
        Citation, on_delete=models.PROTECT, null=True, blank=True, related_name="runs"
    )
    citation_locator = models.CharField(
        max_length=500, blank=True, help_text="Where in the source: a table or chart title"
    )
    drive_state = models.CharField(
        max_length=14, choices=DriveState.choices, default=DriveState.UNKNOWN
    )
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PUBLISHED)
    held_reason = models.TextField(
        blank=True,
        db_default="",
        help_text="Why the run was held for review at its upload (results.plausibility), one "
        "reason a line; kept after staff approve or withdraw it",
    )
    reviewed = models.BooleanField(
        default=False,
        db_default=False,
        help_text="Part of its drive's reviewed reference, which holds judge uploads against "
        "(results.plausibility): imported by staff, uploaded by a trusted reviewer, or "
        "approved by staff",
    )
    withdrawn_at = models.DateTimeField(null=True, blank=True)
    withdrawn_reason = models.TextField(blank=True)
    withdrawn_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="withdrawn_runs",
        help_text="Who withdrew the run: its submitter or a staff member; empty when a command did",
    )
    schema_version = models.PositiveSmallIntegerField(
        default=1, db_default=1, help_text="Version of the result document's schema"
    )
    complete = models.BooleanField(
        default=True,
        db_default=True,
        help_text="False: the run was interrupted; its last test's results are partial",
    )
    unit_hash = models.CharField(
        max_length=64,
        blank=True,
        default="",
        db_default="",
        db_index=True,
        help_text="The salted hash of the drive's serial number (target.serial_hash): runs of "
        "one physical unit share it; empty when the document does not say",
    )
    document = models.TextField(
        help_text="The result document as it was submitted, but for a version 1 or 2 "
        "document's serial number, held as its salted hash (target.serial_hash)"
    )
    content_hash = models.CharField(
        max_length=64, unique=True, help_text="SHA-256 of the document's canonical JSON"
    )
    ingested_at = models.DateTimeField(auto_now_add=True)

    objects = RunQuerySet.as_manager()

    class Meta:
        ordering = ["-ingested_at"]
        constraints = [
            models.CheckConstraint(
                condition=Q(source="published", citation__isnull=False)
                | (~Q(source="published") & Q(citation__isnull=True)),
                name="run_citation_iff_published",
            ),
            models.CheckConstraint(
                condition=Q(started_at__isnull=True)
                | Q(finished_at__isnull=True)
                | Q(finished_at__gte=F("started_at")),
                name="run_times_ordered",
            ),
            models.CheckConstraint(
                condition=Q(status="withdrawn", withdrawn_at__isnull=False)
                | Q(status__in=["published", "held"], withdrawn_at__isnull=True),
                name="run_withdrawn_has_time",
            ),
            models.CheckConstraint(
                condition=~Q(status="held") | ~Q(held_reason=""), name="run_held_says_why"
            ),
        ]
        indexes = [models.Index(fields=["drive", "status"], name="run_drive_status_idx")]

    def __str__(self) -> str:
        return f"run {self.pk} of {self.drive}"

    def get_absolute_url(self) -> str:
        """The run's own page (results.views.runs)."""
        return reverse("bench:run", args=[self.pk])


class CounterSeriesField(ArrayField):
    """bigint[] of counters. Values that are already plain ints skip Django's per-element
    preparation, which would cost thousands of calls for every 2,000-point series saved."""

    def __init__(self, base_field=None, **kwargs):
        super().__init__(base_field or models.BigIntegerField(), **kwargs)

    def get_db_prep_value(self, value, connection, prepared=False):
        if isinstance(value, list) and all(type(v) is int for v in value):
            return value
        return super().get_db_prep_value(value, connection, prepared)


class DataPattern(models.TextChoices):
    COMPRESSIBLE = "compressible", "compressible"
    INCOMPRESSIBLE = "incompressible", "incompressible"
    UNSPECIFIED = "unspecified", "unspecified"


class ResultQuerySet(models.QuerySet):
    def rankable(self):
        """Results a ranking may hold: whole tests of published, real runs."""
        return self.filter(
            partial=False, run__status=Run.Status.PUBLISHED, run__source__in=RANKED_SOURCES
        )


RANKED_SOURCES = (Run.Source.MEASURED, Run.Source.PUBLISHED)


class LatencyKind(models.TextChoices):
    """Which latency a figure is."""

    TOTAL = "lat", "issue to completion"
    COMPLETION = "clat", "completion only (fio's clat)"


AS_PUBLISHED = "as the article states it"
_LATENCY_KINDS = dict(LatencyKind.choices)  # read for each row of a ranking


def latency_description(kind: str, source: str) -> str:
    """Which latency a figure is, as the pages say it: published figures are the article's
    (its tool's response time, as it states it); a measured one is issue to completion or its
    completion part. "" when there is no latency."""
    if not kind:
        return ""
    if source == "published":
        return AS_PUBLISHED
    return _LATENCY_KINDS[kind]


class Result(LabelledModel):
    """One throughput test of a run, in one data pattern."""

    run = models.ForeignKey(Run, on_delete=models.CASCADE, related_name="results")
    # Indexed by result_test_newest_idx (test, id), which also serves the key's lookups.
    test = models.ForeignKey(Test, on_delete=models.PROTECT, related_name="results", db_index=False)
    pattern = models.CharField(max_length=14, choices=DataPattern.choices)
    block_size = models.PositiveIntegerField(null=True, blank=True)
    queue_depth = models.PositiveSmallIntegerField(null=True, blank=True)
    span_bytes = models.BigIntegerField(null=True, blank=True)
    duration_ns = models.BigIntegerField(null=True, blank=True)
    io_count = models.BigIntegerField(null=True, blank=True)
    bytes = models.BigIntegerField(null=True, blank=True)
    bytes_per_second = models.FloatField(null=True, blank=True)
    iops = models.FloatField(null=True, blank=True)
    iops_stddev = models.FloatField(
        null=True,
        blank=True,
        help_text="The spread within the run: standard deviation of the IOPS of each second",
    )
    iops_min = models.FloatField(
        null=True, blank=True, help_text="The IOPS of the run's slowest second"
    )
    latency_mean_ns = models.FloatField(null=True, blank=True)
    latency_stddev_ns = models.FloatField(null=True, blank=True)
    latency_min_ns = models.BigIntegerField(null=True, blank=True)
    latency_max_ns = models.BigIntegerField(null=True, blank=True)
    latency_percentiles_ns = models.JSONField(
        null=True, blank=True, help_text='Percentile to nanoseconds, e.g. {"99.9": 812000}'
    )
    latency_kind = models.CharField(
        max_length=4,
        choices=LatencyKind.choices,
        blank=True,
        db_default="",
        help_text="Which latency the latency_* fields are; empty without latency",
    )
    clat_mean_ns = models.FloatField(null=True, blank=True)
    clat_stddev_ns = models.FloatField(null=True, blank=True)
    clat_min_ns = models.BigIntegerField(null=True, blank=True)
    clat_max_ns = models.BigIntegerField(null=True, blank=True)
    clat_percentiles_ns = models.JSONField(
        null=True, blank=True, help_text="The completion part of the latency (fio's clat)"
    )
    jobs = models.PositiveSmallIntegerField(default=1, db_default=1)
    repeat = models.PositiveSmallIntegerField(
        default=1, db_default=1, help_text="Which pass over the tests (loadgen --repeat), from 1"
    )
    # A mixed test's reads and writes apart (the document's `read` and `write`), each with
    # the figures of DIRECTION_FIGURES; the result's own are their sum.
    read_iops = models.FloatField(null=True, blank=True)
    read_latency_mean_ns = models.FloatField(null=True, blank=True)
    read_latency_max_ns = models.BigIntegerField(null=True, blank=True)
    read_latency_percentiles_ns = models.JSONField(null=True, blank=True)
    write_iops = models.FloatField(null=True, blank=True)
    write_latency_mean_ns = models.FloatField(null=True, blank=True)
    write_latency_max_ns = models.BigIntegerField(null=True, blank=True)
    write_latency_percentiles_ns = models.JSONField(null=True, blank=True)
    # Its latency histograms as its document gives them (schema version 5, results.histograms'
    # encoding): its latency's and, in a mixed test, its reads' and writes' apart; the
    # percentiles of its group's runs and repeats are read from them merged. No page or list
    # reads them whole (HISTOGRAM_FIELDS).
    latency_histogram = models.JSONField(
        null=True, blank=True, help_text="Its latency's histogram (schema version 5)"
    )
    read_latency_histogram = models.JSONField(null=True, blank=True)
    write_latency_histogram = models.JSONField(null=True, blank=True)
    partial = models.BooleanField(
        default=False,
        db_default=False,
        help_text="Interrupted: the figures until the interrupt; never ranked",
    )
    # fio's own steady-state verdict of the job imported (criterion, window_s, attained,
    # value): fio's rule, shown as fio's, never as SNIA PTS's steady state.
    fio_steadystate = models.JSONField(
        null=True, blank=True, help_text="fio's steadystate result of the job: fio's rule"
    )

    objects = ResultQuerySet.as_manager()

    @property
    def fio_steady_label(self) -> str:
        """fio's own steady-state verdict in words, as fio's (never SNIA PTS's); "" without."""
        ss = self.fio_steadystate
        if not ss:
            return ""
        verdict = "attained" if ss.get("attained") else "not attained"
        window = f"{units.seconds(ss['window_s'])} window"
        return f"fio steady state (criterion {ss['criterion']}, {window}): {verdict}"

    class Meta:
        constraints = [
            # The document's duplicate check uses the same fields (documents.entry_key).
            models.UniqueConstraint(
                fields=["run", *ENTRY_IDENTITY["results"]], name="result_unique"
            ),
            models.CheckConstraint(
                condition=Q(bytes_per_second__isnull=True) | Q(bytes_per_second__gt=0),
                name="result_bps_positive",
            ),
            models.CheckConstraint(
                condition=Q(iops__isnull=True) | Q(iops__gt=0), name="result_iops_positive"
            ),
            models.CheckConstraint(
                condition=Q(bytes_per_second__isnull=False)
                | Q(iops__isnull=False)
                | Q(latency_mean_ns__isnull=False)
                | Q(latency_max_ns__isnull=False)
                | Q(latency_percentiles_ns__isnull=False),
                name="result_has_a_metric",
            ),
            models.CheckConstraint(
                condition=Q(latency_mean_ns__isnull=True) | Q(latency_mean_ns__gte=0),
                name="result_latency_not_negative",
            ),
        ]
        indexes = [
            models.Index(
                fields=["test", "pattern", "-bytes_per_second"], name="result_leaderboard_idx"
            ),
            # A test's results newest first (the results API filtered by test), read in
            # order from the index whatever the test's share or age (selectors.results_listed).
            models.Index(fields=["test", "id"], name="result_test_newest_idx"),
        ]

    def __str__(self) -> str:
        return f"{self.test.identifier} ({self.pattern}) of run {self.run_id}"

    @property
    def latency_description(self) -> str:
        """Which latency latency_* is (latency_description); reads the run's source."""
        return latency_description(self.latency_kind, self.run.source)

    @property
    def directions(self) -> dict[str, dict]:
        """A mixed result's reads and writes: each of MIXED_SIDES with its DIRECTION_FIGURES
        by name; {} for a result that holds neither."""
        sides = {
            side: {name: getattr(self, f"{side}_{name}") for name in DIRECTION_FIGURES}
            for side in MIXED_SIDES
        }
        return sides if any(v is not None for f in sides.values() for v in f.values()) else {}

    @property
    def deviations(self) -> list[str]:
        """How this result's recorded conditions differ from its test's method, if they do
        (interrupted, a latency that is not issue to completion, several jobs, a quick smoke
        run, a span clamped to a small target)."""
        notes = []
        if self.partial:
            notes.append("partial: the run was interrupted")
        if self.latency_kind == LatencyKind.COMPLETION:
            notes.append("latency: completion only (fio's clat)")
        if self.jobs > 1:
            notes.append(f"{self.jobs} jobs of QD{self.queue_depth or self.test.queue_depth}")
        seconds = self.duration_ns / 1e9 if self.duration_ns else None
        if seconds is not None and seconds < 0.9 * self.test.duration_s:
            notes.append(
                f"ran {units.seconds(seconds, 0)}, not {units.seconds(self.test.duration_s)}"
            )
        if self.span_bytes and self.test.span_bytes and self.span_bytes < self.test.span_bytes:
            notes.append(
                f"span {units.decimal(self.span_bytes / 2**20, 0)} MiB, not "
                f"{units.decimal(self.test.span_bytes / 2**30, 0)} GiB"
            )
        return notes


# The figures of each direction of a mixed result, as `<direction>_<figure>` columns of Result
# (MIXED_SIDES: read, write): ingest writes them from the document's read and write,
# pages and the API show them apart. IOPS alone of the rates: a half's bytes/s is its IOPS
# times the test's block size, and the document keeps it.
DIRECTION_FIGURES = (
    "iops",
    "latency_mean_ns",
    "latency_max_ns",
    "latency_percentiles_ns",
)


# A result's latency histograms (Result.latency_histogram): stored by ingest
# (results.kinds.throughput.histogram_fields), read by the merges of a group's results alone.
HISTOGRAM_FIELDS = ("latency_histogram", "read_latency_histogram", "write_latency_histogram")

# A result's figures as stored: every column but its id, the run and test it is of and its
# histograms. Ingest writes them from a document (services.result_figures), seed_scale and
# bench_ingest's floor write them as ingest does, the results API lists them: a field added
# to Result reaches all four.
RESULT_FIGURES = tuple(
    f.attname
    for f in Result._meta.concrete_fields
    if f.name not in ("id", "run", "test", *HISTOGRAM_FIELDS)
)


class ConsistencySeries(LabelledModel):
    """IOPS in each second of a performance-consistency run, at one spare-area level."""

    run = models.ForeignKey(Run, on_delete=models.CASCADE, related_name="consistency_series")
    test = models.ForeignKey(Test, on_delete=models.PROTECT, related_name="consistency_series")
    spare_area_percent = models.PositiveSmallIntegerField(default=0)
    pattern = models.CharField(
        max_length=14, choices=DataPattern.choices, default=DataPattern.INCOMPRESSIBLE
    )
    span_bytes = models.BigIntegerField(null=True, blank=True)
    interval_ns = models.BigIntegerField(default=1_000_000_000)
    # Completions in each interval: bigint, as a count over a long interval can pass 2^31.
    iops = CounterSeriesField()
    # Written by PostgreSQL from `iops`, so that a page never works them out again: the
    # number of intervals, those at 0 IOPS (stalls), and the counts as JSON text, which
    # charts and the API send on without formatting 2,000 numbers a request.
    points = models.GeneratedField(
        expression=models.Func(F("iops"), function="cardinality"),
        output_field=models.IntegerField(),
        db_persist=True,
    )
    stalls = models.GeneratedField(
        expression=models.Func(
            models.Func(
                F("iops"),
                models.Value(0, output_field=models.BigIntegerField()),
                function="array_positions",
            ),
            function="cardinality",
        ),
        output_field=models.IntegerField(),
        db_persist=True,
    )
    iops_text = models.GeneratedField(
        expression=models.Func(F("iops"), function="bench_counts_json"),
        output_field=models.TextField(),
        db_persist=True,
    )
    # The steady state (results.steady_state, SNIA PTS): its window of five 60 s rounds (the
    # first steady one, else the last; the last 30% of a series too short to test) and the
    # IOPS over it.
    steady = models.BooleanField(
        null=True,
        help_text="Steady by the PTS rule: True from the window on; False, the last window "
        "(not steady); empty, too short to test",
    )
    steady_state_start_s = models.PositiveBigIntegerField()
    steady_state_end_s = models.PositiveBigIntegerField(null=True)
    steady_excursion = models.FloatField(
        null=True, help_text="The window's (max − min) round / its mean; PTS: at most 0.20"
    )
    steady_slope = models.FloatField(
        null=True,
        help_text="Its least-squares line's change across the window / its mean; PTS: ≤ 0.10",
    )
    steady_mean_iops = models.FloatField()
    steady_stddev_iops = models.FloatField()
    steady_min_iops = models.BigIntegerField()
    partial = models.BooleanField(
        default=False,
        db_default=False,
        help_text="Interrupted: the seconds until the interrupt; never ranked",
    )

    class Meta:
        constraints = [
            # The document's duplicate check uses the same fields (documents.entry_key).
            models.UniqueConstraint(
                fields=["run", *ENTRY_IDENTITY["consistency"]], name="consistency_unique"
            ),
            models.CheckConstraint(
                condition=Q(spare_area_percent__lte=90), name="consistency_spare_area_range"
            ),
            models.CheckConstraint(condition=Q(interval_ns__gt=0), name="consistency_interval"),
        ]

    def __str__(self) -> str:
        return f"consistency of run {self.run_id} at {self.spare_area_percent}% spare area"

    @property
    def steady_label(self) -> str:
        """What the PTS rule found, in words: "steady from 840 s", "not steady in 2,000 s
        (the last window, from 1,680 s)" or "too short to test (the last 30%, from 1 s)"."""
        start = units.seconds(self.steady_state_start_s)
        if self.steady:
            return f"steady from {start}"
        if self.steady is False:
            seconds = round(self.points * self.interval_ns / 1e9)
            return f"not steady in {units.seconds(seconds)} (the last window, from {start})"
        return f"too short to test (the last 30%, from {start})"


class TrimValidation(LabelledModel):
    """Sequential write speed clean, after a torture phase, and after a TRIM of the span."""

    run = models.ForeignKey(Run, on_delete=models.CASCADE, related_name="trim_validations")
    test = models.ForeignKey(Test, on_delete=models.PROTECT, related_name="trim_validations")
    pattern = models.CharField(max_length=14, choices=DataPattern.choices)
    span_bytes = models.BigIntegerField(null=True, blank=True)
    torture_seconds = models.FloatField(null=True, blank=True)
    discard_method = models.CharField(max_length=20, blank=True)
    clean_bytes_per_second = models.FloatField()
    after_torture_bytes_per_second = models.FloatField()
    after_trim_bytes_per_second = models.FloatField()

    class Meta:
        constraints = [
            # The document's duplicate check uses the same fields (documents.entry_key).
            models.UniqueConstraint(fields=["run", *ENTRY_IDENTITY["trim"]], name="trim_unique"),
            models.CheckConstraint(
                condition=Q(clean_bytes_per_second__gt=0)
                & Q(after_torture_bytes_per_second__gt=0)
                & Q(after_trim_bytes_per_second__gt=0),
                name="trim_rates_positive",
            ),
        ]

    def __str__(self) -> str:
        return f"TRIM validation of run {self.run_id}"


class WsatStop(models.TextChoices):
    BYTES = "bytes", "four times the capacity written"
    TIME = "time", "time cap reached"
    INTERRUPTED = "interrupted", "interrupted"


class SaturationSeries(LabelledModel):
    """Bytes written in each second of one sequential write of the whole drive, and where its
    write cache ran out (docs/methodology.md, write saturation); or, for WSAT (is_wsat), in
    each round of random writes from a purged state until target_bytes or the time cap,
    with where the rate first fell below half the first round's."""

    run = models.ForeignKey(Run, on_delete=models.CASCADE, related_name="saturation_series")
    test = models.ForeignKey(Test, on_delete=models.PROTECT, related_name="saturation_series")
    pattern = models.CharField(
        max_length=14, choices=DataPattern.choices, default=DataPattern.INCOMPRESSIBLE
    )
    span_bytes = models.BigIntegerField(null=True, blank=True)
    interval_ns = models.BigIntegerField(default=1_000_000_000)
    duration_ns = models.BigIntegerField(null=True, blank=True)
    discard_method = models.CharField(max_length=20, blank=True)
    bytes_per_interval = ArrayField(models.BigIntegerField())
    bytes_written = models.BigIntegerField()
    mean_bytes_per_second = models.FloatField(null=True, blank=True)
    initial_bytes_per_second = models.FloatField(null=True, blank=True)
    threshold_fraction = models.FloatField(null=True, blank=True)
    exhausted = models.BooleanField()
    exhausted_at_s = models.FloatField(null=True, blank=True)
    bytes_before_exhausted = models.BigIntegerField(null=True, blank=True)
    bytes_per_second_before = models.FloatField(null=True, blank=True)
    bytes_per_second_after = models.FloatField(null=True, blank=True)
    partial = models.BooleanField(default=False)
    # WSAT (schema version 4): what it wrote up to, its time cap, what ended it, and where
    # the rate first fell below half the first round's.
    target_bytes = models.BigIntegerField(null=True, blank=True)
    time_cap_ns = models.BigIntegerField(null=True, blank=True)
    stopped_by = models.CharField(max_length=12, choices=WsatStop.choices, blank=True)
    halved_at_s = models.FloatField(null=True, blank=True)
    bytes_before_halved = models.BigIntegerField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["run", *ENTRY_IDENTITY["saturation"]], name="saturation_unique"
            ),
            models.CheckConstraint(
                condition=Q(halved_at_s__isnull=True, bytes_before_halved__isnull=True)
                | Q(halved_at_s__isnull=False, bytes_before_halved__isnull=False),
                name="saturation_halved_has_bytes",
            ),
            models.CheckConstraint(condition=Q(interval_ns__gt=0), name="saturation_interval"),
            models.CheckConstraint(
                condition=Q(exhausted=False, exhausted_at_s__isnull=True)
                | Q(exhausted=True, exhausted_at_s__isnull=False),
                name="saturation_exhausted_has_point",
            ),
        ]

    def __str__(self) -> str:
        return f"write saturation of run {self.run_id}"

    @property
    def is_wsat(self) -> bool:
        """SNIA PTS's write saturation (random writes in rounds to 4x the capacity)."""
        return self.target_bytes is not None


# The drive's specs each leaderboard entry keeps a copy of, as fields of the drive
# ("nand__cell_type": its NAND's), each in the entry's field of the last name (copy_field):
# a filtered ranking then walks one table's indexes instead of joining each candidate to its
# drive. Triggers made from this list keep them (results.copies); the drive filters on
# entries (results.filters) and the value views' copy (results.entries_index) follow it.
# needs_review: a drive an upload created and staff have not approved is kept out of the
# rankings and value views (results.selectors.common.SHOWN_ENTRIES) until they do.
DRIVE_COPIES = (
    "kind",
    "interface",
    "controller",
    "nand__cell_type",
    "capacity_bytes",
    "needs_review",
)


def copy_field(path: str) -> str:
    """The entry's field that keeps its drive's `path` (DRIVE_COPIES)."""
    return path.rpartition("__")[2]


# What a ranking filters its entries by (results.filters, and the pages' real-drives rule).
RANKING_FILTER_COLUMNS = [
    "pattern",
    "source",
    "synthetic",
    "quick",
    *map(copy_field, DRIVE_COPIES),
]


class Method(models.TextChoices):
    """How a result was obtained, the class it is compared within (results.spread)."""

    LOADGEN = "loadgen", "loadgen, full length"
    QUICK = "quick", "quick run"
    IMPORT = "import", "imported from another tool"
    PUBLISHED = "published", "published figure"


_METHOD_LABELS = dict(Method.choices)  # read per row: Choices' own lookups build lists


def method_label(method: str, tool: str = "") -> str:
    """A figure's class as pages and the API name it: "loadgen, full length", "quick run,
    loadgen", "imported from fio", "published, Iometer"."""
    if method == Method.LOADGEN or not tool:
        return _METHOD_LABELS.get(method, method)
    if method == Method.IMPORT:
        return f"imported from {tool}"
    return f"{'quick run' if method == Method.QUICK else 'published'}, {tool}"


class TailSource(models.TextChoices):
    """Where a leaderboard entry's (its group's) latency percentiles come from."""

    MERGED = "merged", "merged from every result's histogram"
    RESULT = "result", "the result's own percentiles, as its tool wrote them"
    UNMERGED = "unmerged", "not merged: not every result of the group carries a histogram"


class LeaderboardEntry(LabelledModel):
    """The latest published result of each drive in each test and data pattern, with the
    figure that was not published derived from the one that was (IOPS = bytes/s ÷ block
    size). Rankings and value views read this table instead of ranking millions of result
    rows; `results.services.leaderboard_refresh` rebuilds a drive's rows whenever one of its
    runs is ingested or withdrawn."""

    class Derived(models.TextChoices):
        NONE = "", "as published"
        IOPS = "iops", "IOPS derived from MB/s"
        BYTES = "bytes_per_second", "MB/s derived from IOPS"

    drive = models.ForeignKey(
        "drives.Drive", on_delete=models.CASCADE, related_name="leaderboard_entries"
    )
    test = models.ForeignKey(Test, on_delete=models.CASCADE, related_name="leaderboard_entries")
    pattern = models.CharField(max_length=14, choices=DataPattern.choices)
    result = models.OneToOneField(Result, on_delete=models.CASCADE, related_name="+")
    run = models.ForeignKey(Run, on_delete=models.CASCADE, related_name="+")
    source = models.CharField(max_length=10, choices=Run.Source.choices)
    synthetic = models.BooleanField(default=False)
    bytes_per_second = models.FloatField(null=True)
    iops = models.FloatField(null=True)
    iops_stddev = models.FloatField(null=True)  # the result's, as it is
    iops_min = models.FloatField(null=True)
    read_iops = models.FloatField(null=True)  # a mixed result's reads and writes, as they are
    write_iops = models.FloatField(null=True)
    derived = models.CharField(max_length=16, choices=Derived.choices, blank=True)
    latency_mean_ns = models.FloatField(null=True)
    latency_kind = models.CharField(
        max_length=4,
        choices=LatencyKind.choices,
        blank=True,
        help_text="Which latency latency_mean_ns is (the result's; blank without one)",
    )
    quick = models.BooleanField(
        default=False, help_text="Measured for less than 90% of the test's duration"
    )
    price_usd = models.FloatField(
        null=True, help_text="The drive's latest USD price, kept by a trigger on drives_price"
    )
    price_observed_on = models.DateField(null=True)
    # The copies of the drive's specs (DRIVE_COPIES).
    capacity_bytes = models.BigIntegerField(
        null=True, help_text="The drive's capacity, kept by a trigger on drives_drive"
    )
    controller = models.ForeignKey(
        "drives.Controller",
        on_delete=models.SET_NULL,
        null=True,
        related_name="+",
        help_text="The drive's controller, kept by a trigger on drives_drive",
    )
    interface = models.CharField(max_length=10, blank=True)
    kind = models.CharField(max_length=10, default="")
    cell_type = models.CharField(
        max_length=3, blank=True, help_text="Its NAND's cell type, kept by a trigger"
    )
    needs_review = models.BooleanField(
        default=False,
        help_text="The drive awaits staff review (an upload created it): not ranked, kept by a "
        "trigger on drives_drive",
    )
    worst = models.BooleanField(
        default=False,
        help_text="The drive's slowest data pattern in this test (a compressing drive's worst "
        "case): value views place each drive by it",
    )
    # The run-to-run spread: the results grouped with the latest (results.spread,
    # docs/methodology.md), whose mean bytes_per_second and iops are.
    method = models.CharField(max_length=10, choices=Method.choices, default=Method.LOADGEN)
    tool_name = models.CharField(max_length=100, blank=True, help_text="The run's tool")
    runs = models.PositiveSmallIntegerField(
        default=1, help_text="How many results the figures are the mean of"
    )
    low_bps = models.FloatField(null=True, help_text="The group's lowest bytes/s")
    high_bps = models.FloatField(null=True, help_text="The group's highest bytes/s")
    cv = models.FloatField(
        null=True, help_text="The group's coefficient of variation of bytes/s (two or more)"
    )
    # The group's tail (results.tails, written by the refresh, never on a read): its
    # percentiles from the merge of every result's histogram, or one result's own as its tool
    # wrote them, with the I/Os they rest on.
    histograms = models.PositiveSmallIntegerField(
        default=0, help_text="How many of the group's results carry a latency histogram"
    )
    tail = models.CharField(
        max_length=10,
        choices=TailSource.choices,
        blank=True,
        help_text="Where latency_percentiles_ns come from (blank: no percentiles)",
    )
    latency_io_count = models.BigIntegerField(
        null=True, help_text="The I/Os the group's percentiles rest on"
    )
    latency_percentiles_ns = models.JSONField(
        null=True, help_text="The group's latency percentiles (ns), keyed as documents key them"
    )
    latency_max_ns = models.BigIntegerField(null=True, help_text="The group's highest latency")
    # A mixed test's reads' and writes' tails (results.tails.LATENCIES), each merged from every
    # result's histogram of that direction where each carries one, else none.
    read_latency_io_count = models.BigIntegerField(
        null=True, help_text="The I/Os the group's reads' percentiles rest on (a mixed test)"
    )
    read_latency_percentiles_ns = models.JSONField(
        null=True, help_text="The group's reads' latency percentiles (ns), merged"
    )
    read_latency_max_ns = models.BigIntegerField(
        null=True, help_text="The group's reads' highest latency"
    )
    write_latency_io_count = models.BigIntegerField(
        null=True, help_text="The I/Os the group's writes' percentiles rest on (a mixed test)"
    )
    write_latency_percentiles_ns = models.JSONField(
        null=True, help_text="The group's writes' latency percentiles (ns), merged"
    )
    write_latency_max_ns = models.BigIntegerField(
        null=True, help_text="The group's writes' highest latency"
    )
    latency_p999_ns = models.BigIntegerField(
        null=True, help_text="latency_percentiles_ns's 99.9, the column its ranking orders by"
    )

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["drive", "test", "pattern"], name="leaderboard_entry_unique"
            ),
        ]
        indexes = [
            # Rankings walk these in order: best first, ties by id. The columns rankings
            # filter on are included, so that where a highlighted drive ranks (the entries
            # better than it, counted) is read from the index alone, whatever the filters.
            models.Index(
                "test",
                F("bytes_per_second").desc(nulls_last=True),
                "id",
                name="leaderboard_test_bps_idx",
                include=RANKING_FILTER_COLUMNS,
            ),
            models.Index(
                "test",
                F("bytes_per_second").desc(nulls_last=True),
                "id",
                condition=Q(synthetic=False),
                name="leaderboard_real_bps_idx",
                include=RANKING_FILTER_COLUMNS,
            ),
            # A ranking of measured (or published) figures only: without the source in the
            # index, a test's every entry is read to find the few of one source.
            models.Index(
                "test",
                "source",
                F("bytes_per_second").desc(nulls_last=True),
                "id",
                name="leaderboard_source_bps_idx",
            ),
            models.Index(
                "test",
                F("latency_mean_ns").asc(nulls_last=True),
                "id",
                name="leaderboard_test_latency_idx",
                include=RANKING_FILTER_COLUMNS,
            ),
            models.Index(
                "test",
                F("latency_p999_ns").asc(nulls_last=True),
                "id",
                name="leaderboard_test_p999_idx",
                include=RANKING_FILTER_COLUMNS,
            ),
            # One controller's drives (a fortieth of a test's entries), best first.
            models.Index(
                "test",
                "controller",
                F("bytes_per_second").desc(nulls_last=True),
                "id",
                name="leaderboard_controller_bps_idx",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.test_id} ({self.pattern}) of drive {self.drive_id}"


class IdempotencyKey(LabelledModel):
    """An upload's Idempotency-Key header: the same key and request again get the first
    response back; the same key with another request is refused. Per user, kept for a day."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="idempotency_keys"
    )
    key = models.CharField(max_length=255)
    fingerprint = models.CharField(
        max_length=64, help_text="SHA-256 of the request: its path, query string and body"
    )
    run = models.ForeignKey(Run, on_delete=models.CASCADE, related_name="idempotency_keys")
    status_code = models.PositiveSmallIntegerField()
    response = models.JSONField(help_text="The body of the first response")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["user", "key"], name="idempotency_key_unique"),
        ]

    def __str__(self) -> str:
        return f"{self.key} of {self.user}"
