#!/usr/bin/env python3
"""The queue-depth sweeps and the mixed 70/30 test of suite workloads-2026, end to end on a
file (`sweep.py suite|qd-max`), each document checked against the schema; the sweeps' tests
and depths are read from catalog.json (`family`), so the catalog, loadgen and this test agree.

suite: the suite at its default --qd-max (32): one result per depth of each sweep, QD1 to
  QD32 and no deeper, each at its test's block size and depth, after one preconditioning
  (one fill); then the mixed test with its reads and writes apart (about 70% reads); the
  tests run, and only those, in parameters.tests, in catalog order.
qd-max: --qd-max 128 adds QD64 and QD128; --qd-max 4 stops at QD4; a sweep's test deeper
  than --qd-max named in --tests is refused (exit 2) before any I/O."""

import lgtest
from lgtest import check

MIXED = "randrw70-4k-qd32-8g"


def run(scene, name, *args, expect=0, quiet=True):
    out = scene.path(f"{name}.json")
    quieted = ["--quiet"] if quiet else []
    p = lgtest.run(["run", *args, "--output", str(out), *quieted], timeout=120, expect=expect)
    return (lgtest.load_document(out) if expect == 0 else None), p.stderr


def sweeps() -> dict[str, dict[int, dict]]:
    """Each sweep's tests by depth, from catalog.json."""
    found: dict[str, dict[int, dict]] = {}
    for t in lgtest.catalog()["tests"]:
        if t.get("family"):
            found.setdefault(t["family"], {})[t["queue_depth"]] = t
    return found


def suite_run(scene, name: str, *extra: str, quiet=True) -> tuple[dict, str]:
    target = str(scene.path("target.bin"))
    args = [
        *["--target", target, "--size", "64M", "--suite", "workloads-2026"],
        # 60 s a depth scaled to 0.3 s, the mixed test's 180 s to 0.9 s
        *["--duration-scale", "0.005", "--pattern", "incompressible", *extra],
    ]
    return run(scene, name, *args, quiet=quiet)


def check_sweeps(doc: dict, deepest: int) -> None:
    check(doc["status"] == "complete", f"status {doc['status']}: {doc.get('failure')}")
    catalog_order = [t["id"] for t in lgtest.catalog()["tests"]]
    expected = [
        t["id"] for family in sweeps().values() for depth, t in family.items() if depth <= deepest
    ] + [MIXED]
    expected.sort(key=catalog_order.index)
    check(doc["parameters"]["tests"] == expected, f"parameters.tests {doc['parameters']['tests']}")
    check([r["test"] for r in doc["results"]] == expected, "one result per test, in order")
    for family, tests in sweeps().items():
        depths = sorted(
            r["queue_depth"]
            for r in doc["results"]
            if r["test"] in {t["id"] for t in tests.values()}
        )
        check(depths == [d for d in sorted(tests) if d <= deepest], f"{family}: depths {depths}")
        for r in doc["results"]:
            t = next((t for t in tests.values() if t["id"] == r["test"]), None)
            if t is None:
                continue
            check(r["block_size"] == t["block_size"] == 4096, f"{r['test']}: {r['block_size']}")
            check(r["io_count"] > 0 and r["latency_ns"]["mean"] > 0, f"{r['test']}: no I/O")
            check(0.2e9 <= r["duration_ns"] <= 5e9, f"{r['test']}: ran {r['duration_ns']} ns")
            check("read" not in r and "rwmixread" not in r, f"{r['test']} is not mixed")


def suite(scene):
    doc, err = suite_run(scene, "suite", quiet=False)
    check_sweeps(doc, 32)
    check(err.count("sequential fill") == 1, f"not one preconditioning:\n{err}")
    (mixed,) = [r for r in doc["results"] if r["test"] == MIXED]
    check(mixed["rwmixread"] == 70 and mixed["queue_depth"] == 32, f"{mixed}")
    rd, wr = mixed["read"], mixed["write"]
    check(rd["io_count"] + wr["io_count"] == mixed["io_count"], "reads + writes != all")
    share = rd["io_count"] / mixed["io_count"]
    check(0.62 < share < 0.78, f"{share:.3f} of the I/Os read, not about 0.70")
    for side in (rd, wr):
        check(
            side["iops"] > 0 and side["latency_ns"]["mean"] > 0, f"a half without figures: {side}"
        )


def qd_max(scene):
    doc, _ = suite_run(scene, "all", "--qd-max", "128")
    check_sweeps(doc, 128)
    doc, _ = suite_run(scene, "four", "--qd-max", "4")
    check_sweeps(doc, 4)
    target = str(scene.path("target.bin"))
    deep = sweeps()["randread-4k-sweep"][64]["id"]
    _, err = run(scene, "refused", "--target", target, "--tests", deep, expect=2)
    check("--qd-max 64" in err, f"the refusal does not say how:\n{err}")


if __name__ == "__main__":
    lgtest.main(lgtest.scenarios({"suite": suite, "qd-max": qd_max}, "sweep.py"))
