#!/usr/bin/env python3
"""Identification and health on emulated hardware, in a QEMU VM.

Boots Debian's kernel with QEMU's NVMe controller (`-device nvme,serial=...`) and an
AHCI SATA disk (`-device ide-hd,serial=...`), each over a scratch image, and runs
guest_ident.sh as /init: `loadgen info` (text and JSON) on both, on a loop device and a
zram disk, and a short write run on each emulated disk. Here the outputs are judged:
the model, vendor, firmware and serial hash each device reports, its health before and
after the run, the virtual disks' lack of both, and that no output holds either serial.
See README.md.

  LOADGEN=build/loadgen CAPTURE_PAGES=build/tests/vm/capture_pages ident_in_vm.py
      [--capture DIR] [--print NAME...]

--capture DIR also writes the raw Identify and health pages the guest read into DIR
(the parsers' fixtures, tests/fixtures). --print shows outputs (info-nvme.txt, ...).
Exits 0 pass, 1 fail, 77 when this machine cannot run it.
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import json
import os
import shlex
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import busybox
import debian_packages
import kernel
import qemu
from initramfs import Initramfs

SKIP = 77
HERE = Path(__file__).resolve().parent
TIMEOUT = 240  # s for the whole boot; meson allows 300 for the test
CMDLINE = "console=ttyS0 panic=-1 quiet"
FORWARDED_ENV = ("ASAN_OPTIONS", "UBSAN_OPTIONS", "LSAN_OPTIONS")
# The units' serial numbers: no output of loadgen may hold them, only their hashes.
NVME_SERIAL = "LGNVMESERIAL0427"
SATA_SERIAL = "LGSATASERIAL0815"
SALT = b"bench.loadgen.serial.v1:"  # ident.h LG_SERIAL_SALT
DISK_BYTES = 256 << 20


class Skip(Exception):
    pass


def log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def serial_hash(serial: str) -> str:
    return hashlib.sha256(SALT + serial.encode()).hexdigest()[:32]


def executable(variable: str) -> Path:
    path = os.environ.get(variable)
    if not path or not os.access(path, os.X_OK):
        raise AssertionError(f"${variable} does not name an executable: {path!r}")
    return Path(path)


def build_initramfs(kern: kernel.Kernel, capture: bool) -> bytes:
    fs = Initramfs()
    for d in ("/proc", "/sys", "/dev", "/tmp", "/run", "/bin", "/sbin", "/usr/bin", "/usr/sbin"):
        fs.directory(d)
    fs.char_device("/dev/console", 5, 1)
    fs.copy(busybox.static_busybox(), "/bin/busybox")
    fs.executable(executable("LOADGEN"), "/usr/local/bin/loadgen")
    if capture:
        fs.executable(executable("CAPTURE_PAGES"), "/usr/local/bin/capture_pages")
    for module in kern.modules:
        fs.copy(module, f"/lib/modules/{module.name}")
    fs.file("/lib/modules/load-order", "".join(f"{m.stem}\n" for m in kern.modules).encode())
    env = [f"VMTEST_CAPTURE={int(capture)}"]
    env += [f"export {n}={shlex.quote(os.environ[n])}" for n in FORWARDED_ENV if n in os.environ]
    fs.file("/etc/vmtest.env", "".join(line + "\n" for line in env).encode())
    fs.copy(HERE / "guest_ident.sh", "/init")
    return fs.archive()


def devices(scratch: Path) -> tuple[str, ...]:
    for name in ("nvme.img", "sata.img"):
        with open(scratch / name, "wb") as f:
            f.truncate(DISK_BYTES)
    return (
        "-drive",
        f"file={scratch / 'nvme.img'},if=none,id=n0,format=raw",
        "-device",
        f"nvme,serial={NVME_SERIAL},drive=n0",
        "-device",
        "ahci,id=ahci",
        "-drive",
        f"file={scratch / 'sata.img'},if=none,id=s0,format=raw",
        "-device",
        f"ide-hd,drive=s0,bus=ahci.0,serial={SATA_SERIAL}",
    )


def handed_over(console: list[str]) -> dict[str, bytes]:
    """The files the guest printed between "VMTEST FILE name" and "VMTEST END name"."""
    files, name, lines = {}, None, []
    for line in console:
        if line.startswith("VMTEST FILE "):
            name, lines = line.removeprefix("VMTEST FILE "), []
        elif name and line == f"VMTEST END {name}":
            files[name] = base64.b64decode("".join(lines), validate=True)
            name = None
        elif name:
            lines.append(line)
    return files


def check(condition: bool, what: str) -> None:
    if not condition:
        raise AssertionError(what)


def judge(files: dict[str, bytes], qemu_version: str) -> None:
    # Neither serial, in any case, in anything loadgen printed or wrote.
    for name, data in files.items():
        if name.endswith(".hex"):
            continue  # the raw pages capture_pages printed hold the NVMe serial
        text = data.decode(errors="replace").lower()
        for serial in (NVME_SERIAL, SATA_SERIAL):
            check(serial.lower() not in text, f"{name} holds the serial {serial}")

    nvme = json.loads(files["info-nvme.json"])
    check(nvme["identified_by"] == "nvme-identify", f"NVMe identity from {nvme}")
    check(nvme["model"] == "QEMU NVMe Ctrl", f"NVMe model {nvme['model']!r}")
    check(nvme["vendor"] == "QEMU", f"NVMe vendor {nvme['vendor']!r}")  # PCI 0x1b36
    check(nvme["serial_hash"] == serial_hash(NVME_SERIAL), f"NVMe serial hash {nvme}")
    check(nvme["firmware"] and nvme["firmware"] in qemu_version, f"NVMe firmware {nvme}")
    check(nvme["interface"] == "nvme", f"NVMe interface {nvme['interface']!r}")
    check(nvme["capacity_bytes"] == DISK_BYTES, f"NVMe capacity {nvme['capacity_bytes']}")
    health = nvme["health"]
    check(health["source"] == "nvme-smart-log", f"NVMe health {health}")
    snapshot = health["before"]
    check(0 < snapshot["temperature_celsius"] < 100, f"NVMe temperature {snapshot}")
    # QEMU 7.2 leaves the spare and its threshold at 0; the figures are still reported.
    check("available_spare_percent" in snapshot, f"NVMe spare {snapshot}")
    check(snapshot["critical_warning"] == 0, f"NVMe critical warning {snapshot}")
    for figure in ("percentage_used", "data_written_bytes", "media_errors", "power_on_hours"):
        check(figure in snapshot, f"NVMe health without {figure}: {snapshot}")
    text = files["info-nvme.txt"].decode()
    check("NVMe SMART / Health log" in text and nvme["serial_hash"] in text, f"text:\n{text}")

    sata = json.loads(files["info-sata.json"])
    check(sata["identified_by"] == "sysfs", f"SATA identity from {sata}")
    check(sata["model"] == "QEMU HARDDISK", f"SATA model {sata['model']!r}")
    check(sata["vendor"] == "QEMU", f"SATA vendor {sata['vendor']!r}")
    check(sata["serial_hash"] == serial_hash(SATA_SERIAL), f"SATA serial hash {sata}")
    check(sata["firmware"] == "2.5+", f"SATA firmware {sata}")  # QEMU's IDE revision
    check(sata["interface"] == "sata", f"SATA interface {sata['interface']!r}")
    health = sata["health"]
    check(health["source"] == "ata-smart", f"SATA health {health}")
    # QEMU's attributes: 190 (airflow temperature) raw 31, 5 and 9 raw 0.
    snapshot = health["before"]
    check(snapshot.get("temperature_celsius") == 31, f"SATA temperature {snapshot}")
    check("power_on_hours" in snapshot and "reallocated_sectors" in snapshot, f"{snapshot}")

    for name in ("loop", "zram"):
        if f"info-{name}.json" not in files:
            check(name == "zram", "no info of the loop device")
            log("note: the guest kernel made no zram disk; only the loop device was checked")
            continue
        virtual = json.loads(files[f"info-{name}.json"])
        check(virtual["drive_kind"] == "virtual", f"{name} kind {virtual['drive_kind']!r}")
        check(virtual["identified_by"] is None and virtual["serial_hash"] == "", f"{virtual}")
        check("virtual" in virtual.get("no_identity", ""), f"{name}: {virtual}")
        check(virtual["health"]["source"] == "none", f"{name} health {virtual['health']}")

    for name, serial, source in (
        ("nvme", NVME_SERIAL, "nvme-smart-log"),
        ("sata", SATA_SERIAL, "ata-smart"),
    ):
        doc = json.loads(files[f"run-{name}.json"])
        check(doc["schema_version"] >= 3 and doc["status"] == "complete", f"{name} run {doc}")
        target = doc["target"]
        check(target["serial_hash"] == serial_hash(serial) and "serial" not in target, f"{target}")
        check(doc["drive"]["manufacturer"] == "QEMU", f"{name} drive {doc['drive']}")
        health = doc["health"]
        check(health["source"] == source and {"before", "after"} <= set(health), f"{health}")
        before, after = health["before"], health["after"]
        check(before["taken_at"] <= after["taken_at"], f"{name} snapshots out of order")
        if name == "nvme":
            written = sum(r["bytes"] for r in doc["results"])
            grew = after["data_written_bytes"] - before["data_written_bytes"]
            # QEMU counts data units of 512,000 bytes, rounded up.
            check(written <= grew <= written + 2 * 512_000, f"wrote {written}, log grew {grew}")
    log("identity, serial hashes, health and the virtual disks as expected; no serial leaked")


def test(capture: Path | None, show: list[str]) -> None:
    try:
        qemu_path = qemu.qemu_binary()
        kern = kernel.debian_kernel()
        log(f"kernel {kern.entry.name} ({kern.release})")
        image = build_initramfs(kern, capture is not None)
    except (qemu.NoQemu, debian_packages.Unavailable) as e:
        raise Skip(str(e)) from e
    qemu_version = subprocess.run(
        [qemu_path, "--version"], capture_output=True, text=True, check=True
    ).stdout
    with tempfile.TemporaryDirectory(prefix="loadgen-vm-") as tmp:
        initrd = Path(tmp) / "initramfs.cpio.gz"
        initrd.write_bytes(image)
        log(f"initramfs {len(image) >> 10} KiB; booting")
        kvm_memo = debian_packages.cache_root() / "kvm-failed-since-boot"
        boot = qemu.boot(
            kern.vmlinuz, initrd, CMDLINE, "VMTEST START", TIMEOUT, kvm_memo,
            devices=devices(Path(tmp)),
        )  # fmt: skip
    log(f"guest ran {boot.seconds:.1f} s under {boot.accel.upper()}")
    console = [ln.strip() for ln in boot.console.splitlines()]
    for line in console:
        if line.startswith(("VMTEST STEP", "VMTEST FAIL", "VMTEST DONE", "|")):
            log(f"  {line}")
    try:
        fails = [ln for ln in console if ln.startswith("VMTEST FAIL")]
        check(not fails, f"the guest says: {fails[0] if fails else ''}")
        check("VMTEST DONE" in console, "the guest ended without finishing (crashed, timed out)")
        files = handed_over(console)
        for name in show:
            log(f"--- {name}\n{files.get(name, b'(none)').decode(errors='replace')}")
        if capture:
            capture.mkdir(parents=True, exist_ok=True)
            for name in ("nvme-identify.hex", "nvme-smart-log.hex", "ata-smart-data.hex"):
                (capture / name).write_bytes(files[name])
            log(f"pages written to {capture}")
        judge(files, qemu_version)
    except AssertionError:
        log("--- console (last 60 lines)")
        log("\n".join(boot.console.splitlines()[-60:]))
        raise


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--capture", type=Path, help="write the raw pages into this folder")
    parser.add_argument("--print", nargs="*", default=[], help="outputs to show")
    args = parser.parse_args()
    for sig in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, lambda signum, frame: sys.exit(128 + signum))
    t0 = time.monotonic()
    try:
        test(args.capture, args.print)
    except Skip as e:
        log(f"SKIP: {e}")
        sys.exit(SKIP)
    except AssertionError as e:
        log(f"FAIL: {e}")
        sys.exit(1)
    log(f"PASS in {time.monotonic() - t0:.0f} s")


if __name__ == "__main__":
    main()
