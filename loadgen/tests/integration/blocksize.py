#!/usr/bin/env python3
"""--bs and the target's logical block size (`blocksize.py 4096`, root).

On a loop device with 4096-byte logical blocks (`losetup --sector-size 4096`),
O_DIRECT I/O of 512 or 2048 bytes fails with EINVAL. loadgen must refuse such a
block size before any I/O, with a message naming the logical block size: exit 2, no
document, the device's data unchanged. With --buffered, or with a multiple of
4096, the same run goes through."""

import lgtest
from lgtest import check

USAGE = 2
SECTOR = 4096


def test(scene, argv):
    check(argv in ([], [str(SECTOR)]), f"usage: blocksize.py [{SECTOR}]")
    backing = scene.backing_file("disk.img", 64 << 20, random_content=True)
    dev = scene.loop(backing, block_size=SECTOR)
    out = scene.path("doc.json")

    def args(rw: str, bs: str, *extra: str) -> list[str]:
        a = ["run", "--target", dev, "--rw", rw, "--bs", bs, "--qd", "4", "--time", "10"]
        return [*a, "--pattern", "incompressible", "--output", str(out), "--quiet", *extra]

    for rw, bs, extra in (
        ("randwrite", "2k", [f"--destroy-data={dev}"]),
        ("write", "512", [f"--destroy-data={dev}"]),
        ("randread", "2k", []),  # read-only: no confirmation needed
    ):
        before = lgtest.file_sha256(backing)
        p = lgtest.run(args(rw, bs, *extra), timeout=60, expect=USAGE)
        check(
            "logical block size" in p.stderr and str(SECTOR) in p.stderr,
            f"--rw {rw} --bs {bs}: the message does not name the logical block size:\n{p.stderr}",
        )
        check(not out.exists(), f"--rw {rw} --bs {bs}: a refused run wrote a document")
        check(lgtest.file_sha256(backing) == before, f"--rw {rw} --bs {bs} changed the device")

    # The same block size through the page cache, and a multiple of 4096 direct.
    for bs, extra in (("2k", ["--buffered"]), ("8k", [])):
        before = lgtest.file_sha256(backing)
        cmd = args("randwrite", bs, f"--destroy-data={dev}", *extra)
        cmd[cmd.index("--time") + 1] = "0.5"
        lgtest.run(cmd, timeout=60, expect=0)
        doc = lgtest.load_document(out)
        check(doc["status"] == "complete", f"--bs {bs} {extra}: status {doc['status']}")
        check(doc["results"][0]["block_size"] == size_bytes(bs), f"--bs {bs}: block size")
        check(lgtest.file_sha256(backing) != before, f"--bs {bs} {extra} wrote nothing")
        out.unlink()


def size_bytes(text: str) -> int:
    return int(text[:-1]) << 10 if text.endswith("k") else int(text)


if __name__ == "__main__":
    lgtest.main(test)
