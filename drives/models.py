"""The drive catalog: who makes what, with which controller and NAND, at which price."""

import functools
import unicodedata
from decimal import ROUND_HALF_UP, Decimal

from django.conf import settings
from django.contrib.postgres.fields import ArrayField
from django.core.validators import URLValidator
from django.db import models
from django.db.models import Q
from django.db.models.functions import Lower
from django.db.models.signals import class_prepared
from django.dispatch import receiver
from django.utils.hashable import make_hashable

from core.links import page_url, safe_http_url


def catalog_key(name: str) -> str:
    """The form in which two catalog names are the same name: Unicode NFC, case-folded,
    white space collapsed. The unique constraints hold on this key (the *_key columns)
    and every lookup compares it, so both agree whatever the database's locale (the
    embedded cluster runs with the C locale, whose lower() folds only ASCII)."""
    return " ".join(unicodedata.normalize("NFC", name).casefold().split())


# Names that name nothing: what a tool writes for a drive it was not told, and what
# firmware reports when its maker filled nothing in (compared by catalog_key). A drive is
# never created or found under one (results.services: the document names it, or is refused).
PLACEHOLDER_NAMES = frozenset(
    {
        "",
        "unknown",
        "unknown vendor",
        "unknown model",
        "n/a",
        "na",
        "none",
        "null",
        "nil",
        "undefined",
        "unnamed",
        "unspecified",
        "not specified",
        "to be filled by o.e.m.",
        "default string",
    }
)


def is_placeholder(name: str) -> bool:
    """Whether a manufacturer's or model's name names nothing (PLACEHOLDER_NAMES, or no
    letter or digit at all: "-", "?", "...")."""
    key = catalog_key(name)
    return key in PLACEHOLDER_NAMES or not any(c.isalnum() for c in key)


class CatalogKeyField(models.TextField):
    """catalog_key() of another field of the row, kept up to date on every save and
    bulk_create (QuerySet.update() bypasses it, as it bypasses auto_now)."""

    def __init__(self, *args, source: str, **kwargs):
        self.source = source
        kwargs.setdefault("editable", False)
        super().__init__(*args, **kwargs)

    def deconstruct(self):
        name, path, args, kwargs = super().deconstruct()
        kwargs["source"] = self.source
        kwargs.pop("editable", None)
        return name, path, args, kwargs

    def pre_save(self, model_instance, add):
        value = catalog_key(getattr(model_instance, self.source))
        setattr(model_instance, self.attname, value)
        return value


http_url_validator = URLValidator(schemes=["http", "https"])


class LabelledModel(models.Model):
    """The apps' models: their get_FOO_display() reads a table of labels made once per field
    (Django's rebuilds it from the field's choices at every call: a page that names the
    source, state and kind of dozens of rows spent a millisecond there). The methods are
    set when the model class is ready (`labels_read_once`, on Django's class_prepared
    signal), replacing the ones Django made: public hooks only."""

    class Meta:
        abstract = True


def _display(field: models.Field):
    """get_FOO_display() of a field with choices: its value's label, the value itself when
    no choice names it; the labels made on the first call (when translations are ready)."""
    labels: dict = {}

    def get_display(instance) -> str:
        if not labels:
            labels.update((k, str(v)) for k, v in make_hashable(field.flatchoices))
        value = getattr(instance, field.attname)
        return labels.get(make_hashable(value), value)

    get_display.__name__ = f"get_{field.name}_display"
    return get_display


@receiver(class_prepared)
def labels_read_once(sender, **kwargs) -> None:
    """Every LabelledModel's get_FOO_display(), one for each of its fields with choices
    (the model's fields through Django's documented Model._meta API)."""
    if not issubclass(sender, LabelledModel):
        return
    for field in sender._meta.local_fields:
        if field.choices:
            setattr(sender, f"get_{field.name}_display", _display(field))


class Manufacturer(LabelledModel):
    """A company: drive maker, controller vendor or NAND fab (Intel, SandForce, IMFT...)."""

    name = models.CharField(max_length=200)
    name_key = CatalogKeyField(source="name")
    slug = models.SlugField(max_length=100, unique=True)
    website = models.URLField(blank=True, validators=[http_url_validator])

    class Meta:
        ordering = ["name"]
        constraints = [
            models.UniqueConstraint(fields=["name_key"], name="manufacturer_name_key_unique"),
        ]
        # The drive list's order by manufacturer: a drive listed again finds its place in it
        # (drives.catalog_index, core.columns.Table.changed_sql) from the manufacturers by
        # name down, not by sorting every drive (25 ms of the database in each server
        # process bringing its copy up to date, 1 ms with the index).
        indexes = [models.Index(fields=["name"], name="manufacturer_name_idx")]

    def __str__(self) -> str:
        return self.name

    def clean(self) -> None:
        # Before validate_constraints() runs, which reads the key.
        self.name_key = catalog_key(self.name)


