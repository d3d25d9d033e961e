"""What every app's filters are built on: django-filter's FilterSet, its filters' conditions
also as a mask over rows held in a process (core.columns: the drive list, the entries
rankings rank and value views price), a filter of
a catalog entry by its slug, what a page's filter form shows, the API's 400 for a filter
form's errors, the API's description of each filter's query value (query_schema, read from
the field the filter makes) and of a whole number it reads itself (whole_number), and the API
lists' order (?ordering=), NULLs last whichever the direction.

Each filter is declared once, in its FilterSet, with two forms: the ORM's (the reference)
and a mask. A filter of a field (field_name and lookup_expr) is written as a mask by
column_mask, from its declaration; a filter whose condition is not a comparison of a field
(a search, a slug) writes its mask in its own class, and tests hold each mask to its ORM
filter."""

from __future__ import annotations

import functools
import re
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

import django_filters
from django import forms
from django.core.validators import MaxLengthValidator, MaxValueValidator, MinValueValidator
from django.db.models import F, Model, OrderBy, Subquery
from django.template.loader import get_template
from django_filters.constants import EMPTY_VALUES
from django_filters.rest_framework import DjangoFilterBackend
from markupsafe import Markup
from rest_framework.exceptions import ValidationError
from rest_framework.filters import OrderingFilter

from core.columns import Columns


def column_mask(flt: django_filters.Filter, value, columns: Columns):
    """A filter of a field (field_name, and lookup_expr: exact, gte or lte) as a mask
    over `columns` (its field's column, named as the ORM names it)."""
    return columns.compare(flt.field_name, flt.lookup_expr, value)


class SlugFilter(django_filters.CharFilter):
    """A catalog entry (of model `to`) named by its slug, compared by id: the id is looked up
    once, before the scan (a scalar subquery), so PostgreSQL can read an index that starts
    with the foreign key. A copy in a process holds the slugs (`<field>__slug`).
    `empty_label` is what a page's choice of every entry says."""

    def __init__(self, *, to: type[Model], empty_label: str = "", **kwargs):
        self.to, self.empty_label = to, empty_label
        super().__init__(**kwargs)

    def filter(self, qs, value):
        if value in EMPTY_VALUES:
            return qs
        named = self.to.objects.filter(slug=value).order_by().values("pk")[:1]
        return self.get_method(qs)(**{self.field_name: Subquery(named)})

    def mask(self, value, columns: Columns):
        return columns.compare(f"{self.field_name}__slug", "exact", value)


# A number as JSON writes one (leading zeros allowed): what a query value the API's schema
# types a number or an integer may be. JSON Schema (2020-12, OpenAPI 3.1's) counts any
# number without a fraction an integer: 3, 3.0 and 3e0 alike.
JSON_NUMBER = re.compile(r"-?[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?")
# Beyond this many digits no whole number the API reads fits (64 bits have 19): refused
# before it is made (1e999999999 would be a billion digits).
MAX_WHOLE_DIGITS = 40


def whole_number_text(text: str) -> int | None:
    """The whole number `text` writes as JSON writes a number ("240", "240.0", "2.4e2"),
    or None for any other text: a fraction, other digits than ASCII, spaces, no digits."""
    if not JSON_NUMBER.fullmatch(text):
        return None
    value = Decimal(text)
    if value.adjusted() >= MAX_WHOLE_DIGITS or value != value.to_integral_value():
        return None
    return int(value)


class WholeNumberField(forms.IntegerField):
    """A whole number as the API's schema types one (whole_number_text): Django's
    IntegerField also reads " 1 " and other digits than ASCII as 1, and refuses 1e3."""

    def to_python(self, value):
        if isinstance(value, str) and value:
            number = whole_number_text(value)
            if number is None:
                raise forms.ValidationError(self.error_messages["invalid"], code="invalid")
            return number
        return super().to_python(value)


