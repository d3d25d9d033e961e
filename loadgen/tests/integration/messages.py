#!/usr/bin/env python3
"""What loadgen says on stderr (`messages.py SCENARIO`).

span-clamp: a span larger than the target is clamped with one warning per test,
not one per data pattern."""

import lgtest
from lgtest import check


def span_clamp(scene):
    target = scene.path("target.bin")
    out = scene.path("doc.json")
    # Both catalog tests span 8 GiB; the file has 16 MiB. Two patterns each.
    tests = ["randwrite-4k-qd3-8g", "randwrite-4k-qd32-8g"]
    p = lgtest.run(
        ["run", "--target", str(target), "--size", "16M", "--tests", ",".join(tests)]
        + ["--duration-scale", "0.002", "--output", str(out), "--quiet"],
        timeout=60,
        expect=0,
    )
    doc = lgtest.load_document(out)
    check(len(doc["results"]) == 4, f"{len(doc['results'])} results, expected 2 tests x 2 patterns")
    check(all(r["span_bytes"] == 16 << 20 for r in doc["results"]), "spans not clamped to 16 MiB")
    warnings = [line for line in p.stderr.splitlines() if "clamped" in line]
    for t in tests:
        said = sum(t in line for line in warnings)
        check(said == 1, f"{t}: the span clamp was said {said} times, not once:\n{p.stderr}")


SCENARIOS = {
    "span-clamp": span_clamp,
}


def test(scene, argv):
    check(len(argv) == 1 and argv[0] in SCENARIOS, f"usage: messages.py {'|'.join(SCENARIOS)}")
    SCENARIOS[argv[0]](scene)


if __name__ == "__main__":
    lgtest.main(test)
