"""Runs in the API: the published ones with their provenance, uploads, withdrawals and a
submitter's own list.

    GET  /api/v1/runs/                  published runs (withdrawn and synthetic ones left out)
    GET  /api/v1/runs/<id>/             a published run; a held one to its submitter and staff
    POST /api/v1/runs/                  a result document, or fio's JSON output (by content)
    POST /api/v1/runs/fio/              fio's JSON output
    POST /api/v1/runs/<id>/withdraw/    {"reason": "..."}: its submitter or staff
    POST /api/v1/runs/<id>/approve/     a run held for review (results.plausibility): staff
    GET  /api/v1/me/runs/               the signed-in user's uploads, each with its status

Uploads are reviewers' (results.permissions), by token or by session with CSRF. The body is
the document itself (Content-Type: application/json) or a multipart form with the file in
`document`; it goes to run_ingest unparsed, which reads it strictly. fio's output names its
drive in query parameters (or form fields): manufacturer, model, capacity_bytes, ...
(results.uploads). An Idempotency-Key header is honoured (results.services.upload_idempotent).
"""

from __future__ import annotations

import hashlib
from typing import Any

import django_filters
from django.conf import settings
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse
from django.urls import reverse
from django.utils.cache import patch_cache_control, patch_vary_headers
from django.views.decorators.http import require_safe
from drf_spectacular.utils import (
    OpenApiParameter,
    OpenApiResponse,
    extend_schema,
    extend_schema_field,
)
from rest_framework import mixins, serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.exceptions import (
    APIException,
    NotAuthenticated,
    NotFound,
    ParseError,
    PermissionDenied,
    UnsupportedMediaType,
    ValidationError,
)
from rest_framework.parsers import BaseParser, MultiPartParser
from rest_framework.permissions import BasePermission, IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.throttling import ScopedRateThrottle

from core.filters import FilterSet, query_errors, whole_number_schema
from core.json_schema import component_of_draft7
from results import documents, permissions
from results.api.reads import MAX_RUN_ID, filter_parameters
from results.api.shapes import RunResultShape
from results.documents import MEANING_CHECKS, SCHEMA_PATH, TOO_LARGE, DocumentRejected
from results.models import Run, TestBench
from results.selectors import runs as selectors
from results.services import IdempotencyConflict, run_approve, run_withdraw, upload_idempotent
from results.uploads import (
    FIO_DRIVE_FIELDS,
    Upload,
    fio_field_schema,
    upload_ingest,
)

UPLOAD_SCOPE = "uploads"
UPLOAD_FIELD = "document"  # the file's field in a multipart upload
MULTIPART_OVERHEAD = 64 * 1024  # boundaries and the drive fields beside the file
IDEMPOTENCY_KEY_MAX = 255
NOT_A_REVIEWER = "uploading results is for reviewers; ask the site's staff to make you one"
NOT_YOURS = "only the run's submitter or a staff member can withdraw it"
ALREADY_WITHDRAWN = "run {pk} was withdrawn already, on {when}"
NO_REASON = "a withdrawal needs a reason, shown to staff and to the submitter"
STAFF_ONLY = "only a staff member can approve a run held for review"
REASON_MAX = 2000
EMPTY_BODY = "the request has no body: send the result document (or fio's JSON output)"
NO_FILE = f"the form has no file: send the document in the field '{UPLOAD_FIELD}'"
BAD_CHARSET = "the body must be UTF-8 (charset={charset} was given)"
UNSUPPORTED = (
    "Content-Type {media_type} is not accepted: send the document as application/json, or "
    f"as a multipart/form-data form with the file in '{UPLOAD_FIELD}'"
)
# Set in the environ by the server (benchsite.chunked) when a streamed body went on past
# what it read: then its size is not known.
BODY_CUT = "bench.body_cut"
BAD_LENGTH = "the Content-Length header is not a number of bytes"
BAD_KEY = (
    f"the Idempotency-Key header must be 1 to {IDEMPOTENCY_KEY_MAX} printable ASCII characters, "
    "not only spaces"
)


class PayloadTooLarge(APIException):
    status_code = status.HTTP_413_REQUEST_ENTITY_TOO_LARGE
    default_code = "too_large"


REPLAYED_HEADER = "Idempotent-Replayed"


