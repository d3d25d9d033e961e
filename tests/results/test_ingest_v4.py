"""Ingesting schema_version 4 documents: a WSAT (SNIA PTS write saturation) with its target,
time cap, what stopped it and where its rate first fell below half the first round's, all
stored on its series; versions 1 to 3 refuse those members. fio's own steady-state verdict
on a result (fio_steadystate) is a member of every version."""

import copy
import json

import pytest

from results import documents
from results.models import Result, SaturationSeries
from results.services import run_ingest
from tests.results.schema_slots import (
    maximal_measured,
    maximal_measured_v2,
    maximal_measured_v3,
    maximal_measured_v4,
)
from tests.results.test_ingest import rejected

pytestmark = pytest.mark.django_db

V4_MEMBERS = ("target_bytes", "time_cap_ns", "stopped_by", "halved_at_s", "bytes_before_halved")


def wsat_entry(document: dict) -> dict:
    return next(e for e in document["saturation"] if e["test"] == "wsat-4k-qd32")


def test_a_wsat_is_stored_with_its_stop_and_half_rate_point():
    document = maximal_measured_v4()
    run = run_ingest(document=json.dumps(document), submitter=None).run
    assert run.schema_version == 4
    entry = wsat_entry(document)
    series = SaturationSeries.objects.get(run=run, test__identifier="wsat-4k-qd32")
    assert series.is_wsat
    assert {name: getattr(series, name) for name in V4_MEMBERS} == {
        name: entry[name] for name in V4_MEMBERS
    }
    assert series.bytes_per_interval == entry["bytes_per_interval"]
    # The 128KB sequential saturation of the same run and data pattern is kept beside it.
    plain = SaturationSeries.objects.get(run=run, test__identifier="write-saturation-128k-qd32")
    assert not plain.is_wsat and plain.stopped_by == "" and plain.halved_at_s is None


@pytest.mark.parametrize(
    "version, make", [(1, maximal_measured), (2, maximal_measured_v2), (3, maximal_measured_v3)]
)
@pytest.mark.parametrize("member", V4_MEMBERS)
def test_earlier_versions_cannot_carry_version_4_members(version, make, member):
    document = make()
    wsat = copy.deepcopy(wsat_entry(maximal_measured_v4()))
    # The same WSAT without the version 4 members is a valid saturation of version 2 and 3.
    for name in V4_MEMBERS:
        wsat.pop(name)
    wsat[member] = wsat_entry(maximal_measured_v4())[member]
    if member == "halved_at_s":
        wsat["bytes_before_halved"] = 1  # the pair goes together; refused alike
    if member == "bytes_before_halved":
        wsat["halved_at_s"] = 240.0
    document.setdefault("saturation", []).append(wsat)
    problems = [(p.pointer, p.message) for p in rejected(document)]
    index = len(document["saturation"]) - 1
    if version == 1:  # version 1 has no saturation at all
        assert problems[0][0] == "/saturation"
        return
    assert (
        documents.pointer("saturation", index, member),
        documents.NOT_IN_VERSION.format(field=member, version=version),
    ) in problems


def test_the_half_rate_point_and_its_bytes_go_together():
    document = maximal_measured_v4()
    del wsat_entry(document)["bytes_before_halved"]
    assert rejected(document)


def test_stopped_by_is_bytes_time_or_interrupted():
    document = maximal_measured_v4()
    wsat_entry(document)["stopped_by"] = "cap"
    index = document["saturation"].index(wsat_entry(document))
    assert documents.pointer("saturation", index, "stopped_by") in {
        p.pointer for p in rejected(document)
    }


@pytest.mark.parametrize(
    "make", [maximal_measured, maximal_measured_v2, maximal_measured_v3, maximal_measured_v4]
)
def test_fios_steady_state_is_a_member_of_every_version(make):
    document = make()
    verdict = {"criterion": "iops:20%", "window_s": 4, "attained": False}
    document["results"][0]["fio_steadystate"] = verdict
    run = run_ingest(document=json.dumps(document), submitter=None).run
    stored = Result.objects.filter(run=run).order_by("pk").first()
    assert stored.fio_steadystate == verdict
    assert stored.fio_steady_label == (
        "fio steady state (criterion iops:20%, 4 s window): not attained"
    )
