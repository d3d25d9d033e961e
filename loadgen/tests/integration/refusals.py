#!/usr/bin/env python3
"""Each safety refusal, one scenario per invocation (`refusals.py SCENARIO`).

A refused run must exit 3, say why on stderr, write no result document and leave
the target's bytes unchanged. Each scenario then removes the obstacle and runs the
same command again: it must succeed and change the target, which shows that the
refusal came from the obstacle and that the unchanged bytes mean something.
"""

import os
from pathlib import Path

import lgtest
from lgtest import check

DEV_SIZE = 64 << 20
REFUSED = 3


def write_args(target: str, out: Path, *extra: str) -> list[str]:
    return [
        "run",
        "--target",
        target,
        "--rw",
        "write",
        "--bs",
        "128k",
        "--qd",
        "1",
        "--time",
        "1",
        "--output",
        str(out),
        "--quiet",
        *extra,
    ]


def expect_refusal(args: list[str], content: Path, out: Path, words: list[str]) -> None:
    """Run args; it must be refused, mention one of words, write nothing."""
    # What set the obstacle up wrote to the device (mkswap's header, a partition table)
    # reaches its image now, not during the run, where it would read as the run's write.
    os.sync()
    before = lgtest.file_sha256(content)
    p = lgtest.run(args, timeout=60, expect=REFUSED)
    err = p.stderr.lower()
    check(any(w.lower() in err for w in words), f"stderr names none of {words}:\n{p.stderr}")
    check(not out.exists(), f"a refused run wrote {out}")
    check(lgtest.file_sha256(content) == before, f"a refused run changed {content}")


def expect_success(args: list[str], content: Path, out: Path) -> None:
    before = lgtest.file_sha256(content)
    lgtest.run(args, timeout=60, expect=0)
    doc = lgtest.load_document(out)
    check(doc["status"] == "complete", f"status {doc['status']}")
    check(lgtest.file_sha256(content) != before, f"a successful write run left {content} unchanged")
    out.unlink()


def device(scene, name: str = "disk.img"):
    backing = scene.backing_file(name, DEV_SIZE, random_content=True)
    return scene.loop(backing), backing


def no_confirm(scene):
    dev, backing = device(scene)
    out = scene.path("doc.json")
    expect_refusal(write_args(dev, out), backing, out, ["--destroy-data"])
    # A whole suite is refused the same way.
    expect_refusal(
        [
            "run",
            "--target",
            dev,
            "--suite",
            "desktop-2011",
            "--quick",
            "--output",
            str(out),
            "--quiet",
        ],
        backing,
        out,
        ["--destroy-data"],
    )
    expect_success(write_args(dev, out, f"--destroy-data={dev}"), backing, out)


def mismatch(scene):
    dev, backing = device(scene)
    other, _ = device(scene, "other.img")
    out = scene.path("doc.json")
    for wrong in (other, str(backing), "/dev/null", "/dev/loadgen-no-such-device"):
        expect_refusal(
            write_args(dev, out, f"--destroy-data={wrong}"), backing, out, ["--destroy-data", wrong]
        )
    # A symlink to the device names it.
    link = scene.path("dev-link")
    os.symlink(dev, link)
    expect_success(write_args(dev, out, f"--destroy-data={link}"), backing, out)


def mounted(scene):
    dev, backing = device(scene)
    scene.mkfs_ext4(dev)
    out = scene.path("doc.json")
    mnt, unmount = scene.mount(dev, "mnt")
    expect_refusal(
        write_args(dev, out, f"--destroy-data={dev}"), backing, out, [str(mnt), "mounted"]
    )
    unmount()
    expect_success(write_args(dev, out, f"--destroy-data={dev}"), backing, out)


def partition_mounted(scene):
    backing = scene.backing_file("disk.img", DEV_SIZE, random_content=True)
    disk, part = scene.partitioned_loop(backing)
    scene.mkfs_ext4(part)
    out = scene.path("doc.json")
    mnt, unmount = scene.mount(part, "mnt part")  # a space, escaped in mountinfo
    expect_refusal(
        write_args(disk, out, f"--destroy-data={disk}"), backing, out, [str(mnt), "mounted"]
    )
    # The partition itself is mounted too.
    expect_refusal(
        write_args(part, out, f"--destroy-data={part}"), backing, out, [str(mnt), "mounted"]
    )
    unmount()
    expect_success(write_args(disk, out, f"--destroy-data={disk}"), backing, out)


def holders(scene):
    dev, backing = device(scene)
    name, remove = scene.dm_linear(dev, DEV_SIZE // 512)
    out = scene.path("doc.json")
    expect_refusal(
        write_args(dev, out, f"--destroy-data={dev}"), backing, out, ["dm-", "holder", "in use"]
    )
    remove()
    expect_success(write_args(dev, out, f"--destroy-data={dev}"), backing, out)


def swap(scene):
    dev, backing = device(scene)
    swapoff = scene.swap(dev)
    out = scene.path("doc.json")
    expect_refusal(write_args(dev, out, f"--destroy-data={dev}"), backing, out, ["swap"])
    swapoff()
    expect_success(write_args(dev, out, f"--destroy-data={dev}"), backing, out)


def busy(scene):
    dev, backing = device(scene)
    release = scene.hold_exclusive(dev)
    out = scene.path("doc.json")
    expect_refusal(
        write_args(dev, out, f"--destroy-data={dev}"), backing, out, ["exclusive", "busy", "in use"]
    )
    release()
    expect_success(write_args(dev, out, f"--destroy-data={dev}"), backing, out)


def rerun(scene):
    """Runs one right after another on the same device: the first must release its
    exclusive claim when it exits, or the next is refused as busy. (io_uring tears
    a closed ring down asynchronously, holding its registered files meanwhile.)"""
    dev, _ = device(scene)
    out = scene.path("doc.json")
    for engine in ("io_uring", "io_uring", "io_uring", "psync", "io_uring"):
        args = write_args(dev, out, f"--destroy-data={dev}", "--engine", engine)
        args[args.index("--time") + 1] = "0.2"
        lgtest.run(args, timeout=60, expect=0)  # at once: no pause between runs
    doc = lgtest.load_document(out)
    check(doc["status"] == "complete", f"status {doc['status']}")


def existing_file(scene):
    # Runs without root: files need no privileges.
    target = scene.backing_file("precious.bin", 16 << 20, random_content=True)
    out = scene.path("doc.json")
    expect_refusal(write_args(str(target), out), target, out, ["--force"])
    expect_success(write_args(str(target), out, "--force"), target, out)

    # A file loadgen created is loadgen's to overwrite on the next run.
    own = scene.path("own.bin")
    lgtest.run(write_args(str(own), out, "--size", "16M"), timeout=60, expect=0)
    out.unlink()
    expect_success(write_args(str(own), out), own, out)


SCENARIOS = {
    "no-confirm": no_confirm,
    "mismatch": mismatch,
    "mounted": mounted,
    "partition-mounted": partition_mounted,
    "holders": holders,
    "swap": swap,
    "busy": busy,
    "existing-file": existing_file,
    "rerun": rerun,
}


if __name__ == "__main__":
    lgtest.main(lgtest.scenarios(SCENARIOS, "refusals.py"))
