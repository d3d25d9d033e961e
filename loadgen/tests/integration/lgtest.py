"""Shared pieces of loadgen's integration tests.

Each test is a small script run by `meson test --suite integration`. It finds the
binary in $LOADGEN, the result-document schema in $LOADGEN_SCHEMA and the catalog in
$LOADGEN_CATALOG (meson sets all three), exits 0 on success, 1 on failure and 77 when
the machine cannot run it (not root, no loop devices, a missing tool).

Everything a test sets up (loop devices, partitions, mounts, swap, device-mapper
targets, temporary files) is registered in a Scene and torn down in reverse order on
any exit, including SIGTERM from meson's timeout. Loop devices are attached with
autoclear, so even a SIGKILL releases them once the test's file descriptors close.
"""

from __future__ import annotations

import contextlib
import ctypes
import fcntl
import hashlib
import json
import os
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SKIP = 77
REPO = Path(__file__).resolve().parents[3]

# ioctl numbers from <linux/loop.h> and <linux/blkpg.h>
LOOP_CLR_FD = 0x4C01
LOOP_CONFIGURE = 0x4C0A
LOOP_CTL_GET_FREE = 0x4C82
LO_FLAGS_AUTOCLEAR = 4
LO_FLAGS_PARTSCAN = 8
BLKPG = 0x1269
BLKPG_ADD_PARTITION = 1


class Skip(Exception):
    """The machine cannot run this test."""


def log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def main(test) -> None:
    """Run test(scene, argv) and turn its outcome into an exit status."""
    status = 1
    try:
        with Scene() as scene:
            test(scene, sys.argv[1:])
        status = 0
        log("PASS")
    except Skip as e:
        log(f"SKIP: {e}")
        status = SKIP
    except AssertionError as e:
        log(f"FAIL: {e}")
    sys.exit(status)


def scenarios(table: dict, script: str):
    """A test for main() that plays the scenario its one argument names in table."""

    def test(scene, argv):
        check(len(argv) == 1 and argv[0] in table, f"usage: {script} {'|'.join(table)}")
        table[argv[0]](scene)

    return test


def check(cond: bool, msg: str) -> None:
    if not cond:
        raise AssertionError(msg)


# ---- the binary, the schema, the catalog -------------------------------------------


def loadgen() -> str:
    path = os.environ.get("LOADGEN")
    check(
        bool(path) and os.access(path, os.X_OK), f"$LOADGEN does not name an executable: {path!r}"
    )
    return path


def catalog() -> dict:
    """catalog.json with loadgen's own tests only: a test of another tool's method
    (produced_by, e.g. AS-SSD) is there for published figures, not for loadgen to run."""
    path = os.environ.get("LOADGEN_CATALOG") or REPO / "results/schema/catalog.json"
    with open(path) as f:
        data = json.load(f)
    data["tests"] = [t for t in data["tests"] if t["produced_by"] == "loadgen"]
    return data


def schema_validator():
    try:
        import jsonschema
    except ImportError as e:  # a broken environment, not a reason to skip
        raise AssertionError("the jsonschema module is needed (run through `make test`)") from e
    path = os.environ.get("LOADGEN_SCHEMA") or REPO / "results/schema/result-document.schema.json"
    with open(path) as f:
        schema = json.load(f)
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    return cls(schema, format_checker=cls.FORMAT_CHECKER)


def load_document(path: str | Path) -> dict:
    """Read a result document, check it against the schema and the invariants the
    schema cannot say, and return it."""
    check(os.path.exists(path), f"no result document at {path}")
    with open(path) as f:
        text = f.read()
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as e:
        raise AssertionError(f"{path} is not JSON: {e}") from e
    errors = sorted(schema_validator().iter_errors(doc), key=lambda e: list(e.path))
    check(
        not errors,
        f"{path} does not validate:\n"
        + "\n".join(f"  at /{'/'.join(map(str, e.path))}: {e.message}" for e in errors[:10]),
    )
    for r in doc.get("results", []):
        lat = r.get("latency_ns")
        if not lat:
            continue
        pct = sorted((float(k), v) for k, v in lat.get("percentiles", {}).items())
        values = [v for _, v in pct]
        check(values == sorted(values), f"{r['test']}: percentiles decrease: {pct}")
        if "min" in lat and "max" in lat and values:
            check(
                lat["min"] <= values[0] and values[-1] <= lat["max"],
                f"{r['test']}: percentiles outside [min, max]: {lat}",
            )
    # A temporary file of the atomic write must not be left next to the document.
    leftovers = [
        p.name
        for p in Path(path).parent.iterdir()
        if p.name != Path(path).name and p.name.startswith(Path(path).name)
    ]
    check(not leftovers, f"temporary files left beside the document: {leftovers}")
    return doc


