"""Boot a kernel and initramfs in QEMU and collect what the guest prints on its serial
console, until the guest powers off or a deadline passes.

KVM is used when /dev/kvm can be opened and the guest actually starts under it
(a nested or paravirtualised host may offer /dev/kvm and still fail); otherwise QEMU
emulates the CPU (TCG), which is slower but runs anywhere. A KVM failure is
remembered in a memo file until the host reboots, so later runs go straight to TCG.
"""

from __future__ import annotations

import os
import re
import selectors
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

_TERMINAL_CONTROL = re.compile(r"\x1b(?:\[[0-9;?]*[A-Za-z]|[@-_c])")
KVM_START_TIMEOUT = 15  # s for the guest's first line under KVM before trying TCG


class NoQemu(Exception):
    pass


@dataclass
class Boot:
    console: str
    accel: str
    seconds: float
    exit_status: int | None  # None: killed at the deadline
    started: bool  # the guest printed start_marker


def qemu_binary() -> str:
    path = shutil.which("qemu-system-x86_64")
    if not path:
        raise NoQemu(
            "qemu-system-x86_64 is not installed (Debian: apt-get install qemu-system-x86)"
        )
    return path


def kvm_openable() -> bool:
    try:
        fd = os.open("/dev/kvm", os.O_RDWR | os.O_CLOEXEC)
    except OSError:
        return False
    os.close(fd)
    return True


def _host_boot_id() -> str:
    try:
        return Path("/proc/sys/kernel/random/boot_id").read_text().strip()
    except OSError:
        return ""


def _kvm_failed_before(memo: Path) -> bool:
    try:
        return memo.read_text().strip() == _host_boot_id() != ""
    except OSError:
        return False


def boot(
    kernel: Path,
    initrd: Path,
    cmdline: str,
    start_marker: str,
    timeout: float,
    kvm_memo: Path,
    memory: str = "512M",
    devices: tuple[str, ...] = (),
) -> Boot:
    """Boot under KVM if it works, else TCG. start_marker is a line the guest's init
    prints first: its absence under KVM means KVM does not work here, which kvm_memo
    then records. devices: more QEMU arguments (disks and their controllers)."""
    deadline = time.monotonic() + timeout
    if kvm_openable() and not _kvm_failed_before(kvm_memo):
        first = _run("kvm", kernel, initrd, cmdline, start_marker, deadline, memory, devices)
        if first.started:
            return first
        tail = " | ".join(first.console.strip().splitlines()[-2:])
        print(
            f"note: the guest did not start under KVM within {KVM_START_TIMEOUT} s ({tail});"
            f" using TCG, and so will later runs until the host reboots ({kvm_memo})",
            file=sys.stderr,
        )
        kvm_memo.parent.mkdir(parents=True, exist_ok=True)
        kvm_memo.write_text(_host_boot_id() + "\n")
    return _run("tcg", kernel, initrd, cmdline, start_marker, deadline, memory, devices)


def _run(accel, kernel, initrd, cmdline, start_marker, deadline, memory, devices) -> Boot:
    cmd = [
        qemu_binary(),
        "-accel",
        accel,
        "-cpu",
        "host" if accel == "kvm" else "max",
        "-m",
        memory,
        "-nographic",
        "-nic",
        "none",
        "-no-reboot",
        "-kernel",
        str(kernel),
        "-initrd",
        str(initrd),
        "-append",
        cmdline,
        *devices,
    ]
    t0 = time.monotonic()
    start_deadline = min(deadline, t0 + KVM_START_TIMEOUT) if accel == "kvm" else deadline
    proc = subprocess.Popen(
        cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT
    )
    console = bytearray()
    started = False
    ended = False  # QEMU closed its output: the guest powered off or QEMU failed
    try:
        with selectors.DefaultSelector() as sel:
            sel.register(proc.stdout, selectors.EVENT_READ)
            while not ended:
                left = (deadline if started else start_deadline) - time.monotonic()
                if left <= 0:
                    break
                if not sel.select(timeout=min(left, 1.0)):
                    continue
                chunk = os.read(proc.stdout.fileno(), 65536)
                console += chunk
                ended = not chunk
                started = started or start_marker.encode() in console
        status = proc.wait(timeout=10 if ended else 0)
    except subprocess.TimeoutExpired:
        status = None  # still running at the deadline
    finally:  # also on SIGTERM (raised as SystemExit by the caller's handler)
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        proc.stdout.close()
    text = console.decode(errors="replace").replace("\r\n", "\n").replace("\r", "\n")
    text = _TERMINAL_CONTROL.sub("", text)  # the firmware's screen clearing
    return Boot(
        console=text,
        accel=accel,
        seconds=time.monotonic() - t0,
        exit_status=status,
        started=started,
    )
