"""Writes of the drive catalog."""

from dataclasses import dataclass
from typing import Any

from django.db import IntegrityError, transaction
from django.utils.text import slugify

from drives.models import Controller, Drive, Manufacturer, NandType, Price, catalog_key

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
    "configuration",
    "unverified_specs",
)

# How often a lookup-then-create is retried after losing a race to a concurrent writer.
# One retry is enough for the row it lost to; a slug taken meanwhile can cost another.
RESOLVE_ATTEMPTS = 5

AMBIGUOUS_DRIVE = (
    "matches {count} drives in the catalog ({names}); add capacity_bytes, part_number or "
    "hardware_revision, or the drive's slug (slug), to pick one"
)
NO_SUCH_SLUG = "no drive in the catalog has the slug {slug}"
SLUG_IS_ANOTHER = "the drive of slug {slug} is {drive}, not this {field}"
# What a spec may narrow a drive model by, and each field's value on an entry that is not
# narrowed by it.
NARROWING = {"capacity_bytes": None, "hardware_revision": "", "part_number": ""}
PART_NUMBER_TAKEN = "part number {part} is {drive} in the catalog, not this drive"
PART_NUMBER_DIFFERS = (
    "the catalog holds this drive as {drive}, with part number {other}, not {part}"
)


# What the catalog says a drive is, which no document may restate otherwise: the envelope
# its figures are judged against (results.plausibility) follows from these.
CATALOG_DECIDES = ("kind", "interface")
CLAIM_DIFFERS = (
    'the catalog records {drive} with {field} "{catalog}", not "{claimed}": a document '
    "cannot change what the catalog says a drive is (leave {field} out, or name another "
    "drive)"
)


class DriveSpecProblem(Exception):
    """A drive spec that cannot name one catalog drive. `field` is the spec key at fault
    ("" for the spec as a whole); `message` says why in words for the submitter."""

    def __init__(self, field: str, message: str):
        self.field, self.message = field, message
        super().__init__(f"{field or 'drive'}: {message}")


def _unique_slug(model, base: str, max_length: int) -> str:
    base = slugify(base)[: max_length - 8].strip("-") or "item"
    slug, n = base, 1
    while model.objects.filter(slug=slug).exists():
        n += 1
        slug = f"{base}-{n}"
    return slug


def _retrying(resolve):
    """Run a lookup-then-create in a savepoint, again when a concurrent writer created the
    same row first (the unique constraint refuses ours; the next lookup finds theirs)."""
    for attempt in range(RESOLVE_ATTEMPTS):
        try:
            with transaction.atomic():
                return resolve()
        except IntegrityError:
            if attempt == RESOLVE_ATTEMPTS - 1:
                raise
    raise AssertionError("unreachable")


def manufacturer_resolve(*, name: str) -> Manufacturer:
    """The manufacturer of this name (compared by catalog_key), created when missing.
    Safe against concurrent callers creating the same manufacturer."""
    name = name.strip()

    def resolve() -> Manufacturer:
        found = Manufacturer.objects.filter(name_key=catalog_key(name)).first()
        if found is not None:
            return found
        maker = Manufacturer(name=name, slug=_unique_slug(Manufacturer, name, 100))
        maker.full_clean(validate_unique=False, validate_constraints=False)
        maker.save()
        return maker

    return _retrying(resolve)


def _as_catalog_says(drive: Drive, spec: dict[str, Any]) -> Drive:
    """The catalog drive a spec named, if the spec's kind and interface are the catalog's
    (CATALOG_DECIDES; an interface the catalog leaves blank the spec may state, which can
    only narrow the drive's envelope). Raises DriveSpecProblem at the field that differs."""
    for name in CATALOG_DECIDES:
        catalog, claimed = getattr(drive, name), spec.get(name)
        if claimed is not None and catalog and claimed != catalog:
            raise DriveSpecProblem(
                name,
                CLAIM_DIFFERS.format(drive=drive, field=name, catalog=catalog, claimed=claimed),
            )
    return drive


def drive_resolve(*, spec: dict[str, Any], review: bool = False) -> Drive:
    """The catalog drive a result document's `drive` object names, created when missing.

    A slug names one catalog drive exactly (it is never created); the spec's other fields
    must agree with it. Otherwise manufacturer and model pick the drive model (compared by
    catalog_key); capacity_bytes, hardware_revision and part_number, when given, narrow it
    to one SKU. A part number names one SKU: if the catalog has it, it must be this drive. A
    catalog drive with no part number matches any. Of several drives that match, the one
    narrowed by nothing the spec leaves out is the one it means (a document without a
    capacity names the catalog's entry without one). Raises DriveSpecProblem when the spec
    matches several drives (naming each with its slug) or contradicts the catalog. Safe
    against concurrent callers creating the same drive.
    review=True: a drive created here is flagged for staff review (needs_review), as drives
    named by an upload are.
    """
    return _retrying(lambda: _drive_resolve_once(spec, review))


