"""An upload, as the API and the upload form receive it: a result document, or fio's JSON
output with the drive it ran on given beside it. Either way it goes in through
results.services.run_ingest (fio's through results.importers.fio.fio_ingest).

fio cannot know which drive it measured, so an upload of fio's output names it in fields
beside the file: query parameters of the API request, fields of the form
(FIO_DRIVE_FIELDS, the result document's drive block; drive_state as in a document).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from jsonschema import Draft7Validator

from core.filters import whole_number_text
from results import documents
from results.documents import DocumentProblem, DocumentRejected
from results.importers.fio import FioConversion, fio_ingest, is_fio_output
from results.services import IngestOutcome, run_ingest, upload_turn

FIO_DRIVE_FIELDS = (
    "slug",
    "manufacturer",
    "model",
    "capacity_bytes",
    "part_number",
    "hardware_revision",
    "kind",
    "interface",
    "firmware",
)
INTEGER_FIELDS = ("capacity_bytes",)
FIO_NEEDS_DRIVE = (
    "fio's output does not say which drive it measured: name it beside it, by the catalog "
    "drive's slug (slug) or by manufacturer and model (query parameters of the API request, "
    "fields of the upload form)"
)
NOT_BYTES = "must be a whole number of bytes (e.g. 240057409536), not {value}"


@dataclass(frozen=True)
class Upload:
    outcome: IngestOutcome
    fio: FioConversion | None  # the jobs mapped and not, for fio's output


def drive_namings() -> list[tuple[str, ...]]:
    """The ways a drive block names a drive: the sets of fields one of which it must hold
    (the result document's schema, drive's anyOf): the slug, or manufacturer and model."""
    drive = documents.schema()["properties"]["drive"]
    return [tuple(alternative["required"]) for alternative in drive["anyOf"]]


def fio_field_schema(name: str) -> dict[str, Any]:
    """What a field beside fio's output may hold, for the API's schema: the value the result
    document's schema allows at its place (drive/<name>, or drive_state), or nothing (an
    empty field is left out). None is required alone: drive_namings says which go together."""
    document = documents.schema()
    place = document if name == "drive_state" else document["properties"]["drive"]
    value = dict(place["properties"][name])
    while "$ref" in value:  # "#/$defs/<name>"
        value = dict(document["$defs"][value.pop("$ref").rsplit("/", 1)[1]], **value)
    if "enum" in value and "type" not in value:
        value["type"] = "string"
    return {"anyOf": [value, {"type": "string", "maxLength": 0}]}


def field_problems(fields: Mapping[str, str]) -> list[DocumentProblem]:
    """What is wrong with the fields beside an upload, each against what fio_field_schema
    says it may hold (a whole number of bytes read as JSON writes a number)."""
    problems = []
    for name, value in fields.items():
        if name not in (*FIO_DRIVE_FIELDS, "drive_state") or not isinstance(value, str):
            continue
        number = whole_number_text(value) if name in INTEGER_FIELDS else None
        read = value if number is None else number
        pointer = "/drive_state" if name == "drive_state" else f"/drive/{name}"
        for error in Draft7Validator(fio_field_schema(name)).iter_errors(read):
            problems.append(DocumentProblem(pointer, error.message))
    return problems


def fio_drive(fields: Mapping[str, str]) -> dict[str, Any]:
    """The drive block of a fio upload from the fields beside it (empty ones left out).
    Whole numbers where the schema wants them; anything else is left for the schema to
    reject at its pointer (/drive/<field>)."""
    drive: dict[str, Any] = {}
    problems = []
    for name in FIO_DRIVE_FIELDS:
        value = fields.get(name, "")
        if not isinstance(value, str) or not value.strip():
            continue
        value = value.strip()
        if name in INTEGER_FIELDS:
            number = whole_number_text(value)
            if number is None:
                problem = NOT_BYTES.format(value=documents.quote(value))
                problems.append(DocumentProblem(f"/drive/{name}", problem))
            else:
                drive[name] = number
            continue
        drive[name] = value
    if not any(all(name in drive for name in names) for names in drive_namings()):
        problems.insert(0, DocumentProblem("/drive", FIO_NEEDS_DRIVE))
    if problems:
        raise DocumentRejected(problems)
    return drive


def upload_ingest(
    *, raw: bytes, submitter: AbstractBaseUser, fields: Mapping[str, str], fio: bool | None = None
) -> Upload:
    """Ingest an upload, in its turn (results.services.upload_turn). fio: True for fio's
    output, False for a result document, None to tell by its content
    (results.importers.fio.is_fio_output). Raises DocumentRejected."""
    with transaction.atomic():
        upload_turn()
        return _ingest(raw=raw, submitter=submitter, fields=fields, fio=fio)


def _ingest(
    *, raw: bytes, submitter: AbstractBaseUser, fields: Mapping[str, str], fio: bool | None
) -> Upload:
    if fio is None:
        fio = is_fio_output(raw)
    if not fio:
        # A result document names its own drive: the fields beside it are fio's, unused,
        # but a value no fio upload could give is refused all the same, not ignored.
        problems = field_problems(fields)
        if problems:
            raise DocumentRejected(problems)
        return Upload(run_ingest(document=raw, submitter=submitter), None)
    drive_state = fields.get("drive_state") or "unknown"
    imported = fio_ingest(
        fio_json=raw, drive=fio_drive(fields), drive_state=drive_state, submitter=submitter
    )
    return Upload(imported.outcome, imported.conversion)
