#!/usr/bin/env python3
"""What loadgen's latency means (`latency.py io_uring|psync`): from issue to completion.

4KB random reads at QD1 with O_DIRECT on a file on the local disk. With one I/O in
flight at all times, Little's law says IOPS x mean latency = 1 when latency covers the
whole life of each I/O, from just before it is handed to the kernel to the reaping of
its completion: the run must give 1 within 3%. (Latency that starts only once the
submitting call has returned, fio's clat, gives less: 0.77 on this machine's disk with
io_uring, which can finish an I/O inside that call.) No latency may be below what a
disk can answer in: 1 µs, ten times less than the fastest flash devices take. The
completion part (clat_ns) lies within the whole at every percentile."""

import lgtest
from lgtest import check

LITTLE_TOLERANCE = 0.03
FLOOR_NS = 1000


def test(scene, argv):
    check(len(argv) == 1 and argv[0] in ("io_uring", "psync"), "usage: latency.py io_uring|psync")
    engine = argv[0]
    target = scene.path("target.bin")
    out = scene.path("doc.json")
    args = ["run", "--target", str(target), "--size", "64M", "--rw", "randread", "--bs", "4k"]
    args += [
        "--qd",
        "1",
        "--time",
        "2",
        "--engine",
        engine,
        "--seed",
        "7",
        "--pattern",
        "incompressible",
    ]
    lgtest.run([*args, "--output", str(out), "--quiet"], timeout=60, expect=0)
    doc = lgtest.load_document(out)
    check(doc["schema_version"] >= 2, f"schema_version {doc['schema_version']}")
    check(doc["parameters"]["direct"] is True, "not O_DIRECT")
    (r,) = doc["results"]
    lat, clat = r["latency_ns"], r["clat_ns"]

    product = r["iops"] * lat["mean"] / 1e9
    lgtest.log(
        f"  {engine}: {r['iops']:.0f} IOPS x {lat['mean'] / 1000:.1f} µs = {product:.4f} "
        f"(clat: {r['iops'] * clat['mean'] / 1e9:.4f}); min {lat['min']} ns"
    )
    check(
        abs(product - 1) <= LITTLE_TOLERANCE,
        f"IOPS x mean latency = {product:.4f} at QD1, not 1 within {LITTLE_TOLERANCE:.0%}",
    )

    check(lat["min"] >= FLOOR_NS, f"minimum latency {lat['min']} ns, below {FLOOR_NS} ns")
    low = min(lat["percentiles"].values())
    check(low >= FLOOR_NS, f"a latency percentile is {low} ns, below {FLOOR_NS} ns")

    check(clat["mean"] <= lat["mean"], f"clat mean {clat['mean']} > lat mean {lat['mean']}")
    check(clat["max"] <= lat["max"] and clat["min"] <= lat["min"], f"clat {clat} outside {lat}")
    for p, v in clat["percentiles"].items():
        # within the histogram's 0.4% bucket width
        check(v <= lat["percentiles"][p] * 1.004, f"p{p}: clat {v} > lat {lat['percentiles'][p]}")


if __name__ == "__main__":
    lgtest.main(test)