def _by_slug(spec: dict[str, Any]) -> Drive:
    """The drive of the spec's slug, which every other field it gives must describe (a
    spec may give the slug alone)."""
    slug = spec["slug"]
    drive = Drive.objects.select_related("manufacturer").filter(slug=slug).first()
    if drive is None:
        raise DriveSpecProblem("slug", NO_SUCH_SLUG.format(slug=slug))
    stated = {
        "manufacturer": drive.manufacturer.name_key == catalog_key(spec["manufacturer"])
        if "manufacturer" in spec
        else True,
        "model": drive.model_key == catalog_key(spec["model"]) if "model" in spec else True,
        **{f: getattr(drive, f) == spec[f] for f in NARROWING if f in spec},
    }
    for field, agrees in stated.items():
        if not agrees:
            raise DriveSpecProblem(
                field, SLUG_IS_ANOTHER.format(slug=slug, drive=drive, field=field)
            )
    return drive


def _drive_resolve_once(spec: dict[str, Any], review: bool) -> Drive:
    if "slug" in spec:
        return _as_catalog_says(_by_slug(spec), spec)
    manufacturer = manufacturer_resolve(name=spec["manufacturer"])
    model = spec["model"].strip()
    key = catalog_key(model)
    part = spec.get("part_number", "")
    narrowing = {f: spec[f] for f in ("capacity_bytes", "hardware_revision") if f in spec}

    if part:
        owner = Drive.objects.filter(manufacturer=manufacturer, part_number=part).first()
        if owner is not None:
            if owner.model_key != key or any(
                getattr(owner, f) != value for f, value in narrowing.items()
            ):
                raise DriveSpecProblem(
                    "part_number", PART_NUMBER_TAKEN.format(part=part, drive=owner)
                )
            return _as_catalog_says(owner, spec)

    same_model = Drive.objects.filter(manufacturer=manufacturer, model_key=key).select_related(
        "manufacturer"
    )
    candidates = same_model.filter(**narrowing)
    if part:
        candidates = candidates.filter(part_number="")
    found = list(candidates[:6])
    if len(found) > 1:
        unnarrowed = {f: empty for f, empty in NARROWING.items() if not spec.get(f)}
        exact = list(candidates.filter(**unnarrowed)[:2])
        if len(exact) == 1:
            return _as_catalog_says(exact[0], spec)
        names = ", ".join(f"{d} (slug {d.slug})" for d in found[:5])
        raise DriveSpecProblem("", AMBIGUOUS_DRIVE.format(count=candidates.count(), names=names))
    if found:
        return _as_catalog_says(found[0], spec)

    drive = Drive(
        manufacturer=manufacturer,
        model=model,
        capacity_bytes=spec.get("capacity_bytes"),
        part_number=part,
        hardware_revision=spec.get("hardware_revision", ""),
        kind=spec.get("kind", Drive.Kind.SSD),
        interface=spec.get("interface", ""),
        needs_review=review,
    )
    # The same SKU under another part number: the catalog cannot hold both.
    same_sku = same_model.filter(
        capacity_bytes=drive.capacity_bytes, hardware_revision=drive.hardware_revision
    ).first()
    if same_sku is not None:
        raise DriveSpecProblem(
            "part_number",
            PART_NUMBER_DIFFERS.format(drive=same_sku, other=same_sku.part_number, part=part),
        )
    drive.slug = _unique_slug(
        Drive,
        f"{manufacturer.name} {drive.model} {drive.capacity_label} {drive.hardware_revision}",
        255,
    )
    drive.full_clean(validate_unique=False, validate_constraints=False)
    drive.save()
    return drive


def drive_reviewed(*, drive_id: int) -> None:
    """Staff checked the drive an upload named (needs_review): it enters the rankings and
    value views. Writes only a change."""
    Drive.objects.filter(pk=drive_id, needs_review=True).update(needs_review=False)


def drive_listed(*, drive_id: int, listed: bool) -> None:
    """List the drive in the catalog's lists and search again, or take it out of them (a
    drive whose every run was withdrawn: results.services). Writes only a change."""
    Drive.objects.filter(pk=drive_id).exclude(listed=listed).update(listed=listed)


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
