"""The guest's shell and tools: a statically linked busybox, Debian's busybox-static.

The host's /bin/busybox when it is that one (static), else the package's binary,
downloaded into the cache by apt-get, so that the host needs no install.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import debian_packages
import elf


def static_busybox() -> Path:
    for host in (Path("/bin/busybox"), Path("/usr/bin/busybox")):
        if host.is_file() and elf.is_static(host):
            return host
    entry = debian_packages.latest("busybox", "busybox-static", _select)
    return entry / "busybox"


def _select(unpacked: Path, entry: Path) -> None:
    binary = unpacked / "bin/busybox"
    if not binary.is_file() or not elf.is_static(binary):
        raise RuntimeError("busybox-static holds no static bin/busybox")
    shutil.copy2(binary, entry / "busybox")
