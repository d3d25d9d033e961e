"""The catalog's drive filters, written once: the catalog page, the leaderboards and value
views (on the copies of the drive specs their entries keep) and the REST API all use these."""

import copy
import re
from collections.abc import Mapping

import django_filters
from django import forms
from django.db.models import Model, Q, Subquery
from django.http import QueryDict
from django_filters.constants import EMPTY_VALUES

from drives.models import Controller, Drive, NandType

GB = 10**9
CAPACITY_WORD = re.compile(r"^(\d+(?:\.\d+)?)(gb|tb)$", re.IGNORECASE)
MAX_SEARCH = 100


def search_words(text: str) -> str:
    """Search text as a search box sends it, made safe to search: no NUL character (which
    no name holds and PostgreSQL refuses), no surrounding space, at most MAX_SEARCH long."""
    return text.replace("\x00", "").strip()[:MAX_SEARCH]


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


class SlugFilter(django_filters.CharFilter):
    """A catalog entry (of model `to`) named by its slug, compared by id: the id is looked up
    once, before the scan (a scalar subquery), so PostgreSQL can read an index that starts
    with the foreign key. Joined to the named table instead, the id is hidden from the
    planner, which then walks a whole ranking in order and filters it (1,273 leaderboard
    entries read for a controller's first 26)."""

    def __init__(self, *, to: type[Model], **kwargs):
        self.to = to
        super().__init__(**kwargs)

    def filter(self, qs, value):
        if value in EMPTY_VALUES:
            return qs
        named = self.to._default_manager.filter(slug=value).order_by().values("pk")[:1]
        return self.get_method(qs)(**{self.field_name: Subquery(named)})


class CapacityFilter(django_filters.NumberFilter):
    """A capacity bound in decimal GB, as drive makers state capacity."""

    def filter(self, qs, value):
        return qs if value is None else super().filter(qs, int(value * GB))


# Where each drive filter looks, on a drive. A model that keeps copies of its drive's specs
# (results' leaderboard entries) names its own fields, and reaches the drive to search it.
DRIVE_FIELDS = {
    "search": "",  # the prefix that reaches the drive
    "kind": "kind",
    "interface": "interface",
    "controller": "controller",
    "cell_type": "nand__cell_type",
    "capacity": "capacity_bytes",
}


def drive_filters(fields: Mapping[str, str] = DRIVE_FIELDS) -> dict[str, django_filters.Filter]:
    """Fresh drive filters, on the fields `fields` names (DRIVE_FIELDS: a drive's own)."""
    return {
        "q": SearchFilter(prefix=fields["search"]),
        "kind": django_filters.ChoiceFilter(
            field_name=fields["kind"], choices=Drive.Kind.choices, label="SSD or hard drive"
        ),
        "interface": django_filters.ChoiceFilter(
            field_name=fields["interface"], choices=Drive.Interface.choices
        ),
        "controller": SlugFilter(
            to=Controller,
            field_name=fields["controller"],
            max_length=120,
            label="Controller (slug)",
        ),
        "cell_type": django_filters.ChoiceFilter(
            field_name=fields["cell_type"],
            choices=NandType.CellType.choices,
            label="NAND cell type",
        ),
        "capacity_min": CapacityFilter(
            field_name=fields["capacity"],
            lookup_expr="gte",
            min_value=0,
            label="Capacity at least (GB)",
        ),
        "capacity_max": CapacityFilter(
            field_name=fields["capacity"],
            lookup_expr="lte",
            min_value=0,
            label="Capacity at most (GB)",
        ),
    }


class FilterSet(django_filters.FilterSet):
    """django-filter's FilterSet, made for every request without rebuilding what does not
    change: its form class is built once per FilterSet class (from filters whose choices are
    fixed), and its filters are copied shallowly (a request sets only their model and
    parent). django-filter deep-copies both for every instance, which cost more than the
    query a page runs with them."""

    def __init__(self, data=None, queryset=None, *, request=None, prefix=None):
        if queryset is None:
            queryset = self._meta.model._default_manager.all()
        self.is_bound = data is not None
        self.data = data or QueryDict()
        self.queryset = queryset
        self.request = request
        self.form_prefix = prefix
        self.filters = {}
        for name, base in self.base_filters.items():
            own = copy.copy(base)
            own.model, own.parent = queryset.model, self
            if own.method is not None:
                own.method = own.method  # bound to this copy (and so to this FilterSet)
            self.filters[name] = own

    def get_form_class(self):
        form = type(self).__dict__.get("_form_class")
        if form is None:
            form = super().get_form_class()
            if all(type(f) in SHAREABLE_FIELDS for f in form.base_fields.values()):
                form.base_fields = _SharedFields(form.base_fields)
            type(self)._form_class = form
        return form


# Form fields that no request changes (their choices are fixed): a filter form's instances
# can share them, where a Django form deep-copies every field (choices and widget included)
# for every instance.
SHAREABLE_FIELDS = frozenset(
    {
        forms.CharField,
        forms.ChoiceField,
        forms.TypedChoiceField,
        forms.DecimalField,
        forms.IntegerField,
        forms.FloatField,
        forms.DateField,
        forms.BooleanField,
        forms.NullBooleanField,
        django_filters.fields.ChoiceField,
    }
)


class _SharedFields(dict):
    """A form class's fields, copied shallowly when a form is made (see SHAREABLE_FIELDS)."""

    def __deepcopy__(self, memo):
        return dict(self)


def drive_filterset(fields: Mapping[str, str] = DRIVE_FIELDS) -> type[FilterSet]:
    """A FilterSet base class holding the drive filters on `fields`."""
    return type("DriveFilters", (FilterSet,), drive_filters(fields))


class DriveFilter(drive_filterset()):
    """The catalog page's filters."""

    class Meta:
        model = Drive
        fields: list[str] = []