class Controller(LabelledModel):
    vendor = models.ForeignKey(Manufacturer, on_delete=models.PROTECT, related_name="controllers")
    model = models.CharField(max_length=100, help_text="e.g. SF-2281")
    slug = models.SlugField(max_length=120, unique=True)
    channels = models.PositiveSmallIntegerField(null=True, blank=True)
    compresses_data = models.BooleanField(
        default=False, help_text="Compresses or deduplicates written data (e.g. SandForce)."
    )

    class Meta:
        ordering = ["vendor__name", "model"]
        constraints = [
            models.UniqueConstraint(
                "vendor", Lower("model"), name="controller_vendor_model_unique"
            ),
            models.CheckConstraint(
                condition=Q(channels__isnull=True) | Q(channels__gte=1),
                name="controller_channels_positive",
            ),
        ]

    def __str__(self) -> str:
        return controller_name(self.vendor.name, self.model)


class NandType(LabelledModel):
    class CellType(models.TextChoices):
        SLC = "slc", "SLC"
        MLC = "mlc", "MLC"
        TLC = "tlc", "TLC"
        QLC = "qlc", "QLC"

    class Interface(models.TextChoices):
        ASYNC_ONFI = "async-onfi", "asynchronous ONFI"
        SYNC_ONFI = "sync-onfi", "synchronous ONFI"
        TOGGLE = "toggle", "Toggle"
        UNKNOWN = "unknown", "unknown"

    vendor = models.ForeignKey(
        Manufacturer,
        on_delete=models.PROTECT,
        related_name="nand_types",
        null=True,
        blank=True,
        help_text="Fab or vendor, e.g. IMFT or Toshiba; empty when the source does not say",
    )
    process_nm = models.PositiveSmallIntegerField(null=True, blank=True)
    cell_type = models.CharField(max_length=3, choices=CellType.choices)
    interface = models.CharField(
        max_length=12, choices=Interface.choices, default=Interface.UNKNOWN
    )
    layers = models.PositiveSmallIntegerField(
        null=True, blank=True, help_text="3D NAND layer count; empty for planar NAND"
    )
    slug = models.SlugField(max_length=120, unique=True)

    class Meta:
        ordering = ["vendor__name", "process_nm", "cell_type"]
        constraints = [
            models.UniqueConstraint(
                fields=["vendor", "process_nm", "cell_type", "interface", "layers"],
                nulls_distinct=False,
                name="nand_type_unique",
            ),
            models.CheckConstraint(
                condition=Q(process_nm__isnull=True) | Q(process_nm__gte=1),
                name="nand_process_positive",
            ),
            models.CheckConstraint(
                condition=Q(layers__isnull=True) | Q(layers__gte=1), name="nand_layers_positive"
            ),
        ]

    def __str__(self) -> str:
        return nand_name(
            self.vendor.name if self.vendor else None,
            self.process_nm,
            self.layers,
            self.cell_type,
            self.interface,
        )


def controller_name(vendor: str, model: str) -> str:
    """How a controller is named everywhere: its vendor and model."""
    return f"{vendor} {model}"


def nand_name(
    vendor: str | None, process_nm: int | None, layers: int | None, cell_type: str, interface: str
) -> str:
    """How a NAND type is named everywhere: vendor, process, layers, cell type, interface."""
    parts = [vendor or "unknown vendor"]
    if process_nm:
        parts.append(f"{process_nm}nm")
    if layers:
        parts.append(f"{layers}-layer")
    parts.append(_CELL_TYPES.get(cell_type, cell_type))
    if interface != NandType.Interface.UNKNOWN:
        parts.append(f"({_NAND_INTERFACES.get(interface, interface)})")
    return " ".join(parts)


_CELL_TYPES = dict(NandType.CellType.choices)
_NAND_INTERFACES = dict(NandType.Interface.choices)


# A few hundred capacities name every drive, and each drive's label is made on every page
# that lists it: each is worked out in decimal once per process.
@functools.lru_cache(maxsize=1 << 12)
def capacity_label(capacity_bytes: int | None) -> str:
    """Capacity as drive makers state it, in decimal GB or TB, rounded to the step
    capacity_step gives (half a step up), never in exponent notation ("" when unknown):
    "9.7GB", "17GB", "275GB", "1.92TB", "4TB". A drive's name, its label and the tables'
    capacity column all say this."""
    if not capacity_bytes:
        return ""
    gb = Decimal(capacity_bytes) / 10**9
    rounded = _round_to(gb, capacity_step(gb))
    rounded = _round_to(gb, capacity_step(rounded))  # 9.96GB is "10GB", 999.6GB "1TB"
    if rounded >= 1000:
        return f"{_plain(rounded / 1000)}TB"
    return f"{_plain(rounded)}GB"