class IdempotencyKeyReused(APIException):
    status_code = status.HTTP_422_UNPROCESSABLE_ENTITY
    default_code = "idempotency_key_reused"


class Conflict(APIException):
    status_code = status.HTTP_409_CONFLICT
    default_code = "conflict"


def _run_id(text: str) -> int:
    """A run id from the URL; Run.DoesNotExist for anything that cannot be one."""
    if not (text.isascii() and text.isdigit()) or len(text) > 19:
        raise Run.DoesNotExist
    return int(text)


class DocumentProblems(ValidationError):
    """A 400 listing each problem of a rejected document with its JSON pointer (the API's
    error body), its detail ending with the rejection's note: what is checked once the
    schema passes (benchsite.api.exception_handler writes an exception's `note` there)."""

    def __init__(self, rejected: DocumentRejected):
        super().__init__([p.as_dict() for p in rejected.problems])
        self.note = rejected.note


def _check_length(request, limit: int) -> None:
    """413 before the body is read, from its Content-Length."""
    meta = request.META
    try:
        length = int(meta.get("CONTENT_LENGTH") or 0)
    except ValueError:
        raise ParseError(BAD_LENGTH) from None
    if length > limit:
        size = f"more than {length - 1}" if meta.get(BODY_CUT) else length
        raise PayloadTooLarge(TOO_LARGE.format(size=size, limit=settings.BENCH_MAX_DOCUMENT_BYTES))


class RawDocumentParser(BaseParser):
    """A JSON body as its bytes: run_ingest parses it, more strictly than json.loads
    (duplicate keys, NaN, numbers beyond 64 bits, NUL, lone surrogates, nesting)."""

    media_type = "application/json"

    def parse(self, stream, media_type=None, parser_context=None) -> bytes:
        request = parser_context["request"]
        _check_length(request, settings.BENCH_MAX_DOCUMENT_BYTES)
        params = dict(
            part.strip().split("=", 1) for part in (media_type or "").split(";")[1:] if "=" in part
        )
        charset = params.get("charset", "utf-8").strip('"').lower()
        if charset not in ("utf-8", "utf8"):
            raise ValidationError([{"pointer": "", "message": BAD_CHARSET.format(charset=charset)}])
        return stream.read() if stream is not None else b""


class LimitedMultiPartParser(MultiPartParser):
    """A multipart form (the document in UPLOAD_FIELD), refused unread when too large."""

    def parse(self, stream, media_type=None, parser_context=None):
        _check_length(
            parser_context["request"], settings.BENCH_MAX_DOCUMENT_BYTES + MULTIPART_OVERHEAD
        )
        return super().parse(stream, media_type, parser_context)


class UploadThrottle(ScopedRateThrottle):
    """Uploads per user (the rate REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"]["uploads"]),
    counted in caches["default"], which every server process shares. The rate is read per
    request, so a settings override takes effect at once."""

    def get_rate(self):
        return settings.REST_FRAMEWORK.get("DEFAULT_THROTTLE_RATES", {}).get(self.scope)


class MayUpload(BasePermission):
    def has_permission(self, request, view) -> bool:
        if not request.user.is_authenticated:
            raise NotAuthenticated()
        if not permissions.is_reviewer(request.user):
            raise PermissionDenied(NOT_A_REVIEWER)
        return True


class IsStaff(BasePermission):
    def has_permission(self, request, view) -> bool:
        if not request.user.is_authenticated:
            raise NotAuthenticated()
        if not request.user.is_staff:
            raise PermissionDenied(STAFF_ONLY)
        return True


class MayWithdraw(BasePermission):
    def has_permission(self, request, view) -> bool:
        if not request.user.is_authenticated:
            raise NotAuthenticated()
        if not (request.user.is_staff or permissions.is_reviewer(request.user)):
            raise PermissionDenied(NOT_YOURS)
        return True

    def has_object_permission(self, request, view, obj) -> bool:
        if not permissions.may_withdraw(request.user, obj):
            raise PermissionDenied(NOT_YOURS)
        return True


# -- serializers: formatting only --------------------------------------------------------
class RunDriveSerializer(serializers.Serializer):
    slug = serializers.CharField()
    name = serializers.CharField(source="__str__")


class ToolSerializer(serializers.Serializer):
    name = serializers.CharField(source="tool_name")
    version = serializers.CharField(source="tool_version")
    engine = serializers.CharField()


