#!/usr/bin/env python3
"""TRIM validation really discards (`trim.py loop|file`).

While the quick trim-validation test runs, the space allocated to the target's
storage is sampled: the loop device's backing file (a loop device turns a discard
into a hole in it) or the target file itself (hole punching). After the torture
phase has filled the span, the allocation must fall to under half of its peak before
the after-TRIM write fills it again."""

import contextlib
import subprocess
import time

import lgtest
from lgtest import check

SIZE = 256 << 20


def test(scene, argv):
    where = argv[0] if argv else "loop"
    out = scene.path("doc.json")
    common = [
        "--tests",
        "trim-validation",
        "--quick",
        "--pattern",
        "incompressible",
        "--output",
        str(out),
        "--quiet",
    ]
    if where == "loop":
        backing = scene.backing_file("disk.img", SIZE)
        target = scene.loop(backing)
        watched = backing
        args = ["run", "--target", target, f"--destroy-data={target}", *common]
        method = "blkdiscard"
    elif where == "file":
        watched = scene.path("target.bin")
        args = ["run", "--target", str(watched), "--size", "256M", *common]
        method = "punch-hole"
    else:
        raise AssertionError(f"unknown target kind {where!r}")

    cmd = [lgtest.loadgen(), *args]
    lgtest.log("$ " + " ".join(cmd))
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    samples = []
    try:
        deadline = time.monotonic() + 120
        while proc.poll() is None and time.monotonic() < deadline:
            with contextlib.suppress(FileNotFoundError):  # a file target not created yet
                samples.append(lgtest.allocated_bytes(watched))
            time.sleep(0.002)
        check(proc.poll() is not None, "the trim-validation quick run took over 120 s")
    finally:
        if proc.poll() is None:
            proc.kill()
        stdout, stderr = proc.communicate()
    check(proc.returncode == 0, f"exit {proc.returncode}\n{stderr[-3000:]}")
    doc = lgtest.load_document(out)
    check(doc["status"] == "complete", f"status {doc['status']}")
    tr = doc["trim"][0]
    check(
        tr.get("discard_method") == method,
        f"discard method {tr.get('discard_method')}, expected {method}",
    )
    span = tr.get("span_bytes", SIZE)

    # The deepest fall from a running peak.
    peak, drop_to = 0, None
    for s in samples:
        if s > peak:
            peak = s
        elif peak >= span // 2 and (drop_to is None or s < drop_to):
            drop_to = s
    lgtest.log(
        f"  {len(samples)} samples; allocation peak {peak >> 20} MiB, lowest after it "
        f"{(drop_to or 0) >> 20} MiB, span {span >> 20} MiB"
    )
    check(peak >= span // 2, f"the span was never filled: peak {peak} bytes allocated, span {span}")
    check(
        drop_to is not None and drop_to <= peak // 2,
        f"no discard seen: allocation fell only to {drop_to} from {peak}",
    )


if __name__ == "__main__":
    lgtest.main(test)