def capacity_step(gb: Decimal) -> Decimal:
    """The step, in GB, a capacity of about `gb` GB is named to: two significant digits
    below 10GB, whole GB below 1TB, hundredths of a TB above."""
    if gb >= 1000:
        return Decimal(10)
    if gb >= 10:
        return Decimal(1)
    return Decimal(1).scaleb(gb.adjusted() - 1)


def _round_to(number: Decimal, step: Decimal) -> Decimal:
    return (number / step).to_integral_value(rounding=ROUND_HALF_UP) * step


def _plain(number: Decimal) -> str:
    return format(number.normalize(), "f")


def drive_name(maker: str, model: str, capacity_bytes: int | None, revision: str) -> str:
    """How a drive is named everywhere: maker, model, capacity and hardware revision."""
    name = f"{maker} {model}"
    if capacity_bytes:
        name += f" {capacity_label(capacity_bytes)}"
    if revision:
        name += f" ({revision})"
    return name


class DriveQuerySet(models.QuerySet):
    def with_specs(self):
        return self.select_related("manufacturer", "controller__vendor", "nand__vendor")

    def real(self):
        """Everything but the synthetic benchmark catalog, which only the web benchmark
        (settings.BENCH_SHOW_SYNTHETIC) shows as if it were real."""
        if settings.BENCH_SHOW_SYNTHETIC:
            return self.all()
        return self.filter(synthetic=False)


class Drive(LabelledModel):
    """One capacity SKU of one drive model, in one hardware revision."""

    class Kind(models.TextChoices):
        SSD = "ssd", "SSD"
        HDD = "hdd", "hard drive"
        VIRTUAL = "virtual", "virtual device"  # a VM's virtual disk, a RAM disk

    class Interface(models.TextChoices):
        PATA = "pata", "PATA"
        SATA_1_5G = "sata-1.5g", "SATA 1.5 Gb/s"
        SATA_3G = "sata-3g", "SATA 3 Gb/s"
        SATA_6G = "sata-6g", "SATA 6 Gb/s"
        PCIE_NVME = "pcie-nvme", "PCIe NVMe"
        OTHER = "other", "other"

    class FormFactor(models.TextChoices):
        INCH_1_8 = "1.8in", '1.8"'
        INCH_2_5 = "2.5in", '2.5"'
        INCH_3_5 = "3.5in", '3.5"'
        MSATA = "msata", "mSATA"
        M2_2280 = "m.2-2280", "M.2 2280"
        ADD_IN = "add-in", "add-in card"
        OTHER = "other", "other"

    # Specs that can be marked unverified (unverified_specs).
    SPECS = (
        "capacity_bytes",
        "part_number",
        "hardware_revision",
        "interface",
        "form_factor",
        "controller",
        "nand",
        "dram_bytes",
        "release_date",
    )

    manufacturer = models.ForeignKey(Manufacturer, on_delete=models.PROTECT, related_name="drives")
    model = models.CharField(max_length=200)
    model_key = CatalogKeyField(source="model")
    capacity_bytes = models.BigIntegerField(
        null=True, blank=True, help_text="Empty when the source does not state the capacity"
    )
    part_number = models.CharField(max_length=100, blank=True)
    hardware_revision = models.CharField(max_length=100, blank=True)
    slug = models.SlugField(max_length=255, unique=True)
    kind = models.CharField(max_length=10, choices=Kind.choices, default=Kind.SSD)
    configuration = models.BooleanField(
        default=False,
        db_default=False,
        help_text="Not a product sold under this name: a controller configuration a review "
        "charts (e.g. JMicron JMF602B with MLC NAND); the controller says which",
    )
    interface = models.CharField(max_length=10, choices=Interface.choices, blank=True)
    form_factor = models.CharField(max_length=10, choices=FormFactor.choices, blank=True)
    controller = models.ForeignKey(
        Controller, on_delete=models.PROTECT, null=True, blank=True, related_name="drives"
    )
    nand = models.ForeignKey(
        NandType, on_delete=models.PROTECT, null=True, blank=True, related_name="drives"
    )
    dram_bytes = models.BigIntegerField(null=True, blank=True, help_text="DRAM cache; 0 = none")
    release_date = models.DateField(null=True, blank=True)
    unverified_specs = ArrayField(
        models.CharField(max_length=20, choices=[(spec, spec) for spec in SPECS]),
        default=list,
        db_default=[],
        blank=True,
        help_text="Specs whose only source does not establish them (a reader comment, a "
        "guess): shown as unverified, never as fact",
    )
    needs_review = models.BooleanField(
        default=False,
        db_default=False,
        help_text="Created from the drive block of an uploaded result document: staff check "
        "its specs against the catalog, then clear this",
    )
    synthetic = models.BooleanField(
        default=False, help_text="Generated for benchmarks (seed_scale); never a real drive"
    )
    listed = models.BooleanField(
        default=True,
        db_default=True,
        help_text="False: every run of the drive was withdrawn, so it left the catalog's lists "
        "and search; its page stays, and says why (set by the results' services)",
    )
    # Kept by triggers from the drive, its maker and its controller (drives/sql/names.sql): the
    # catalog's order and what search matches, each readable from an index of its own.
    sort_name = models.TextField(
        editable=False, default="", db_default="", help_text="lower(maker model): the order"
    )
    search_text = models.TextField(
        editable=False,
        default="",
        db_default="",
        help_text="maker, model, part number, hardware revision and controller (with its "
        "maker): what a search word matches",
    )
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    objects = DriveQuerySet.as_manager()

    class Meta:
        ordering = ["sort_name", "capacity_bytes", "pk"]
        constraints = [
            models.UniqueConstraint(
                fields=["manufacturer", "model_key", "capacity_bytes", "hardware_revision"],
                nulls_distinct=False,
                name="drive_sku_unique",
            ),
            models.UniqueConstraint(
                "manufacturer",
                "part_number",
                condition=~Q(part_number=""),
                name="drive_part_number_unique",
            ),
            models.CheckConstraint(
                condition=Q(capacity_bytes__isnull=True) | Q(capacity_bytes__gt=0),
                name="drive_capacity_positive",
            ),
            models.CheckConstraint(
                condition=Q(dram_bytes__isnull=True) | Q(dram_bytes__gte=0),
                name="drive_dram_not_negative",
            ),
        ]
        indexes = [
            models.Index(Lower("model"), name="drive_model_lower_idx"),
            models.Index(fields=["kind", "interface"], name="drive_kind_interface_idx"),
            # Counts of the catalog's filtered lists (an interface and a capacity range, the
            # other filters' columns alongside) from the index alone, not the table.
            models.Index(
                fields=["interface", "capacity_bytes", "id"],
                include=["kind", "nand", "controller", "synthetic"],
                name="drive_interface_capacity_idx",
            ),
            models.Index(fields=["sort_name", "capacity_bytes", "id"], name="drive_sort_idx"),
            # The API's other orders (ties by id, in the same direction).
            models.Index(fields=["model", "id"], name="drive_model_idx"),
            models.Index(fields=["capacity_bytes", "id"], name="drive_capacity_idx"),
            models.Index(fields=["release_date", "id"], name="drive_release_idx"),
        ]

    def __str__(self) -> str:
        return drive_name(
            self.manufacturer.name, self.model, self.capacity_bytes, self.hardware_revision
        )

    def get_absolute_url(self) -> str:
        return page_url("bench:drive", self.slug)

    def clean(self) -> None:
        # Before validate_constraints() runs, which reads the key.
        self.model_key = catalog_key(self.model)

    @property
    def capacity_label(self) -> str:
        return capacity_label(self.capacity_bytes)