class SuiteRefSerializer(serializers.Serializer):
    name = serializers.CharField()
    version = serializers.IntegerField()


# A run's test bench: each of TestBench.FIELDS.
BenchSerializer = type(
    "BenchSerializer",
    (serializers.Serializer,),
    {name: serializers.CharField() for name in TestBench.FIELDS},
)


class CitationSerializer(serializers.Serializer):
    """The article a published run's figures are from, and where in it (of the run: null
    when it has no article)."""

    publisher = serializers.CharField(source="citation.publisher")
    title = serializers.CharField(source="citation.title")
    author = serializers.CharField(source="citation.author")
    published_on = serializers.DateField(source="citation.published_on")
    url = serializers.CharField(source="citation.safe_url")
    locator = serializers.CharField(source="citation_locator")
    rate_unit = serializers.CharField(source="citation.rate_unit")

    def to_representation(self, run: Run) -> dict[str, Any] | None:
        return None if run.citation_id is None else super().to_representation(run)


class RunSerializer(serializers.ModelSerializer):
    """A run with its provenance: the drive, tool, bench, date, submitter and citation (each
    nested object a serializer of its own: the CSV writes its fields as dotted columns)."""

    url = serializers.SerializerMethodField(help_text="This run in the API")
    page = serializers.SerializerMethodField(
        help_text="The run's page on the site; for a run held for review, to its submitter "
        "and staff, with the key that opens it without signing in (share it with no one)"
    )
    drive = RunDriveSerializer(read_only=True)
    firmware = serializers.SerializerMethodField()
    tool = ToolSerializer(source="*", read_only=True)
    suite = SuiteRefSerializer(read_only=True, allow_null=True)
    bench = BenchSerializer(read_only=True, allow_null=True)
    submitter = serializers.SerializerMethodField(help_text="The uploader's user name")
    citation = CitationSerializer(source="*", read_only=True, allow_null=True)

    class Meta:
        model = Run
        fields = [
            "id",
            "url",
            "page",
            "status",
            "source",
            "drive",
            "firmware",
            "tool",
            "suite",
            "bench",
            "drive_state",
            "started_at",
            "finished_at",
            "ingested_at",
            "submitter",
            "citation",
            "schema_version",
            "complete",
        ]

    def get_url(self, run: Run) -> str:
        url = reverse("api:run-detail", args=[run.pk])
        request = self.context.get("request")
        return request.build_absolute_uri(url) if request else url

    def get_page(self, run: Run) -> str:
        request = self.context.get("request")
        if request is None:
            return run.get_absolute_url()
        return request.build_absolute_uri(permissions.page_link(run, request.user))

    def _told(self, run: Run) -> bool:
        """The reader is the run's submitter or staff (results.permissions.may_see_own)."""
        request = self.context.get("request")
        return request is not None and permissions.may_see_own(request.user, run)

    def get_held_reasons(self, run: Run) -> list[str] | None:
        if not run.held_reason or not self._told(run):
            return None
        return run.held_reason.splitlines()

    def get_firmware(self, run: Run) -> str | None:
        return run.firmware.version if run.firmware else None

    def get_submitter(self, run: Run) -> str | None:
        return run.submitter.get_username() if run.submitter else None


HELD_REASONS_HELP = (
    "Why the run was held for review at its upload, one reason an item (null: not held, or "
    "not yours)"
)


