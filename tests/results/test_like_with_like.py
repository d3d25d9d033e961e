"""Like with like (docs/methodology.md): rankings and value views order full-length runs and
published figures together, each marked with its class, and quick runs only on their own,
when the reader asks; the class is the same on the pages and in the API."""

import json
import re

import pytest
from django.conf import settings as conf
from django.http import QueryDict
from django.urls import reverse
from hypothesis import given
from hypothesis import strategies as st

from results.filters import LeaderboardFilter, MethodFilter
from results.models import LeaderboardEntry, Method, method_label
from results.services import run_ingest
from tests.factories import PriceFactory
from tests.results.helpers import full_length, ingest, measured, published, repeated
from tests.results.test_filter_masks import mask_ids
from tests.results.test_views import figures

pytestmark = pytest.mark.django_db

QUICK_SAMPLE = conf.BASE_DIR / "results" / "schema" / "samples" / "measured-loadgen-quick.json"
TEST = "randread-4k-qd3"


@pytest.fixture
def three_classes():
    """A drive known only from a quick run, one from a full-length run of three passes and
    one from a published article, each with a price."""
    quick = run_ingest(document=QUICK_SAMPLE.read_bytes(), submitter=None).run.drive
    full = repeated("Acme", "Full Length", seed=1, scale=1.0).drive
    article = published(
        manufacturer="Old",
        model="Article",
        results=[{"test": TEST, "pattern": "compressible", "bytes_per_second": 40e6}],
    ).drive
    for drive, amount in ((quick, "40.00"), (full, "90.00"), (article, "120.00")):
        PriceFactory(drive=drive, amount=amount)
    return quick, full, article


def _table(html: str, table_id: str) -> str:
    return html.split(f'id="{table_id}"', 1)[1].split("</table>", 1)[0]


def test_a_ranking_never_orders_quick_runs_with_full_ones(client, three_classes):
    quick, full, article = three_classes
    url = reverse("bench:leaderboard", args=[TEST])
    page = client.get(url).content.decode()
    # The form offers the two classes, the full-length one first, and no "both".
    assert '<select name="method"><option value="full"' in page
    default = _table(page, "leaderboard-table")
    assert str(full) in default and str(article) in default and str(quick) not in default
    assert "loadgen, full length" in default and "published, Iometer" in default
    asked = _table(client.get(url, {"method": "quick"}).content.decode(), "leaderboard-table")
    assert str(quick) in asked and str(full) not in asked and str(article) not in asked
    assert "quick run, loadgen" in asked
    # The API ranks the same entries, each with its class.
    api = f"/api/v1/tests/{TEST}/leaderboard/"
    rows = client.get(api).json()["rows"]
    assert {r["drive"] for r in rows} == {full.slug, article.slug}
    assert {r["method_label"] for r in rows} == {"loadgen, full length", "published, Iometer"}
    rows = client.get(api, {"method": "quick"}).json()["rows"]
    assert {(r["drive"], r["method"]) for r in rows} == {(quick.slug, Method.QUICK)}
    assert client.get(api, {"method": "both"}).status_code == 400


def test_the_value_view_prices_full_runs_by_default_with_their_spread(client, three_classes):
    quick, full, article = three_classes
    html = client.get(reverse("bench:value"), {"test": TEST}).content.decode()
    frontier = html.split("<h2>The frontier</h2>", 1)[1].split("</table>", 1)[0]
    assert str(full) in frontier and str(quick) not in html
    assert re.search(r"± \d+\.\d% \(n = 3\)", frontier)  # the full run's three passes
    assert "one run" in frontier  # the article's single figure
    (scatter,) = figures(html).values()
    # (the drives' names beside their points are a trace of text, without whiskers)
    whiskers = [w for t in scatter["data"] if "error_y" in t for w in t["error_y"]["array"]]
    assert max(whiskers) > 0  # each point's range of IOPS, none for a single figure
    asked = client.get(reverse("bench:value"), {"test": TEST, "method": "quick"}).content.decode()
    frontier = asked.split("<h2>The frontier</h2>", 1)[1].split("</table>", 1)[0]
    assert str(quick) in frontier and str(full) not in frontier
    body = client.get("/api/v1/value/", {"test": TEST}).json()
    assert quick.slug not in json.dumps(body) and full.slug in json.dumps(body)


def test_a_drive_with_full_and_quick_runs_ranks_by_its_full_one_once(client):
    quick = run_ingest(document=QUICK_SAMPLE.read_bytes(), submitter=None).run.drive
    full = measured(seed=3, drive=json.loads(QUICK_SAMPLE.read_text())["drive"]).drive
    assert quick == full  # the same drive
    entries = LeaderboardEntry.objects.filter(drive=full, test__identifier=TEST)
    assert entries.count() == 2 and not any(e.quick for e in entries)  # one per pattern
    rows = client.get(f"/api/v1/tests/{TEST}/leaderboard/").json()["rows"]
    assert [r["method"] for r in rows] == [Method.LOADGEN] * 2
    assert client.get(f"/api/v1/tests/{TEST}/leaderboard/?method=quick").json()["rows"] == []


@pytest.mark.parametrize("query", [{}, {"method": ""}, {"method": "full"}, {"method": "quick"}])
def test_the_method_filter_always_narrows_the_same_way(three_classes, query):
    """Named or not, empty or not: the ORM filter and the mask keep the same entries,
    full-length and published unless quick runs are asked for."""
    filters = LeaderboardFilter(
        QueryDict(mutable=True) | query, queryset=LeaderboardEntry.objects.all()
    )
    assert filters.is_valid()
    quick = query.get("method") == MethodFilter.QUICK
    expected = set(LeaderboardEntry.objects.filter(quick=quick).values_list("id", flat=True))
    assert expected and set(filters.qs.values_list("id", flat=True)) == expected
    assert mask_ids(filters) == expected


@given(st.sampled_from([m.value for m in Method]), st.text(max_size=12))
def test_a_class_names_its_tool_where_the_method_needs_it(method, tool):
    text = method_label(method, tool)
    if method == Method.LOADGEN or not tool:
        assert text == Method(method).label
    else:
        assert tool in text
        assert text.startswith(
            {
                Method.QUICK: "quick run",
                Method.IMPORT: "imported from",
                Method.PUBLISHED: "published",
            }[method]
        )


def test_an_imported_figure_is_marked_with_its_tool(client):
    document = json.loads(QUICK_SAMPLE.read_text())
    document["tool"] = {"name": "fio", "version": "3.33"}
    document["drive"]["model"] = "Imported Disk"
    drive = ingest(full_length(document)).drive
    entry = LeaderboardEntry.objects.get(drive=drive, test__identifier=TEST, pattern="compressible")
    assert (entry.method, entry.tool_name) == (Method.IMPORT, "fio")
    html = client.get(reverse("bench:leaderboard", args=[TEST])).content.decode()
    assert "imported from fio" in _table(html, "leaderboard-table")


def test_controller_and_nand_pages_show_each_figures_spread(client):
    from drives.models import Drive
    from tests.factories import ControllerFactory, NandTypeFactory

    drive = repeated("Acme", "Grouped", seed=1, scale=1.0).drive
    controller, nand = ControllerFactory(model="G-1"), NandTypeFactory()
    Drive.objects.filter(pk=drive.pk).update(controller=controller, nand=nand)
    for url in (
        reverse("bench:controller", args=[controller.slug]),
        reverse("bench:nand", args=[nand.slug]),
    ):
        table = client.get(url).content.decode().split("<tbody>", 1)[1]
        assert table.count("(n = 3)") == 4, url  # each key test's worst case, three passes
