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


def repeated(manufacturer, model, seed, scale, passes=3, step=0.02):
    """A measured run of `passes` passes: each pass's rates `scale`d, the passes `step`
    apart (pass 1 a step below the middle, pass 3 a step above)."""
    document = measured_document(seed=seed, manufacturer=manufacturer, model=model)
    document["schema_version"] = 2
    document["parameters"]["repeat"] = passes
    results = []
    for n in range(1, passes + 1):
        for r in document["results"]:
            r = {**r, "repeat": n}
            seconds = r["duration_ns"] / 1e9
            r["io_count"] = int(r["io_count"] * scale * (1 + step * (n - 2)))
            r["bytes"] = r["io_count"] * r["block_size"]
            r["bytes_per_second"] = r["bytes"] / seconds
            r["iops"] = r["io_count"] / seconds
            results.append(r)
    document["results"] = results
    return ingest(document)
