"""The catalog's drive filters, written once: the catalog page, the leaderboards and value
views (through `drive_filters("drive__")`) and the REST API all use these."""

import re

import django_filters
from django.db.models import Q

from drives.models import Drive, NandType

GB = 10**9
CAPACITY_WORD = re.compile(r"^(\d+(?:\.\d+)?)(gb|tb)$", re.IGNORECASE)
MAX_SEARCH = 100


def search_q(text: str, prefix: str = "") -> Q:
    """Every word must match the model, maker, controller or part number (the drive's
    search_text, which a trigram index serves); a word such as "240GB" or "1TB" matches the
    capacity instead."""
    condition = Q()
    for word in text.split()[:8]:
        capacity = CAPACITY_WORD.match(word)
        if capacity:
            factor = GB if capacity[2].lower() == "gb" else 1000 * GB
            condition &= Q(**{f"{prefix}capacity_bytes": int(float(capacity[1]) * factor)})
        else:
            condition &= Q(**{f"{prefix}search_text__icontains": word})
    return condition


class SearchFilter(django_filters.CharFilter):
    def __init__(self, *, prefix: str = "", **kwargs):
        self.prefix = prefix
        kwargs.setdefault("label", "Search")
        kwargs.setdefault("max_length", MAX_SEARCH)
        super().__init__(**kwargs)

    def filter(self, qs, value):
        return qs.filter(search_q(value, self.prefix)) if value and value.strip() else qs


class CapacityFilter(django_filters.NumberFilter):
    """A capacity bound in decimal GB, as drive makers state capacity."""

    def filter(self, qs, value):
        return qs if value is None else super().filter(qs, int(value * GB))


def drive_filters(prefix: str = "") -> dict[str, django_filters.Filter]:
    """Fresh filters on a drive, or on a model reaching a drive through `prefix`."""
    return {
        "q": SearchFilter(prefix=prefix),
        "kind": django_filters.ChoiceFilter(
            field_name=f"{prefix}kind", choices=Drive.Kind.choices, label="SSD or hard drive"
        ),
        "interface": django_filters.ChoiceFilter(
            field_name=f"{prefix}interface", choices=Drive.Interface.choices
        ),
        "controller": django_filters.CharFilter(
            field_name=f"{prefix}controller__slug", max_length=120, label="Controller (slug)"
        ),
        "cell_type": django_filters.ChoiceFilter(
            field_name=f"{prefix}nand__cell_type",
            choices=NandType.CellType.choices,
            label="NAND cell type",
        ),
        "capacity_min": CapacityFilter(
            field_name=f"{prefix}capacity_bytes",
            lookup_expr="gte",
            min_value=0,
            label="Capacity at least (GB)",
        ),
        "capacity_max": CapacityFilter(
            field_name=f"{prefix}capacity_bytes",
            lookup_expr="lte",
            min_value=0,
            label="Capacity at most (GB)",
        ),
    }


def drive_filterset(prefix: str) -> type[django_filters.FilterSet]:
    """A FilterSet base class holding the drive filters reached through `prefix`."""
    return type("DriveFilters", (django_filters.FilterSet,), drive_filters(prefix))


class DriveFilter(drive_filterset("")):
    """The catalog page's filters."""

    class Meta:
        model = Drive
        fields: list[str] = []
