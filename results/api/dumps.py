"""The open-data dumps in the API: GET /api/v1/dumps/, the dumps published (results/dumps.py),
newest first, each with its files' addresses, sizes, rows and checksums, its licence and
how to cite it; the page /data/ lists the same."""

from __future__ import annotations

from typing import Any

from django.urls import reverse
from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from results.dumps import LATEST, LICENCE, MANIFEST, Dump, DumpFile, dumps_listed


class LicenceSerializer(serializers.Serializer):
    id = serializers.CharField(help_text="Its SPDX identifier")
    name = serializers.CharField()
    url = serializers.URLField()


class DumpFileSerializer(serializers.Serializer):
    name = serializers.CharField()
    table = serializers.CharField(
        help_text="The table it holds (documents: the raw documents; manifest: the manifest)"
    )
    format = serializers.ChoiceField(choices=["parquet", "csv", "jsonl", "json"])
    media_type = serializers.CharField()
    rows = serializers.IntegerField(min_value=0, help_text="Rows (documents: lines)")
    bytes = serializers.IntegerField(min_value=0)
    sha256 = serializers.RegexField(r"^[0-9a-f]{64}$", help_text="SHA-256 of the file, hex")
    url = serializers.URLField(help_text="Its address, which never changes")


class DumpTableSerializer(serializers.Serializer):
    name = serializers.CharField()
    description = serializers.CharField()
    rows = serializers.IntegerField(min_value=0)


class DumpSerializer(serializers.Serializer):
    """A published dump, as its manifest describes it."""

    name = serializers.CharField(help_text="Its date, and a sequence number after the first")
    date = serializers.DateField()
    sequence = serializers.IntegerField(min_value=1)
    created_at = serializers.CharField(help_text="When it was taken (UTC, ISO 8601)")
    schema_version = serializers.IntegerField(min_value=1)
    url = serializers.URLField(help_text="Its page on the site")
    bytes = serializers.IntegerField(min_value=0, help_text="Its files' size, the manifest aside")
    licence = LicenceSerializer()
    citation = serializers.CharField(help_text="How to cite it")
    manifest = DumpFileSerializer()
    tables = DumpTableSerializer(many=True)
    files = DumpFileSerializer(many=True)


class DumpListSerializer(serializers.Serializer):
    count = serializers.IntegerField(min_value=0)
    licence = LicenceSerializer(help_text="The data's licence")
    latest = serializers.URLField(
        allow_null=True,
        help_text="The newest dump's manifest at its fixed address; its other files are "
        "beside it, by name (null: no dump yet)",
    )
    results = DumpSerializer(many=True, help_text="Newest first")


def _file(file: DumpFile, request: Request) -> dict[str, Any]:
    fields = ("name", "table", "format", "media_type", "rows", "bytes", "sha256")
    return {
        **{name: getattr(file, name) for name in fields},
        "url": request.build_absolute_uri(file.path),
    }


def _dump(dump: Dump, request: Request) -> dict[str, Any]:
    return {
        "name": dump.name,
        "date": dump.date,
        "sequence": dump.sequence,
        "created_at": dump.created_at,
        "schema_version": dump.schema_version,
        "url": request.build_absolute_uri(dump.path),
        "bytes": dump.bytes,
        "licence": dump.licence,
        "citation": dump.citation,
        "manifest": _file(dump.manifest, request),
        "tables": dump.tables,
        "files": [_file(f, request) for f in dump.files],
    }


class DumpListView(APIView):
    """The open-data dumps published, newest first (results/dumps.py)."""

    @extend_schema(
        summary="Open-data dumps",
        description="Every dump of the site's published data still kept, newest first: its "
        "files (Parquet, CSV, the raw documents as JSON Lines, the manifest) with their "
        "addresses, sizes, rows and SHA-256, its licence and how to cite it. The newest is "
        "also at a fixed address (`latest`).",
        responses={200: DumpListSerializer},
    )
    def get(self, request: Request) -> Response:
        dumps = dumps_listed()
        latest = None
        if dumps:
            latest = request.build_absolute_uri(reverse("bench:data_file", args=[LATEST, MANIFEST]))
        body = {
            "count": len(dumps),
            "licence": LICENCE,
            "latest": latest,
            "results": [_dump(d, request) for d in dumps],
        }
        return Response(DumpListSerializer(body).data)