class FirmwareVersion(LabelledModel):
    drive = models.ForeignKey(Drive, on_delete=models.CASCADE, related_name="firmware_versions")
    version = models.CharField(max_length=100)
    release_date = models.DateField(null=True, blank=True)
    notes = models.TextField(blank=True)

    class Meta:
        ordering = ["drive", "version"]
        constraints = [
            models.UniqueConstraint(fields=["drive", "version"], name="firmware_unique"),
        ]

    def __str__(self) -> str:
        return self.version


class Price(LabelledModel):
    """A price seen for a drive on a date, with where it was seen."""

    drive = models.ForeignKey(Drive, on_delete=models.CASCADE, related_name="prices")
    amount = models.DecimalField(max_digits=12, decimal_places=2)
    currency = models.CharField(max_length=3, default="USD")
    observed_on = models.DateField()
    source = models.CharField(max_length=300, help_text="Retailer, or the article quoting it")
    source_url = models.URLField(blank=True, max_length=2000, validators=[http_url_validator])

    class Meta:
        ordering = ["drive", "-observed_on"]
        constraints = [
            models.UniqueConstraint(
                fields=["drive", "currency", "observed_on", "source"], name="price_unique"
            ),
            models.CheckConstraint(condition=Q(amount__gt=0), name="price_amount_positive"),
            models.CheckConstraint(
                condition=Q(currency__regex=r"^[A-Z]{3}$"), name="price_currency_iso"
            ),
        ]
        indexes = [
            models.Index(fields=["drive", "-observed_on"], name="price_latest_idx"),
            # A price as of a date, drive by drive (value views), read from the index alone.
            models.Index(
                fields=["drive", "currency", "-observed_on", "amount"], name="price_as_of_idx"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.amount} {self.currency} on {self.observed_on}"

    @property
    def safe_source_url(self) -> str:
        """source_url when it is an http(s) URL, else "": the only form a page may link."""
        return safe_http_url(self.source_url)
