"""The guest's kernel: Debian's current amd64 kernel package, with the modules that the
VM tests need and those they depend on: loop and dm-mod (which holds dm-linear) for the
holders scenario; nvme, ahci and sd_mod for the emulated NVMe and SATA disks of the
identification scenario, zram (and its default compressor, which it asks for by name
rather than depending on it) for a disk the kernel makes up.

Only vmlinuz and these modules are kept in the cache, decompressed and named NAME.ko,
with load-order listing them dependencies first, and release holding the kernel's
`uname -r`.
"""

from __future__ import annotations

import gzip
import hashlib
import lzma
import shutil
from dataclasses import dataclass
from pathlib import Path

import debian_packages
import elf

WANTED = ("loop", "dm-mod", "nvme", "ahci", "sd_mod", "lzo-rle", "zram")


@dataclass
class Kernel:
    entry: Path  # the cache folder
    release: str
    vmlinuz: Path
    modules: list[Path]  # in load order


def debian_kernel(wanted: tuple[str, ...] = WANTED) -> Kernel:
    """The kernel with the modules wanted (and theirs), fetched and cached once per set:
    loadgen/bench/stall_vm.py asks for device-mapper's delay target too."""
    # One cache kind per set of modules: an entry made for fewer is not reused.
    kind = "kernel-" + hashlib.sha256(" ".join(wanted).encode()).hexdigest()[:8]
    entry = debian_packages.latest(
        kind, debian_packages.kernel_package, lambda u, e: _select(u, e, wanted)
    )
    names = (entry / "load-order").read_text().split()
    return Kernel(
        entry=entry,
        release=(entry / "release").read_text().strip(),
        vmlinuz=entry / "vmlinuz",
        modules=[entry / "modules" / f"{n}.ko" for n in names],
    )


def _norm(name: str) -> str:
    return name.replace("-", "_")


def _module_name(path: Path) -> str:
    return _norm(path.name.split(".ko")[0])


def _read_module(path: Path) -> bytes:
    if path.name.endswith(".ko"):
        return path.read_bytes()
    if path.name.endswith(".ko.xz"):
        return lzma.decompress(path.read_bytes())
    if path.name.endswith(".ko.gz"):
        return gzip.decompress(path.read_bytes())
    raise RuntimeError(f"{path.name}: a compression this test cannot undo")


def _one(paths: list[Path], what: str) -> Path:
    if len(paths) != 1:
        raise RuntimeError(f"expected one {what} in the kernel package, found {paths}")
    return paths[0]


def _select(unpacked: Path, entry: Path, wanted: tuple[str, ...]) -> None:
    vmlinuz = _one(list(unpacked.glob("boot/vmlinuz-*")), "boot/vmlinuz-*")
    shutil.copyfile(vmlinuz, entry / "vmlinuz")
    moddirs = [*unpacked.glob("lib/modules/*"), *unpacked.glob("usr/lib/modules/*")]
    moddir = _one(moddirs, "lib/modules/RELEASE")
    (entry / "release").write_text(moddir.name + "\n")

    builtin_list = moddir / "modules.builtin"
    builtin = set()
    if builtin_list.exists():
        builtin = {_module_name(Path(ln)) for ln in builtin_list.read_text().split()}
    available = {_module_name(p): p for p in moddir.glob("kernel/**/*.ko*")}

    order: list[str] = []

    def add(name: str, wanted_by: list[str]) -> None:
        name = _norm(name)
        if name in order or name in builtin:
            return
        if name in wanted_by:
            raise RuntimeError(f"modules depend on each other in a cycle: {wanted_by + [name]}")
        if name not in available:
            chain = " <- ".join([name, *reversed(wanted_by)])
            raise RuntimeError(f"module {chain} is neither built in nor in the package")
        data = _read_module(available[name])
        for dep in elf.modinfo(available[name], data).get("depends", [""])[0].split(","):
            if dep:
                add(dep, [*wanted_by, name])
        (entry / "modules").mkdir(exist_ok=True)
        (entry / "modules" / f"{name}.ko").write_bytes(data)
        order.append(name)

    for name in wanted:
        add(name, [])
    (entry / "load-order").write_text("".join(f"{n}\n" for n in order))
