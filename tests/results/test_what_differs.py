"""What differs, said plainly (issue 48, item 1): for each test of a comparison of two to four
drives, every parameter in which the compared figures differ (tool and version, engine, test
bench, link, firmware, drive state, how obtained, duration, queue depth, span, block size,
pattern), each side's value, and "the same" for the rest; computed once
(TestRows.parameters), shown by the page, the exports and the API alike."""

import csv
import io
import itertools
import json
from io import StringIO

import pytest
from django.core.management import call_command
from django.urls import reverse

from drives.models import Drive
from results.selectors.compare import NOT_STATED, PARAMETERS, compare
from results.services import run_ingest
from results.synthetic import measured_document

pytestmark = pytest.mark.django_db
NAMES = [name for name, _ in PARAMETERS]


def test_every_parameter_is_said_to_differ_or_be_the_same_as_the_figures_have_it():
    """Over demo comparisons of two to four drives: each test names every parameter once; a
    parameter differs where, in a data pattern's row of two sides or more, their figures'
    values are not all one (where no row has two, where the sides' values are not)."""
    call_command("load_demo", stdout=StringIO())
    slugs = list(Drive.objects.order_by("slug").values_list("slug", flat=True))
    pairs = [*itertools.combinations(slugs[:10], 2), tuple(slugs[:3]), tuple(slugs[3:7])]
    checked = 0
    for chosen in pairs:
        c = compare(list(chosen))
        for one in [*c.tests, *(p for s in c.sweeps for p in s.points)]:
            params = one.parameters
            tested = [i for i in range(len(c.sides)) if any(p.figures[i] for p in one.rows)]
            if len(tested) < 2:
                assert params is None
                continue
            assert sorted([*(d.parameter for d in params.differ), *params.same]) == sorted(NAMES)
            shared = [p for p in one.rows if sum(f is not None for f in p.figures) > 1]
            for name, read in PARAMETERS:
                if shared:
                    differs = any(
                        len({read(f) or NOT_STATED for f in p.figures if f}) > 1 for p in shared
                    )
                else:
                    seen = [
                        {read(f) or NOT_STATED for p in one.rows if (f := p.figures[i])}
                        for i in tested
                    ]
                    differs = any(s != seen[0] for s in seen)
                assert (name not in params.same) == differs, (chosen, one.test.identifier, name)
            checked += 1
    assert checked > 20


def ingest(seed: int, firmware: str, tool_version: str):
    document = measured_document(seed=seed, model="Differs Drive")
    document["drive"]["firmware"] = firmware
    document["tool"]["version"] = tool_version
    return run_ingest(document=json.dumps(document).encode(), submitter=None).run


def test_the_page_the_exports_and_the_api_say_what_differs(client):
    old, new = ingest(1, "1.0", "0.1.0"), ingest(2, "2.0", "0.1.0")
    slug = old.drive.slug
    query = {"run_a": old.pk, "run_b": new.pk}
    page = client.get(reverse("bench:compare", args=[slug, slug]), query).content.decode()
    assert "<strong>Differ:</strong> firmware (A 1.0; B 2.0)" in page
    assert "tool" in page.split("<strong>The same:</strong>", 1)[1].split("</p>", 1)[0]
    text = client.get(reverse("bench:compare_csv", args=[slug, slug]), query).content.decode()
    rows = list(csv.reader(io.StringIO(text)))
    firmware = [r for r in rows if r[0] == "parameters" and r[3] == "firmware"]
    assert firmware and all([r[4], r[5], r[7]] == ["differs", "1.0", "2.0"] for r in firmware)
    same = [r for r in rows if r[0] == "parameters" and r[3] == "the same"]
    assert same and all("tool" in r[4] and "firmware" not in r[4] for r in same)
    body = client.get(reverse("api:compare", args=[slug, slug]), query).json()
    for test in body["tests"]:
        assert {"parameter": "firmware", "values": {"a": "1.0", "b": "2.0"}} in test["differences"]
        assert "tool" in test["same"] and "firmware" not in test["same"]
