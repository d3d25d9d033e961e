"""A value view's points at the latest prices are made once per copy of the priced entries
(results.entries_index: _TestRows.points) and come back, with their table rows and scatter
marks (ValuePoint.shown), in every request that shows them. Whatever was asked before, in
any order, each address answers the same bytes as it does from points made afresh: a
point's highlight, its place on the frontier and its links' prefix are part of what it is
held under."""

from __future__ import annotations

import random
from urllib.parse import urlencode

import pytest

from drives.models import Drive
from results import entries_index as vi
from tests.factories import PriceFactory
from tests.results.helpers import published

pytestmark = pytest.mark.django_db(transaction=True)

TEST = "randwrite-4k-qd3-8g"
OTHER = "randwrite-4k-qd32-8g"


def _drive(n: int, rng: random.Random) -> Drive:
    run = published(
        manufacturer=rng.choice(["Held", "Kept <b>&"]),
        model=f"Point {n}",
        capacity_bytes=rng.choice([120, 240, 480, 960]) * 10**9,
        interface=rng.choice(["sata-6g", "pcie-nvme"]),
        results=[
            {"test": test, "pattern": pattern, "iops": rng.uniform(500, 90_000)}
            for test in (TEST, OTHER)
            for pattern in rng.sample(["compressible", "incompressible"], rng.randint(1, 2))
        ],
    )
    for day in ("2013-01-01", "2014-06-01"):
        PriceFactory(drive=run.drive, amount=f"{rng.uniform(20, 400):.2f}", observed_on=day)
    return run.drive


def _points() -> list:
    """Every point the process's current copy holds."""
    return [p for rows in vi.entries_index()._rows.values() for p in rows.points.values()]


def test_every_address_answers_as_from_points_made_afresh(client):
    rng = random.Random(20261130)
    vi._held.clear()
    slugs = [_drive(n, rng).slug for n in range(14)]
    queries = [{}]
    for _ in range(40):
        query = {"test": rng.choice([TEST, OTHER])}
        if rng.random() < 0.5:
            query["highlight"] = rng.sample(slugs, rng.randint(1, 3))
        if rng.random() < 0.4:
            query["interface"] = rng.choice(["sata-6g", "pcie-nvme"])
        if rng.random() < 0.3:
            query["capacity_min"] = rng.choice(["200", "400"])
        if rng.random() < 0.3:
            query["pattern"] = rng.choice(["compressible", "incompressible"])
        if rng.random() < 0.2:
            query["as_of"] = "2013-06-01"
        queries.append(query)
    addresses = [f"/bench/value/?{urlencode(q, doseq=True)}" for q in queries]
    addresses += [f"/bench/value/?{urlencode(q, doseq=True)}" for q in rng.sample(queries, 10)]

    held = {}
    for address in rng.sample(addresses, len(addresses)) + addresses:
        response = client.get(address)
        assert response.status_code == 200, address
        held.setdefault(address, set()).add(response.content)
    points = _points()
    assert points and sum(1 for p in points if "frontier" in p.shown and "mark" in p.shown)

    for address, answers in held.items():
        for rows in vi.entries_index()._rows.values():
            rows.points.clear()
        afresh = client.get(address).content
        assert answers == {afresh}, address
