"""Reads of the drive catalog for pages and the API."""

from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal

import orjson
from django.db.models import QuerySet

from drives.db import Shape, attach, prepared_rows
from drives.filters import search_q
from drives.links import page_url
from drives.models import Controller, Drive, Manufacturer, NandType, Price, drive_name


def drive_list(*, drives: QuerySet[Drive] | None = None) -> QuerySet[Drive]:
    """Real drives (`drives`, e.g. filtered by DriveFilter, or all) with their specs, for the
    catalog page and the API's drive list; give the page shown its prices with
    with_latest_prices (a price lookup for every drive of a 10,000-drive catalog, before the
    sort that picks the page, cost more than the rest of the list)."""
    base = drives if drives is not None else Drive.objects.all()
    return (
        base.real()
        .with_specs()
        .select_related("nand")
        .order_by("sort_name", "capacity_bytes", "pk")
    )


# A drive with its specs (maker, controller and its vendor, NAND and its vendor) as
# SPECS_COLUMNS of SPECS_TABLES (the drive aliased d), read back by drive_with_specs.
_DRIVE = Shape(
    Drive,
    "d",
    [
        f.name
        for f in Drive._meta.concrete_fields
        if f.name not in ("created_at", "updated_at", "search_text", "sort_name")
    ],
)
_MAKER = Shape(Manufacturer, "m")
_CONTROLLER = Shape(Controller, "c")
_CONTROLLER_VENDOR = Shape(Manufacturer, "cv")
_NAND = Shape(NandType, "n")
_NAND_VENDOR = Shape(Manufacturer, "nv")
SPECS_COLUMNS = ", ".join(
    (
        _DRIVE.array,
        _MAKER.array,
        _CONTROLLER.optional,
        _CONTROLLER_VENDOR.optional,
        _NAND.optional,
        _NAND_VENDOR.optional,
    )
)
SPECS_TABLES = """drives_drive d
JOIN drives_manufacturer m ON m.id = d.manufacturer_id
LEFT JOIN drives_controller c ON c.id = d.controller_id
LEFT JOIN drives_manufacturer cv ON cv.id = c.vendor_id
LEFT JOIN drives_nandtype n ON n.id = d.nand_id
LEFT JOIN drives_manufacturer nv ON nv.id = n.vendor_id"""
SPECS_WIDTH = 6  # arrays of SPECS_COLUMNS


def drive_with_specs(values: Sequence, alias: str) -> Drive:
    """The drive of the SPECS_COLUMNS of one row, its relations in place (no query reads
    them)."""
    drive = _DRIVE.build(values[0], alias)
    attach(drive, "manufacturer", _MAKER.build(values[1], alias))
    controller = _CONTROLLER.build(values[2], alias)
    if controller is not None:
        attach(controller, "vendor", _CONTROLLER_VENDOR.build(values[3], alias))
    attach(drive, "controller", controller)
    nand = _NAND.build(values[4], alias)
    if nand is not None:
        attach(nand, "vendor", _NAND_VENDOR.build(values[5], alias))
    attach(drive, "nand", nand)
    return drive


_ROWS_SQL = f"""
SELECT json_build_array({SPECS_COLUMNS},
  (SELECT p.amount::text FROM drives_price p WHERE p.drive_id = d.id AND p.currency = 'USD'
   ORDER BY p.observed_on DESC, p.amount LIMIT 1))::text
FROM {SPECS_TABLES}
WHERE d.id = ANY(%s)
"""


def drive_rows(ids: Sequence[int]) -> list[Drive]:
    """The drives of a page chosen by id (from drive_list(...).values_list("pk")), in that
    order, with their specs and latest USD price (`latest_price`). Sorting and counting only
    ids first keeps the wide joined rows out of the sort; then one prepared statement."""
    if not ids:
        return []
    alias, rows = prepared_rows(Drive, _ROWS_SQL, [list(ids)])
    found = {}
    for values in (orjson.loads(row[0]) for row in rows):
        drive = drive_with_specs(values, alias)
        price = values[SPECS_WIDTH]
        drive.latest_price = Decimal(price) if price is not None else None
        found[drive.pk] = drive
    return [found[pk] for pk in ids if pk in found]


