"""Building result data for the page tests: everything goes in through run_ingest."""

import copy
import json
from datetime import datetime, timedelta

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


def scaled_latency(latency: dict, factor: float) -> dict:
    """A latency summary with every figure times `factor` (a rate divided by it keeps the
    I/Os in flight, by Little's law, what they were)."""
    scaled = {k: type(v)(v * factor) for k, v in latency.items() if k != "percentiles"}
    if "percentiles" in latency:
        scaled["percentiles"] = {p: int(v * factor) for p, v in latency["percentiles"].items()}
    return scaled


def faster(result: dict, factor: float) -> dict:
    """A result `factor` times as fast: its counts and rates times it, its latencies over
    it (Little's law: the same I/Os in flight)."""
    for figure in ("bytes_per_second", "iops"):
        if result.get(figure):
            result[figure] *= factor
    if "io_count" in result:
        result["io_count"] = round(result["io_count"] * factor)
        result["bytes"] = result["io_count"] * result["block_size"]
        seconds = result["duration_ns"] / 1e9
        result["iops"] = result["io_count"] / seconds
        result["bytes_per_second"] = result["bytes"] / seconds
    for kind in ("latency_ns", "clat_ns"):
        if kind in result:
            result[kind] = scaled_latency(result[kind], 1 / factor)
    return result


def full_length(document: dict, seconds: int = 300) -> dict:
    """A quick run's results stretched to `seconds` each at the same rates: counts and
    latencies as they would be, the run's end after them all."""
    for r in document["results"]:
        if "duration_ns" not in r:
            continue
        factor = seconds * 1e9 / r["duration_ns"]
        r["duration_ns"] = seconds * 10**9
        for figures in (r, *(r[side] for side in ("read", "write") if side in r)):
            if "io_count" in figures:
                figures["io_count"] = round(figures["io_count"] * factor)
                figures["bytes"] = figures["io_count"] * r["block_size"]
                figures["iops"] = figures["io_count"] / seconds
                figures["bytes_per_second"] = figures["bytes"] / seconds
    started = datetime.fromisoformat(document["started_at"])
    total = seconds * len(document["results"]) + 3600
    document["finished_at"] = (started + timedelta(seconds=total)).isoformat()
    return document


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
            factor = r["io_count"] / (r["iops"] * seconds)
            r["bytes_per_second"] = r["bytes"] / seconds
            r["iops"] = r["io_count"] / seconds
            r["latency_ns"] = scaled_latency(r["latency_ns"], 1 / factor)  # Little's law
            results.append(r)
    document["results"] = results
    return ingest(document)
