"""The schema is checked twice over: a compiled fast check, and the explaining validator
that runs when the fast check refuses. They must agree, or a bad document could slip in."""

import json
from pathlib import Path

import fastjsonschema
import pytest
from django.conf import settings

from results import documents
from results.synthetic import measured_document

ROOT = Path(settings.BASE_DIR)
GOOD = sorted((ROOT / "results/schema/samples").glob("*.json")) + sorted(
    (ROOT / "demo/runs").glob("*.json")
)


def mutations():
    def set_path(path, value):
        def mutate(d):
            target = d
            for key in path[:-1]:
                target = target[key]
            target[path[-1]] = value

        return mutate

    def delete(path):
        def mutate(d):
            target = d
            for key in path[:-1]:
                target = target[key]
            del target[path[-1]]

        return mutate

    return {
        "version": set_path(["schema_version"], 6),
        "version 1 with clat": set_path(["results", 0, "clat_ns"], {"mean": 1.0}),
        "status": set_path(["status"], "done"),
        "started_at format": set_path(["started_at"], "yesterday"),
        "iops string": set_path(["results", 0, "iops"], "1"),
        "iops zero": set_path(["results", 0, "iops"], 0),
        "series negative": set_path(["consistency", 0, "iops", 5], -1),
        "series float": set_path(["consistency", 0, "iops", 5], 1.5),
        "series empty": set_path(["consistency", 0, "iops"], []),
        "percentile key": set_path(["results", 0, "latency_ns", "percentiles", "p99"], 5),
        "spare area": set_path(["consistency", 0, "spare_area_percent"], 95),
        "extra field": set_path(["results", 0, "colour"], "red"),
        "no drive model": delete(["drive", "model"]),
        "blank manufacturer": set_path(["drive", "manufacturer"], "   "),
        "test id": set_path(["results", 0, "test"], "Bad Id!"),
        "published without citation": set_path(["source"], {"kind": "published"}),
        "measured without version": delete(["tool", "version"]),
        "failed without failure": set_path(["status"], "failed"),
        "result without metric": lambda d: d["results"].__setitem__(
            0, {"test": "randread-4k-qd3", "pattern": "compressible"}
        ),
    }


@pytest.mark.parametrize("path", GOOD, ids=lambda p: p.name)
def test_good_documents_pass_both(path):
    document = json.loads(path.read_text())
    documents._fast_check()(document)
    assert list(documents._explaining_validator().iter_errors(document)) == []


@pytest.mark.parametrize("name", sorted(mutations()))
def test_bad_documents_fail_both(name):
    document = measured_document()
    mutations()[name](document)
    with pytest.raises(fastjsonschema.JsonSchemaException):
        documents._fast_check()(document)
    assert documents.schema_problems(document), name


def test_content_hash_ignores_spacing_and_key_order():
    document = measured_document()
    reordered = json.loads(json.dumps(document, sort_keys=True, indent=3))
    assert documents.content_hash(document) == documents.content_hash(reordered)
    document["drive"]["firmware"] = "1.1"
    assert documents.content_hash(document) != documents.content_hash(reordered)


def test_compiling_the_fast_check_leaves_the_schema_as_the_file_holds_it():
    """fastjsonschema rewrote the shared schema's references in place (to absolute
    addresses), and the API's description of the upload body, made from it afterwards,
    referred to nothing."""
    documents._fast_check.cache_clear()
    documents._fast_check()
    assert documents.schema() == json.loads(documents.SCHEMA_PATH.read_text())
