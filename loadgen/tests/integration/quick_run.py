#!/usr/bin/env python3
"""A --quick run of every catalog test but the queue-depth sweeps' (sweep.py), on a file
(`quick_run.py file`) or on a loop device (`quick_run.py loop`): exit 0, a complete document
that validates, and a result for every test with the catalog's block size and queue depth."""

import lgtest
from lgtest import check

SIZE = 256 << 20  # --quick caps every span at 256 MiB
SEED = 424242


def close(a: float, b: float, rel: float = 0.02) -> bool:
    return abs(a - b) <= rel * max(abs(a), abs(b), 1e-9)


def check_document(
    doc: dict, ids: list[str], patterns: list[str], spare: list[int], kind: str, discard_method: str
) -> None:
    cat = {t["id"]: t for t in lgtest.catalog()["tests"]}
    check(doc["status"] == "complete", f"status {doc['status']}: {doc.get('failure')}")
    check(doc["source"] == {"kind": "measured"}, f"source {doc['source']}")
    params = doc["parameters"]
    check(sorted(params.get("tests", [])) == sorted(ids), f"parameters.tests {params.get('tests')}")
    check(params.get("seed") == SEED, f"seed {params.get('seed')}, expected {SEED}")
    check(params.get("direct") is True, "O_DIRECT was not used by default")
    check(
        sorted(params.get("patterns", [])) == sorted(patterns), f"patterns {params.get('patterns')}"
    )
    check(doc["target"]["kind"] == kind, f"target kind {doc['target']['kind']}")
    check(
        doc["target"].get("capacity_bytes") == SIZE,
        f"target capacity {doc['target'].get('capacity_bytes')}, expected {SIZE}",
    )

    for tid, t in cat.items():
        if t["kind"] != "throughput" or tid not in ids:
            continue
        rows = [r for r in doc["results"] if r["test"] == tid]
        got = sorted(r["pattern"] for r in rows)
        check(
            got == sorted(patterns),
            f"{tid}: results for patterns {got}, expected {sorted(patterns)}",
        )
        for r in rows:
            where = f"{tid}/{r['pattern']}"
            check(
                r.get("block_size") == t["block_size"], f"{where}: block size {r.get('block_size')}"
            )
            check(
                r.get("queue_depth") == t["queue_depth"],
                f"{where}: queue depth {r.get('queue_depth')}",
            )
            check(0 < r.get("span_bytes", 0) <= SIZE, f"{where}: span {r.get('span_bytes')}")
            check(r.get("span_bytes", 0) % t["block_size"] == 0, f"{where}: span not block-aligned")
            check(r.get("io_count", 0) > 0, f"{where}: no I/O")
            dur = r.get("duration_ns", 0)
            check(1.5e9 <= dur <= 10e9, f"{where}: duration {dur} ns for a 2 s quick phase")
            if "bytes" in r:
                check(
                    r["bytes"] == r["io_count"] * t["block_size"],
                    f"{where}: bytes != io_count * bs",
                )
            check(
                close(r["iops"], r["io_count"] / (dur / 1e9)),
                f"{where}: iops {r['iops']} vs io_count/duration",
            )
            check(
                close(r["bytes_per_second"], r["iops"] * t["block_size"]),
                f"{where}: bytes/s vs iops * bs",
            )
            # The spread of whole seconds: there from two of them; no second slower than
            # the slowest, whose count is at most the whole seconds' mean.
            seconds = int(dur // 1e9)
            check(
                ("iops_min" in r) == ("iops_stddev" in r) == (seconds >= 2),
                f"{where}: iops_min/iops_stddev {r.get('iops_min')}/{r.get('iops_stddev')} "
                f"after {dur} ns",
            )
            if seconds >= 2:
                check(
                    0 <= r["iops_min"] <= r["io_count"] / seconds,
                    f"{where}: slowest second {r['iops_min']} IOPS of {r['io_count']} I/Os",
                )
                check(r["iops_stddev"] >= 0, f"{where}: iops_stddev {r['iops_stddev']}")
            lat = r.get("latency_ns", {})
            check(
                {"50", "99", "99.9"} <= set(lat.get("percentiles", {})),
                f"{where}: percentiles {sorted(lat.get('percentiles', {}))}",
            )
            check(lat.get("mean", 0) > 0, f"{where}: latency mean {lat.get('mean')}")

    if "consistency-4k-qd32" in ids:
        series = doc.get("consistency", [])
        levels = sorted(s["spare_area_percent"] for s in series)
        check(levels == sorted(spare), f"consistency levels {levels}, expected {sorted(spare)}")
        spans = {}
        for s in series:
            where = f"consistency/{s['spare_area_percent']}%"
            # --quick: 10 s of random writes, one sample per second
            check(9 <= len(s["iops"]) <= 12, f"{where}: {len(s['iops'])} samples for 10 s")
            check(sum(s["iops"]) > 0, f"{where}: no completions")
            check(s.get("block_size") == 4096 and s.get("queue_depth") == 32, f"{where}: {s}")
            spans[s["spare_area_percent"]] = s.get("span_bytes")
        if 0 in spans and 25 in spans:
            check(
                close(spans[25], spans[0] * 0.75, 0.01),
                f"spans {spans}: 25% spare is not 75% of the span",
            )

    saturations = {s["test"]: s for s in doc.get("saturation", [])}
    check(
        sorted(saturations) == sorted(i for i in ids if cat[i]["kind"] == "saturation"),
        f"saturation entries {sorted(saturations)}",
    )
    if "write-saturation-128k-qd32" in ids:
        sat = saturations["write-saturation-128k-qd32"]
        check("stopped_by" not in sat, f"the 128KB saturation has WSAT's members: {sat}")
        check(sat["bytes_written"] == SIZE, f"saturation wrote {sat['bytes_written']} of {SIZE}")
        check(sum(sat["bytes_per_interval"]) == SIZE, "the series does not add up to the span")
        check(sat["duration_ns"] > 0 and sat["discard_method"] == discard_method, f"{sat}")
        check(sat["block_size"] == 131072 and sat["queue_depth"] == 32, f"{sat}")
        check("partial" not in sat, "a complete run has no partial result")

    if "wsat-4k-qd32" in ids:
        # --quick: 4x the 256 MiB span, or 10 s, in rounds of 60 s (one round, cut short)
        w = saturations["wsat-4k-qd32"]
        check(w["block_size"] == 4096 and w["queue_depth"] == 32, f"{w}")
        check(w["target_bytes"] == 4 * SIZE and w["span_bytes"] == SIZE, f"{w}")
        check(w["time_cap_ns"] == 10 * 10**9, f"time cap {w['time_cap_ns']}")
        check(w["stopped_by"] in ("bytes", "time"), f"stopped by {w['stopped_by']}")
        check(sum(w["bytes_per_interval"]) == w["bytes_written"] > 0, f"{w}")
        check(w["discard_method"] == discard_method, f"{w}")

    if "trim-validation" in ids:
        trims = doc.get("trim", [])
        check(len(trims) == 1, f"{len(trims)} trim entries")
        tr = trims[0]
        check(
            tr.get("discard_method") == discard_method,
            f"discard method {tr.get('discard_method')}, expected {discard_method}",
        )
        for k in (
            "clean_bytes_per_second",
            "after_torture_bytes_per_second",
            "after_trim_bytes_per_second",
        ):
            check(tr[k] > 0, f"trim {k} = {tr[k]}")


def test(scene, argv):
    where = argv[0] if argv else "file"
    # Every test but the queue-depth sweeps' depths, whose shape sweep.py checks: at 2 s a
    # point they would add a minute to each run.
    ids = [t["id"] for t in lgtest.catalog()["tests"] if not t.get("family")]
    out = scene.path("doc.json")
    common = [
        "--tests",
        ",".join(ids),
        "--quick",
        "--seed",
        str(SEED),
        "--output",
        str(out),
        "--quiet",
    ]
    if where == "file":
        target = scene.path("target.bin")
        patterns, spare = ["compressible", "incompressible"], [0, 25]
        args = ["run", "--target", str(target), "--size", "256M", "--pattern", "both", *common]
        kind, method = "file", "punch-hole"
    elif where == "loop":
        backing = scene.backing_file("disk.img", SIZE)
        target = scene.loop(backing)
        # One pattern and one spare-area level keep the suite short; the file run
        # covers both patterns and both levels.
        patterns, spare = ["incompressible"], [0]
        args = [
            "run",
            "--target",
            target,
            f"--destroy-data={target}",
            "--pattern",
            "incompressible",
            "--spare-area",
            "0",
            *common,
        ]
        kind, method = "block", "blkdiscard"
    else:
        raise AssertionError(f"unknown target kind {where!r}")
    lgtest.run(args, timeout=240, expect=0)
    doc = lgtest.load_document(out)
    check_document(doc, ids, patterns, spare, kind, method)
    if where == "loop":
        check(doc["target"].get("path") == target, f"target path {doc['target'].get('path')}")
        check(doc["target"].get("logical_block_size") == 512, "loop logical block size")


if __name__ == "__main__":
    lgtest.main(test)
