"""The catalog's drive filters, declared once (DriveFilter): the catalog page, the
leaderboards and value views (on the copies of the drive specs their entries keep) and the
REST API all use these."""

import math
import re
from decimal import Decimal

import django_filters
from django import forms
from django.core.validators import MaxLengthValidator
from django.db.models import Q

from core.columns import Columns
from core.filters import FilterSet, SlugFilter, column_mask
from drives.models import Controller, Drive, NandType, capacity_step

GB = 10**9
CAPACITY_WORD = re.compile(r"^(\d+(?:\.\d+)?)(gb|tb)$", re.IGNORECASE)
MAX_SEARCH = 100


def search_words(text: str) -> str:
    """Search text as a search box sends it, made safe to search: no NUL character (which
    no name holds and PostgreSQL refuses), no surrounding space, at most MAX_SEARCH long in
    whole words (a word cut short, "1.9" of "1.92TB", would look for another thing)."""
    text = text.replace("\x00", "").strip()
    if len(text) > MAX_SEARCH:
        head = text[:MAX_SEARCH]
        mid_word = not head[-1].isspace() and not text[MAX_SEARCH].isspace()
        if mid_word and len(head.split()) > 1:
            head = head.rsplit(None, 1)[0]
        text = head
    return text.strip()


def capacity_range(number: str, unit: str) -> tuple[int, int]:
    """The capacities, in bytes, that a drive's name writes as `number` `unit`, both ends
    included: the number plus or minus half the step a name rounds to there
    (models.capacity_step), or half a unit of the word's last digit where that is finer
    (a word more precise than names are). "240GB" is 239,500,000,000 to 240,500,000,000
    bytes; "9.7GB" 9,650,000,000 to 9,750,000,000; "1TB" 995 to 1,005 GB."""
    factor = 1 if unit.lower() == "gb" else 1000
    gb = Decimal(number) * factor
    if not gb:
        return 0, 0
    written = Decimal(1).scaleb(Decimal(number).as_tuple().exponent) * factor
    half = min(capacity_step(gb), written) / 2
    return math.ceil((gb - half) * GB), math.floor((gb + half) * GB)


def search_terms(text: str) -> list[tuple[str, str | tuple[int, int, str]]]:
    """What a search matches, word by word, so that a drive's name as the site writes it
    finds the drive. A word is looked for in the drive's model, maker, part number, hardware
    revision and controller (("search_text", word), without the parentheses a name puts
    around its revision); a word such as "240GB" or "1TB" may also be the drive's capacity
    (("capacity_bytes", (lowest, highest, word)), see capacity_range). At most 8 words."""
    terms: list[tuple[str, str | tuple[int, int, str]]] = []
    for word in text.split()[:8]:
        capacity = CAPACITY_WORD.match(word)
        if capacity:
            terms.append(("capacity_bytes", (*capacity_range(capacity[1], capacity[2]), word)))
        elif word.strip("()"):
            terms.append(("search_text", word.strip("()")))
    return terms


def search_q(text: str, prefix: str = "") -> Q:
    """Every word of `text` must match (search_terms); the drive's search_text is served by
    a trigram index."""
    condition = Q()
    for name, value in search_terms(text):
        if name == "search_text":
            condition &= Q(**{f"{prefix}search_text__icontains": value})
        else:
            low, high, word = value
            condition &= Q(**{f"{prefix}capacity_bytes__range": (low, high)}) | Q(
                **{f"{prefix}search_text__icontains": word}
            )
    return condition


class SearchField(forms.CharField):
    """A search box's text, at most MAX_SEARCH long, checked by the server only: a longer
    text gets the 400 that says so, not a box that cuts it short (no maxlength)."""

    default_validators = [MaxLengthValidator(MAX_SEARCH)]

    def __init__(self, **kwargs):
        attrs = {"placeholder": "drive, maker, controller…", "autocomplete": "off"}
        super().__init__(widget=forms.SearchInput(attrs), **kwargs)


class SearchFilter(django_filters.CharFilter):
    """A search of drives (search_q) on the field that holds their search text: a drive's
    own ("search_text", the default) or its drive's ("drive__search_text")."""

    field_class = SearchField

    def __init__(self, *, field_name: str = "search_text", **kwargs):
        super().__init__(field_name=field_name, **kwargs)

    @property
    def prefix(self) -> str:
        """What reaches the drive from the filtered model ("" on a drive)."""
        return self.field_name.removesuffix("search_text")

    def filter(self, qs, value):
        return qs.filter(search_q(value, self.prefix)) if value and value.strip() else qs

    def mask(self, value, columns: Columns):
        terms = search_terms(value)
        if not terms:
            return None
        text = f"{self.prefix}search_text"  # held as UPPER() wrote it, as icontains compares
        if text not in columns or not value.isascii():
            # Upper case beyond ASCII is the database's to say: it says which drives match.
            found = Drive.objects.using(columns.alias).filter(search_q(value))
            drive = self.prefix.removesuffix("__") or "id"
            return columns.isin(drive, found.values_list("pk", flat=True))
        capacity = f"{self.prefix}capacity_bytes"
        keep = None
        for name, term in terms:
            if name == "search_text":
                found = columns.contains(text, term.upper())
            else:
                low, high, word = term
                within = columns.compare(capacity, "gte", low) & columns.compare(
                    capacity, "lte", high
                )
                found = within | columns.contains(text, word.upper())
            keep = found if keep is None else keep & found
        return keep


class CapacityField(forms.DecimalField):
    """A capacity in decimal GB: none below 0, in a box of six digits."""

    def __init__(self, **kwargs):
        super().__init__(min_value=0, widget=forms.NumberInput({"size": 6}), **kwargs)


class CapacityFilter(django_filters.NumberFilter):
    """A capacity bound in decimal GB, as drive makers state capacity."""

    field_class = CapacityField

    def filter(self, qs, value):
        return qs if value is None else super().filter(qs, int(value * GB))

    def mask(self, value, columns: Columns):
        return column_mask(self, int(value * GB), columns)


class DriveFilter(FilterSet):
    """The drive filters, each declared once: the catalog page's and the API's drives, and
    (on the copies of its drive's specs an entry keeps, results.filters) the rankings' and
    value views'. A label is what a page's filter form says, a help text what the API's
    description does."""

    q = SearchFilter(label="Search")
    kind = django_filters.ChoiceFilter(
        choices=Drive.Kind.choices,
        label="Kind",
        help_text="SSD or hard drive",
        empty_label="SSDs and hard drives",
    )
    interface = django_filters.ChoiceFilter(choices=Drive.Interface.choices, empty_label="any")
    cell_type = django_filters.ChoiceFilter(
        field_name="nand__cell_type",
        choices=NandType.CellType.choices,
        label="NAND",
        help_text="NAND cell type",
        empty_label="any cell type",
    )
    controller = SlugFilter(
        to=Controller,
        max_length=120,
        label="Controller",
        help_text="Controller (slug)",
        empty_label="any",
    )
    capacity_min = CapacityFilter(
        field_name="capacity_bytes",
        lookup_expr="gte",
        label="GB from",
        help_text="Capacity at least (GB)",
    )
    capacity_max = CapacityFilter(
        field_name="capacity_bytes",
        lookup_expr="lte",
        label="to",
        help_text="Capacity at most (GB)",
    )

    class Meta:
        model = Drive
        fields: list[str] = []
