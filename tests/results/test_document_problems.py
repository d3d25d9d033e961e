"""A document with a schema problem and a meaning problem is rejected with both: the meaning
checks run on every part the schema passed. A meaning problem in a value the schema refused
waits for the schema to pass, and the rejection says so (its note); nothing else is reported,
and a check never stumbles on what the schema refused. Over generated pairs of one schema
problem and one meaning problem (every pair of the kinds below), placed in the same or in
different results."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest
from django.conf import settings as django_settings
from hypothesis import example, given, settings
from hypothesis import strategies as st

from results import documents
from results.documents import DocumentRejected, TestSpec
from results.synthetic import measured_document

CATALOG = json.loads((Path(django_settings.BASE_DIR) / "results/schema/catalog.json").read_text())
KNOWN = {
    t["id"]: TestSpec(t["id"], t["kind"], t["block_size"], t["queue_depth"])
    for t in CATALOG["tests"]
}
BASE = measured_document(series_seconds=60)
RESULTS = len(BASE["results"])


@dataclass(frozen=True)
class Mutation:
    """A change that makes one problem: `touches` are the paths of what it changes (a
    schema problem's value refused; a meaning problem's values its check reads)."""

    name: str
    change: Callable[[dict, int], None]
    touches: Callable[[int], list[tuple]]


def _set(*path, value):
    def change(document: dict, index: int) -> None:
        target = document
        keys = [index if key is INDEX else key for key in path]
        for key in keys[:-1]:
            target = target[key]
        target[keys[-1]] = copy.deepcopy(value)

    return change


INDEX = object()  # the result a mutation is placed in

SCHEMA = [
    Mutation("unknown field", _set("colour", value="red"), lambda i: [("colour",)]),
    Mutation("tool name a number", _set("tool", "name", value=5), lambda i: [("tool", "name")]),
    Mutation(
        "drive without model",
        lambda d, i: d["drive"].pop("model"),
        lambda i: [],  # absent: nothing given is refused
    ),
    Mutation("source kind", _set("source", "kind", value="measurd"), lambda i: [("source",)]),
    Mutation("started_at", _set("started_at", value="yesterday"), lambda i: [("started_at",)]),
    Mutation(
        "result's unknown field",
        _set("results", INDEX, "colour", value=1),
        lambda i: [("results", i, "colour")],
    ),
    Mutation(
        "queue depth 0",
        _set("results", INDEX, "queue_depth", value=0),
        lambda i: [("results", i, "queue_depth")],
    ),
    Mutation(
        "latency minimum below 0",
        _set("results", INDEX, "latency_ns", "min", value=-1),
        lambda i: [("results", i, "latency_ns", "min")],
    ),
    Mutation(
        "iops a string",
        _set("results", INDEX, "iops", value="fast"),
        lambda i: [("results", i, "iops")],
    ),
]


def _inconsistent_rate(document: dict, index: int) -> None:
    result = document["results"][index]
    result["bytes_per_second"] = result["iops"] * result["block_size"] * 1.5


def _twice(document: dict, index: int) -> None:
    document["results"].append(copy.deepcopy(document["results"][index]))


MEANING = [
    Mutation(
        "unknown test",
        _set("results", INDEX, "test", value="no-such-test"),
        lambda i: [("results", i, "test")],
    ),
    Mutation(
        "rate not iops x block size",
        _inconsistent_rate,
        lambda i: [("results", i, "bytes_per_second"), ("results", i, "iops")],
    ),
    Mutation(
        "bytes not io_count x block size",
        lambda d, i: d["results"][i].__setitem__("bytes", d["results"][i]["bytes"] + 1),
        lambda i: [("results", i, "bytes"), ("results", i, "io_count")],
    ),
    Mutation(
        "block size of another test",
        _set("results", INDEX, "block_size", value=8192),
        lambda i: [("results", i, "block_size")],
    ),
    # A latency out of order is the plausibility model's (results.plausibility), judged once
    # the document passes these checks.
    Mutation(
        "finished before started",
        _set("finished_at", value="2000-01-01T00:00:00Z"),
        lambda i: [("started_at",), ("finished_at",)],
    ),
    Mutation(
        "a result twice",
        _twice,
        lambda i: [("results", i, "test"), ("results", i, "pattern"), ("results", RESULTS)],
    ),
]


def rejection(document: dict) -> DocumentRejected:
    with pytest.raises(DocumentRejected) as caught:
        documents.validate(document, KNOWN)
    return caught.value


def overlap(a: tuple, b: tuple) -> bool:
    """One path is the other or within it."""
    return a[: len(b)] == b or b[: len(a)] == a


@pytest.mark.parametrize(
    ("schema", "meaning"),
    [(s, m) for s in SCHEMA for m in MEANING],
    ids=[f"{s.name}+{m.name}" for s in SCHEMA for m in MEANING],
)
@settings(max_examples=8, deadline=None)
@given(at=st.tuples(st.integers(0, RESULTS - 1), st.integers(0, RESULTS - 1)))
@example(at=(0, 0))  # in the same result
@example(at=(1, 0))  # in another
def test_a_schema_problem_and_a_meaning_problem_are_reported_together(schema, meaning, at):
    schema_at, meaning_at = at
    alone = {}
    for mutation, index in ((schema, schema_at), (meaning, meaning_at)):
        document = copy.deepcopy(BASE)
        mutation.change(document, index)
        alone[mutation.name] = rejection(document)
        assert len(alone[mutation.name].problems) == 1, alone[mutation.name].problems
    both = copy.deepcopy(BASE)
    meaning.change(both, meaning_at)
    schema.change(both, schema_at)
    rejected = rejection(both)

    refused = schema.touches(schema_at)
    waits = any(overlap(r, m) for r in refused for m in meaning.touches(meaning_at))
    expected = alone[schema.name].problems + ([] if waits else alone[meaning.name].problems)
    assert rejected.problems == expected
    assert rejected.note == (documents.MEANING_OF_REFUSED if refused else "")


def test_a_document_the_schema_cannot_read_waits_for_it_to_be_checked_for_meaning():
    document = copy.deepcopy(BASE)
    document["schema_version"] = 6
    document["results"][0]["test"] = "no-such-test"
    rejected = rejection(document)
    assert [p.pointer for p in rejected.problems] == ["/schema_version"]
    assert rejected.note == documents.MEANING_NOT_CHECKED


def test_more_schema_problems_than_are_listed_wait_for_the_meaning_checks():
    document = copy.deepcopy(BASE)
    document["consistency"][0]["iops"][: documents.MAX_PROBLEMS + 1] = [-1] * (
        documents.MAX_PROBLEMS + 1
    )
    document["results"][0]["test"] = "no-such-test"
    rejected = rejection(document)
    assert rejected.problems[-1].message == documents.MORE_PROBLEMS.format(
        count=documents.MAX_PROBLEMS
    )
    assert rejected.note == documents.MEANING_NOT_CHECKED
