#!/usr/bin/env python3
"""SNIA PTS's latency test, suite lat-2026, end to end (`lat.py file|4k-loop`), each document
checked against the schema; the suite's tests are read from catalog.json, so the catalog,
loadgen and this test agree.

file: the suite on a file: one result per block size (0.5, 4 and 8 KiB) and read/write mix
  (100/0, 65/35, 0/100), each at QD1 with one job, random, at its block size, with a mean
  and a maximum latency; the 65/35 tests' reads and writes apart (about 65% reads); Little's
  law at QD1 (IOPS × mean latency about 1).
4k-loop (root): on a loop device with 4096-byte logical blocks, which cannot do 512-byte
  direct I/O, the suite is refused before any I/O (exit 2, no document, the device
  unchanged), naming the 0.5KB test and the logical block size; the suite's 4 and 8 KiB
  tests named with --tests run."""

import math

import lgtest
from lgtest import check

SUITE = "lat-2026"
USAGE = 2


def lat_tests() -> list[dict]:
    """The suite's tests, in its order, from catalog.json."""
    cat = lgtest.catalog()
    (suite,) = [s for s in cat["suites"] if s["name"] == SUITE]
    by_id = {t["id"]: t for t in cat["tests"]}
    return [by_id[i] for i in suite["tests"]]


def reads_percent(t: dict) -> int:
    return {"read": 100, "write": 0}.get(t["operation"], t.get("rwmixread"))


def run(target, out, *args, expect=0):
    a = ["run", "--target", str(target), *args, "--pattern", "incompressible"]
    # 60 s a test scaled to 0.3 s
    a += ["--duration-scale", "0.005", "--output", str(out), "--quiet"]
    return lgtest.run(a, timeout=120, expect=expect)


def file(scene):
    tests = lat_tests()
    check(
        sorted((t["block_size"], reads_percent(t)) for t in tests)
        == sorted((bs, r) for bs in (512, 4096, 8192) for r in (0, 65, 100)),
        f"{SUITE} is not 0.5, 4 and 8 KiB by 0/65/100% reads: {[t['id'] for t in tests]}",
    )
    out = scene.path("lat.json")
    run(scene.path("target.bin"), out, "--size", "64M", "--suite", SUITE)
    doc = lgtest.load_document(out)
    check(doc["status"] == "complete", f"status {doc['status']}: {doc.get('failure')}")
    check(doc["parameters"]["suite"] == {"name": SUITE, "version": 1}, "the suite recorded")
    check([r["test"] for r in doc["results"]] == [t["id"] for t in tests], "one result a test")
    for r, t in zip(doc["results"], tests, strict=True):
        name = r["test"]
        check(r["block_size"] == t["block_size"], f"{name}: block size {r['block_size']}")
        check(r["queue_depth"] == 1 and r["jobs"] == 1, f"{name}: not one I/O outstanding")
        check(r["io_count"] > 0, f"{name}: no I/O")
        lat = r["latency_ns"]
        check(0 < lat["mean"] <= lat["max"], f"{name}: mean {lat['mean']}, max {lat['max']}")
        # One I/O in flight at every moment: IOPS × mean latency = 1 (Little's law).
        check(0.9 < r["iops"] * lat["mean"] / 1e9 <= 1.01, f"{name}: not QD1: {r['iops']}")
        if t["operation"] == "mixed":
            check(r["rwmixread"] == 65, f"{name}: rwmixread {r.get('rwmixread')}")
            rd, wr = r["read"], r["write"]
            check(rd["io_count"] + wr["io_count"] == r["io_count"], f"{name}: reads + writes")
            n = r["io_count"]
            share = rd["io_count"] / n
            # Each I/O a read with probability 0.65: the share within five standard errors
            # of it (0.3 s at QD1 is a few thousand I/Os, a few points; a loaded machine may
            # give a handful, where all of them reads is no sign of a fault).
            margin = 5 * math.sqrt(0.65 * 0.35 / n)
            check(
                abs(share - 0.65) <= margin,
                f"{name}: {share:.3f} of {n} I/Os read, not 0.65 within {margin:.3f}",
            )
            for side in (rd, wr):
                check(side["latency_ns"]["max"] >= side["latency_ns"]["mean"] > 0, f"{name}")
        else:
            check("read" not in r and "rwmixread" not in r, f"{name} is not mixed")


def four_k_loop(scene):
    backing = scene.backing_file("disk.img", 64 << 20, random_content=True)
    dev = scene.loop(backing, block_size=4096)
    out = scene.path("lat.json")
    before = lgtest.file_sha256(backing)
    p = run(dev, out, "--suite", SUITE, f"--destroy-data={dev}", expect=USAGE)
    small = [t["id"] for t in lat_tests() if t["block_size"] < 4096]
    check(
        small[0] in p.stderr and "logical block size" in p.stderr and "4096" in p.stderr,
        f"the refusal does not name {small[0]} and the logical block size:\n{p.stderr}",
    )
    check(not out.exists(), "a refused run wrote a document")
    check(lgtest.file_sha256(backing) == before, "a refused run changed the device")

    rest = [t["id"] for t in lat_tests() if t["block_size"] >= 4096]
    run(dev, out, "--tests", ",".join(rest), f"--destroy-data={dev}")
    doc = lgtest.load_document(out)
    check(doc["status"] == "complete", f"status {doc['status']}: {doc.get('failure')}")
    check([r["test"] for r in doc["results"]] == rest, "the 4 and 8 KiB tests, each once")


if __name__ == "__main__":
    lgtest.main(lgtest.scenarios({"file": file, "4k-loop": four_k_loop}, "lat.py"))
