#!/usr/bin/env python3
"""What loadgen says on stderr (`messages.py SCENARIO`).

span-clamp: a span larger than the target is clamped with one warning per test,
not one per data pattern.
signature (root): the signature found on a device is named with the right article.
drive: the warning about an unnamed drive says what the document records."""

import lgtest
from lgtest import check


def span_clamp(scene):
    target = scene.path("target.bin")
    out = scene.path("doc.json")
    # Both catalog tests span 8 GiB; the file has 16 MiB. Two patterns each.
    tests = ["randwrite-4k-qd3-8g", "randwrite-4k-qd32-8g"]
    p = lgtest.run(
        ["run", "--target", str(target), "--size", "16M", "--tests", ",".join(tests)]
        + ["--duration-scale", "0.002", "--output", str(out), "--quiet"],
        timeout=60,
        expect=0,
    )
    doc = lgtest.load_document(out)
    check(len(doc["results"]) == 4, f"{len(doc['results'])} results, expected 2 tests x 2 patterns")
    check(all(r["span_bytes"] == 16 << 20 for r in doc["results"]), "spans not clamped to 16 MiB")
    warnings = [line for line in p.stderr.splitlines() if "clamped" in line]
    for t in tests:
        said = sum(t in line for line in warnings)
        check(said == 1, f"{t}: the span clamp was said {said} times, not once:\n{p.stderr}")


def signature(scene):
    """The warning about what a device holds reads as English: "an ext4 superblock",
    "an MBR partition table"."""
    for name, article in (("ext4", "an ext4 superblock"), ("mbr", "an MBR partition table")):
        backing = scene.backing_file(f"{name}.img", 64 << 20)
        if name == "ext4":
            dev = scene.loop(backing)
            scene.mkfs_ext4(dev)
        else:
            dev, _ = scene.partitioned_loop(backing)
        out = scene.path(f"{name}.json")
        p = lgtest.run(
            ["run", "--target", dev, f"--destroy-data={dev}", "--rw", "write", "--bs", "128k"]
            + ["--time", "0.2", "--output", str(out), "--quiet"],
            timeout=60,
            expect=0,
        )
        check(f"holds {article}" in p.stderr, f'no "holds {article}" in:\n{p.stderr}')


def drive(scene):
    """Without --drive the warning says plainly what the document records."""
    target = scene.path("target.bin")
    out = scene.path("doc.json")
    base = ["run", "--target", str(target), "--size", "16M", "--rw", "randwrite", "--time", "0.1"]
    base += ["--pattern", "incompressible", "--output", str(out), "--quiet"]
    cases = (
        ([], ("unknown", "unknown"), 'its manufacturer and model are recorded as "unknown"'),
        (
            ["--drive", "manufacturer=Acme"],
            ("Acme", "unknown"),
            'its model is recorded as "unknown"',
        ),
        (["--drive", "model=X1"], ("unknown", "X1"), 'its manufacturer is recorded as "unknown"'),
        (["--drive", "manufacturer=Acme,model=X1"], ("Acme", "X1"), None),
        # A slug names the catalog drive alone: no name is missing.
        (["--drive", "slug=acme-x1-1tb"], ("unknown", "unknown"), None),
    )
    for extra, recorded, said in cases:
        p = lgtest.run([*base, *extra], timeout=60, expect=0)
        doc = lgtest.load_document(out)
        got = (doc["drive"]["manufacturer"], doc["drive"]["model"])
        check(got == recorded, f"{extra}: the document records {got}, expected {recorded}")
        lines = [line for line in p.stderr.splitlines() if "drive" in line]
        check(not any(" by " in line for line in lines), f"{extra}: {lines}")
        if said:
            check(any(said in line for line in lines), f"{extra}: no {said!r} in {lines}")
            check(any("--drive" in line for line in lines), f"{extra}: --drive not named: {lines}")
        else:
            check(not lines, f"{extra}: a warning about a named drive: {lines}")
        out.unlink()


def drive_slug(scene):
    """--drive slug=... names the catalog drive alone, which the site holds every other
    field of the drive block to: a device's own capacity (and vendor and model, where it
    has them) stays in the target block, and the drive block holds what --drive gave."""
    backing = scene.backing_file("disk.img", 16 << 20)
    dev = scene.loop(backing)
    out = scene.path("doc.json")
    base = ["run", "--target", dev, "--rw", "randread", "--time", "0.1", "--output", str(out)]
    for extra, capacity in (([], 16 << 20), (["--drive", "slug=acme-x1-1tb"], None)):
        p = lgtest.run([*base, "--quiet", *extra], timeout=60, expect=0)
        doc = lgtest.load_document(out)
        check(doc["target"]["capacity_bytes"] == 16 << 20, f"{extra}: target {doc['target']}")
        check(doc["drive"].get("capacity_bytes") == capacity, f"{extra}: drive {doc['drive']}")
        named = {k: v for k, v in doc["drive"].items() if k not in ("manufacturer", "model")}
        if extra:
            check(named == {"slug": "acme-x1-1tb", "kind": "virtual"}, f"drive {doc['drive']}")
            check("drive" not in p.stderr, f"a warning about a drive named by slug: {p.stderr}")
        out.unlink()


SCENARIOS = {
    "span-clamp": span_clamp,
    "signature": signature,
    "drive": drive,
    "drive-slug": drive_slug,
}


if __name__ == "__main__":
    lgtest.main(lgtest.scenarios(SCENARIOS, "messages.py"))
