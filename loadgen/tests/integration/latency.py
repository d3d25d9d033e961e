#!/usr/bin/env python3
"""What loadgen's latency means (`latency.py io_uring|psync`): from issue to completion.

4KB random reads at QD1 with O_DIRECT on a file on the local disk. With one I/O in
flight at all times, Little's law says IOPS x mean latency = 1 when latency covers the
whole life of each I/O, from just before it is handed to the kernel to the reaping of
its completion: the run must give 1 within 3%. (Latency that starts only once the
submitting call has returned, fio's clat, gives less: 0.77 on this machine's disk with
io_uring, which can finish an I/O inside that call.) No latency may be below what a
disk can answer in: 1 µs, ten times less than the fastest flash devices take. The
completion part (clat_ns) lies within the whole at every percentile.

Then the same at QD32: every slot refilled at once, IOPS x mean latency = 32 within 3%,
that is, no part of a slot's occupancy (a completion waiting behind the refill of
others, the refill itself) falls outside every I/O's latency. These are the points fio
stamps its lat at (io_u.c: get_io_u() reads start_time before the I/O is queued,
init_icd() the end once td_io_getevents() has returned), and what make bench-qos prints
for both tools (fio 3.33 and loadgen gave 0.999 at QD32 there)."""

import lgtest
from lgtest import check

LITTLE_TOLERANCE = 0.03
FLOOR_NS = 1000


def run(scene, engine, qd):
    """One 2-second run of 4KB random reads at queue depth qd; its only result."""
    target = scene.path("target.bin")
    out = scene.path(f"doc-qd{qd}.json")
    args = ["run", "--target", str(target), "--size", "64M", "--rw", "randread", "--bs", "4k"]
    args += [
        "--qd",
        str(qd),
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
    check(r["queue_depth"] == qd, f"queue depth {r['queue_depth']}, not {qd}")
    return r


def test(scene, argv):
    check(len(argv) == 1 and argv[0] in ("io_uring", "psync"), "usage: latency.py io_uring|psync")
    engine = argv[0]
    r = run(scene, engine, 1)
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

    r = run(scene, engine, 32)
    in_flight = r["iops"] * r["latency_ns"]["mean"] / 1e9
    lgtest.log(f"  {engine}: QD32, {r['iops']:.0f} IOPS x mean latency = {in_flight:.2f} in flight")
    check(
        abs(in_flight / 32 - 1) <= LITTLE_TOLERANCE,
        f"IOPS x mean latency = {in_flight:.2f} at QD32, not 32 within {LITTLE_TOLERANCE:.0%}",
    )


if __name__ == "__main__":
    lgtest.main(test)
