#!/usr/bin/env python3
"""A stalled device in a paced run's tail (issue 46, "Done means"): part 3 of `make
bench-qos`.

Boots Debian's kernel in QEMU (loadgen/tests/vm: KVM when it works, else TCG) with loop,
dm-mod and dm-delay, and stall_guest.sh as /init: a device-mapper `delay` target over a
loop device, read by loadgen at QD4 for 6 s in three runs: paced at BENCH_STALL_RATE IOPS
(default 200, well below what the guest's device does under TCG, so that the backlog is
worked off once the stall ends) with every I/O delayed BENCH_STALL_MS ms (default 300)
from 2 s on for a second (the delay is set by a table reload, whose suspend waits for the
delayed I/Os: the window is longer, and is printed); unpaced (closed loop) with the same
stall; paced without it. Prints, for each, the I/Os, the latency percentiles from the due
time (latency_ns) and from the issue (clat_ns), and the I/Os at 100 ms or more (read from
the document's histogram with results/histograms.py), and whether the stall shows in the
paced run's tail: its p99 at least half the stall and five times the baseline's.

Exits 0 (figures printed), 1 (the guest failed), 77 (no QEMU, no kernel package to be
had: skipped, said on stderr).
"""

from __future__ import annotations

import base64
import json
import os
import shutil
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
sys.path.insert(0, str(REPO / "loadgen/tests/vm"))
sys.path.insert(0, str(REPO))
import busybox  # noqa: E402
import debian_packages  # noqa: E402
import kernel  # noqa: E402
import qemu  # noqa: E402
from initramfs import Initramfs  # noqa: E402

from results import histograms  # noqa: E402

SKIP = 77
TIMEOUT = 600  # s for the whole guest: three 6 s runs, about ten times slower under TCG
MODULES = ("loop", "dm-mod", "dm-delay")
SLOW_NS = 100_000_000  # an I/O this long is one the stall held


def log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def initramfs(kern: kernel.Kernel, loadgen: Path, rate: int, stall_ms: int) -> bytes:
    dmsetup = shutil.which("dmsetup", path=os.pathsep.join([os.environ["PATH"], "/usr/sbin"]))
    if not dmsetup:
        raise debian_packages.Unavailable("dmsetup is not installed (apt-get install dmsetup)")
    fs = Initramfs()
    for d in ("/proc", "/sys", "/dev", "/tmp", "/run", "/bin", "/sbin", "/usr/bin", "/usr/sbin"):
        fs.directory(d)
    fs.char_device("/dev/console", 5, 1)
    fs.copy(busybox.static_busybox(), "/bin/busybox")
    fs.executable(Path(dmsetup), "/usr/sbin/dmsetup")
    fs.executable(loadgen, "/usr/local/bin/loadgen")
    for module in kern.modules:
        fs.copy(module, f"/lib/modules/{module.name}")
    fs.file("/lib/modules/load-order", "".join(f"{m.stem}\n" for m in kern.modules).encode())
    fs.file("/etc/stall.env", f"RATE={rate}\nSTALL_MS={stall_ms}\n".encode())
    fs.copy(HERE / "stall_guest.sh", "/init")
    return fs.archive()


def documents(console: list[str]) -> dict[str, dict]:
    docs, name, chunks = {}, None, []
    for line in console:
        if line.startswith("STALL DOC BEGIN "):
            name, chunks = line.removeprefix("STALL DOC BEGIN "), []
        elif line == "STALL DOC END" and name:
            docs[name] = json.loads(base64.b64decode("".join(chunks)))
            name = None
        elif name:
            chunks.append(line)
    return docs


def figures(doc: dict) -> dict:
    (r,) = doc["results"]
    lat, clat = r["latency_ns"], r["clat_ns"]
    h = histograms.decode(lat["histogram"], lat)
    slow = sum(c for i, c in h.counts.items() if histograms.bucket_range(i)[0] >= SLOW_NS)
    return {
        "ios": r["io_count"],
        "iops": r["iops"],
        "rate_iops": r.get("rate_iops"),
        "lat": {p: lat["percentiles"][p] for p in ("50", "90", "99", "99.9")} | {"max": lat["max"]},
        "clat": {p: clat["percentiles"][p] for p in ("50", "90", "99", "99.9")}
        | {"max": clat["max"]},
        "slow": slow,
    }


