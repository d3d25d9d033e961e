#!/usr/bin/env python3
"""The response-time curves, suite curve-2026, end to end on a file (`curve.py suite|point`),
each document checked against the schema; the suite's tests are read from catalog.json.

suite: the whole suite: each curve's maximum (unpaced: no rate_iops), then its points in
  order, each paced at its load_percent of the IOPS its maximum reached in the same pass
  (rate_iops, to the nearest I/O a second), each point's latency measured.
point: one point named with --tests runs its curve's maximum first, then itself."""

import lgtest
from lgtest import check

SUITE = "curve-2026"


def catalog_tests() -> dict[str, dict]:
    return {t["id"]: t for t in lgtest.catalog()["tests"]}


def run(scene, out, *args):
    a = ["run", "--target", str(scene.path("target.bin")), "--size", "64M", *args]
    # 60 s a point scaled to 0.3 s
    a += ["--pattern", "incompressible", "--duration-scale", "0.005", "--output", str(out)]
    return lgtest.run([*a, "--quiet"], timeout=120)


def check_paced(doc, tests):
    maximum = None
    for r in doc["results"]:
        t = tests[r["test"]]
        name = r["test"]
        check(t.get("curve"), f"{name} is not a curve's test")
        check(r["queue_depth"] == 32 and r["io_count"] > 0, f"{name}: QD{r['queue_depth']}")
        if not t.get("load_percent"):
            check("rate_iops" not in r and "load_percent" not in r, f"{name}: paced")
            maximum = r
            continue
        check(maximum is not None and maximum["test"] == t["curve"], f"{name}: no maximum first")
        want = round(maximum["iops"] * t["load_percent"] / 100)
        check(r.get("load_percent") == t["load_percent"], f"{name}: {r.get('load_percent')}")
        check(abs(r.get("rate_iops", 0) - want) <= 1, f"{name}: rate {r.get('rate_iops')}, {want}")
        check(r["latency_ns"]["percentiles"]["99"] > 0, f"{name}: no p99")


def suite(scene):
    tests = catalog_tests()
    (spec,) = [s for s in lgtest.catalog()["suites"] if s["name"] == SUITE]
    out = scene.path("curve.json")
    run(scene, out, "--suite", SUITE)
    doc = lgtest.load_document(out)
    check(doc["status"] == "complete", f"status {doc['status']}: {doc.get('failure')}")
    check([r["test"] for r in doc["results"]] == spec["tests"], "one result a test, in order")
    check_paced(doc, tests)


def point(scene):
    tests = catalog_tests()
    out = scene.path("point.json")
    run(scene, out, "--tests", "randwrite-4k-qd32-8g-curve-load50")
    doc = lgtest.load_document(out)
    check(doc["status"] == "complete", f"status {doc['status']}: {doc.get('failure')}")
    check(
        [r["test"] for r in doc["results"]]
        == ["randwrite-4k-qd32-8g-curve", "randwrite-4k-qd32-8g-curve-load50"],
        f"not the maximum, then the point: {[r['test'] for r in doc['results']]}",
    )
    check_paced(doc, tests)


if __name__ == "__main__":
    lgtest.main(lgtest.scenarios({"suite": suite, "point": point}, "curve.py"))
