"""A FilterSet's form (core.filters.FilterSet.get_form_class: the filters a query names, one
form class for each choice of names) validates any query exactly as django-filter's own form
of all its filters does: the same verdict, the same cleaned values of what the query names,
the same errors; and each form has fields of its own, sharing with the other forms of its
class only what validating a query changes in none of them."""

from __future__ import annotations

import django_filters
import pytest
from django.http import QueryDict
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import drives.api
import results.api.reads
import results.api.runs
import results.filters
from core.filters import FilterSet

pytestmark = pytest.mark.django_db


def _every(cls: type) -> list[type]:
    found = []
    for sub in cls.__subclasses__():
        found += [sub, *_every(sub)]
    return found


# Every FilterSet of the site (the modules that declare them are imported above).
FILTERSETS = sorted(
    {f for f in _every(FilterSet) if f.__module__.split(".")[0] in ("drives", "results")},
    key=lambda f: f"{f.__module__}.{f.__name__}",
)
assert {drives.api.DriveApiFilter, results.filters.LeaderboardFilter} <= set(FILTERSETS)
assert results.api.reads.ResultFilter in FILTERSETS and results.api.runs.RunListFilter in FILTERSETS


def _model(filterset: type[FilterSet]):
    if filterset._meta.model is not None:
        return filterset._meta.model
    return results.api.runs.Run  # RunListFilter: made on the runs' queryset


def _value(flt: django_filters.Filter) -> st.SearchStrategy[str]:
    """A value of the filter's own (a choice, a number) or any text at all."""
    own = st.nothing()
    if isinstance(flt, django_filters.ChoiceFilter):
        own = st.sampled_from([str(v) for v, _ in flt.extra["choices"]])
    elif isinstance(flt, django_filters.NumberFilter):
        own = st.sampled_from(["0", "1", "240", "-3", "1.5", "9" * 30])
    return own | st.text(max_size=8) | st.text(min_size=90, max_size=130)


@st.composite
def filterset_queries(draw):
    filterset = draw(st.sampled_from(FILTERSETS))
    names = draw(st.lists(st.sampled_from(sorted(filterset.base_filters)), unique=True))
    query = {name: draw(_value(filterset.base_filters[name])) for name in names}
    if draw(st.booleans()):
        query["unrelated"] = "x"  # a parameter no filter reads
    return filterset, query


@settings(max_examples=150, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(case=filterset_queries())
def test_a_query_is_validated_as_django_filters_own_form_validates_it(case):
    filterset, query = case
    data = QueryDict(mutable=True)
    data.update(query)
    queryset = _model(filterset).objects.none()
    mine = filterset(data, queryset=queryset)
    stock = filterset(data, queryset=queryset)
    stock_form = django_filters.FilterSet.get_form_class(stock)(data)  # every filter
    assert mine.is_valid() == stock_form.is_valid()
    assert mine.form.errors == stock_form.errors
    if stock_form.is_valid():
        assert mine.form.cleaned_data == {
            name: value for name, value in stock_form.cleaned_data.items() if name in query
        }


@pytest.mark.parametrize("filterset", FILTERSETS, ids=lambda f: f.__name__)
def test_forms_of_the_same_names_share_a_class_and_no_field(filterset):
    data = QueryDict(mutable=True)
    data.update({name: "" for name in filterset.base_filters})
    queryset = _model(filterset).objects.none()
    one, two = (filterset(data, queryset=queryset).form for _ in range(2))
    assert type(one) is type(two)
    assert list(one.fields) == list(filterset.base_filters)
    for name in one.fields:
        assert one.fields[name] is not two.fields[name]


def _parts(field) -> tuple:
    """What a filter form's fields share between its forms (core.filters.FormFields), as
    values to compare."""
    choices = list(field.choices) if hasattr(field, "choices") else None
    attrs = dict(field.widget.attrs)
    return choices, attrs, dict(field.error_messages), list(field.validators), field.required


@pytest.mark.parametrize("filterset", FILTERSETS, ids=lambda f: f.__name__)
def test_validating_queries_changes_nothing_the_forms_share(filterset):
    # Forms of one class share their fields' widgets, choices, validators and messages:
    # validating good and bad values (the property test above, for every filter) leaves
    # them as a form class made afresh has them.
    queryset = _model(filterset).objects.none()
    every = QueryDict(mutable=True)
    every.update({name: "" for name in filterset.base_filters})
    form_class = type(filterset(every, queryset=queryset).form)
    before = {name: _parts(f) for name, f in form_class.base_fields.items()}
    for value in ("x" * 120, "1.5", "-3", "240", "9" * 30, ""):
        data = QueryDict(mutable=True)
        data.update({name: value for name in filterset.base_filters})
        filterset(data, queryset=queryset).is_valid()
    assert {name: _parts(f) for name, f in form_class.base_fields.items()} == before
    fresh = django_filters.FilterSet.get_form_class(filterset(every, queryset=queryset))
    assert {name: _parts(f)[:2] for name, f in fresh.base_fields.items()} == {
        name: parts[:2] for name, parts in before.items()
    }


def test_value_forms_of_one_list_of_tests_share_what_validating_changes_in_none():
    # The value view's ValueForm: its fields made once for each list of tests, copied into
    # each form as a filter form's are (core.filters.FormFields).
    tests = [results.filters.Test(identifier=f"t{i}", name=f"Test {i}") for i in range(3)]
    made = results.filters.ValueForm({}, tests=tests).base_fields
    before = {name: _parts(f) for name, f in made.items()}
    forms = []
    for data in ({"test": "x" * 120, "as_of": "never"}, {"test": "t1", "as_of": "2026-01-02"}):
        form = results.filters.ValueForm(data, tests=tests)
        form.is_valid()
        forms.append(form)
    assert not forms[0].is_valid() and forms[1].cleaned_data["test"] == "t1"
    assert forms[0].fields["test"] is not forms[1].fields["test"]
    assert forms[0].fields["test"].choices == [("t0", "Test 0"), ("t1", "Test 1"), ("t2", "Test 2")]
    assert {name: _parts(f) for name, f in made.items()} == before
