#!/usr/bin/env python3
"""An --output that cannot be written is refused before any I/O
(`output.py missing-dir|read-only|directory|not-a-file`).

missing-dir: the document's directory does not exist; read-only: it is on a
read-only filesystem (root) or not writable (other users); directory: --output names
a directory; not-a-file: it names something that is not a regular file (a symlink).
Each time: exit 2 at once (the run would take 10 s), a message naming the output,
no target file created, nothing written beside the output."""

import os
import time

import lgtest
from lgtest import check

USAGE = 2


def test(scene, argv):
    mode = argv[0] if argv else "missing-dir"
    target = scene.path("target.bin")
    if mode == "missing-dir":
        out = scene.path("no-such-dir") / "doc.json"
    elif mode == "read-only":
        if os.geteuid() == 0:
            ro, _ = scene.mount("tmpfs", "ro", readonly=True, fstype="tmpfs", options="size=1m")
        else:
            ro = scene.path("ro")
            ro.mkdir(mode=0o555)
        out = ro / "doc.json"
    elif mode == "directory":
        out = scene.path("doc.json")
        out.mkdir()
    elif mode == "not-a-file":
        out = scene.path("doc.json")
        os.symlink(scene.path("elsewhere.json"), out)
    else:
        raise AssertionError(f"unknown mode {mode!r}")
    before = sorted(f.name for f in out.parent.iterdir()) if out.parent.is_dir() else None

    args = ["run", "--target", str(target), "--size", "16M", "--rw", "randwrite"]
    args += ["--time", "10", "--pattern", "incompressible", "--output", str(out), "--quiet"]
    t0 = time.monotonic()
    p = lgtest.run(args, timeout=60, expect=USAGE)
    took = time.monotonic() - t0
    check(took < 3, f"{took:.1f} s before the output was refused: it ran first")
    check(str(out) in p.stderr, f"the message does not name {out}:\n{p.stderr}")
    check(
        "--output" in p.stderr or "result document" in p.stderr,
        f"the message does not say what is wrong:\n{p.stderr}",
    )
    check(not target.exists(), "the target was created for a run whose output cannot be written")
    if before is not None:
        after = sorted(f.name for f in out.parent.iterdir())
        new = sorted(set(after) - set(before))
        check(not new, f"files appeared beside the output: {new}")
    if mode == "not-a-file":
        check(os.path.islink(out), "the symlink named by --output was replaced")


if __name__ == "__main__":
    lgtest.main(test)
