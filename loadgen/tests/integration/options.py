#!/usr/bin/env python3
"""The run options of issue 12 end to end (`options.py jobs|mixed|precondition`), each
document checked against the schema.

jobs: --jobs 2 on a random read and on a sequential write: the document records the
  job count (parameters and result), the result is the sum of both workers; on a long
  test (write saturation), which runs one job, a warning says so.
mixed: --rw randrw --rwmixread 70 with 2 jobs: reads and writes reported apart, their
  sum in the result, about 70% of the I/Os reads.
precondition: --precondition none reads a file that a first run filled, says so in a
  warning and records "none"; on a file this run creates it fills anyway, says so and
  records "fill"; the default is "fill".
repeat: --repeat 3 over two tests and both patterns: each pattern preconditioned once,
  then its three passes, each pass the tests in order, every result numbered by its pass
  (repeat 1..3) and recorded as parameters.repeat; a long test (consistency) runs once; a
  single pass numbers nothing."""

import lgtest
from lgtest import check


def run(scene, name, *args, expect=0, quiet=True):
    out = scene.path(f"{name}.json")
    p = lgtest.run(
        ["run", *args, "--output", str(out), *(["--quiet"] if quiet else [])],
        timeout=60,
        expect=expect,
    )
    return lgtest.load_document(out), p.stderr


def jobs(scene):
    target = str(scene.path("target.bin"))
    common = ["--target", target, "--size", "64M", "--pattern", "incompressible", "--time", "1"]
    doc, _ = run(scene, "rand", *common, "--rw", "randread", "--qd", "4", "--jobs", "2")
    (r,) = doc["results"]
    check(doc["parameters"]["jobs"] == 2 and r["jobs"] == 2, f"job count not recorded: {r}")
    check(r["test"] == "adhoc-randread-4k-qd4-j2", f"id {r['test']}")
    check(r["io_count"] > 0 and r["bytes"] == r["io_count"] * 4096, f"counters {r}")
    check(r["queue_depth"] == 4, "the queue depth is each job's")
    doc, _ = run(scene, "seq", *common, "--rw", "write", "--bs", "128k", "--jobs", "2")
    (r,) = doc["results"]
    check(r["jobs"] == 2 and r["io_count"] > 0, f"sequential jobs: {r}")
    doc, _ = run(scene, "one", *common, "--rw", "randread")
    check(doc["parameters"]["jobs"] == 1 and doc["results"][0]["jobs"] == 1, "one job by default")
    sat = ["--target", target, "--tests", "write-saturation-128k-qd32", "--jobs", "2"]
    doc, err = run(scene, "saturation", *sat)
    check("run one job" in err and len(doc["saturation"]) == 1, f"--jobs on a long test:\n{err}")


def mixed(scene):
    target = str(scene.path("target.bin"))
    doc, _ = run(
        scene,
        "mixed",
        *["--target", target, "--size", "64M", "--rw", "randrw", "--rwmixread", "70"],
        *["--qd", "4", "--jobs", "2", "--time", "2", "--pattern", "incompressible"],
    )
    (r,) = doc["results"]
    rd, wr = r["read"], r["write"]
    check(r["rwmixread"] == 70, f"rwmixread {r.get('rwmixread')}")
    check(rd["io_count"] + wr["io_count"] == r["io_count"], "reads + writes != all")
    check(rd["bytes"] + wr["bytes"] == r["bytes"], "read + written bytes != all")
    share = rd["io_count"] / r["io_count"]
    check(0.65 < share < 0.75, f"{share:.3f} of the I/Os read, not about 0.70")
    check(abs(rd["iops"] + wr["iops"] - r["iops"]) < 1e-6 * r["iops"] + 0.01, "IOPS do not add up")
    for name, d in (("read", rd), ("write", wr)):
        check(d["latency_ns"]["mean"] > 0 and d["clat_ns"]["mean"] > 0, f"{name} latency: {d}")
        lo, hi = sorted((rd["latency_ns"]["mean"], wr["latency_ns"]["mean"]))
        check(lo <= r["latency_ns"]["mean"] <= hi, "the mean of all lies between reads and writes")


def precondition(scene):
    target = str(scene.path("target.bin"))
    common = ["--target", target, "--rw", "randread", "--time", "0.5", "--pattern", "compressible"]
    doc, err = run(scene, "created", *common, "--size", "64M", "--precondition", "none")
    check(doc["parameters"]["precondition"] == "fill", "a created file is filled: recorded")
    check("just created" in err and "filled anyway" in err, f"not said:\n{err}")
    doc, err = run(scene, "none", *common, "--precondition", "none")
    check(doc["parameters"]["precondition"] == "none", f"{doc['parameters']}")
    check("no preconditioning" in err and "drive state unknown" in err, f"not said:\n{err}")
    doc, err = run(scene, "said", *common, "--precondition", "none", "--drive-state", "used")
    check(doc["drive_state"] == "used" and "drive state recorded" in err, f"{err}")
    doc, err = run(scene, "fill", *common)
    check(doc["parameters"]["precondition"] == "fill", "fill is the default")
    check("preconditioning" not in err, f"a fill is no warning:\n{err}")


def repeat(scene):
    target = str(scene.path("target.bin"))
    tests = "randread-4k-qd3,seqwrite-128k-qd1,consistency-4k-qd32"
    doc, err = run(
        scene,
        "three",
        "--target",
        target,
        "--size",
        "64M",
        "--tests",
        tests,
        "--duration-scale",
        "0.003",
        "--spare-area",
        "0",
        "--repeat",
        "3",
        quiet=False,
    )
    check(doc["parameters"]["repeat"] == 3, f"{doc['parameters']}")
    got = [(r["pattern"], r.get("repeat"), r["test"]) for r in doc["results"]]
    want = [
        (pattern, n, test)
        for pattern in ("compressible", "incompressible")
        for n in (1, 2, 3)
        for test in ("randread-4k-qd3", "seqwrite-128k-qd1")
    ]
    check(got == want, f"results not pass by pass in each pattern: {got}")
    phases = [line for line in err.splitlines() if line.startswith("==> ")]
    check(sum("pass 1 of 3" in line for line in phases) == 4, f"phases:\n{err}")
    check(len(doc["consistency"]) == 1, "a long test runs once")
    reads = [i for i, line in enumerate(phases) if "4KB random read" in line]
    fill_lines = [
        i
        for i, line in enumerate(phases)
        if "sequential fill" in line and "consistency" not in line
    ]
    check(
        len(fill_lines) == 2 and fill_lines[0] < reads[0] < reads[2] < fill_lines[1] < reads[3],
        f"one fill per pattern, before its passes:\n{err}",
    )
    doc, _ = run(
        scene,
        "one",
        "--target",
        target,
        "--tests",
        "randread-4k-qd3",
        "--duration-scale",
        "0.003",
        "--pattern",
        "incompressible",
    )
    check(doc["parameters"]["repeat"] == 1, "a shortened run makes one pass")
    check(all("repeat" not in r for r in doc["results"]), "one pass numbers nothing")


if __name__ == "__main__":
    lgtest.main(
        lgtest.scenarios(
            {"jobs": jobs, "mixed": mixed, "precondition": precondition, "repeat": repeat},
            "options.py",
        )
    )