def run(
    args: list[str], timeout: float = 120, expect: int | None = None
) -> subprocess.CompletedProcess:
    """Run loadgen with args; check the exit status when expect is given."""
    cmd = [loadgen(), *args]
    log("$ " + " ".join(cmd))
    t0 = time.monotonic()
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    log(f"  exit {p.returncode} after {time.monotonic() - t0:.1f} s")
    if expect is not None and p.returncode != expect:
        raise AssertionError(
            f"exit status {p.returncode}, expected {expect}\n"
            f"--- stdout\n{p.stdout[-3000:]}\n--- stderr\n{p.stderr[-3000:]}"
        )
    return p


# ---- the machine -----------------------------------------------------------------


def require_root() -> None:
    if os.geteuid() != 0:
        raise Skip("needs root")


def require_tool(name: str) -> str:
    search = os.pathsep.join([os.environ.get("PATH", ""), "/usr/local/sbin", "/usr/sbin", "/sbin"])
    path = shutil.which(name, path=search)
    if not path:
        raise Skip(f"{name} is not installed")
    return path


def sh(*cmd: str, check_status: bool = True) -> subprocess.CompletedProcess:
    p = subprocess.run(list(cmd), capture_output=True, text=True, timeout=60)
    if check_status and p.returncode != 0:
        raise AssertionError(f"{' '.join(cmd)} failed ({p.returncode}): {p.stderr.strip()}")
    return p


