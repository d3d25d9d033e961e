"""Filters of rankings and value views, declared once for the pages and the REST API."""

import copy
import functools
import json

import django_filters
from django import forms
from django_filters.constants import EMPTY_VALUES

from core.filters import DefaultChoiceFilter, FilterSet, FormFields
from core.links import SLUG
from drives.filters import DriveFilter
from results import sweeps
from results.documents import TEST_CATALOG
from results.models import DRIVE_COPIES, DataPattern, LeaderboardEntry, Run, Test, copy_field
from results.selectors.common import VALUE_DEFAULT_TEST
from results.spread import Comparability

SOURCE_CHOICES = [(Run.Source.MEASURED, "measured"), (Run.Source.PUBLISHED, "published")]


def _on_entries(drive_filters: dict[str, django_filters.Filter]) -> type[FilterSet]:
    """The drive filters on leaderboard entries: each on the entry's copy of its field
    (DRIVE_COPIES: one table to filter and rank), else through the entry's drive."""
    copies = {path: copy_field(path) for path in DRIVE_COPIES}
    relocated = {}
    for name, drive_filter in drive_filters.items():
        mine = relocated[name] = copy.deepcopy(drive_filter)
        mine.field_name = copies.get(drive_filter.field_name, f"drive__{drive_filter.field_name}")
    return type("EntryDriveFilter", (FilterSet,), relocated)


class MethodFilter(DefaultChoiceFilter):
    """Which figures are ranked together (docs/methodology.md, "Like with like"): one
    comparability class (results.spread.Comparability, which the compare's winner rule
    keeps to as well), full-length runs and published figures (the default), or quick runs
    alone; never the two in one order. A drive's entry is a quick run's only when it has no
    full-length result."""

    FULL, QUICK = Comparability.FULL, Comparability.QUICK
    CHOICES = Comparability.CHOICES

    def __init__(self, **kwargs):
        super().__init__(choices=list(self.CHOICES), field_name="quick", **kwargs)

    def filter(self, qs, value):
        return qs.filter(quick=(value or self.default) == self.QUICK)

    def mask(self, value, columns):
        return columns.compare("quick", "exact", value == self.QUICK)


class QueueDepthFilter(django_filters.ChoiceFilter):
    """A queue-depth sweep's depth (?qd=, results.sweeps): its leaderboard ranks the
    sweep's test at that depth (the view resolves the test; sweeps.member). On entries, the
    condition that the entry's test is measured at that depth."""

    def __init__(self, **kwargs):
        choices = [(str(depth), f"QD{depth}") for depth in sweeps.depths()]
        # Its condition reads the entry's test (test_id), as every ranking already does; the
        # copy of the entries holds each one's test's depth (test__queue_depth).
        super().__init__(choices=choices, field_name="test", **kwargs)

    @staticmethod
    def depth(value) -> int | None:
        """The depth a (clean) value chooses; None for none."""
        return None if value in EMPTY_VALUES else int(value)

    def filter(self, qs, value):
        if value in EMPTY_VALUES:
            return qs
        return qs.filter(test__queue_depth=self.depth(value))

    def mask(self, value, columns):
        return columns.compare("test__queue_depth", "exact", self.depth(value))


class _EntryFilter(_on_entries(DriveFilter.base_filters)):
    """The filters of entries that rankings and value views share."""

    pattern = django_filters.ChoiceFilter(
        choices=DataPattern.choices,
        label="Data",
        help_text="Data pattern",
        empty_label="both patterns",
    )
    source = django_filters.ChoiceFilter(
        choices=SOURCE_CHOICES,
        label="Source",
        help_text="Figures measured by a tool such as loadgen, or published in a review",
        empty_label="measured and published",
    )
    method = MethodFilter(
        label="Runs", help_text="Full-length runs and published figures, or quick runs"
    )

    class Meta:
        model = LeaderboardEntry
        fields: list[str] = []


