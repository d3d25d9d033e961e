#!/usr/bin/env python3
"""The holders refusal on a real kernel with real device-mapper, in a QEMU VM.

The integration test refuse-holders skips where the kernel has no device-mapper.
This boots Debian's kernel with an initramfs holding busybox, dmsetup, loadgen
($LOADGEN) and guest_init.sh as /init, which plays the same scenario and prints
its verdict on the serial console. See README.md.

Exits 0 when the guest passes, 1 when it fails (or never says), 77 when this machine
cannot run it (no QEMU, no dmsetup, no kernel package to be had).

  LOADGEN=loadgen/build/loadgen run_in_vm.py [--no-holder]

--no-holder is the negative control: the guest creates no dm target, so loadgen
is not refused and the test must FAIL.
"""

from __future__ import annotations

import argparse
import base64
import binascii
import json
import os
import shlex
import shutil
import signal
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


class Skip(Exception):
    """This machine cannot run the test."""


def log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def loadgen_binary() -> Path:
    path = os.environ.get("LOADGEN")
    if not path or not os.access(path, os.X_OK):
        raise AssertionError(f"$LOADGEN does not name an executable: {path!r}")
    return Path(path)


def dmsetup_binary() -> Path:
    search = os.pathsep.join([os.environ.get("PATH", ""), "/usr/sbin", "/sbin"])
    path = shutil.which("dmsetup", path=search)
    if not path:
        raise Skip("dmsetup is not installed (Debian: apt-get install dmsetup)")
    return Path(path)


def guest_env(no_holder: bool) -> str:
    lines = [f"VMTEST_NO_HOLDER={int(no_holder)}"]
    for name in FORWARDED_ENV:
        if name in os.environ:
            lines.append(f"export {name}={shlex.quote(os.environ[name])}")
    return "".join(line + "\n" for line in lines)


def build_initramfs(kern: kernel.Kernel, loadgen: Path, no_holder: bool) -> bytes:
    fs = Initramfs()
    for d in ("/proc", "/sys", "/dev", "/tmp", "/run", "/bin", "/sbin", "/usr/bin", "/usr/sbin"):
        fs.directory(d)
    fs.char_device("/dev/console", 5, 1)
    fs.copy(busybox.static_busybox(), "/bin/busybox")
    fs.executable(dmsetup_binary(), "/usr/sbin/dmsetup")
    fs.executable(loadgen, "/usr/local/bin/loadgen")
    for module in kern.modules:
        fs.copy(module, f"/lib/modules/{module.name}")
    fs.file("/lib/modules/load-order", "".join(f"{m.stem}\n" for m in kern.modules).encode())
    fs.file("/etc/os-release", b'PRETTY_NAME="loadgen VM test (busybox)"\n')
    fs.file("/etc/vmtest.env", guest_env(no_holder).encode())
    fs.copy(HERE / "guest_init.sh", "/init")
    return fs.archive()


def document(console: list[str]) -> dict:
    """The result document the guest printed in base64 between the DOC markers."""
    try:
        begin = console.index("VMTEST DOC BEGIN")
        end = console.index("VMTEST DOC END", begin)
    except ValueError as e:
        raise AssertionError("the guest printed no result document") from e
    try:
        return json.loads(base64.b64decode("".join(console[begin + 1 : end]), validate=True))
    except (binascii.Error, ValueError) as e:
        raise AssertionError(f"the result document did not come through: {e}") from e


def verdict(console: list[str]) -> None:
    """Raise AssertionError unless the guest passed and its document is complete."""
    fails = [ln for ln in console if ln.startswith("VMTEST FAIL")]
    if fails:
        raise AssertionError(f"the guest says: {fails[0].removeprefix('VMTEST FAIL: ')}")
    if "VMTEST PASS" not in console:
        raise AssertionError("the guest ended without a verdict (crashed, or timed out)")
    doc = document(console)
    if doc.get("status") != "complete":
        raise AssertionError(f"the successful run's document has status {doc.get('status')!r}")
    log(f"the successful run's document: status complete, {len(doc.get('results', []))} result(s)")


def test(no_holder: bool) -> None:
    loadgen = loadgen_binary()
    try:
        qemu.qemu_binary()
        t0 = time.monotonic()
        kern = kernel.debian_kernel()
        log(f"kernel {kern.entry.name} ({kern.release}), ready in {time.monotonic() - t0:.1f} s")
        image = build_initramfs(kern, loadgen, no_holder)
    except (qemu.NoQemu, debian_packages.Unavailable) as e:
        raise Skip(str(e)) from e
    with tempfile.TemporaryDirectory(prefix="loadgen-vm-") as tmp:
        initrd = Path(tmp) / "initramfs.cpio.gz"
        initrd.write_bytes(image)
        log(f"initramfs {len(image) >> 10} KiB; booting")
        kvm_memo = debian_packages.cache_root() / "kvm-failed-since-boot"
        boot = qemu.boot(kern.vmlinuz, initrd, CMDLINE, "VMTEST START", TIMEOUT, kvm_memo)
    ended = "powered off" if boot.exit_status == 0 else f"QEMU status {boot.exit_status}"
    if boot.exit_status is None:
        ended = f"killed at the {TIMEOUT} s deadline"
    log(f"guest ran {boot.seconds:.1f} s under {boot.accel.upper()}, {ended}")
    console = [ln.strip() for ln in boot.console.splitlines()]
    for line in console:
        if line.startswith(("VMTEST STEP", "VMTEST FAIL", "VMTEST PASS", "|")):
            log(f"  {line}")
    try:
        verdict(console)
    except AssertionError:
        log("--- console (last 80 lines)")
        log("\n".join(boot.console.splitlines()[-80:]))
        raise


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--no-holder",
        action="store_true",
        help="negative control: no dm target in the guest, so the test must fail",
    )
    args = parser.parse_args()
    for sig in (signal.SIGTERM, signal.SIGHUP):  # meson's timeout: still stop QEMU
        signal.signal(sig, lambda signum, frame: sys.exit(128 + signum))
    try:
        test(args.no_holder)
    except Skip as e:
        log(f"SKIP: {e}")
        sys.exit(SKIP)
    except AssertionError as e:
        log(f"FAIL: {e}")
        sys.exit(1)
    log("PASS")


if __name__ == "__main__":
    main()
