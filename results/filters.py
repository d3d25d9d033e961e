"""Filters of rankings and value views, written once for the pages and the REST API."""

import copy

import django_filters

from core.links import SLUG
from drives.filters import drive_filterset
from results.models import DataPattern, LeaderboardEntry, Run
from results.selectors.value import value_tests

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
    """The value view's filters: those of the leaderboards, the 4KB test priced per 1,000
    IOPS, and the date prices are taken as of. `test` and `as_of` are read by the view and
    handed to the selector; they do not narrow the entries themselves."""

    test = django_filters.ChoiceFilter(method="keep", label="Test (4KB)")
    as_of = django_filters.DateFilter(method="keep", label="Prices as of")

    def __init__(self, *args, tests: list | None = None, **kwargs):
        super().__init__(*args, **kwargs)
        # The tests themselves are kept: the view takes the chosen one from them. A page
        # reads them with its other choices (selectors.value_choices).
        self.tests = value_tests() if tests is None else tests
        self.test_choices = [(t.identifier, t.name) for t in self.tests]

    @property
    def form(self):
        # The form class and its fields are shared by every request (drives.filters): the
        # tests are this request's choices, on this form's own copy of the field.
        if not hasattr(self, "_form"):
            form = super().form
            form.fields["test"] = copy.deepcopy(form.fields["test"])
            form.fields["test"].choices = self.test_choices
        return self._form

    def keep(self, queryset, name, value):
        return queryset

    def keep_sql(self, value, table, where) -> None:
        """`test` and `as_of` narrow no entries (see keep)."""

    def keep_mask(self, value, columns) -> None:
        """`test` and `as_of` narrow no entries (see keep)."""


MAX_HIGHLIGHT = 5


def highlight_slugs(values: list[str]) -> tuple[str, ...]:
    """The drives a ranking or value view highlights (its `highlight` parameters): the first
    MAX_HIGHLIGHT distinct slugs among `values`; any other text names no drive."""
    slugs = [v.strip() for v in values if SLUG.fullmatch(v.strip())]
    return tuple(dict.fromkeys(slugs))[:MAX_HIGHLIGHT]
