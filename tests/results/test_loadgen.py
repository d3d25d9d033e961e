"""The loadgen a run was measured by against what the catalog's suite versions need
(results/loadgen.py, issue 47): the catalog declares it, an upload by an older loadgen is
stored and says so (tests/api/test_upload_loadgen_version.py)."""

import json

import pytest

from results import loadgen
from results.loadgen import SuiteNeed, parse_version, tool_warnings

pytestmark = pytest.mark.django_db


@pytest.fixture
def needs(monkeypatch):
    """A catalog whose desktop-2011 version 1 needs loadgen 0.3.0, and whose test
    randread-4k-qd3 is also in a suite that 0.2.0 runs."""
    declared = (
        SuiteNeed("desktop-2010", 1, "0.2.0", ("randread-4k-qd3", "seqread-2m-qd1")),
        SuiteNeed("desktop-2011", 1, "0.3.0", ("randread-4k-qd3", "randwrite-4k-qd32-8g")),
    )
    monkeypatch.setattr(loadgen, "suite_needs", lambda: declared)
    return declared


def test_versions_are_read_as_numbers():
    assert parse_version("0.10.2") == (0, 10, 2) > parse_version("0.9.12")
    assert parse_version("1.2.3-dirty") == (1, 2, 3)
    assert parse_version("1.2.3-dirty", suffix=False) is None
    for text in ("", "1.2", "v1.2.3", "1.2.3.4", "abc", "1.2.3 extra"):
        assert parse_version(text) is None, text


def test_every_suite_version_names_a_release_this_loadgen_meets():
    expected = parse_version(loadgen.expected_version(), suffix=False)
    suites = json.loads(loadgen.CATALOG.read_text())["suites"]
    assert len(loadgen.suite_needs()) == len(suites)
    for suite in suites:
        needs = parse_version(suite["loadgen_min"], suffix=False)
        assert needs is not None and needs <= expected, suite["name"]


def test_the_expected_version_is_meson_builds():
    meson = (loadgen.MESON_BUILD).read_text()
    assert f"version : '{loadgen.expected_version()}'" in meson


def test_an_older_loadgen_than_its_suite_needs_is_told_so(needs):
    said = tool_warnings(
        tool_name="loadgen", tool_version="0.2.9", suite=("desktop-2011", 1), tests=[]
    )
    assert said == [
        loadgen.OLDER_THAN_SUITE.format(
            version="0.2.9",
            suite="desktop-2011",
            suite_version=1,
            minimum="0.3.0",
            current=loadgen.expected_version(),
            page="/bench/loadgen/",
        )
    ]
    for recent in ("0.3.0", "0.3.0-dirty", "0.10.0", "1.0.0"):
        assert (
            tool_warnings(
                tool_name="loadgen", tool_version=recent, suite=("desktop-2011", 1), tests=[]
            )
            == []
        ), recent
    # Another tool's figures, a suite the catalog does not declare: nothing to say.
    assert tool_warnings(tool_name="fio", tool_version="0.0.1", suite=None, tests=["x"]) == []
    assert (
        tool_warnings(
            tool_name="loadgen", tool_version="0.0.1", suite=("desktop-2011", 9), tests=[]
        )
        == []
    )


def test_tests_without_a_suite_need_the_oldest_loadgen_that_runs_each(needs):
    """randread-4k-qd3 is in a suite 0.2.0 runs: 0.2.0 runs it; randwrite-4k-qd32-8g is
    only in the one that needs 0.3.0."""
    assert (
        tool_warnings(
            tool_name="loadgen", tool_version="0.2.0", suite=None, tests=["randread-4k-qd3"]
        )
        == []
    )
    (said,) = tool_warnings(
        tool_name="loadgen",
        tool_version="0.2.0",
        suite=None,
        tests=["randread-4k-qd3", "randwrite-4k-qd32-8g"],
    )
    assert "the tests randwrite-4k-qd32-8g need (loadgen 0.3.0 or later)" in said
    assert (
        tool_warnings(
            tool_name="loadgen", tool_version="0.0.1", suite=None, tests=["adhoc-randread-4k-qd1"]
        )
        == []
    )  # an ad-hoc test is in no suite


def test_a_version_that_is_no_release_is_said_so(needs):
    (said,) = tool_warnings(
        tool_name="loadgen", tool_version="trunk", suite=("desktop-2011", 1), tests=[]
    )
    assert said.startswith('loadgen\'s version "trunk" is no release number')
    assert "loadgen 0.3.0 or later" in said
