#!/usr/bin/env python3
"""Running out of space on a file target's filesystem (`enospc.py open|write`).

open:  a new file larger than the free space: the run fails before any I/O.
write: an existing sparse file larger than the free space (--force): writes hit
       ENOSPC part way through.
Either way: exit 1, a valid document with status "failed" and a failure that says
why, written beside the full filesystem."""

import lgtest
from lgtest import check

ENOSPC = 28


def test(scene, argv):
    mode = argv[0] if argv else "write"
    check(mode in ("open", "write"), f"usage: enospc.py open|write, not {mode!r}")
    small = scene.tmpfs("small", "32m")
    target = small / "target.bin"
    out = scene.path("doc.json")  # on the local disk, not on the full tmpfs
    args = [
        "run",
        "--target",
        str(target),
        "--rw",
        "write",
        "--bs",
        "128k",
        "--qd",
        "4",
        "--time",
        "20",
        "--output",
        str(out),
        "--quiet",
        "--buffered",  # a file on tmpfs needs it: its data is in memory
    ]
    if mode == "open":
        args += ["--size", "64M"]
    else:
        with open(target, "wb") as f:
            f.truncate(64 << 20)
        args.append("--force")
    p = lgtest.run(args, timeout=60, expect=1)
    doc = lgtest.load_document(out)
    check(doc["status"] == "failed", f"status {doc['status']}, expected failed")
    failure = doc["failure"]
    check(
        failure.get("errno") == ENOSPC,
        f"failure errno {failure.get('errno', '(absent)')}, expected {ENOSPC}",
    )
    said = (failure["message"] + p.stderr).lower()
    check(
        "space" in said or "enospc" in said, f"the failure does not say the disk is full: {failure}"
    )
    if mode == "open":
        check(not target.exists(), "a file created for a run that could not start was left behind")


if __name__ == "__main__":
    lgtest.main(test)
