"""Reads of the drive catalog for pages and the API."""

import datetime
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from decimal import Decimal

from django.conf import settings
from django.db.models import QuerySet

from core.db import Shape, attach, prepared_rows
from core.filters import FilterSet
from core.links import page_urls
from drives.catalog_index import ORDERS, catalog_index, drives_streamed
from drives.filters import search_q
from drives.models import (
    Controller,
    Drive,
    Manufacturer,
    NandType,
    controller_name,
    drive_name,
    nand_name,
)


def drive_list(*, drives: QuerySet[Drive] | None = None) -> QuerySet[Drive]:
    """Real drives (`drives`, e.g. filtered by DriveFilter, or all) in the catalog's order:
    the list drive_page reads (with the same filters written as SQL), as a queryset, for the
    API's filter and ordering backends and the tests."""
    base = drives if drives is not None else Drive.objects.all()
    # No select_related: drive_page reads the list's ids, its rows are read apart.
    return base.real().order_by("sort_name", "capacity_bytes", "pk")


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


@dataclass(slots=True)
class Named:
    """A related catalog entry as a list shows it: its slug and its name."""

    slug: str
    name: str

    def __str__(self) -> str:
        return self.name


_KINDS = dict(Drive.Kind.choices)
_INTERFACES = dict(Drive.Interface.choices)


@dataclass(slots=True)
class CatalogRow:
    """A drive as the catalog lists it (the catalog page, the API's drives): its specs, its
    maker, controller and NAND named, its latest USD price. Plain columns, not instances:
    a list shows 50 to 500 drives a request."""

    slug: str
    manufacturer: Named
    model: str
    capacity_bytes: int | None
    part_number: str
    hardware_revision: str
    kind: str
    interface: str
    form_factor: str
    controller: Named | None
    nand: Named | None
    cell_type: str | None
    dram_bytes: int | None
    release_date: datetime.date | None
    synthetic: bool
    needs_review: bool  # an upload created it; staff have not approved it
    latest_price: Decimal | None
    url: str  # its page

    def __str__(self) -> str:
        return drive_name(
            self.manufacturer.name, self.model, self.capacity_bytes, self.hardware_revision
        )

    def get_absolute_url(self) -> str:
        return self.url

    def get_kind_display(self) -> str:
        return _KINDS.get(self.kind, self.kind)

    def get_interface_display(self) -> str:
        return _INTERFACES.get(self.interface, self.interface)


# The orders a drive list can be read in (DriveViewSet.ordering_fields, and the catalog's
# own): names of catalog_index.ORDERS and "pk", "-" for descending.
DRIVE_ORDERS = (*ORDERS, "pk")
CATALOG_ORDER = ("sort_name", "capacity_bytes", "pk")  # drive_list's


def drive_page(
    *,
    filters: FilterSet | None = None,
    order: Sequence[str] = CATALOG_ORDER,
    offset: int,
    limit: int,
) -> tuple[int, list[CatalogRow]]:
    """How many real drives a (valid) DriveFilter `filters` keeps (all without one), and
    `limit` of them from `offset` as CatalogRows, in `order` (names of DRIVE_ORDERS; the
    catalog's by default); none from an offset beyond the last, however large. Read from
    the process's copy of the list (catalog_index): one statement checks that it is
    current."""
    return _page(catalog_index(), filters, order, offset, limit)


def _page(index, filters, order, offset: int, limit: int) -> tuple[int, list[CatalogRow]]:
    keep = filters.mask(index.drives) if filters is not None else None
    return index.page(
        keep, order, offset, limit, real=not settings.BENCH_SHOW_SYNTHETIC, row=_catalog_row
    )


@dataclass(frozen=True, slots=True)
class CatalogPage:
    """A page of the catalog (drive_page in the catalog's order), and the controllers its
    filter form offers, read from one copy."""

    total: int
    rows: list[CatalogRow]
    controllers: list[tuple[str, str]]


def catalog_page(*, filters: FilterSet | None = None, offset: int, limit: int) -> CatalogPage:
    """drive_page(filters=filters, offset=offset, limit=limit) and controllers(), from the
    same copy: one statement checks that it is current."""
    index = catalog_index()
    total, rows = _page(index, filters, CATALOG_ORDER, offset, limit)
    return CatalogPage(total, rows, index.controllers)


def drive_rows_streamed(*, batch: int) -> Iterator[list[CatalogRow]]:
    """The whole of drive_page's list without a filter (every real drive, in the catalog's
    order, as CatalogRows), `batch` at a time, read from PostgreSQL as it goes rather than
    from the process's copy: for a reader of every drive (the open-data dump), which then
    holds one batch of them at a time."""
    url = page_urls("bench:drive")
    real = not settings.BENCH_SHOW_SYNTHETIC
    for values in drives_streamed(real=real, order=CATALOG_ORDER, batch=batch):
        yield [_catalog_row(v, url) for v in values]