class DefaultChoiceFilter(django_filters.ChoiceFilter):
    """A choice that always narrows: a query that names none (or names it empty) chooses
    `default`, the first of `choices`; a page's form offers no "every entry"."""

    def __init__(self, *, choices, **kwargs):
        self.default = choices[0][0]
        super().__init__(choices=choices, empty_label=None, **kwargs)

    def filter(self, qs, value):
        return super().filter(qs, value if value not in EMPTY_VALUES else self.default)


@functools.cache
def _form_class(
    filterset: type[FilterSet], model: type[Model], names: tuple[str, ...]
) -> type[forms.Form]:
    """The form class of these filters of `filterset`, made as django-filter makes its own
    (on Meta.form, of each filter's field) once for each choice of names, like any form
    class declared in code: each form deep-copies its fields (Django's Form.__init__), and
    making fields and a class for every request cost a filtered list a fifth of its time.
    The fields are made by an instance of its own on `model` (a filter keeps the field it
    makes, and names itself after its model's field), so a filter's field may not depend
    on the request. The form class is the one the FilterSet's Meta declares (forms.Form
    where it declares none, as django-filter reads it)."""
    filters = filterset(queryset=model.objects.none()).filters
    fields = {name: filters[name].field for name in names}
    form = getattr(getattr(filterset, "Meta", None), "form", forms.Form)
    made = type(f"{filterset.__name__}Form", (form,), fields)
    made.base_fields = FormFields(made.base_fields)
    return made


class FormFields(dict):
    """A filter form class's fields (its base_fields), which Django's Form deep-copies into
    each form it makes, widget, choices, validators and messages included, so that a form
    may change its own. A filter form changes none of them (it validates a query; pages draw
    their forms from form_fields): each form gets a copy of each field that shares them. The
    deep copies were two fifths of the time a filter set took to read a query (API lists,
    rankings, the catalog)."""

    def __deepcopy__(self, memo) -> dict:
        return {name: attributes_copy(field) for name, field in self.items()}


class DeclaredFilters(OrderedDict):
    """A FilterSet class's filters (its base_filters), which django-filter deep-copies into
    each instance it makes (FilterSet.__init__), then sets the instance's model and itself on
    each copy. An instance's copy of a filter is a copy of the filter's own attributes and of
    its `extra` (what it makes its form field of): nothing changes a declared choice, label or
    help text once its class is made, and a deep copy of every one of them cost each request
    of a ranking, a value view or an API list a quarter of a millisecond (eleven filters, 400
    objects)."""

    def __deepcopy__(self, memo) -> OrderedDict:
        filters = OrderedDict()
        for name, declared in self.items():
            mine = filters[name] = attributes_copy(declared)
            mine.extra = dict(declared.extra)
        return filters


def attributes_copy(thing: Any) -> Any:
    """A shallow copy of an object whose state is its attributes (a filter, a form field):
    what copy.copy makes of it, without the pickle protocol's steps (__reduce_ex__ and a
    reconstruction), which were most of the copy's cost."""
    mine = object.__new__(type(thing))
    mine.__dict__.update(thing.__dict__)
    return mine


class FilterSet(django_filters.FilterSet):
    """django-filter's FilterSet, its conditions also as a mask (mask): each filter's own
    (`mask`), or its field's (column_mask); each
    instance's filters copied from the declared ones attribute by attribute
    (DeclaredFilters)."""

    @classmethod
    def get_filters(cls) -> DeclaredFilters:
        """django-filter's, held as DeclaredFilters."""
        return DeclaredFilters(super().get_filters())

    def get_form_class(self):
        """A form of the filters the query names, through django-filter's hook for a form
        class made for the instance: a filter the query does not name narrows nothing, and
        the form of the same names is the same class (_form_class)."""
        named = tuple(name for name in self.base_filters if name in self.data)
        return _form_class(type(self), self.queryset.model, named)

    def chosen(self):
        """The filters this (valid) FilterSet narrows by, each with its value: the value the
        query gives, else the filter's `default` (a DefaultChoiceFilter's)."""
        given = self.form.cleaned_data
        for name, flt in self.filters.items():
            value = given.get(name)
            if value in EMPTY_VALUES:
                value = getattr(flt, "default", None)
            if value not in EMPTY_VALUES:
                yield flt, value

    def filter_queryset(self, queryset):
        """django-filter's, and each default of a filter the query does not name."""
        queryset = super().filter_queryset(queryset)
        for name, flt in self.filters.items():
            if name not in self.form.cleaned_data and getattr(flt, "default", None):
                queryset = flt.filter(queryset, flt.default)
        return queryset

    def mask(self, columns: Columns):
        """The rows of `columns` this (valid) FilterSet's qs keeps, as a mask (None: every
        row)."""
        keep = None
        for flt, value in self.chosen():
            if hasattr(flt, "mask"):
                narrowed = flt.mask(value, columns)
            else:
                narrowed = column_mask(flt, value, columns)
            if narrowed is not None:
                keep = narrowed if keep is None else keep & narrowed
        return keep


