"""Queue-depth sweeps: a family of catalog tests (catalog.json's `family`) that differ only
in their queue depth, drawn as one curve on the compare page and ranked at a chosen depth
(?qd=) on their leaderboard. Read from catalog.json, the file the database's tests are
written from (services.suite_catalog_sync), so that URLs resolve without a query."""

from __future__ import annotations

import functools
import json
import re
from pathlib import Path

CATALOG = Path(__file__).resolve().parent / "schema" / "catalog.json"
DEFAULT_DEPTH = 32  # a sweep's leaderboard without ?qd=: the depth of the QD32 tests

NOT_A_SWEEP = "{test} is not a queue-depth sweep: it is measured at one depth only"
NO_SUCH_DEPTH = "{family} has no test at queue depth {depth}"


@functools.cache
def families() -> dict[str, dict[int, str]]:
    """Each sweep's tests by queue depth, depths ascending."""
    found: dict[str, dict[int, str]] = {}
    for test in json.loads(CATALOG.read_text())["tests"]:
        if test.get("family"):
            found.setdefault(test["family"], {})[test["queue_depth"]] = test["id"]
    return {name: dict(sorted(tests.items())) for name, tests in found.items()}


@functools.cache
def depths() -> tuple[int, ...]:
    """Every queue depth any sweep is measured at, ascending (the ?qd= choices)."""
    return tuple(sorted({d for tests in families().values() for d in tests}))


@functools.cache
def family_of(identifier: str) -> str:
    """The sweep a test identifier (or a sweep's own name) is of; "" for any other."""
    if identifier in families():
        return identifier
    return next((f for f, tests in families().items() if identifier in tests.values()), "")


class SweepDepthError(ValueError):
    """A ?qd= that names no test: the page's test is not a sweep's, or the sweep has no test
    at that depth."""


def member(identifier: str, qd: int | None) -> str:
    """The test a leaderboard of `identifier` ranks at queue depth `qd`: a sweep's test at
    that depth (its DEFAULT_DEPTH when `identifier` names the sweep itself and qd is None),
    else `identifier` itself. Raises SweepDepthError for a qd that names no test."""
    family = family_of(identifier)
    if not family:
        if qd is not None:
            raise SweepDepthError(NOT_A_SWEEP.format(test=identifier))
        return identifier
    if qd is None:
        return identifier if identifier != family else families()[family][DEFAULT_DEPTH]
    if qd not in families()[family]:
        raise SweepDepthError(NO_SUCH_DEPTH.format(family=family, depth=qd))
    return families()[family][qd]


def member_of_query(identifier: str, text: str | None) -> str:
    """member() for a query's ?qd= as given (any text): what the page's cache scope depends
    on; a qd that is not a depth leaves the identifier (the page answers 400 anyway)."""
    try:
        return member(identifier, int(text) if text and text.isdigit() else None)
    except SweepDepthError:
        return identifier


def sweep_label(name: str) -> str:
    """A sweep's name from one of its tests': "4KB random read QD8 (queue-depth sweep)" is
    of "4KB random read (queue-depth sweep)"."""
    return re.sub(r"\s*\bQD\d+\b", "", name)