def catalog_row(slug: str) -> CatalogRow | None:
    """The real drive of this slug as the drive list shows it, or None."""
    return catalog_index().find(slug, real=not settings.BENCH_SHOW_SYNTHETIC, row=_catalog_row)


def _catalog_row(v: dict, url: Callable[[str], str]) -> CatalogRow:
    """The CatalogRow of a drive in the list's copy (catalog_index: its columns' values)."""
    controller = nand = None
    if v["controller__slug"] is not None:
        name = controller_name(v["controller__vendor__name"], v["controller__model"])
        controller = Named(v["controller__slug"], name)
    if v["nand__slug"] is not None:
        name = nand_name(
            v["nand__vendor__name"],
            v["nand__process_nm"],
            v["nand__layers"],
            v["nand__cell_type"],
            v["nand__interface"],
        )
        nand = Named(v["nand__slug"], name)
    release, price = v["release_date"], v["latest_price"]
    return CatalogRow(
        slug=v["slug"],
        manufacturer=Named(v["manufacturer__slug"], v["manufacturer__name"]),
        model=v["model"],
        capacity_bytes=v["capacity_bytes"],
        part_number=v["part_number"],
        hardware_revision=v["hardware_revision"],
        kind=v["kind"],
        interface=v["interface"],
        form_factor=v["form_factor"],
        controller=controller,
        nand=nand,
        cell_type=v["nand__cell_type"],
        dram_bytes=v["dram_bytes"],
        release_date=datetime.date.fromisoformat(release) if release is not None else None,
        synthetic=v["synthetic"],
        needs_review=v["needs_review"],
        latest_price=Decimal(price) if price is not None else None,
        url=url(v["slug"]),
    )


def drive_search(text: str, *, limit: int) -> list[Drive]:
    """Listed drives whose name matches every word of `text`, for the pickers. One query."""
    return list(
        Drive.objects.real()
        .filter(search_q(text), listed=True)
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
    url: str  # its page

    def __str__(self) -> str:
        return self.name

    def get_absolute_url(self) -> str:
        return self.url


# A drive's label as one row: id, slug, maker, model, capacity, revision, synthetic,
# configuration, its controller's maker and model (label_of).
LABEL_COLUMNS = """d.id, d.slug, m.name, d.model, d.capacity_bytes, d.hardware_revision,
       d.synthetic, d.configuration, cv.name, c.model"""
LABEL_TABLES = """drives_drive d
JOIN drives_manufacturer m ON m.id = d.manufacturer_id
LEFT JOIN drives_controller c ON c.id = d.controller_id
LEFT JOIN drives_manufacturer cv ON cv.id = c.vendor_id"""
_LABELS_SQL = f"SELECT {LABEL_COLUMNS} FROM {LABEL_TABLES} WHERE d.id = ANY(%s)"


def label_of(row: Sequence, url: Callable[[str], str]) -> DriveLabel:
    """The label of a row of LABEL_COLUMNS, linked by `url` (core.links.page_urls)."""
    _pk, slug, maker, model, capacity, revision, synthetic, configuration, vendor, ctl = row
    return DriveLabel(
        slug=slug,
        model=model,
        name=drive_name(maker, model, capacity, revision),
        capacity_bytes=capacity,
        synthetic=synthetic,
        configuration=configuration,
        controller=f"{vendor} {ctl}" if ctl is not None else "",
        url=url(slug),
    )


def drive_labels(ids: Sequence[int]) -> dict[int, DriveLabel]:
    """The labels of these drives, by id. One prepared statement, whatever the ids."""
    if not ids:
        return {}
    _, rows = prepared_rows(Drive, _LABELS_SQL, [list(ids)])
    url = page_urls("bench:drive")
    return {row[0]: label_of(row, url) for row in rows}


# Every controller as [slug, name], by maker and model, as one JSON value: a scalar
# subquery the statements of pages with filter forms read with their own (rankings, value).
CONTROLLER_CHOICES_JSON = """(
  SELECT json_agg(json_build_array(c.slug, m.name || ' ' || c.model) ORDER BY m.name, c.model)
  FROM drives_controller c JOIN drives_manufacturer m ON m.id = c.vendor_id)"""


def controller_choices(value: list | None) -> list[tuple[str, str]]:
    """(slug, name) of every controller, for filter forms, from CONTROLLER_CHOICES_JSON."""
    return [(slug, name) for slug, name in value or []]


def controllers() -> list[tuple[str, str]]:
    """controller_choices, as the catalog's copy holds them: the statement that checks the
    copy is current (catalog_page reads them with a page of the catalog)."""
    return catalog_index().controllers