class RunDetailSerializer(RunSerializer):
    """A run with what it measured (the per-second series are the series endpoints'): a
    published one, or one held for review to its submitter and staff, with why it was held."""

    held_reasons = serializers.SerializerMethodField(help_text=HELD_REASONS_HELP)
    results = serializers.SerializerMethodField()
    consistency = serializers.SerializerMethodField()
    trim = serializers.SerializerMethodField()
    saturation = serializers.SerializerMethodField()

    class Meta(RunSerializer.Meta):
        fields = [
            *RunSerializer.Meta.fields,
            "held_reasons",
            "results",
            "consistency",
            "trim",
            "saturation",
        ]

    @extend_schema_field(RunResultShape(many=True))
    def get_results(self, run: Run) -> list[dict[str, Any]]:
        # Each result's figures (results.selectors.runs.run_detail): a rate not given
        # derived from the other, as every read of results gives them.
        return [
            {
                "test": r.test.identifier,
                "pattern": r.pattern,
                "bytes_per_second": r.figures.bytes_per_second,
                "iops": r.figures.iops,
                "derived": r.figures.derived or None,
                "missing_rates_reason": r.figures.missing_rates_reason,
                "latency_mean_ns": r.latency_mean_ns,
                "latency_kind": r.latency_kind,
                "duration_ns": r.duration_ns,
                "partial": r.partial,
            }
            for r in run.results.all()
        ]

    def get_consistency(self, run: Run) -> list[dict[str, Any]]:
        return [
            {
                "test": s.test.identifier,
                "spare_area_percent": s.spare_area_percent,
                "pattern": s.pattern,
                "steady": s.steady,
                "steady_state_start_s": s.steady_state_start_s,
                "steady_mean_iops": s.steady_mean_iops,
                "steady_min_iops": s.steady_min_iops,
                "partial": s.partial,
            }
            for s in run.consistency_series.all()
        ]

    def get_trim(self, run: Run) -> list[dict[str, Any]]:
        return [
            {
                "test": t.test.identifier,
                "pattern": t.pattern,
                "clean_bytes_per_second": t.clean_bytes_per_second,
                "after_torture_bytes_per_second": t.after_torture_bytes_per_second,
                "after_trim_bytes_per_second": t.after_trim_bytes_per_second,
            }
            for t in run.trim_validations.all()
        ]

    def get_saturation(self, run: Run) -> list[dict[str, Any]]:
        return [
            {
                "test": s.test.identifier,
                "pattern": s.pattern,
                "bytes_written": s.bytes_written,
                "exhausted": s.exhausted,
                "exhausted_at_s": s.exhausted_at_s,
                "bytes_per_second_before": s.bytes_per_second_before,
                "bytes_per_second_after": s.bytes_per_second_after,
                "partial": s.partial,
            }
            for s in run.saturation_series.all()
        ]


class OwnRunSerializer(RunSerializer):
    """A submitter's own run: its status, why it was held for review (results.plausibility)
    and, when withdrawn, when, why and by whom. Why and by whom only to its submitter and
    staff: an upload of the same document by another reviewer gets the run back without
    them."""

    held_reasons = serializers.SerializerMethodField(help_text=HELD_REASONS_HELP)
    withdrawn_reason = serializers.SerializerMethodField()
    withdrawn_by = serializers.SerializerMethodField()

    class Meta(RunSerializer.Meta):
        fields = [
            *RunSerializer.Meta.fields,
            "held_reasons",
            "withdrawn_at",
            "withdrawn_reason",
            "withdrawn_by",
        ]

    def get_url(self, run: Run) -> str | None:
        # The run in the API, where it answers this reader: published, or held and theirs.
        shown = run.status == Run.Status.PUBLISHED or (
            run.status == Run.Status.HELD and self._told(run)
        )
        return super().get_url(run) if shown else None

    def get_withdrawn_reason(self, run: Run) -> str | None:
        return run.withdrawn_reason if run.withdrawn_at and self._told(run) else None

    def get_withdrawn_by(self, run: Run) -> str | None:
        if not run.withdrawn_by or not self._told(run):
            return None
        return run.withdrawn_by.get_username()


class TextField(serializers.CharField):
    """Text, and only text: DRF's CharField also takes a number or a boolean as its text,
    and measures its length once trimmed, where the schema's maxLength measures the text
    sent (benchsite.openapi.TextRefusals states what else it refuses)."""

    def to_internal_value(self, data):
        if not isinstance(data, str):
            self.fail("invalid")
        if self.max_length is not None and len(data) > self.max_length:
            self.fail("max_length", max_length=self.max_length)
        return super().to_internal_value(data)


class WithdrawSerializer(serializers.Serializer):
    reason = TextField(max_length=REASON_MAX, trim_whitespace=True)


class _MappedJobSerializer(serializers.Serializer):
    job = serializers.CharField()
    test = serializers.CharField()
    pattern = serializers.CharField()


class _NotMappedJobSerializer(serializers.Serializer):
    job = serializers.CharField()
    reason = serializers.CharField()


class _FioReportSerializer(serializers.Serializer):
    mapped = _MappedJobSerializer(many=True)
    not_mapped = _NotMappedJobSerializer(many=True)


