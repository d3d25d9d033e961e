#!/usr/bin/env python3
"""SIGINT or SIGTERM during a run (`signals.py INT|TERM`): loadgen stops promptly,
exits 130 and leaves a valid document marked incomplete."""

import signal
import subprocess
import time

import lgtest
from lgtest import check


def test(scene, argv):
    name = argv[0] if argv else "INT"
    sig = {"INT": signal.SIGINT, "TERM": signal.SIGTERM}[name]
    out = scene.path("doc.json")
    target = scene.path("target.bin")
    cmd = [
        lgtest.loadgen(),
        "run",
        "--target",
        str(target),
        "--size",
        "64M",
        "--rw",
        "randwrite",
        "--bs",
        "4k",
        "--qd",
        "8",
        "--time",
        "60",
        "--output",
        str(out),
        "--quiet",
    ]
    lgtest.log("$ " + " ".join(cmd))
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        time.sleep(3)
        if proc.poll() is not None:
            raise AssertionError(
                f"loadgen ended before the signal: exit {proc.returncode}\n{proc.stderr.read()}"
            )
        sent = time.monotonic()
        proc.send_signal(sig)
        try:
            stdout, stderr = proc.communicate(timeout=15)
        except subprocess.TimeoutExpired:
            raise AssertionError(f"loadgen still running 15 s after SIG{name}") from None
        took = time.monotonic() - sent
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    lgtest.log(f"  exit {proc.returncode}, {took:.2f} s after SIG{name}")
    check(proc.returncode == 130, f"exit {proc.returncode} after SIG{name}, expected 130\n{stderr}")
    check(took < 5, f"{took:.1f} s to stop after SIG{name}")
    doc = lgtest.load_document(out)
    check(doc["status"] == "incomplete", f"status {doc['status']}, expected incomplete")
    check("failure" not in doc or doc["status"] != "failed", "an interrupted run is not a failure")


if __name__ == "__main__":
    lgtest.main(test)
