"""An initramfs: a gzip-compressed cpio archive in the "newc" format, which the kernel
unpacks into its first root filesystem before it runs /init.

newc, as the kernel reads it (Documentation/driver-api/early-userspace): each entry is
the magic 070701, thirteen 8-digit hex fields (inode, mode, uid, gid, nlink, mtime,
size, dev major, dev minor, rdev major, rdev minor, name size with its NUL, checksum
0), the name and a NUL, padding to 4 bytes, the data, padding to 4 bytes; a last entry
named TRAILER!!! ends the archive. Parent folders come before what they hold.

Executables come with the shared libraries and the dynamic loader that ldd lists
for them, at the same paths, so a sanitizer build runs as well as a plain one.
"""

from __future__ import annotations

import gzip
import os
import re
import stat
import subprocess
from pathlib import Path, PurePosixPath

import elf


class Initramfs:
    def __init__(self) -> None:
        self._entries: dict[str, tuple[int, bytes, int, int]] = {}  # path: mode, data, rdev

    def directory(self, path: str, mode: int = 0o755) -> None:
        parts = PurePosixPath(path).relative_to("/").parts
        for i in range(1, len(parts) + 1):
            sub = "/" + "/".join(parts[:i])
            self._entries.setdefault(sub, (stat.S_IFDIR | mode, b"", 0, 0))

    def file(self, path: str, data: bytes, mode: int = 0o644) -> None:
        self.directory(str(PurePosixPath(path).parent))
        self._entries[path] = (stat.S_IFREG | mode, data, 0, 0)

    def symlink(self, path: str, target: str) -> None:
        self.directory(str(PurePosixPath(path).parent))
        self._entries[path] = (stat.S_IFLNK | 0o777, target.encode(), 0, 0)

    def char_device(self, path: str, major: int, minor: int, mode: int = 0o600) -> None:
        self.directory(str(PurePosixPath(path).parent))
        self._entries[path] = (stat.S_IFCHR | mode, b"", major, minor)

    def copy(self, host: Path, path: str) -> None:
        """A host file at path, with its permission bits, following symlinks."""
        self.file(path, Path(host).read_bytes(), os.stat(host).st_mode & 0o7777)

    def executable(self, host: Path, path: str) -> None:
        """A host executable at path, with the shared libraries it needs."""
        self.copy(host, path)
        for lib in shared_libraries(Path(host)):
            if str(lib) not in self._entries:
                self.copy(lib, str(lib))

    def archive(self) -> bytes:
        out = bytearray()
        for ino, (name, (mode, data, major, minor)) in enumerate(sorted(self._entries.items())):
            _entry(out, ino + 1, name.lstrip("/"), mode, data, major, minor)
        _entry(out, 0, "TRAILER!!!", 0, b"", 0, 0)
        return gzip.compress(bytes(out), compresslevel=6, mtime=0)


def _pad4(out: bytearray) -> None:
    out += b"\0" * (-len(out) % 4)


def _entry(out: bytearray, ino: int, name: str, mode: int, data: bytes, major: int, minor: int):
    encoded = name.encode() + b"\0"
    fields = (ino, mode, 0, 0, 1, 0, len(data), 0, 0, major, minor, len(encoded), 0)
    out += b"070701" + b"".join(b"%08X" % f for f in fields) + encoded
    _pad4(out)
    out += data
    _pad4(out)


def shared_libraries(binary: Path) -> list[Path]:
    """The libraries and dynamic loader that ldd resolves for binary."""
    if elf.is_static(binary):
        return []
    p = subprocess.run(["ldd", str(binary)], capture_output=True, text=True, check=False)
    if p.returncode != 0:
        raise RuntimeError(f"ldd {binary} failed: {p.stderr.strip() or p.stdout.strip()}")
    libs = []
    for line in p.stdout.splitlines():
        if "not found" in line:
            raise RuntimeError(f"ldd {binary}: {line.strip()}")
        found = re.search(r"(?:=>\s*)?(/\S+)\s+\(0x", line)
        if found:
            libs.append(Path(found.group(1)))
    return libs
