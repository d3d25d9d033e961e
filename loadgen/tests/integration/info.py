#!/usr/bin/env python3
"""`loadgen info` on a loop device and on files (`info.py loop|file`): what the
target module probes reaches the command, in text and in JSON."""

import json
import subprocess

import lgtest
from lgtest import check

SIZE = 64 << 20


def info(target: str, as_json: bool = True):
    p = lgtest.run(["info", target, *(["--json"] if as_json else [])], timeout=30, expect=0)
    return json.loads(p.stdout) if as_json else p.stdout


def loop(scene):
    backing = scene.backing_file("disk.img", SIZE)
    dev = scene.loop(backing)
    got = info(dev)
    check(got["kind"] == "block", f"kind {got['kind']}")
    check(got["capacity_bytes"] == SIZE, f"capacity {got['capacity_bytes']}")
    check(got["logical_block_size"] == 512, f"logical block size {got['logical_block_size']}")
    check(got["physical_block_size"] >= 512, f"physical block size {got['physical_block_size']}")
    check(str(backing) in got["model"], f"model {got['model']!r} does not name the backing file")
    check(got["supports_discard"] is True, "a loop device on a local file can discard")
    check(got["drive_kind"] == "virtual", f"a loop device is {got['drive_kind']!r}, not virtual")
    # The kernel makes a loop device up: attached by nothing, no link to report.
    check(got["interface"] == "virtual" and got["link"] is None, f"loop link: {got}")
    check(got.get("writable") is True, f"an unused loop device is not writable: {got}")
    check(not got.get("signature"), f"signature on a blank device: {got.get('signature')}")
    # No hardware behind it: no identity, no serial, no health, each said so.
    check(got["identified_by"] is None and "virtual" in got.get("no_identity", ""), f"{got}")
    check(got["serial_hash"] == "" and got["vendor"] == "", f"loop identity: {got}")
    health = got["health"]
    check(health["source"] == "none" and "virtual" in health["reason"], f"health {health}")
    text = info(dev, as_json=False)
    check("health:              none: a virtual device" in text, f"text health:\n{text}")

    scene.mkfs_ext4(dev)
    mnt, _ = scene.mount(dev, "mnt")
    got = info(dev)
    check(got.get("writable") is False, f"a mounted device is writable: {got}")
    check(got.get("refusal") == "mounted", f"refusal {got.get('refusal')}, expected mounted")
    check(str(mnt) in got.get("refusal_detail", ""), f"detail {got.get('refusal_detail')!r}")
    check(got.get("signature") == "ext4 superblock", f"signature {got.get('signature')!r}")
    text = info(dev, as_json=False)
    check(str(mnt) in text and "ext4" in text, f"text output lacks the mount or signature:\n{text}")


def files(scene):
    missing = scene.path("new.bin")
    got = info(str(missing))
    check(got["kind"] == "file" and got["exists"] is False, f"missing file: {got}")
    check(got["capacity_bytes"] == 0, f"missing file capacity {got['capacity_bytes']}")
    check(got["identified_by"] is None and "a file" in got.get("no_identity", ""), f"{got}")
    health = got["health"]
    check(health["source"] == "none" and health["reason"].startswith("a file"), f"{health}")

    mine = scene.path("mine.bin")
    out = scene.path("doc.json")

    def run(*extra):
        lgtest.run(
            [
                "run",
                "--target",
                str(mine),
                "--size",
                "16M",
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
            ],
            expect=0,
        )
        return lgtest.load_document(out)["drive"]

    drive = run()
    document = lgtest.load_document(out)
    # A file has no identity and no health of its own, and the document says why.
    check(document["health"]["source"] == "none", f"a file's health: {document['health']}")
    check("serial_hash" not in document["target"], f"a file's target: {document['target']}")
    got = info(str(mine))
    # A file is attached by its disk: the same interface and link in info and the document.
    check(
        document["target"].get("interface") == got["interface"]
        and document["target"].get("link") == got["link"],
        f"document target {document['target']} against info {got}",
    )
    backing = subprocess.run(
        ["findmnt", "-n", "-o", "SOURCE", "--target", str(mine)], capture_output=True, text=True
    ).stdout.strip()
    if backing.startswith("/dev/vd"):
        check(got["interface"] == "virtio", f"a file on {backing}: interface {got['interface']}")
    check(got["exists"] is True and got["capacity_bytes"] == 16 << 20, f"created file: {got}")
    check(got["created_by_loadgen"] is True, "a file loadgen created does not carry its mark")
    # A file is virtual on a virtual disk or in RAM, else its kind is not told (never
    # guessed from the rotational flag); --drive kind=... always wins.
    check(got["drive_kind"] in (None, "virtual"), f"a file's drive kind {got['drive_kind']!r}")
    check(drive.get("kind") == got["drive_kind"], f"document kind {drive.get('kind')!r}")
    drive = run("--drive", "manufacturer=Acme,model=Spinner,kind=hdd")
    check(drive.get("kind") == "hdd", f"--drive kind=hdd gave {drive.get('kind')!r}")
    drive = run("--drive", "manufacturer=Acme,model=Spinner,slug=acme-spinner_2")
    check(drive.get("slug") == "acme-spinner_2", f"--drive slug= gave {drive.get('slug')!r}")

    foreign = scene.backing_file("foreign.bin", 1 << 20)
    got = info(str(foreign))
    check(got["created_by_loadgen"] is False, "a file loadgen did not create carries its mark")

    p = lgtest.run(["info", str(scene.dir)], timeout=30)
    check(p.returncode == 2, f"info on a directory: exit {p.returncode}, expected 2 (usage)")


def test(scene, argv):
    {"loop": loop, "file": files}[argv[0] if argv else "file"](scene)


if __name__ == "__main__":
    lgtest.main(test)