def with_latest_prices(drives: Sequence[Drive]) -> Sequence[Drive]:
    """Each drive with its latest USD price as `latest_price` (None without one). One query."""
    ids = [d.pk for d in drives]
    latest = (
        dict(
            Price.objects.filter(drive_id__in=ids, currency="USD")
            .order_by("drive_id", "-observed_on", "amount")
            .distinct("drive_id")
            .values_list("drive_id", "amount")
        )
        if ids
        else {}
    )
    for drive in drives:
        drive.latest_price = latest.get(drive.pk)
    return drives


def drive_search(text: str, *, limit: int) -> list[Drive]:
    """Drives whose name matches every word of `text`, for the pickers. One query."""
    return list(
        Drive.objects.real()
        .filter(search_q(text))
        .select_related("manufacturer")
        .order_by("sort_name", "capacity_bytes", "pk")[:limit]
    )


def drive_match(text: str, *, limit: int) -> tuple[Drive | None, list[Drive]]:
    """The drive that `text` names (its slug, or its full name, or the only match of a
    search) and the candidates when it names none for certain."""
    exact = Drive.objects.real().select_related("manufacturer").filter(slug=text).first()
    if exact:
        return exact, [exact]
    candidates = drive_search(text, limit=limit)
    named = [d for d in candidates if str(d).lower() == text.lower()]
    if len(named) == 1:
        return named[0], candidates
    return (candidates[0] if len(candidates) == 1 else None), candidates


@dataclass(slots=True)
class DriveLabel:
    """What a list of many drives shows of each (a ranking, a value scatter): its name and
    link, capacity, whether it is synthetic or a configuration, and its controller's name
    ("" without one). Read as plain columns (LABEL_COLUMNS), not as model instances."""

    slug: str
    model: str
    name: str
    capacity_bytes: int | None
    synthetic: bool
    configuration: bool
    controller: str

    def __str__(self) -> str:
        return self.name

    def get_absolute_url(self) -> str:
        return page_url("bench:drive", self.slug)


_LABELS_SQL = """
SELECT d.id, d.slug, m.name, d.model, d.capacity_bytes, d.hardware_revision, d.synthetic,
       d.configuration, cv.name, c.model
FROM drives_drive d
JOIN drives_manufacturer m ON m.id = d.manufacturer_id
LEFT JOIN drives_controller c ON c.id = d.controller_id
LEFT JOIN drives_manufacturer cv ON cv.id = c.vendor_id
WHERE d.id = ANY(%s)
"""


def drive_labels(ids: Sequence[int]) -> dict[int, DriveLabel]:
    """The labels of these drives, by id. One prepared statement, whatever the ids."""
    if not ids:
        return {}
    _, rows = prepared_rows(Drive, _LABELS_SQL, [list(ids)])
    labels = {}
    for pk, slug, maker, model, capacity, revision, synthetic, configuration, *ctl in rows:
        vendor, controller = ctl
        labels[pk] = DriveLabel(
            slug=slug,
            model=model,
            name=drive_name(maker, model, capacity, revision),
            capacity_bytes=capacity,
            synthetic=synthetic,
            configuration=configuration,
            controller=f"{vendor} {controller}" if controller is not None else "",
        )
    return labels


_CONTROLLER_CHOICES_SQL = """
SELECT c.slug, m.name || ' ' || c.model FROM drives_controller c
JOIN drives_manufacturer m ON m.id = c.vendor_id ORDER BY m.name, c.model
"""


def controller_choices() -> list[tuple[str, str]]:
    """(slug, name) of every controller, by maker and model, for filter forms. One prepared
    statement."""
    return prepared_rows(Controller, _CONTROLLER_CHOICES_SQL)[1]