def main() -> int:
    loadgen = Path(os.environ.get("LOADGEN", ""))
    if not os.access(loadgen, os.X_OK):
        log(f"$LOADGEN does not name an executable: {str(loadgen)!r}")
        return 1
    rate = int(os.environ.get("BENCH_STALL_RATE") or 200)
    stall_ms = int(os.environ.get("BENCH_STALL_MS") or 300)
    try:
        qemu.qemu_binary()
        kern = kernel.debian_kernel(MODULES)
        image = initramfs(kern, loadgen, rate, stall_ms)
    except (qemu.NoQemu, debian_packages.Unavailable) as e:
        log(f"SKIP: {e}")
        return SKIP
    with tempfile.TemporaryDirectory(prefix="loadgen-stall-") as tmp:
        initrd = Path(tmp) / "initramfs.cpio.gz"
        initrd.write_bytes(image)
        memo = debian_packages.cache_root() / "kvm-failed-since-boot"
        boot = qemu.boot(kern.vmlinuz, initrd, "console=ttyS0 panic=-1 quiet", "STALL START",
                         TIMEOUT, memo)  # fmt: skip
    console = [ln.strip() for ln in boot.console.splitlines()]
    log(f"guest ran {boot.seconds:.0f} s under {boot.accel.upper()} (kernel {kern.release})")
    for line in console:
        if line.startswith(("STALL STEP", "STALL FAIL")):
            log(f"  {line}")
    docs = documents(console)
    if "STALL DONE" not in console or len(docs) != 3:
        log("\n".join(boot.console.splitlines()[-40:]))
        log("the guest did not finish its three runs")
        return 1
    rows = {name: figures(doc) for name, doc in docs.items()}
    steps = [ln.removeprefix("STALL STEP ") for ln in console if ln.startswith("STALL STEP")]
    print(
        f"Stall: a dm-delay target over a loop device (Debian {kern.release} under "
        f"{boot.accel.upper()}), 4KB random reads at QD4 for 6 s, every I/O delayed "
        f"{stall_ms} ms from 2 s to 3 s; paced at {rate} IOPS or unpaced. Latency in ms; "
        f"'slow': I/Os of 100 ms or more (from the histogram)."
    )
    print("the delay as the guest set it (uptime): " + "; ".join(steps))
    print(f"{'run':<16} {'I/Os':>6} {'IOPS':>7} {'':>5} {'p50':>7} {'p90':>7} {'p99':>7} "
          f"{'p99.9':>7} {'max':>7} {'slow':>6}")  # fmt: skip
    for name, f in rows.items():
        for kind, label in (("lat", "due" if f["rate_iops"] else "issue"), ("clat", "clat")):
            v = f[kind]
            first = kind == "lat"
            iops = f"{f['iops']:.0f}" if first else ""
            print(
                f"{name if first else '':<16} {f['ios'] if first else '':>6} {iops:>7} {label:>5} "
                + " ".join(f"{v[p] / 1e6:>7.2f}" for p in ("50", "90", "99", "99.9", "max"))
                + (f" {f['slow']:>6}" if first else "")
            )
    paced, base, closed = rows["paced-stall"], rows["paced-baseline"], rows["unpaced-stall"]
    # The stall shows: the paced run's p99 is at least half the stall, and five times the
    # p99 of the same run without it (under TCG the guest's own p99 is tens of ms).
    shows = paced["lat"]["99"] >= max(stall_ms * 1e6 / 2, 5 * base["lat"]["99"])
    print(
        f"verdict: the stall {'shows' if shows else 'does NOT show'} in the paced run's tail "
        f"(p99 {paced['lat']['99'] / 1e6:.0f} ms against {base['lat']['99'] / 1e6:.2f} ms "
        f"without it; {paced['slow']} of {paced['ios']} I/Os at 100 ms or more); the unpaced "
        f"run counts {closed['slow']} of {closed['ios']} (p99 {closed['lat']['99'] / 1e6:.2f} "
        f"ms): measured from the issue, a stall is a handful of slow I/Os"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
