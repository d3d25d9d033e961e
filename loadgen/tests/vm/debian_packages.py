"""Debian packages unpacked into a cache folder, one entry per package version.

apt-get downloads each package, so apt verifies it against the signed archive index,
and dpkg-deb unpacks it into a scratch folder. A `select` function picks the few
files the VM needs out of the unpacked tree; only those are kept, in
CACHE/KIND/PACKAGE_VERSION/, which is renamed into place whole, so a run that stops
halfway never leaves a partial entry and two runs at once do not mix files. Other
versions of the same kind are removed once a new one is in place.

The cache is $LOADGEN_VM_CACHE, else ${XDG_CACHE_HOME:-~/.cache}/bench-loadgen-vm:
outside the source tree.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path


class Unavailable(Exception):
    """The package cannot be had on this machine (no apt, no index, no network)."""


def cache_root() -> Path:
    if os.environ.get("LOADGEN_VM_CACHE"):
        return Path(os.environ["LOADGEN_VM_CACHE"])
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "bench-loadgen-vm"


def _apt(*args: str, cwd: Path | None = None) -> str:
    tool = shutil.which(args[0])
    if not tool:
        raise Unavailable(f"{args[0]} is not installed (a Debian machine is needed)")
    p = subprocess.run(
        [tool, *args[1:]], cwd=cwd, capture_output=True, text=True, timeout=300, check=False
    )
    if p.returncode != 0:
        lines = [ln for ln in p.stderr.splitlines() if ln.startswith("E:")] or p.stderr.splitlines()
        raise Unavailable(f"{' '.join(args)} failed: {' '.join(lines[-2:]) or p.returncode}")
    return p.stdout


def kernel_package(meta: str = "linux-image-amd64") -> str:
    """The versioned kernel package that apt's current index makes meta point to."""
    out = _apt("apt-cache", "depends", meta)
    found = re.search(r"^\s*Depends:\s*(linux-image-\S+)$", out, re.MULTILINE)
    if not found:
        raise Unavailable(f"apt knows no package {meta} depends on (run apt-get update)")
    return found.group(1)


def candidate_version(package: str) -> str:
    out = _apt("apt-cache", "show", "--no-all-versions", package)
    found = re.search(r"^Version:\s*(\S+)$", out, re.MULTILINE)
    if not found:
        raise Unavailable(f"apt has no version of {package} to install (run apt-get update)")
    return found.group(1)


def cached(kind: str) -> list[Path]:
    """The complete entries of one kind, newest first."""
    folder = cache_root() / kind
    if not folder.is_dir():
        return []
    entries = [p for p in folder.iterdir() if p.is_dir() and not p.name.startswith(".")]
    return sorted(entries, key=lambda p: p.stat().st_mtime, reverse=True)


def latest(kind: str, package: str | Callable[[], str], select: Callable[[Path, Path], None]):
    """The cache entry of the version of package (a name, or a function that finds
    it) that apt would install now, fetched if need be. When apt cannot tell or
    cannot download it (no index, no network), the newest entry already cached."""
    try:
        name = package() if callable(package) else package
        return fetch(kind, name, candidate_version(name), select)
    except Unavailable as e:
        entries = cached(kind)
        if not entries:
            raise
        print(f"note: {e}; using the cached {entries[0].name}", file=sys.stderr)
        return entries[0]


def fetch(kind: str, package: str, version: str, select: Callable[[Path, Path], None]) -> Path:
    """The cache entry of package=version, made on first use: select(unpacked, entry)
    copies what is needed from the unpacked package into the new entry folder."""
    folder = cache_root() / kind
    entry = folder / f"{package}_{version.replace(':', '%3a')}"
    if entry.is_dir():
        return entry
    folder.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix=".partial-", dir=folder) as scratch:
        scratch = Path(scratch)
        download = ["apt-get", "download", "-q"]
        if os.geteuid() == 0:
            # The _apt user cannot write into root's cache; apt would fall back to
            # root anyway, with a warning.
            download += ["-o", "APT::Sandbox::User=root"]
        _apt(*download, f"{package}={version}", cwd=scratch)
        debs = list(scratch.glob("*.deb"))
        if len(debs) != 1:
            raise Unavailable(f"apt-get download {package}={version} left {debs}")
        unpacked = scratch / "unpacked"
        p = subprocess.run(
            ["dpkg-deb", "-x", str(debs[0]), str(unpacked)],
            capture_output=True,
            text=True,
            check=False,
        )
        if p.returncode != 0:
            raise RuntimeError(f"dpkg-deb -x {debs[0].name} failed: {p.stderr.strip()}")
        staged = scratch / "entry"
        staged.mkdir()
        select(unpacked, staged)
        try:
            staged.rename(entry)
        except OSError:
            if not entry.is_dir():  # not another run's entry that won the race
                raise
    for old in cached(kind):
        if old != entry:
            shutil.rmtree(old, ignore_errors=True)
    return entry
