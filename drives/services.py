"""Writes of the drive catalog."""

from dataclasses import dataclass
from typing import Any

from django.db import transaction

from drives.models import Controller, Drive, Manufacturer, NandType, Price

DRIVE_SPEC_FIELDS = (
    "model",
    "capacity_bytes",
    "part_number",
    "hardware_revision",
    "kind",
    "interface",
    "form_factor",
    "dram_bytes",
    "release_date",
)


@dataclass
class CatalogCounts:
    manufacturers: int = 0
    controllers: int = 0
    nand_types: int = 0
    drives: int = 0
    prices: int = 0


def _upsert(model, *, slug: str, fields: dict[str, Any]):
    """Create the row with this slug, or bring an existing one up to date."""
    obj = model.objects.filter(slug=slug).first() or model(slug=slug)
    for name, value in fields.items():
        setattr(obj, name, value)
    obj.full_clean(validate_constraints=False)
    obj.save()
    return obj


def catalog_load(*, data: dict[str, Any]) -> CatalogCounts:
    """Load catalog data (the format of demo/catalog.json), idempotently, in one transaction.

    Rows are matched by slug (prices by drive, currency, date and source) and updated in
    place, so loading the same data twice changes nothing.
    """
    counts = CatalogCounts()
    with transaction.atomic():
        makers = {}
        for spec in data.get("manufacturers", []):
            fields = {"name": spec["name"], "website": spec.get("website", "")}
            makers[spec["slug"]] = _upsert(Manufacturer, slug=spec["slug"], fields=fields)
            counts.manufacturers += 1
        controllers = {}
        for spec in data.get("controllers", []):
            fields = {
                "vendor": makers[spec["vendor"]],
                "model": spec["model"],
                "channels": spec.get("channels"),
                "compresses_data": spec.get("compresses_data", False),
            }
            controllers[spec["slug"]] = _upsert(Controller, slug=spec["slug"], fields=fields)
            counts.controllers += 1
        nand_types = {}
        for spec in data.get("nand_types", []):
            fields = {
                "vendor": makers[spec["vendor"]] if spec.get("vendor") else None,
                "process_nm": spec.get("process_nm"),
                "cell_type": spec["cell_type"],
                "interface": spec.get("interface", NandType.Interface.UNKNOWN),
                "layers": spec.get("layers"),
            }
            nand_types[spec["slug"]] = _upsert(NandType, slug=spec["slug"], fields=fields)
            counts.nand_types += 1
        drives = {}
        for spec in data.get("drives", []):
            fields = {name: spec[name] for name in DRIVE_SPEC_FIELDS if name in spec}
            fields["manufacturer"] = makers[spec["manufacturer"]]
            fields["controller"] = (
                controllers[spec["controller"]] if spec.get("controller") else None
            )
            fields["nand"] = nand_types[spec["nand"]] if spec.get("nand") else None
            drives[spec["slug"]] = _upsert(Drive, slug=spec["slug"], fields=fields)
            counts.drives += 1
        for spec in data.get("prices", []):
            drive = drives.get(spec["drive"]) or Drive.objects.get(slug=spec["drive"])
            price, _ = Price.objects.get_or_create(
                drive=drive,
                currency=spec.get("currency", "USD"),
                observed_on=spec["observed_on"],
                source=spec["source"],
                defaults={"amount": spec["amount"], "source_url": spec.get("source_url", "")},
            )
            price.full_clean()
            counts.prices += 1
    return counts