class UploadResultSerializer(serializers.Serializer):
    """The answer to an upload (documentation only: upload_body builds it)."""

    created = serializers.BooleanField(help_text="False: the same document was uploaded before")
    warnings = serializers.ListField(
        child=serializers.CharField(),
        help_text="What the uploader is told beside the stored run: the document was measured "
        "by a loadgen older than its suite version needs (each suite's loadgen_min, "
        "/bench/loadgen/). Empty when there is nothing to say",
    )
    run = OwnRunSerializer()
    fio = _FioReportSerializer(required=False, help_text="For fio's output: the jobs mapped or not")


class _ErrorSerializer(serializers.Serializer):
    pointer = serializers.CharField(help_text="JSON pointer of the value at fault ('' the whole)")
    message = serializers.CharField()


class ErrorBodySerializer(serializers.Serializer):
    detail = serializers.CharField()
    errors = _ErrorSerializer(many=True)


ERRORS = {
    code: OpenApiResponse(ErrorBodySerializer, description=text)
    for code, text in {
        400: "The upload is not acceptable: each problem with its JSON pointer. The meaning "
        "checks (known test ids, rates against block sizes and I/O counts, dates, latencies) "
        "run on every part of the document the schema passed; a value the schema refused is "
        "checked for meaning once it passes, which the detail then says",
        401: "No credentials (a token, or a session)",
        403: "Not a reviewer, or no CSRF token with a session",
        413: "The body is larger than the limit",
        415: "Not application/json, nor a multipart/form-data form",
        422: "The Idempotency-Key was used with another request",
        429: "Too many uploads: wait (Retry-After)",
    }.items()
}
IDEMPOTENCY_KEY = {
    "type": "string",
    "minLength": 1,
    "maxLength": IDEMPOTENCY_KEY_MAX,
    "pattern": "^[ -~]*[!-~][ -~]*$",  # printable ASCII, not only spaces
}
IDEMPOTENCY_KEY_PARAMETER = OpenApiParameter(
    "Idempotency-Key",
    IDEMPOTENCY_KEY,
    OpenApiParameter.HEADER,
    description="Any unique text: the same key and request again get the first response",
)
# Where the result document's JSON Schema is served, as it is in the repository (the upload
# operation's request body refers to it).
DOCUMENT_SCHEMA_URL = "/api/schema/result-document.json"


@require_safe
def document_schema(request: HttpRequest) -> HttpResponse:
    """The result document's JSON Schema (results/schema/result-document.schema.json), the
    file as it is: what an upload's document must be, before its meaning is checked."""
    response = HttpResponse(SCHEMA_PATH.read_bytes(), content_type="application/schema+json")
    patch_cache_control(response, public=True, max_age=3600)
    return response


# The bodies uploads take, as components of the API's schema (upload_components): the result
# document's JSON Schema, the file served at DOCUMENT_SCHEMA_URL, and what the fio importer
# reads first of fio's output.
RESULT_DOCUMENT = "ResultDocument"
FIO_OUTPUT = "FioOutput"


def _component(name: str) -> dict[str, str]:
    return {"$ref": f"#/components/schemas/{name}"}


def upload_components(result, generator, request, public):
    """drf-spectacular's last step: the upload bodies' components. The result document's is
    its JSON Schema (draft 7) in OpenAPI 3.1's dialect (core.json_schema.component_of_draft7),
    so that the schema an upload is checked against is the one the API describes."""
    document = component_of_draft7(documents.schema(), at=_component(RESULT_DOCUMENT)["$ref"])
    document["description"] = (
        f"{document.get('description', '')} The JSON Schema served at {DOCUMENT_SCHEMA_URL}, "
        f"in the dialect of this description. The meaning checks ({MEANING_CHECKS}) follow "
        "the schema's."
    ).strip()
    document["externalDocs"] = {
        "description": "The result document's JSON Schema",
        "url": DOCUMENT_SCHEMA_URL,
    }
    fio = {
        "type": "object",
        "description": "fio's JSON output (fio 3.x, --output-format=json or json+), its first "
        "member fio's version; which of its jobs become results is the importer's to say "
        "(the answer lists them)",
        "required": ["fio version"],
        "properties": {
            # fio 3 or later (results.importers.fio reads no older output)
            "fio version": {"type": "string", "pattern": "^fio-([3-9]|[1-9][0-9]{1,3})\\.[0-9]"},
            "jobs": {"type": "array", "minItems": 1, "items": {"type": "object"}},
        },
    }
    schemas = result.setdefault("components", {}).setdefault("schemas", {})
    schemas.update({RESULT_DOCUMENT: document, FIO_OUTPUT: fio})
    result["components"]["schemas"] = dict(sorted(schemas.items()))
    return result


