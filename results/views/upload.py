"""The upload form: a signed-in reviewer sends a result document or fio's JSON output.

The same path as the API's upload (results.uploads.upload_ingest, the same throttle); each
problem is shown with the JSON pointer it is about; success lands on the run on its drive's
page. CSRF-protected as every form.
"""

from __future__ import annotations

from django import forms
from django.conf import settings
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import render
from django.views.decorators.http import require_http_methods

from results.api.runs import UPLOAD_SCOPE, UploadThrottle
from results.documents import TOO_LARGE, DocumentProblem, DocumentRejected
from results.models import Run
from results.permissions import is_reviewer
from results.uploads import upload_ingest

NOTHING_SENT = "paste a result document or choose a file"
BOTH_SENT = "send either pasted text or a file, not both"
THROTTLED = "too many uploads in a short time; try again in {seconds} seconds"


class UploadForm(forms.Form):
    document = forms.CharField(
        label="Result document or fio JSON",
        widget=forms.Textarea(attrs={"rows": 12}),
        required=False,
        strip=False,
    )
    file = forms.FileField(label="…or a file", required=False)
    slug = forms.CharField(
        required=False,
        max_length=255,
        label="Slug",
        help_text="the catalog drive's, the last part of its page's address: names it alone",
    )
    manufacturer = forms.CharField(required=False, max_length=200)
    model = forms.CharField(required=False, max_length=200)
    capacity_bytes = forms.CharField(required=False, max_length=30, label="Capacity (bytes)")
    firmware = forms.CharField(required=False, max_length=100)

    def clean(self):
        data = super().clean()
        if not self.errors:
            text, upload = data.get("document"), data.get("file")
            if text and upload:
                raise forms.ValidationError(BOTH_SENT)
            if not text and not upload:
                raise forms.ValidationError(NOTHING_SENT)
            if upload and upload.size > settings.BENCH_MAX_DOCUMENT_BYTES:
                raise forms.ValidationError(
                    TOO_LARGE.format(size=upload.size, limit=settings.BENCH_MAX_DOCUMENT_BYTES)
                )
        return data

    def raw(self) -> bytes:
        upload = self.cleaned_data.get("file")
        if upload:
            return upload.read()
        return self.cleaned_data["document"].encode("utf-8", "surrogatepass")


class _ThrottleScope:
    throttle_scope = UPLOAD_SCOPE


@login_required
@require_http_methods(["GET", "POST"])
def upload(request: HttpRequest) -> HttpResponse:
    if not is_reviewer(request.user):
        return render(request, "bench/upload.html", {"not_reviewer": True}, status=403)
    problems: list[DocumentProblem] = []
    note = ""  # what is checked once the document passes the schema
    held: Run | None = None  # an upload stored but held for review (results.plausibility)
    warnings: list[str] = []  # what it is told beside (results.loadgen)
    status = 200
    if request.method == "POST":
        form = UploadForm(request.POST, request.FILES)
        throttle = UploadThrottle()
        if not throttle.allow_request(request, _ThrottleScope()):
            wait = int(throttle.wait() or 1)
            form.add_error(None, THROTTLED.format(seconds=wait))
            status = 429
        elif form.is_valid():
            fields = {k: v for k, v in form.cleaned_data.items() if k not in ("document", "file")}
            try:
                done = upload_ingest(raw=form.raw(), submitter=request.user, fields=fields)
            except DocumentRejected as rejected:
                problems, note = rejected.problems, rejected.note
            else:
                run = done.outcome.run
                if run.status != Run.Status.HELD:  # its page says what the upload is told
                    return HttpResponseRedirect(run.get_absolute_url())
                held, form = run, UploadForm()  # stored: the reasons, and a fresh form
                warnings = list(done.outcome.warnings)
        status = status if status != 200 or held else 400
    else:
        form = UploadForm()
    context = {
        "form": form,
        "problems": problems,
        "problems_note": note,
        "held": held,
        "warnings": warnings,
        "limit": settings.BENCH_MAX_DOCUMENT_BYTES,
    }
    return render(request, "bench/upload.html", context, status=status)
