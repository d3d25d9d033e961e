"""compare.csv writes plain numbers (issue 48, item 9): every figure of every demo comparison
reads back with the csv module into a number (35217.4, not "35,217" or "177.5 (quick run)"),
its qualifiers in the column beside it; a cell that is no figure is one of a few words."""

import csv
import io
import itertools
import re
from io import StringIO

import pytest
from django.core.management import call_command
from django.urls import reverse

from drives.models import Drive

pytestmark = pytest.mark.django_db
# What a drive's cell says where it has no figure.
WORDS = {"", "not tested", "did not run out", "never", "—"}
NOTES = {"derived", "quick run", "data pattern not stated"}
# Where a group's percentiles come from (results.tails.tail_label), beside them.
TAIL_NOTE = re.compile(
    r"merged from the histograms of [\d,]+ results"
    r"|the latest result's: [\d,]+ of [\d,]+ results carry a histogram, so the group's are "
    r"not merged|the latest pass's: a chosen run's passes are not merged|\S+'s own percentiles"
)


def test_every_figure_of_compare_csv_is_a_plain_number(client):
    call_command("load_demo", stdout=StringIO())
    slugs = list(Drive.objects.order_by("slug").values_list("slug", flat=True))
    chosen = [
        *itertools.islice(itertools.combinations(slugs, 2), 0, None, 17),
        tuple(slugs[:3]),
        tuple(slugs[-4:]),
    ]
    figures = 0
    for drives in chosen:
        text = client.get(reverse("bench:compare_csv", args=drives)).content.decode()
        header, *rows = list(csv.reader(io.StringIO(text)))
        n = len(drives)
        assert [h.endswith(": notes") for h in header[5 : 5 + 2 * n]] == [False, True] * n
        for row in rows:
            section, measure = row[0], row[3]
            if section in ("specs", "parameters") or measure == "stopped by":
                continue
            for value, notes in zip(row[5 : 5 + 2 * n : 2], row[6 : 6 + 2 * n : 2], strict=True):
                if value in WORDS:
                    continue
                float(value)  # a plain number, or this raises
                assert "," not in value, (drives, row[:5], value)
                figures += 1
                assert not notes or set(notes.split("; ")) <= NOTES | {
                    note
                    for note in notes.split("; ")
                    if note.startswith("n = ") or TAIL_NOTE.fullmatch(note)
                }
            if n == 2 and row[-1]:
                float(row[-1])  # the difference, in percent
    assert figures > 1000