def _upload_request(*, fio_only: bool) -> dict[str, Any]:
    document = (
        _component(FIO_OUTPUT)
        if fio_only
        else {
            "anyOf": [_component(RESULT_DOCUMENT), _component(FIO_OUTPUT)],
            "description": "A result document or fio's JSON output, told apart by its content",
        }
    )
    return {
        "application/json": document,
        "multipart/form-data": {
            "type": "object",
            "properties": {UPLOAD_FIELD: {"type": "string", "format": "binary"}},
            "required": [UPLOAD_FIELD],
        },
    }


def _upload_schema(*, fio_only: bool):
    """The schema of an upload operation: /runs/ takes a result document or fio's output,
    /runs/fio/ fio's output only, which needs its drive named (its slug, or manufacturer and
    model: results.uploads.drive_namings)."""
    return extend_schema(
        request=_upload_request(fio_only=fio_only),
        parameters=[
            IDEMPOTENCY_KEY_PARAMETER,
            *(
                OpenApiParameter(
                    name,
                    fio_field_schema(name),
                    OpenApiParameter.QUERY,
                    description="fio's output only: the drive it measured (the result "
                    "document's drive block), named by slug, or by manufacturer and model"
                    + (" (needed)" if fio_only else ""),
                )
                for name in (*FIO_DRIVE_FIELDS, "drive_state")
            ),
        ],
        responses={
            201: UploadResultSerializer,
            200: OpenApiResponse(UploadResultSerializer, description="The same document before"),
            **ERRORS,
        },
    )


def upload_body(upload: Upload, request: Request) -> dict[str, Any]:
    """An upload's response: the run, whether it is new, what the uploader is told of it
    (warnings), and for fio's output which jobs became results and which did not (by name,
    with the reason)."""
    body = {
        "created": upload.outcome.created,
        "warnings": list(upload.outcome.warnings),
        "run": OwnRunSerializer(upload.outcome.run, context={"request": request}).data,
    }
    if upload.fio is not None:
        body["fio"] = {
            "mapped": [
                {"job": m.job, "test": m.test, "pattern": m.pattern} for m in upload.fio.mapped
            ],
            "not_mapped": [{"job": u.job, "reason": u.reason} for u in upload.fio.unmapped],
        }
    return body


# -- views ---------------------------------------------------------------------------------


class RunListFilter(FilterSet):
    """The runs list's parameters, checked as every list's are (a NUL byte, an unknown
    source: 400); runs_listed reads them."""

    drive = django_filters.CharFilter(max_length=255, label="A drive's slug")
    source = django_filters.ChoiceFilter(choices=Run.Source.choices, label="Where it came from")

    class Meta:
        model = Run
        fields: list[str] = []


RUN_ID = OpenApiParameter(
    "id", whole_number_schema(1, MAX_RUN_ID), OpenApiParameter.PATH, description="A run's id"
)


def _run_acted_on(pk: str) -> Run:
    """The run a withdrawal or an approval names (any but synthetic), or a 404."""
    try:
        return selectors.run_for_withdrawal(pk=_run_id(pk))
    except Run.DoesNotExist:
        raise NotFound() from None


def _run_action_responses(conflict: str, *errors: int) -> dict:
    """The documented answers of an action on a run: the run as it is now, or an error."""
    return {
        200: OwnRunSerializer,
        404: OpenApiResponse(ErrorBodySerializer, description="No such run"),
        409: OpenApiResponse(ErrorBodySerializer, description=conflict),
        **{c: ERRORS[c] for c in errors},
    }


class RunViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, viewsets.GenericViewSet):
    """Published runs with their provenance; uploads and withdrawals."""

    serializer_class = RunSerializer
    # Any id reaches the view, which answers 404 in the API's error body (a route that did
    # not match would be the site's HTML 404).
    lookup_value_regex = "[^/]+"
    throttle_scope = UPLOAD_SCOPE

    @extend_schema(
        parameters=filter_parameters(RunListFilter),
        responses={200: RunSerializer(many=True), 400: ERRORS[400]},
    )
    def list(self, request: Request, *args, **kwargs) -> Response:
        return super().list(request, *args, **kwargs)

    def get_queryset(self) -> QuerySet[Run]:
        filters = RunListFilter(self.request.query_params, queryset=Run.objects.none())
        if not filters.is_valid():
            raise query_errors(filters.errors)
        cleaned = filters.form.cleaned_data
        return selectors.runs_listed(
            drive=cleaned.get("drive") or "", source=cleaned.get("source") or ""
        )

    def get_serializer_class(self):
        return RunDetailSerializer if self.action == "retrieve" else RunSerializer

    @extend_schema(
        parameters=[RUN_ID],
        responses={
            200: RunDetailSerializer,
            404: OpenApiResponse(
                ErrorBodySerializer,
                description="No such published run (nor a held one of yours, by your token or "
                "session)",
            ),
        },
    )
    def retrieve(self, request: Request, *args, **kwargs) -> Response:
        response = super().retrieve(request, *args, **kwargs)
        if response.data.get("status") == Run.Status.HELD:
            # Its submitter's or staff's alone: kept by no cache.
            response["Cache-Control"] = "private, no-store"
            patch_vary_headers(response, ("Authorization", "Cookie"))
        return response

    def get_object(self) -> Run:
        try:
            return selectors.run_detail(pk=_run_id(self.kwargs["pk"]), user=self.request.user)
        except Run.DoesNotExist:
            raise NotFound() from None

    def get_permissions(self):
        if self.action in ("create", "fio"):
            return [MayUpload()]
        if self.action == "withdraw":
            return [MayWithdraw()]
        if self.action == "approve":
            return [IsStaff()]
        return super().get_permissions()

    def get_throttles(self):
        if self.action in ("create", "fio"):
            return [UploadThrottle()]
        return super().get_throttles()

    def get_parsers(self):
        # Called before self.action is set: the action from the route's method map.
        request = getattr(self, "request", None)
        method = request.method.lower() if request is not None else ""
        if getattr(self, "action_map", {}).get(method) in ("create", "fio"):
            return [RawDocumentParser(), LimitedMultiPartParser()]
        return super().get_parsers()

    def handle_exception(self, exc):
        if isinstance(exc, UnsupportedMediaType) and self.action in ("create", "fio"):
            exc = UnsupportedMediaType(
                self.request.content_type or "(none)",
                detail=UNSUPPORTED.format(media_type=self.request.content_type or "(none)"),
            )
        return super().handle_exception(exc)

    @_upload_schema(fio_only=False)
    def create(self, request: Request) -> Response:
        return self._upload(request, fio=None)

    @_upload_schema(fio_only=True)
    @action(detail=False, methods=["post"], url_path="fio")
    def fio(self, request: Request) -> Response:
        return self._upload(request, fio=True)

    def _upload(self, request: Request, *, fio: bool | None) -> Response:
        raw, fields = self._upload_content(request)
        key = request.headers.get("Idempotency-Key")
        if key is not None:
            key = key.strip(" \t")  # as HTTP reads a header's value

        def upload() -> tuple[Run, int, dict[str, Any]]:
            try:
                done = upload_ingest(raw=raw, submitter=request.user, fields=fields, fio=fio)
            except DocumentRejected as rejected:
                raise DocumentProblems(rejected) from rejected
            code = status.HTTP_201_CREATED if done.outcome.created else status.HTTP_200_OK
            return done.outcome.run, code, upload_body(done, request)

        replayed = False
        if key is None:
            _, code, body = upload()
        else:
            if (
                not 0 < len(key) <= IDEMPOTENCY_KEY_MAX
                or not key.isascii()
                or not key.isprintable()
            ):
                raise ValidationError([{"pointer": "/headers/Idempotency-Key", "message": BAD_KEY}])
            fingerprint = hashlib.sha256()
            for part in (request.path, fio, sorted(fields.items())):
                fingerprint.update(repr(part).encode() + b"\0")
            fingerprint.update(raw)
            try:
                kept = upload_idempotent(
                    user=request.user, key=key, fingerprint=fingerprint.hexdigest(), upload=upload
                )
            except IdempotencyConflict as conflict:
                raise IdempotencyKeyReused(str(conflict)) from conflict
            code, body, replayed = kept.status_code, kept.body, kept.replayed
            if kept.replayed and kept.run.status != Run.Status.PUBLISHED:
                # Withdrawn since: the run as it is now, as an upload without the key gets
                # it (no url, no Location), not a link to what is gone.
                body = {
                    **body,
                    "run": OwnRunSerializer(kept.run, context={"request": request}).data,
                }
        headers = {"Location": body["run"]["url"]} if body["run"]["url"] else {}
        if replayed:
            # The first response to this key, given again: a client can tell "uploaded"
            # from "already uploaded" (loadgen's key is the document's hash).
            headers[REPLAYED_HEADER] = "true"
        return Response(body, status=code, headers=headers)

    def _upload_content(self, request: Request) -> tuple[bytes, dict[str, str]]:
        """The uploaded bytes and the fields beside them (fio's drive: query parameters, or
        the form's fields)."""
        data = request.data
        fields = {
            name: request.query_params[name]
            for name in (*FIO_DRIVE_FIELDS, "drive_state")
            if name in request.query_params
        }
        if isinstance(data, bytes):
            raw = data
        elif request.content_type.startswith("multipart/form-data"):
            upload = request.FILES.get(UPLOAD_FIELD)
            if upload is None:
                raise ValidationError([{"pointer": f"/form/{UPLOAD_FIELD}", "message": NO_FILE}])
            if upload.size > settings.BENCH_MAX_DOCUMENT_BYTES:
                raise PayloadTooLarge(
                    TOO_LARGE.format(size=upload.size, limit=settings.BENCH_MAX_DOCUMENT_BYTES)
                )
            raw = upload.read()
            fields.update(
                {n: v for n, v in data.items() if n in (*FIO_DRIVE_FIELDS, "drive_state")}
            )
        else:
            raw = b""
        if not raw:
            raise ValidationError([{"pointer": "", "message": EMPTY_BODY}])
        return raw, fields

    @extend_schema(
        request=WithdrawSerializer,
        parameters=[RUN_ID],
        responses=_run_action_responses("Withdrawn already", 400, 401, 403),
    )
    @action(detail=True, methods=["post"])
    def withdraw(self, request: Request, pk: str) -> Response:
        run = _run_acted_on(pk)
        self.check_object_permissions(request, run)
        form = WithdrawSerializer(data=request.data if isinstance(request.data, dict) else {})
        if not form.is_valid():
            errors = form.errors.get("reason") or [NO_REASON]
            message = (
                NO_REASON
                if "required" in str(errors[0]) or "blank" in str(errors[0])
                else errors[0]
            )
            raise ValidationError([{"pointer": "/reason", "message": str(message)}])
        if run.status == Run.Status.WITHDRAWN:
            raise Conflict(
                ALREADY_WITHDRAWN.format(pk=run.pk, when=f"{run.withdrawn_at:%Y-%m-%d %H:%M} UTC")
            )
        try:
            run = run_withdraw(run=run, reason=form.validated_data["reason"], by=request.user)
        except ValueError as withdrawn:  # by a concurrent request, since the check above
            raise Conflict(str(withdrawn)) from withdrawn
        return Response(OwnRunSerializer(run, context={"request": request}).data)

    @extend_schema(
        request=None,
        parameters=[RUN_ID],
        responses=_run_action_responses("Not held for review", 401, 403),
    )
    @action(detail=True, methods=["post"])
    def approve(self, request: Request, pk: str) -> Response:
        """Publish a run held for review (staff): it enters the rankings and its drive's
        latest figures."""
        run = _run_acted_on(pk)
        try:
            run = run_approve(run=run)
        except ValueError as not_held:
            raise Conflict(str(not_held)) from not_held
        return Response(OwnRunSerializer(run, context={"request": request}).data)


class OwnRunViewSet(mixins.ListModelMixin, viewsets.GenericViewSet):
    """The signed-in user's uploads, withdrawn ones too, each with its status."""

    serializer_class = OwnRunSerializer
    permission_classes = [IsAuthenticated]

    def get_queryset(self) -> QuerySet[Run]:
        return selectors.runs_of_submitter(user_id=self.request.user.pk)

    def finalize_response(self, request, response, *args, **kwargs):
        response = super().finalize_response(request, response, *args, **kwargs)
        # One user's list: never kept by a shared cache, asked again each time.
        response["Cache-Control"] = "private, no-cache"
        patch_vary_headers(response, ("Authorization", "Cookie"))
        return response
