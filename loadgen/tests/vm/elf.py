"""Two facts read from 64-bit little-endian ELF files, with the standard library only.

- `modinfo(path)`: the key=value fields of a kernel module's .modinfo section (what
  `modinfo` prints), e.g. its name and the modules it depends on. A Debian kernel
  package ships no modules.dep (depmod writes it at install time), so dependencies
  come from here.
- `is_static(path)`: whether an executable needs no dynamic loader (no PT_INTERP).
"""

from __future__ import annotations

import struct
from pathlib import Path

_HEADER = struct.Struct("<16sHHIQQQIHHHHHH")
_SECTION = struct.Struct("<IIQQQQIIQQ")
_SEGMENT = struct.Struct("<IIQQQQQQ")
_PT_INTERP = 3


class ElfError(Exception):
    pass


def _header(data: bytes, path: Path):
    if len(data) < _HEADER.size or data[:4] != b"\x7fELF":
        raise ElfError(f"{path} is not an ELF file")
    if data[4] != 2 or data[5] != 1:
        raise ElfError(f"{path} is not a 64-bit little-endian ELF file")
    return _HEADER.unpack_from(data)


def _sections(data: bytes, path: Path) -> dict[str, bytes]:
    h = _header(data, path)
    shoff, shentsize, shnum, shstrndx = h[6], h[11], h[12], h[13]
    headers = [_SECTION.unpack_from(data, shoff + i * shentsize) for i in range(shnum)]
    names = headers[shstrndx]
    strtab = data[names[4] : names[4] + names[5]]
    out = {}
    for sh in headers:
        name = strtab[sh[0] : strtab.index(b"\0", sh[0])].decode()
        out[name] = data[sh[4] : sh[4] + sh[5]]
    return out


def modinfo(path: Path, data: bytes | None = None) -> dict[str, list[str]]:
    """The .modinfo fields of a module (uncompressed bytes may be passed in data):
    each key maps to its values in order (a key such as alias may repeat)."""
    if data is None:
        data = Path(path).read_bytes()
    section = _sections(data, Path(path)).get(".modinfo")
    if section is None:
        raise ElfError(f"{path} has no .modinfo section: not a kernel module")
    fields: dict[str, list[str]] = {}
    for entry in section.split(b"\0"):
        key, sep, value = entry.decode(errors="replace").partition("=")
        if sep:
            fields.setdefault(key, []).append(value)
    return fields


def is_static(path: Path) -> bool:
    data = Path(path).read_bytes()
    h = _header(data, Path(path))
    phoff, phentsize, phnum = h[5], h[9], h[10]
    for i in range(phnum):
        if _SEGMENT.unpack_from(data, phoff + i * phentsize)[0] == _PT_INTERP:
            return False
    return True
