"""The compare's API CSV is long (issue 48, item 9): one row per drive, test and data pattern
(a consistency series per spare-area level), its figures as dotted columns, as the JSON
writes them; not one row of thousands of columns."""

import csv
import io
import json
from io import StringIO

import pytest
from django.core.management import call_command
from django.urls import reverse

pytestmark = pytest.mark.django_db
DRIVES = (
    "linux-zram-compressed-ram-disk",
    "linux-zram-compressed-ram-disk-lzo-rle-43gb",
    "intel-ssd-530-240gb",
)


@pytest.mark.parametrize("count", [2, 3])
def test_the_compare_csv_is_a_row_per_drive_test_and_pattern(client, count):
    call_command("load_demo", stdout=StringIO())
    url = reverse("api:compare", args=DRIVES[:count])
    body = client.get(url).json()
    response = client.get(url, {"format": "csv"})
    assert response.status_code == 200 and response["Content-Type"].startswith("text/csv")
    header, *lines = list(csv.reader(io.StringIO(response.content.decode())))
    rows = [dict(zip(header, line, strict=True)) for line in lines]
    assert len(header) < 200, len(header)
    slugs = {side["key"]: side["slug"] for side in body["sides"]}
    expected = []
    for test in body["tests"]:
        for p in test["patterns"]:
            for key, slug in slugs.items():
                if p[key] is not None:
                    expected.append(("throughput", test["test"], p["pattern"], slug, p[key]))
    found = [r for r in rows if r["section"] == "throughput"]
    assert [(r["test"], r["pattern"], r["drive"]) for r in found] == [
        (t, p, s) for _, t, p, s, _ in expected
    ]
    for row, (*_, figures) in zip(found, expected, strict=True):
        for name in ("bytes_per_second", "iops", "run"):
            value = figures[name]
            assert row[name] == ("" if value is None else json.dumps(value)), name
        if row["side"] != "a":
            assert row["verdict.winner"] != "" and row["verdict.label"] != ""
    sections = {r["section"] for r in rows}
    assert sections >= {"throughput", "consistency", "saturation", "wsat"}
    levels = [r for r in rows if r["section"] == "consistency"]
    assert len(levels) == sum(
        1 for level in body["consistency"] for key in slugs if level[key] is not None
    )
