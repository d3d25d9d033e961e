#!/usr/bin/env python3
"""Spare area is really unused (`spare.py file|loop|no-discard`).

A short consistency run at spare-area levels 0 and 25 on a file or on a loop
device. The 0% level writes every LBA; before the 25% level fills 75% of the
target, loadgen must discard the whole target, so that the last quarter holds no
data afterwards: no allocated block in the target file, or in the loop device's
backing file (a loop device turns a discard into a hole). Each level records how
the target was discarded. no-discard: on ramfs, which cannot punch holes, the run
goes on, says so once, and records the method "none"."""

import errno
import os

import lgtest
from lgtest import check

SIZE = 128 << 20
SPARE = 25


def data_bytes(path, start: int, end: int) -> int:
    """Bytes of [start, end) of path that hold data (SEEK_DATA/SEEK_HOLE)."""
    total = 0
    fd = os.open(path, os.O_RDONLY)
    try:
        pos = start
        while pos < end:
            try:
                data = os.lseek(fd, pos, os.SEEK_DATA)
            except OSError as e:
                if e.errno == errno.ENXIO:  # no data after pos
                    break
                raise
            if data >= end:
                break
            hole = os.lseek(fd, data, os.SEEK_HOLE)
            total += min(hole, end) - data
            pos = hole
    finally:
        os.close(fd)
    return total


def test(scene, argv):
    where = argv[0] if argv else "file"
    out = scene.path("doc.json")
    common = [
        "--tests",
        "consistency-4k-qd32",
        "--duration-scale",
        "0.001",  # 2 s a level
        "--spare-area",
        f"0,{SPARE}",
        "--seed",
        "7",
        "--output",
        str(out),
        "--quiet",
    ]
    if where == "file":
        watched = scene.path("target.bin")
        args = ["run", "--target", str(watched), "--size", str(SIZE), *common]
        method = "punch-hole"
    elif where == "loop":
        watched = scene.backing_file("disk.img", SIZE)
        dev = scene.loop(watched)
        args = ["run", "--target", dev, f"--destroy-data={dev}", *common]
        method = "blkdiscard"
    elif where == "no-discard":
        # ramfs cannot punch holes (and needs --buffered: it cannot do O_DIRECT).
        lgtest.require_root()
        mnt, _ = scene.mount("ramfs", "ram", readonly=False, fstype="ramfs")
        watched = mnt / "target.bin"
        args = ["run", "--target", str(watched), "--size", str(SIZE), "--buffered", *common]
        method = "none"
    else:
        raise AssertionError(f"unknown target kind {where!r}")

    p = lgtest.run(args, timeout=120, expect=0)
    doc = lgtest.load_document(out)
    check(doc["status"] == "complete", f"status {doc['status']}")
    levels = doc.get("consistency", [])
    check(
        [c["spare_area_percent"] for c in levels] == [0, SPARE],
        f"spare-area levels {[c['spare_area_percent'] for c in levels]}",
    )
    full, spare = levels
    check(full["span_bytes"] == SIZE, f"the 0% level spans {full['span_bytes']}, not {SIZE}")
    span = spare["span_bytes"]
    check(span == SIZE * (100 - SPARE) // 100, f"the {SPARE}% level spans {span}")
    if method == "none":
        for c in levels:
            check(
                c.get("discard_method") == "none",
                f"level {c['spare_area_percent']}%: discard method {c.get('discard_method')!r}"
                " on a target that cannot discard",
            )
        said = p.stderr.count("cannot discard")
        check(said == 1, f"the target's lack of discard said {said} times, not once:\n{p.stderr}")
        return

    in_span = data_bytes(watched, 0, span)
    beyond = data_bytes(watched, span, SIZE)
    lgtest.log(
        f"  {watched.name}: {in_span >> 20} MiB of data in the span, {beyond >> 10} KiB beyond"
        f" it (allocated in all: {lgtest.allocated_bytes(watched) >> 20} MiB)"
    )
    check(in_span >= span * 9 // 10, f"the {SPARE}% level's span holds only {in_span} bytes")
    check(
        beyond == 0,
        f"{beyond} bytes of data in the {SPARE}% spare area: the target was not discarded"
        " before the level's fill",
    )
    check(
        lgtest.allocated_bytes(watched) <= span + (1 << 20),
        f"{lgtest.allocated_bytes(watched)} bytes allocated for a span of {span}",
    )
    for c in levels:
        check(
            c.get("discard_method") == method,
            f"level {c['spare_area_percent']}%: discard method {c.get('discard_method')!r}, "
            f"expected {method!r}",
        )


if __name__ == "__main__":
    lgtest.main(test)