def file_sha256(path: str | Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        while chunk := f.read(1 << 20):
            h.update(chunk)
    return h.hexdigest()


def allocated_bytes(path: str | Path) -> int:
    return os.stat(path).st_blocks * 512


def _read_words(path: Path) -> list[str]:
    try:
        return path.read_text().split()
    except OSError:
        return []


def _once(fn, *args):
    """fn(*args) as an idempotent undo: called by the test early, and again (to no
    effect) by the Scene's teardown."""
    done = False

    def undo():
        nonlocal done
        if not done:
            done = True
            fn(*args)

    return undo


def _raise_exit(signum, frame):
    raise SystemExit(128 + signum)


class Scene(contextlib.ExitStack):
    """A temporary directory on the local disk and everything set up in it."""

    def __enter__(self):
        super().__enter__()
        for sig in (signal.SIGTERM, signal.SIGHUP):
            signal.signal(sig, _raise_exit)
        base = os.environ.get("LOADGEN_TEST_DIR") or (
            "/var/tmp" if os.access("/var/tmp", os.W_OK) else None
        )
        self.dir = Path(tempfile.mkdtemp(prefix="loadgen-it-", dir=base))
        self.callback(shutil.rmtree, self.dir, ignore_errors=True)
        return self

    def path(self, name: str) -> Path:
        return self.dir / name

    def backing_file(self, name: str, size: int, random_content: bool = False) -> Path:
        path = self.path(name)
        with open(path, "wb") as f:
            if random_content:
                left = size
                while left:
                    n = min(left, 4 << 20)
                    f.write(os.urandom(n))
                    left -= n
            else:
                f.truncate(size)
        return path

    def loop(self, backing: Path, partscan: bool = False, block_size: int = 0) -> str:
        """Attach backing to a free loop device (with a logical block size of
        block_size bytes when given, as `losetup --sector-size`); return its path."""
        require_root()
        if not os.path.exists("/dev/loop-control"):
            raise Skip("no loop devices (/dev/loop-control is missing)")
        bfd = os.open(backing, os.O_RDWR | os.O_CLOEXEC)
        try:
            ctl = os.open("/dev/loop-control", os.O_RDWR | os.O_CLOEXEC)
        except OSError as e:
            os.close(bfd)
            raise Skip(f"loop devices unavailable: {e}") from e
        try:
            for _ in range(20):
                n = fcntl.ioctl(ctl, LOOP_CTL_GET_FREE)
                dev = f"/dev/loop{n}"
                fd = os.open(dev, os.O_RDWR | os.O_CLOEXEC)
                flags = LO_FLAGS_AUTOCLEAR | (LO_FLAGS_PARTSCAN if partscan else 0)
                name = str(backing).encode()[:63]
                info = struct.pack(
                    "<QQQQQIIII64s64s32s2Q", 0, 0, 0, 0, 0, 0, 0, 0, flags, name, b"", b"", 0, 0
                )
                config = struct.pack("<II", bfd, block_size) + info + bytes(64)
                try:
                    fcntl.ioctl(fd, LOOP_CONFIGURE, config)
                except OSError as e:
                    os.close(fd)
                    if e.errno == 16:  # EBUSY: another process took it first
                        continue
                    raise Skip(f"cannot configure {dev}: {e}") from e
                self.callback(self._detach, fd)
                self._wait_sysfs(f"/sys/class/block/loop{n}/loop/backing_file")
                if block_size:
                    lbs = Path(f"/sys/class/block/loop{n}/queue/logical_block_size")
                    got = int(lbs.read_text())
                    if got != block_size:
                        raise Skip(f"{dev} has {got}-byte logical blocks, not {block_size}")
                return dev
            raise AssertionError("no free loop device after 20 attempts")
        finally:
            os.close(ctl)
            os.close(bfd)

    @staticmethod
    def _detach(fd: int) -> None:
        with contextlib.suppress(OSError):
            fcntl.ioctl(fd, LOOP_CLR_FD)
        os.close(fd)

    @staticmethod
    def _wait_sysfs(path: str, timeout: float = 5) -> bool:
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if os.path.exists(path):
                return True
            time.sleep(0.01)
        return False

    def partitioned_loop(self, backing: Path, start_sector: int = 2048) -> tuple[str, str]:
        """A loop device with an MBR and one partition from start_sector to the end;
        returns (disk, partition). Where the kernel cannot read MBRs, the partition is
        declared with BLKPG, as partx does."""
        size = os.path.getsize(backing)
        count = size // 512 - start_sector
        mbr = bytearray(512)
        mbr[446 + 4] = 0x83
        struct.pack_into("<II", mbr, 446 + 8, start_sector, count)
        mbr[510:512] = b"\x55\xaa"
        with open(backing, "r+b") as f:
            f.write(mbr)
        disk = self.loop(backing, partscan=True)
        part = disk + "p1"
        if not self._wait_sysfs(f"/sys/class/block/{os.path.basename(part)}", 0.5):
            pdata = ctypes.create_string_buffer(
                struct.pack("<qqi64s64s", start_sector * 512, count * 512, 1, b"", b""), 152
            )
            arg = struct.pack("@iiiP", BLKPG_ADD_PARTITION, 0, 152, ctypes.addressof(pdata))
            fd = os.open(disk, os.O_RDONLY | os.O_CLOEXEC)
            try:
                fcntl.ioctl(fd, BLKPG, arg)
            except OSError as e:
                raise Skip(f"cannot add a partition to {disk}: {e}") from e
            finally:
                os.close(fd)
        if not self._wait_sysfs(
            f"/sys/class/block/{os.path.basename(part)}"
        ) or not self._wait_sysfs(part):
            raise Skip(f"{part} did not appear")
        return disk, part

    def mkfs_ext4(self, dev: str) -> None:
        mkfs = require_tool("mkfs.ext4")
        # No lazy initialisation: a mounted filesystem then writes nothing by itself.
        sh(mkfs, "-q", "-F", "-E", "lazy_itable_init=0,lazy_journal_init=0", dev)

    def mount(
        self, dev: str, name: str, readonly: bool = True, fstype: str = "ext4", options: str = ""
    ):
        """Mount dev on a new directory; return (mount point, undo)."""
        mnt = self.path(name)
        mnt.mkdir()
        opts = ",".join(o for o in ("ro" if readonly else "rw", options) if o)
        sh(require_tool("mount"), "-t", fstype, "-o", opts, dev, str(mnt))
        undo = _once(self._umount, mnt)
        self.callback(undo)
        return mnt, undo

    @staticmethod
    def _umount(mnt: Path) -> None:
        for _ in range(50):
            if not os.path.ismount(mnt):
                return
            if subprocess.run(["umount", str(mnt)], capture_output=True).returncode == 0:
                return
            time.sleep(0.1)
        subprocess.run(["umount", "-l", str(mnt)], capture_output=True)

    def swap(self, dev: str):
        """Make dev active swap, which the kernel is told not to swap to (swappiness 0: on a
        busy machine it would, changing the device under a test that checks a refused run
        left it alone); return undo."""
        sh(require_tool("mkswap"), dev)
        knob = Path("/proc/sys/vm/swappiness")
        swappiness = knob.read_text().strip()
        knob.write_text("0")
        p = sh(require_tool("swapon"), dev, check_status=False)
        if p.returncode != 0:
            knob.write_text(swappiness)
            raise Skip(f"swapon {dev}: {p.stderr.strip()}")

        def undo() -> None:
            sh(require_tool("swapoff"), dev)
            knob.write_text(swappiness)

        undo = _once(undo)
        self.callback(undo)
        return undo

    def dm_linear(self, dev: str, sectors: int):
        """A device-mapper linear target over dev; return (name, undo)."""
        dmsetup = require_tool("dmsetup")
        name = f"loadgen-it-{os.getpid()}"
        p = sh(
            dmsetup, "create", name, "--table", f"0 {sectors} linear {dev} 0", check_status=False
        )
        if p.returncode != 0:
            why = p.stderr.strip().splitlines()[0] if p.stderr.strip() else f"exit {p.returncode}"
            raise Skip(f"device-mapper unavailable: {why}")
        undo = _once(self._dm_remove, dmsetup, name)
        self.callback(undo)
        return name, undo

    @staticmethod
    def _dm_remove(dmsetup: str, name: str) -> None:
        for _ in range(20):
            if subprocess.run([dmsetup, "remove", name], capture_output=True).returncode == 0:
                return
            time.sleep(0.1)

    def hold_exclusive(self, dev: str):
        """Claim dev exclusively, as a filesystem or another tool would; return undo."""
        fd = os.open(dev, os.O_RDONLY | os.O_EXCL | os.O_CLOEXEC)
        undo = _once(os.close, fd)
        self.callback(undo)
        return undo

    def write_throttle(self, dev: str, bytes_per_second: int):
        """A cgroup whose writes to dev are throttled to bytes_per_second (cgroup v1
        blkio or v2 io.max); return a preexec_fn that moves a child process into it."""
        require_root()
        rdev = os.stat(dev).st_rdev
        device = f"{os.major(rdev)}:{os.minor(rdev)}"
        name = f"loadgen-it-{os.getpid()}"
        v1 = Path("/sys/fs/cgroup/blkio")
        v2 = Path("/sys/fs/cgroup")
        if (v1 / "blkio.throttle.write_bps_device").exists():
            cgroup, knob, value = v1 / name, "blkio.throttle.write_bps_device", ""
        elif "io" in _read_words(v2 / "cgroup.subtree_control"):
            cgroup, knob, value = v2 / name, "io.max", "wbps="
        else:
            raise Skip("no block I/O throttling (cgroup blkio or io controller)")
        try:
            cgroup.mkdir()
        except OSError as e:
            raise Skip(f"cannot create the cgroup {cgroup}: {e}") from e
        self.callback(self._remove_cgroup, cgroup)
        (cgroup / knob).write_text(f"{device} {value}{bytes_per_second}\n")
        procs = cgroup / "cgroup.procs"

        def enter() -> None:  # runs in the child between fork and exec
            procs.write_text(f"{os.getpid()}\n")

        return enter

    @staticmethod
    def _remove_cgroup(cgroup: Path) -> None:
        for _ in range(50):  # empty only once its processes have been reaped
            try:
                cgroup.rmdir()
                return
            except OSError:
                time.sleep(0.1)

    def tmpfs(self, name: str, size: str) -> Path:
        require_root()
        mnt, _ = self.mount("tmpfs", name, readonly=False, fstype="tmpfs", options=f"size={size}")
        return mnt