# -- what a page's filter form shows -----------------------------------------------------


@dataclass(frozen=True)
class FormField:
    """A filter's field as a page draws it: a select of `choices` (None: the page gives
    them, or it is an input), `empty_label` its choice of none, or an input of `input_type`
    with `attrs`."""

    name: str
    label: str
    choices: tuple[tuple[str, str], ...] | None
    empty_label: str
    blank: bool  # a select offers the choice of none (a DefaultChoiceFilter's does not)
    input_type: str
    attrs: tuple[tuple[str, Any], ...]


@functools.cache
def form_fields(filterset: type[FilterSet]) -> dict[str, FormField]:
    """The fields of `filterset`'s filters as a page draws them, in order: read once from
    the form fields its filters make."""
    fields = {}
    for name, flt in filterset().filters.items():
        form_field = flt.field
        choices = list(form_field.choices) if isinstance(form_field, forms.ChoiceField) else None
        empty, blank = "", not isinstance(flt, DefaultChoiceFilter)
        if choices and choices[0][0] == "":
            (_, empty), *choices = choices
        fields[name] = FormField(
            name=name,
            label=str(form_field.label),
            choices=tuple(choices) if choices is not None else None,
            empty_label=str(empty or getattr(flt, "empty_label", "")),
            blank=blank,
            input_type=getattr(form_field.widget, "input_type", "text"),
            attrs=tuple(form_field.widget.attrs.items()),
        )
    return fields


FILTER_FIELDS_TEMPLATE = "bench/_filter_fields.html"


def filter_context(
    filterset: type[FilterSet],
    chosen: dict,
    controllers: list[tuple[str, str]],
    *,
    omit: tuple[str, ...] = (),
) -> dict:
    """What a page's filter form needs: `filter_form`, the fields of `filterset` (but those
    named in `omit`) drawn with what the query chose (cleaned data) and the controllers
    (filter_form); and `form`, the cleaned data."""
    return {"form": chosen, "filter_form": filter_form(filterset, chosen, controllers, omit)}


def filter_form(
    filterset: type[FilterSet],
    chosen: dict,
    controllers: list[tuple[str, str]],
    omit: tuple[str, ...] = (),
) -> Markup:
    """The fields of `filterset` as a page's filter form draws them
    (templates/bench/_filter_fields.html), each with the value the query chose. The same
    fields, values and controllers draw the same markup, and most requests of a page ask for
    the same few (none chosen, one filter): it is drawn once for each in a process (a
    quarter of a millisecond of a ranking's or the catalog's rendering)."""
    fields = form_fields(filterset)
    values = tuple((name, chosen.get(name)) for name in fields if name not in omit)
    try:
        return _drawn_form(filterset, values, tuple(controllers))
    except TypeError:  # a value that cannot be a key: drawn as it is
        return _drawn_form.__wrapped__(filterset, values, tuple(controllers))


@functools.lru_cache(maxsize=512)
def _drawn_form(
    filterset: type[FilterSet],
    values: tuple[tuple[str, Any], ...],
    controllers: tuple[tuple[str, str], ...],
) -> Markup:
    fields = form_fields(filterset)
    context = {
        "filter_fields": [fields[name] for name, _ in values],
        "form": dict(values),
        "filter_choices": {"controller": controllers},
    }
    return Markup(get_template(FILTER_FIELDS_TEMPLATE).render(context))


