"""Building result data for the page tests: everything goes in through run_ingest."""

import copy
import json

from results.models import Run
from results.services import run_ingest
from results.synthetic import measured_document

HOSTILE = ("<script>alert(1)</script>", '"><img src=x onerror=alert(1)>')


def ingest(document: dict) -> Run:
    return run_ingest(document=json.dumps(document), submitter=None).run


def measured(*, manufacturer="Maker", model="Model X", seed=1, **changes) -> Run:
    """A full measured run (four corners in both patterns, two 2,000 s consistency series)."""
    document = measured_document(seed=seed, manufacturer=manufacturer, model=model)
    document.update(changes)
    return ingest(document)


def published(*, manufacturer, model, results, title="A review", url="", **drive) -> Run:
    """Published figures with their citation."""
    return ingest(
        {
            "schema_version": 1,
            "status": "complete",
            "source": {
                "kind": "published",
                "citation": {
                    "publisher": "Site",
                    "title": title,
                    "published_on": "2011-04-01",
                    **({"url": url} if url else {}),
                },
            },
            "tool": {"name": "Iometer"},
            "drive": {"manufacturer": manufacturer, "model": model, **drive},
            "results": copy.deepcopy(results),
        }
    )
