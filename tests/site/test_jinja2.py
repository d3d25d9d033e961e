"""The pages' Jinja2 environment: static URLs, and dates written as Django's date filter
writes them."""

import datetime
import re
from pathlib import Path
from types import SimpleNamespace

from django.conf import settings as settings_module
from django.template import defaultfilters, engines
from hypothesis import given, settings
from hypothesis import strategies as st

from benchsite.jinja2 import static_url


def test_a_static_url_follows_the_storage(settings):
    settings.STATIC_URL = "/one/"
    assert static_url("css/bench.css") == "/one/css/bench.css"
    settings.STATIC_URL = "/two/"
    assert static_url("css/bench.css") == "/two/css/bench.css"


def _run(started, finished, ingested, published) -> SimpleNamespace:
    """A run as the run card reads it, with only its dates to show."""
    return SimpleNamespace(
        pk=1,
        source="measured",
        get_source_display=lambda: "measured",
        citation=SimpleNamespace(
            publisher="P",
            title="T",
            safe_url="",
            author="",
            published_on=published,
            rate_basis_unstated=False,
        ),
        citation_locator="",
        tool_name="loadgen",
        tool_version="1",
        engine="",
        suite=None,
        firmware=None,
        bench=None,
        get_drive_state_display=lambda: "clean",
        started_at=started,
        finished_at=finished,
        submitter=None,
        ingested_at=ingested,
    )


UTC_TIMES = st.datetimes(
    min_value=datetime.datetime(1, 1, 2), timezones=st.just(datetime.UTC)
) | st.sampled_from([datetime.datetime(5, 6, 7, 8, 9, tzinfo=datetime.UTC)])


@settings(max_examples=200, deadline=None)
@given(started=UTC_TIMES, finished=st.none() | UTC_TIMES, ingested=UTC_TIMES, published=st.dates())
def test_a_run_cards_dates_are_djangos_text(started, finished, ingested, published):
    """The run card writes its dates with the values' own isoformat (Django's date filter
    costs tens of microseconds a call): the text Django writes for "Y-m-d" and "H:i", the
    year in four digits whatever it is, the time as stored (UTC)."""
    env = engines["jinja2"].env
    card = env.get_template("bench/_run.html").module.run_card
    html = str(card(_run(started, finished, ingested, published)))

    django = defaultfilters.date
    when = django(started, "Y-m-d H:i")
    if finished:
        when += f" – {django(finished, 'H:i')}"
    assert f"<dt>Date</dt><dd>{when} UTC</dd>" in html
    assert f", {django(published, 'Y-m-d')}</dd>" in html
    assert f"<dd>imported, {django(ingested, 'Y-m-d')}</dd>" in html


def test_no_template_writes_a_price_itself():
    """Prices and their ratios go through results.units (the dollars, money, per_gb and
    per_kiops filters): a "$" written before a value, or a price formatted in place, would
    write it another way than the rest of the site."""
    templates = Path(settings_module.BASE_DIR) / "templates"
    for path in templates.rglob("*.html"):
        text = path.read_text()
        assert not re.search(r"\$\s*\{\{", text), path
        assert not re.search(r"\{\{\s*[\w.]*(price|amount)\s*\}\}", text), path