# -- the API's lists ---------------------------------------------------------------------


# A query value no text field takes: a NUL character (Django's ProhibitNullCharactersValidator
# refuses it, PostgreSQL could not compare it).
NO_NUL = "^[^\\u0000]*$"


def declared_filters(filterset: type[FilterSet]) -> dict[str, django_filters.Filter]:
    """A FilterSet's filters as an instance has them (bound to its model, so a filter's
    label is its field's verbose name where it declares none), read without a database; the
    class's own are left as declared (a filter keeps the field it first makes): on the
    model its Meta declares."""
    return filterset(queryset=filterset.Meta.model.objects.none()).filters


def query_schema(flt: django_filters.Filter) -> dict[str, Any]:
    """The OpenAPI schema of a filter's query value: its form field's (field_schema)."""
    return field_schema(flt.field)


def field_schema(field: forms.Field) -> dict[str, Any]:
    """The OpenAPI schema of a query value a form field reads, so that what the schema allows
    is what the field accepts: one of its choices, a whole number or a number within its
    bounds, a date, or text within its length and without a NUL; and the empty value where
    the field accepts it (one not required: a filter, which an empty value does not narrow,
    or narrows by its default, as a page's form sends an input left blank)."""
    blank = not field.required
    if isinstance(field, forms.ChoiceField):
        values = [str(value) for value, _ in field.choices]
        if blank and "" not in values:
            values.append("")
        return {"type": "string", "enum": values}
    if isinstance(field, forms.DateField):
        typed: dict[str, Any] = {"type": "string", "format": "date"}
    elif isinstance(field, (forms.IntegerField, forms.DecimalField, forms.FloatField)):
        # Django's DecimalField and FloatField are IntegerFields too.
        whole = not isinstance(field, (forms.DecimalField, forms.FloatField))
        typed = {"type": "integer" if whole else "number"}
        # The tightest bounds of the field's validators (its min_value and max_value, and
        # any a filter adds: django-filter's NumberFilter refuses numbers beyond 1e50).
        for bound, kind, tightest in (
            ("minimum", MinValueValidator, max),
            ("maximum", MaxValueValidator, min),
        ):
            values = [v.limit_value for v in field.validators if isinstance(v, kind)]
            if values:
                value = tightest(values)
                typed[bound] = value if isinstance(value, int | float) else float(value)
    else:
        text: dict[str, Any] = {"type": "string", "pattern": NO_NUL}
        lengths = [v.limit_value for v in field.validators if isinstance(v, MaxLengthValidator)]
        if lengths:
            text["maxLength"] = min(lengths)
        return text
    return {"anyOf": [typed, {"type": "string", "maxLength": 0}]} if blank else typed


def query_description(flt: django_filters.Filter) -> str:
    """What a filter's query value means, for the API's description: its help text, or the
    label a page's form shows; each choice with its label, and the default a filter that
    always narrows chooses (given empty or not given)."""
    text = str(flt.extra.get("help_text") or flt.label or flt.field_name)
    default = getattr(flt, "default", None)
    return text + choices_description(flt.field) + (f"; default: {default}" if default else "")


def choices_description(field: forms.Field) -> str:
    if not isinstance(field, forms.ChoiceField):
        return ""
    listed = "; ".join(f"{value}: {label}" for value, label in field.choices if value != "")
    return f" ({listed})"


def whole_number(params, name: str, *, default: Any, minimum: int, maximum: int) -> Any:
    """A whole number the API reads from its query (a page, its size, a run) itself: `default`
    when the query does not name it, else a whole number (whole_number_text) within the
    bounds, or the API's 400 at its
    parameter (never a value read otherwise, or silently replaced by the default)."""
    raw = params.get(name)
    if raw is None:
        return default
    number = whole_number_text(raw)
    if number is None or not minimum <= number <= maximum:
        raise ValidationError(
            [{"pointer": f"/query/{name}", "message": whole_number_message(minimum, maximum)}]
        )
    return number


# A boolean in a query, as the schema's boolean is written there (and as JSON writes one).
BOOLEANS = {"true": True, "false": False}
NOT_A_BOOLEAN = "must be true or false"


