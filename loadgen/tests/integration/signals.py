#!/usr/bin/env python3
"""SIGINT or SIGTERM during a run (`signals.py INT|TERM|INT-twice|INT-late|INT-consistency`):
loadgen stops promptly, exits 130 and leaves a valid document marked incomplete, in which
the test interrupted keeps what it measured until then, marked partial: the counters of a
throughput test (INT, TERM), the per-second series of a consistency run (INT-consistency,
a 2,000 s run stopped after a few seconds).

INT-twice sends two SIGINTs 50 ms apart, as a terminal's Ctrl-C and `timeout -s INT`
together can. So that the second one arrives before the document is written, the
run writes 1 MiB blocks to a loop device throttled to 2 MiB/s: after the first
signal, loadgen must wait about half a second for the I/O in flight. The second signal,
within the grace period after the first, must not lose the document.

INT-late sends the second SIGINT 2.5 s after the first, past the grace period,
while a slower throttle (128 KiB/s) keeps loadgen draining its I/O: it leaves at
once, says so, and leaves neither a document nor its temporary file."""

import signal
import subprocess
import time

import lgtest
from lgtest import check

THROTTLE = {"twice": 2 << 20, "late": 128 << 10}  # bytes per second


def test(scene, argv):
    mode = argv[0] if argv else "INT"
    name, _, repeat = mode.partition("-")
    check(
        name in ("INT", "TERM") and repeat in ("", "twice", "late", "consistency"),
        f"unknown mode {mode!r}",
    )
    sig = {"INT": signal.SIGINT, "TERM": signal.SIGTERM}[name]
    out = scene.path("doc.json")
    common = ["--time", "60", "--output", str(out), "--quiet"]
    preexec = None
    if repeat == "consistency":
        target = scene.path("target.bin")
        args = ["--target", str(target), "--size", "64M", "--tests", "consistency-4k-qd32"]
        args += ["--spare-area", "0", "--output", str(out)]  # not quiet: phases on stderr
    elif repeat:
        dev = scene.loop(scene.backing_file("disk.img", 64 << 20))
        preexec = scene.write_throttle(dev, THROTTLE[repeat])
        args = ["--target", dev, f"--destroy-data={dev}", "--rw", "write", "--bs", "1m"]
        args += ["--qd", "1", *common]
    else:
        target = scene.path("target.bin")
        args = ["--target", str(target), "--size", "64M", "--rw", "randwrite", "--bs", "4k"]
        args += ["--qd", "8", *common]
    cmd = [lgtest.loadgen(), "run", *args]
    lgtest.log("$ " + " ".join(cmd))
    proc = subprocess.Popen(
        cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, preexec_fn=preexec
    )
    try:
        if repeat == "consistency":
            # Two seconds into the random writes, whatever the fill before them took.
            seen = []
            while not any("4KB random write" in line for line in seen[-1:]):
                line = proc.stderr.readline()
                check(bool(line), f"loadgen ended before the random writes: {''.join(seen)}")
                seen.append(line)
            time.sleep(2)
        else:
            time.sleep(3)
        if proc.poll() is not None:
            raise AssertionError(
                f"loadgen ended before the signal: exit {proc.returncode}\n{proc.stderr.read()}"
            )
        sent = time.monotonic()
        proc.send_signal(sig)
        if repeat in ("twice", "late"):
            pause = 0.05 if repeat == "twice" else 2.5
            time.sleep(pause)
            check(
                proc.poll() is None,
                f"loadgen ended within {pause} s of the first signal: the throttle did not slow it",
            )
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
    if repeat == "late":
        check("leaving at once" in stderr, f"the forced exit is not said:\n{stderr}")
        left = sorted(p.name for p in out.parent.iterdir() if p.name.startswith(out.name))
        check(not left, f"a forced exit left {left}")
        return
    check(took < 5, f"{took:.1f} s to stop after SIG{name}")
    doc = lgtest.load_document(out)
    check(doc["status"] == "incomplete", f"status {doc['status']}, expected incomplete")
    check("failure" not in doc, f"an interrupted run is not a failure: {doc.get('failure')}")
    if repeat == "consistency":
        (series,) = doc.get("consistency", [])
        check(series.get("partial") is True, f"the interrupted series is not partial: {series}")
        check(1 <= len(series["iops"]) <= 4, f"{len(series['iops'])} seconds kept of about 2")
        check(sum(series["iops"]) > 0, "no completion kept")
    elif not repeat:
        partial = [r for r in doc["results"] if r.get("partial")]
        check(len(partial) == 1, f"{len(partial)} partial results: {doc['results']}")
        (r,) = partial
        check(r["io_count"] > 0 and r["bytes"] == r["io_count"] * 4096, f"counters: {r}")
        check(0.3e9 < r["duration_ns"] < 10e9, f"duration {r['duration_ns']} ns of 60 s")
        check(abs(r["iops"] - r["io_count"] / (r["duration_ns"] / 1e9)) < 0.01 * r["iops"], "iops")
        check(r["latency_ns"]["mean"] > 0 and r["clat_ns"]["mean"] > 0, "latencies kept")


if __name__ == "__main__":
    lgtest.main(test)
