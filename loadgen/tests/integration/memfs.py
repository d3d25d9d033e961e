#!/usr/bin/env python3
"""A file target on a filesystem in memory (`memfs.py tmpfs|ramfs`, root).

Without --buffered the run is refused before the target is created: its data would
live in RAM (tmpfs accepts O_DIRECT on recent kernels), so loadgen would measure
memory, not a drive. The message says so and names --buffered, which runs it
anyway, recorded as direct=false."""

import lgtest
from lgtest import check

USAGE = 2


def test(scene, argv):
    fstype = argv[0] if argv else "tmpfs"
    check(fstype in ("tmpfs", "ramfs"), f"usage: memfs.py tmpfs|ramfs, not {fstype!r}")
    lgtest.require_root()
    options = "size=64m" if fstype == "tmpfs" else ""
    mnt, _ = scene.mount(fstype, "mem", readonly=False, fstype=fstype, options=options)
    target = mnt / "target.bin"
    out = scene.path("doc.json")
    args = ["run", "--target", str(target), "--size", "16M", "--rw", "randwrite"]
    args += ["--pattern", "incompressible", "--output", str(out), "--quiet"]

    p = lgtest.run([*args, "--time", "10"], timeout=60, expect=USAGE)
    said = p.stderr.lower()
    for word in (fstype, "memory", "--buffered"):
        check(word in said, f"the refusal does not mention {word!r}:\n{p.stderr}")
    check(not target.exists(), "the target was created for a refused run")
    check(not out.exists(), "a refused run wrote a document")

    lgtest.run([*args, "--time", "0.5", "--buffered"], timeout=60, expect=0)
    doc = lgtest.load_document(out)
    check(doc["status"] == "complete", f"status {doc['status']}")
    check(doc["parameters"]["direct"] is False, "a --buffered run is not recorded as direct=false")
    kind = doc["drive"].get("kind")
    check(kind == "virtual", f"a file in RAM is recorded as kind {kind!r}, not virtual")


if __name__ == "__main__":
    lgtest.main(test)