class LeaderboardFilter(_EntryFilter):
    """Which entries a leaderboard ranks: the drive filters, the data pattern, whether the
    figure was measured or published, full-length or quick runs (never both), and for a
    queue-depth sweep the depth it is ranked at."""

    qd = QueueDepthFilter(
        label="Queue depth",
        empty_label="this test's",
        help_text="A queue-depth sweep's leaderboard: rank its test at this queue depth "
        f"(default: the page's test; QD{sweeps.DEFAULT_DEPTH} on the sweep's own page); a "
        "test that is not a sweep's has no ranking at any depth (the API answers 404)",
    )

    class Meta(_EntryFilter.Meta):
        pass


class ValueFilter(_EntryFilter):
    """Which entries a value view prices: the leaderboards', but the depth of a sweep (a
    value view prices one named test; what it prices them in and as of when is
    ValueForm's)."""


class ValueForm(forms.Form):
    """What a value view prices besides its filters: one of `tests` (the 4KB tests, see
    selectors.value.value_choices), and the day prices are taken as of (the latest without one)."""

    test = forms.ChoiceField(required=False, label="Test (4KB)")
    as_of = forms.DateField(required=False, label="Prices as of")

    def __init__(self, data, *, tests: list[Test]):
        # The form's fields with these tests to choose from, made once for each list of
        # tests (setting the choices on every form normalized them again, a tenth of a value
        # view), and copied into each form shallowly, as a filter form's are (FormFields:
        # the deep copy of the tests' choices was another tenth).
        self.base_fields = _value_fields(tuple((t.identifier, t.name) for t in tests))
        super().__init__(data)
        self.tests = tests

    def chosen_test(self) -> Test:
        """The test chosen (valid form), or the default one."""
        wanted = self.cleaned_data["test"] or VALUE_DEFAULT_TEST
        chosen = next((t for t in self.tests if t.identifier == wanted), None)
        return chosen if chosen is not None else Test.objects.get(identifier=wanted)


@functools.lru_cache(maxsize=16)
def _value_fields(choices: tuple[tuple[str, str], ...]) -> dict[str, forms.Field]:
    fields = copy.deepcopy(ValueForm.base_fields)
    fields["test"].choices = choices
    return FormFields(fields)


@functools.cache
def catalog_value_tests() -> list[Test]:
    """The tests a value view prices in (selectors.value.value_choices: 4KB throughput tests),
    as the test catalog lists them (catalog.json, which every migrate writes to the
    database): for the API's schema, which reads no database. Unsaved."""
    catalog = json.loads(TEST_CATALOG.read_text())["tests"]
    return [
        Test(identifier=spec["id"], name=spec["name"])
        for spec in sorted(catalog, key=lambda spec: spec["id"])
        if spec["kind"] == Test.Kind.THROUGHPUT and spec["block_size"] == 4096
    ]


def value_query(data, tests: list[Test]) -> tuple[ValueFilter, ValueForm]:
    """A value view's query: its filters, and what it prices."""
    return ValueFilter(data, queryset=ENTRIES), ValueForm(data, tests=tests)


# The queryset a ranking's or value view's FilterSet is given: it only names the model. They
# read the filters' conditions as masks (FilterSet.mask) and leave out what
# selectors.common.entries() leaves out themselves; building entries()' own conditions on
# every request cost a sixth of a ranking's ORM work for nothing.
ENTRIES = LeaderboardEntry.objects.none()


MAX_HIGHLIGHT = 5


def highlight_slugs(values: list[str]) -> tuple[str, ...]:
    """The drives a ranking or value view highlights (its `highlight` parameters): the first
    MAX_HIGHLIGHT distinct slugs among `values`; any other text names no drive."""
    slugs = [v.strip() for v in values if SLUG.fullmatch(v.strip())]
    return tuple(dict.fromkeys(slugs))[:MAX_HIGHLIGHT]
