"""Filters of rankings and value views, written once for the pages and the REST API."""

import django_filters
from django import forms

from core.links import SLUG
from drives.filters import drive_filterset
from results.models import DataPattern, LeaderboardEntry, Run, Test
from results.selectors.common import VALUE_DEFAULT_TEST, entries

SOURCE_CHOICES = [(Run.Source.MEASURED, "measured"), (Run.Source.PUBLISHED, "published")]


# The drive filters on a leaderboard entry: the copies of its drive's specs it keeps (one
# table to filter and rank), the drive itself for a search.
ENTRY_FIELDS = {
    "search": "drive__",
    "kind": "kind",
    "interface": "interface",
    "controller": "controller",
    "cell_type": "cell_type",
    "capacity": "capacity_bytes",
}


class LeaderboardFilter(drive_filterset(ENTRY_FIELDS)):
    """Which entries a leaderboard ranks: the drive filters, the data pattern, and whether
    the figure was measured or published."""

    pattern = django_filters.ChoiceFilter(choices=DataPattern.choices, label="Data pattern")
    source = django_filters.ChoiceFilter(choices=SOURCE_CHOICES, label="Source")

    class Meta:
        model = LeaderboardEntry
        fields: list[str] = []


class ValueFilter(LeaderboardFilter):
    """Which entries a value view prices: the leaderboards' (what it prices them in and
    as of when is ValueForm's)."""


class ValueForm(forms.Form):
    """What a value view prices besides its filters: one of `tests` (the 4KB tests, see
    selectors.value_tests), and the day prices are taken as of (the latest without one)."""

    test = forms.ChoiceField(required=False, label="Test (4KB)")
    as_of = forms.DateField(required=False, label="Prices as of")

    def __init__(self, data, *, tests: list[Test]):
        super().__init__(data)
        self.tests = tests
        self.fields["test"].choices = [(t.identifier, t.name) for t in tests]

    def chosen_test(self) -> Test:
        """The test chosen (valid form), or the default one."""
        wanted = self.cleaned_data["test"] or VALUE_DEFAULT_TEST
        chosen = next((t for t in self.tests if t.identifier == wanted), None)
        return chosen if chosen is not None else Test.objects.get(identifier=wanted)


def value_query(data, tests: list[Test]) -> tuple[ValueFilter, ValueForm]:
    """A value view's query: its filters, and what it prices."""
    return ValueFilter(data, queryset=entries()), ValueForm(data, tests=tests)


MAX_HIGHLIGHT = 5


def highlight_slugs(values: list[str]) -> tuple[str, ...]:
    """The drives a ranking or value view highlights (its `highlight` parameters): the first
    MAX_HIGHLIGHT distinct slugs among `values`; any other text names no drive."""
    slugs = [v.strip() for v in values if SLUG.fullmatch(v.strip())]
    return tuple(dict.fromkeys(slugs))[:MAX_HIGHLIGHT]
