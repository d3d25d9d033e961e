"""The filter form of the catalog, leaderboards and value views is drawn from its FilterSet:
every filter with its label, a select of its choices (the controllers for the controller)
under the text of its empty choice, or an input; what a query chose shown as chosen. A
filter added to the FilterSet is drawn without a word of the template."""

import html
import re

import django_filters
import pytest
from django.urls import reverse
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core.filters import DefaultChoiceFilter, SlugFilter, form_fields
from drives.filters import DriveFilter
from drives.models import Controller, Drive
from results.filters import LeaderboardFilter, ValueFilter
from results.views import leaderboards
from tests.filter_queries import filter_queries
from tests.results.helpers import measured

pytestmark = pytest.mark.django_db

LABEL = re.compile(r"<label>([^<]*) <(select|input) ([^>]*)>(.*?)</label>", re.DOTALL)
PAGES = {
    DriveFilter: reverse("drives:home"),
    # A queue-depth sweep's page: it draws every filter, the depth (qd) too, which a test of
    # one depth leaves out (tests/results/test_sweeps.py).
    LeaderboardFilter: reverse("bench:leaderboard", args=["randwrite-4k-qd8-8g-sweep"]),
    ValueFilter: reverse("bench:value"),
}


def drawn(page: str) -> dict[str, dict]:
    """The filter form's controls by name: label, select or input, attributes, options."""
    controls = {}
    for label, kind, attributes, rest in LABEL.findall(page):
        attrs = dict(re.findall(r'(\w+)="([^"]*)"', attributes))
        options = re.findall(r'<option value="([^"]*)"( selected)?>([^<]*)</option>', rest)
        controls[attrs["name"]] = {"label": html.unescape(label), "kind": kind, **attrs} | {
            "options": [(v, html.unescape(t)) for v, _, t in options],
            "selected": [v for v, chosen, _ in options if chosen],
        }
    return controls


@pytest.fixture
def catalog():
    measured(manufacturer="Acme", model="Fast One", seed=1)


@settings(
    max_examples=20, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(filterset=st.sampled_from(sorted(PAGES, key=str)), data=st.data())
def test_every_filter_is_drawn_as_declared_with_what_the_query_chose(
    client, catalog, filterset, data
):
    query = data.draw(filter_queries(filterset, words=st.sampled_from(["Acme", "x"])))
    controls = drawn(client.get(PAGES[filterset], query).content.decode())
    controllers = [
        (c.slug, f"{c.vendor.name} {c.model}")
        for c in Controller.objects.select_related("vendor").order_by("vendor__name", "model")
    ]
    for name, flt in filterset.base_filters.items():
        control, field = controls[name], form_fields(filterset)[name]
        assert control["label"] == field.label
        chosen = query.get(name, "")
        if isinstance(flt, django_filters.ChoiceFilter | SlugFilter):
            declared = flt.extra.get("choices", controllers)
            choices = [(str(v), t) for v, t in declared]
            empty = flt.empty_label if isinstance(flt, SlugFilter) else flt.extra["empty_label"]
            # A choice that always narrows (its default when none is chosen) offers no "none".
            blank = [] if isinstance(flt, DefaultChoiceFilter) else [("", empty)]
            assert control["kind"] == "select"
            assert control["options"] == [*blank, *choices]
            assert control["selected"] == ([chosen] if chosen in dict(choices) else [])
        else:
            assert control["kind"] == "input" and control["type"] == field.input_type
            if chosen:
                assert (
                    float(control["value"]) == float(chosen)
                    if control["type"] == "number"
                    else control["value"] == chosen
                )


def test_the_empty_choices_say_what_no_choice_keeps(client, catalog):
    controls = drawn(client.get(PAGES[LeaderboardFilter]).content.decode())
    controls = {name: controls[name] for name in LeaderboardFilter.base_filters}
    assert {name: c["options"][0][1] for name, c in controls.items() if c["kind"] == "select"} == {
        "kind": "SSDs and hard drives",
        "interface": "any",
        "cell_type": "any cell type",
        "controller": "any",
        "pattern": "both patterns",
        "source": "measured and published",
        # Runs always narrows: its first choice is the default, full-length runs.
        "method": "full-length runs and published figures",
        # A sweep's depth: none chosen ranks the page's own test.
        "qd": "this test's",
    }
    assert [c["label"] for c in controls.values()] == [
        "Search",
        "Kind",
        "Interface",
        "NAND",
        "Controller",
        "GB from",
        "to",
        "Data",
        "Source",
        "Runs",
        "Queue depth",
    ]


def test_a_filter_added_to_the_filterset_is_drawn(client, catalog, monkeypatch):
    class WithFormFactor(LeaderboardFilter):
        form_factor = django_filters.ChoiceFilter(
            field_name="drive__form_factor",
            choices=Drive.FormFactor.choices,
            label="Form factor",
            empty_label="any size",
        )

    monkeypatch.setattr(leaderboards, "LeaderboardFilter", WithFormFactor)
    control = drawn(client.get(PAGES[LeaderboardFilter]).content.decode())["form_factor"]
    assert control["label"] == "Form factor" and control["kind"] == "select"
    assert control["options"] == [("", "any size"), *Drive.FormFactor.choices]