def query_boolean(params, name: str) -> bool:
    """A yes or no the API reads from its query: true or false, false when the query does
    not name it, else the API's 400 at its parameter (1, TRUE or yes too: the schema's
    boolean is neither)."""
    raw = params.get(name)
    if raw is None:
        return False
    if raw not in BOOLEANS:
        raise ValidationError([{"pointer": f"/query/{name}", "message": NOT_A_BOOLEAN}])
    return BOOLEANS[raw]


def whole_number_message(minimum: int, maximum: int) -> str:
    return f"must be a whole number from {minimum} to {maximum}"


def whole_number_schema(minimum: int, maximum: int) -> dict[str, Any]:
    """whole_number's values, as the schema types them."""
    return {"type": "integer", "minimum": minimum, "maximum": maximum}


def query_errors(errors: dict) -> ValidationError:
    """A filter form's errors as the API's 400: each pointing at its query parameter
    (/query/<name>; /query for the form as a whole), as every list's are."""
    return ValidationError(
        [
            {"pointer": "/query" if name == "__all__" else f"/query/{name}", "message": str(m)}
            for name, messages in errors.items()
            for m in messages
        ]
    )


class QueryFilterBackend(DjangoFilterBackend):
    """django-filter's backend (every list's), its 400 written by query_errors."""

    def filter_queryset(self, request, queryset, view):
        filterset = self.get_filterset(request, queryset, view)
        if filterset is None:
            return queryset
        if not filterset.is_valid():
            raise query_errors(filterset.errors)
        return filterset.qs


def nulls_last(ordering: Sequence[str]) -> list[OrderBy]:
    """An order's field names ("-" for descending) as the ORM's order with NULLs last
    whichever the direction: a value a list does not know comes after those it does, going
    up or down (PostgreSQL puts NULL first going down)."""
    return [
        F(name[1:]).desc(nulls_last=True) if name.startswith("-") else F(name).asc(nulls_last=True)
        for name in ordering
    ]


class StableOrderingFilter(OrderingFilter):
    """Every list's order (?ordering=a,-b among the view's ordering_fields): NULLs last in
    both directions (nulls_last), ties broken by id in the direction of the first, so pages
    of a list never repeat or skip an item. A list that reads its rows otherwise than from
    the view's queryset (the drives: drives.catalog_index) orders them by the same rule."""

    def get_ordering(self, request, queryset, view):
        ordering = super().get_ordering(request, queryset, view)
        if ordering and ordering is not getattr(view, "ordering", None):
            ordering = [*ordering, "-pk" if ordering[0].startswith("-") else "pk"]
        return ordering

    def filter_queryset(self, request, queryset, view):
        ordering = self.get_ordering(request, queryset, view)
        return queryset.order_by(*nulls_last(ordering)) if ordering else queryset

    def remove_invalid_fields(self, queryset, fields, view, request):
        """The order asked for, or a 400 naming what may be asked for where a term is not
        one of the view's ordering_fields (DRF's drops it, and an order of none left is
        the default)."""
        valid = super().remove_invalid_fields(queryset, fields, view, request)
        if len(valid) != len(fields):
            names = [
                name for name, _ in self.get_valid_fields(queryset, view, {"request": request})
            ]
            message = f"must be fields of {names}, each with - to reverse, separated by commas"
            raise ValidationError(
                [{"pointer": f"/query/{self.ordering_param}", "message": message}]
            )
        return valid

    def get_schema_operation_parameters(self, view) -> list[dict[str, Any]]:
        """The parameter, with the terms it takes as a pattern (empty: the list's own order)."""
        parameters = super().get_schema_operation_parameters(view)
        term = "-?(" + "|".join(re.escape(name) for name in view.ordering_fields) + ")"
        for parameter in parameters:
            parameter["schema"] = {"type": "string", "pattern": f"^({term}(,{term})*)?$"}
            parameter["description"] = (
                f"The order: any of {', '.join(view.ordering_fields)}, separated by commas, "
                "each with - to reverse; an item without the value comes last either way"
            )
        return parameters
