#!/usr/bin/env python3
"""WSAT, the write saturation of SNIA's PTS (`wsat.py bytes|time|sigint|options`): the target
purged, then 4KB random writes at QD32 in rounds until 4x the target is written or the time
cap ends.

bytes: a small file, a generous cap: it stops by bytes, having written exactly 4x the span,
  the rounds adding up to it, and the half-rate point (halved_at_s, bytes_before_halved) is
  where the rounds say it is.
time: a file too big to write 4x in 2 s (--time 2): it stops by time, near 2 s, short of
  the target.
sigint: SIGINT 2.5 s into the writes: exit 130 and a valid, incomplete document whose WSAT
  keeps the rounds done, marked partial and stopped by "interrupted".
options: --round and --time without a WSAT test are refused, and so is a bad --round."""

import signal
import subprocess
import time

import lgtest
from lgtest import check

MIB = 1 << 20


def run_wsat(scene, size: int, *extra: str, timeout: float = 120) -> dict:
    out = scene.path("wsat.json")
    target = scene.path("target.bin")
    args = ["run", "--target", str(target), "--size", str(size), "--tests", "wsat-4k-qd32"]
    lgtest.run([*args, *extra, "--output", str(out), "--quiet"], timeout=timeout, expect=0)
    return lgtest.load_document(out)


def the_wsat(doc: dict) -> dict:
    check(doc["schema_version"] >= 4, f"schema_version {doc['schema_version']}: no WSAT members")
    (w,) = doc.get("saturation", [])
    check(w["test"] == "wsat-4k-qd32", f"test {w['test']}")
    check(w["block_size"] == 4096 and w["queue_depth"] == 32, f"block size, depth: {w}")
    check(w["target_bytes"] == 4 * w["span_bytes"], f"target {w['target_bytes']} of {w}")
    check(sum(w["bytes_per_interval"]) == w["bytes_written"], "the rounds do not add up")
    check(all(b % 4096 == 0 for b in w["bytes_per_interval"]), "a round of partial blocks")
    check(w["discard_method"] in ("punch-hole", "blkdiscard"), f"not purged: {w}")
    whole = len(w["bytes_per_interval"])
    if w["duration_ns"] < whole * w["interval_ns"]:
        whole -= 1
    rounds = w["bytes_per_interval"]
    halved = next((i for i in range(1, whole) if 2 * rounds[i] < rounds[0]), None)
    if halved is None:
        check("halved_at_s" not in w and "bytes_before_halved" not in w, f"a half point: {w}")
    else:
        check(abs(w["halved_at_s"] - halved * w["interval_ns"] / 1e9) < 1e-3, f"{w}")
        check(w["bytes_before_halved"] == sum(rounds[:halved]), f"{w}")
    lgtest.log(
        f"  {len(rounds)} rounds of {w['interval_ns'] / 1e9} s, {w['bytes_written'] >> 20} MiB "
        f"in {w['duration_ns'] / 1e9:.2f} s, stopped by {w['stopped_by']}, "
        f"halved at {w.get('halved_at_s')}"
    )
    return w


def by_bytes(scene) -> None:
    doc = run_wsat(scene, 32 * MIB, "--round", "0.2", "--time", "120")
    check(doc["status"] == "complete", f"status {doc['status']}")
    w = the_wsat(doc)
    check(w["stopped_by"] == "bytes", f"stopped by {w['stopped_by']}")
    check(w["bytes_written"] == w["target_bytes"] == 4 * 32 * MIB, f"wrote {w['bytes_written']}")
    check(w["time_cap_ns"] == 120 * 10**9, f"time cap {w['time_cap_ns']}")
    check(w["interval_ns"] == 200_000_000, f"round {w['interval_ns']}")
    check(len(w["bytes_per_interval"]) >= 1, "no round")
    check("partial" not in w, "a complete run has no partial result")


def by_time(scene) -> None:
    doc = run_wsat(scene, 1024 * MIB, "--round", "0.5", "--time", "2")
    check(doc["status"] == "complete", f"status {doc['status']}")
    w = the_wsat(doc)
    check(w["stopped_by"] == "time", f"stopped by {w['stopped_by']}")
    check(w["bytes_written"] < w["target_bytes"], f"wrote {w['bytes_written']}, all of it")
    check(w["time_cap_ns"] == 2 * 10**9, f"time cap {w['time_cap_ns']}")
    check(1.9e9 <= w["duration_ns"] <= 3e9, f"{w['duration_ns']} ns for a 2 s cap")
    check(4 <= len(w["bytes_per_interval"]) <= 6, f"{len(w['bytes_per_interval'])} rounds")


def sigint(scene) -> None:
    out = scene.path("wsat.json")
    target = scene.path("target.bin")
    cmd = [lgtest.loadgen(), "run", "--target", str(target), "--size", "1G"]
    cmd += ["--tests", "wsat-4k-qd32", "--round", "0.5", "--time", "60", "--output", str(out)]
    lgtest.log("$ " + " ".join(cmd))
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        seen = []
        while not any("4KB random write" in line for line in seen[-1:]):
            line = proc.stderr.readline()
            check(bool(line), f"loadgen ended before the random writes: {''.join(seen)}")
            seen.append(line)
        time.sleep(2.5)
        check(proc.poll() is None, f"loadgen ended before the signal: exit {proc.returncode}")
        proc.send_signal(signal.SIGINT)
        _, stderr = proc.communicate(timeout=15)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    check(proc.returncode == 130, f"exit {proc.returncode} after SIGINT, expected 130\n{stderr}")
    doc = lgtest.load_document(out)
    check(doc["status"] == "incomplete", f"status {doc['status']}, expected incomplete")
    w = the_wsat(doc)
    check(w["stopped_by"] == "interrupted" and w.get("partial") is True, f"{w}")
    check(4 <= len(w["bytes_per_interval"]) <= 8, f"{len(w['bytes_per_interval'])} rounds of ~5")
    check(0 < w["bytes_written"] < w["target_bytes"], f"wrote {w['bytes_written']}")


def options(scene) -> None:
    target = str(scene.path("target.bin"))
    base = ["run", "--target", target, "--size", "16M"]
    for extra, said in (
        (["--tests", "randread-4k-qd3", "--round", "1"], "--round"),
        (["--tests", "randread-4k-qd3", "--time", "5"], "--time"),
        (["--tests", "wsat-4k-qd32", "--round", "0"], "--round"),
        (["--rw", "randwrite", "--time", "1", "--round", "1"], "--round"),
    ):
        p = lgtest.run([*base, *extra], timeout=30)
        check(p.returncode == 2, f"{extra}: exit {p.returncode}, expected 2\n{p.stderr}")
        check(said in p.stderr, f"{extra}: the refusal does not name {said}: {p.stderr}")


test = lgtest.scenarios(
    {"bytes": by_bytes, "time": by_time, "sigint": sigint, "options": options}, "wsat.py"
)

if __name__ == "__main__":
    lgtest.main(test)
