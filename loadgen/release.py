#!/usr/bin/env python3
"""A release of loadgen (`make loadgen-dist`): the source tarball that `meson dist` makes of
the committed tree, and a Debian package built from that tarball, each with its SHA-256,
in OUT/<version>/ with a manifest.json that the site reads (results/loadgen.py) to serve
the release at /bench/loadgen/.

The version is the one declaration in loadgen/meson.build (`project(..., version : ...)`),
which `loadgen --version` prints and every result document carries as tool.version.

A release never changes once written: it is built in a temporary folder of OUT and renamed
to its version in one step, its files read-only; a version already released is refused
(raise the version in meson.build). Reproducible where it is cheap: the tarball is `git
archive` of the commit (file times the commit's), the package's files and members carry
the commit's time (SOURCE_DATE_EPOCH), its owner root.

usage: release.py [--out DIR] [--allow-dirty]
  --allow-dirty  build from a tree with uncommitted changes (they are not in the tarball,
                 which is the commit's; the manifest says "dirty": true). For tests.
"""

from __future__ import annotations

import argparse
import datetime
import gzip
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent  # loadgen/
ROOT = HERE.parent
PACKAGE = "bench-loadgen"
MAINTAINER = "The Bench authors <bench@example.org>"
DESCRIPTION = (
    "storage-drive load generator of Bench\n"
    " loadgen runs the standard SSD tests of Bench's methodology (the four corners,\n"
    " performance consistency, TRIM validation, write saturation, queue-depth sweeps)\n"
    " against a file or a block device, writes one result document (JSON) and uploads\n"
    " it to a Bench site."
)
MANIFEST = "manifest.json"
MANIFEST_VERSION = 1
# A release's version as meson.build declares it (the site reads it with the same rule).
VERSION = re.compile(r"[0-9]+\.[0-9]+\.[0-9]+")


class ReleaseError(Exception):
    """Why no release was made, said to whoever ran it."""


def run(*cmd: str | Path, cwd: Path | None = None, env: dict | None = None) -> str:
    """A command's output; meson and ninja first from this interpreter's environment (the
    project's .venv, which installs them), as `make` finds them."""
    path = f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', os.defpath)}"
    done = subprocess.run(
        [str(c) for c in cmd],
        cwd=cwd,
        env={**os.environ, "PATH": path, **(env or {})},
        capture_output=True,
        text=True,
    )
    if done.returncode != 0:
        raise ReleaseError(
            f"{' '.join(map(str, cmd))} failed ({done.returncode}):\n{done.stdout}{done.stderr}"
        )
    return done.stdout


def project_version(source: Path = HERE) -> str:
    info = json.loads(run("meson", "introspect", "--projectinfo", source / "meson.build"))
    version = info["version"]
    if not VERSION.fullmatch(version):
        raise ReleaseError(f"loadgen/meson.build's version {version!r} is not MAJOR.MINOR.PATCH")
    return version


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def source_tarball(work: Path, version: str, allow_dirty: bool) -> Path:
    """`meson dist` of the committed loadgen/ (git archive of HEAD), not tested again here:
    `make test` tests the tree; the package is built from this tarball, which proves it
    builds."""
    setup = work / "dist-setup"
    run("meson", "setup", setup, HERE, "--buildtype=release")
    run(
        "meson", "dist", "-C", setup, "--no-tests", "--formats", "xztar",
        *(["--allow-dirty"] if allow_dirty else []),
    )  # fmt: skip
    return setup / "meson-dist" / f"loadgen-{version}.tar.xz"


def architecture() -> str:
    return run("dpkg", "--print-architecture").strip()


def shlib_depends(binary: Path, work: Path) -> str:
    """The Depends of the libraries the binary links (dpkg-shlibdeps, which reads a
    debian/control: a minimal one here)."""
    control = work / "shlibdeps" / "debian"
    control.mkdir(parents=True)
    (control / "control").write_text(
        f"Source: {PACKAGE}\n\nPackage: {PACKAGE}\nArchitecture: any\n"
    )
    out = run("dpkg-shlibdeps", "-O", "-e", binary, cwd=control.parent)
    found = re.search(r"^shlibs:Depends=(.*)$", out, re.MULTILINE)
    if not found:
        raise ReleaseError(f"dpkg-shlibdeps named no dependency of {binary}: {out!r}")
    return found[1].strip()


def debian_package(tarball: Path, work: Path, version: str, epoch: int, out: Path) -> Path:
    """The binary and its man page under /usr, built from the source tarball with libcurl
    (the upload is what a reviewer needs it for), stripped; man page compressed, the
    licence in /usr/share/doc as Debian's policy asks."""
    with tarfile.open(tarball) as t:
        t.extractall(work / "src", filter="data")
    source = work / "src" / f"loadgen-{version}"
    build = work / "build"
    run(
        "meson", "setup", build, source, "--buildtype=release", "--prefix=/usr",
        "-Dcurl=enabled", "-Dio_uring=auto",
    )  # fmt: skip
    run("meson", "compile", "-C", build, "loadgen", "loadgen.1")
    root = work / "root"
    run("meson", "install", "-C", build, "--no-rebuild", "--strip", "--destdir", root)
    binary = root / "usr" / "bin" / "loadgen"
    man = root / "usr" / "share" / "man" / "man1" / "loadgen.1"
    if not binary.is_file() or not man.is_file():
        raise ReleaseError(f"meson install did not install {binary} and {man}")
    with (
        man.open("rb") as plain,
        gzip.GzipFile(man.with_suffix(".1.gz"), "wb", 9, mtime=epoch) as z,
    ):
        shutil.copyfileobj(plain, z)
    man.unlink()
    doc = root / "usr" / "share" / "doc" / PACKAGE
    doc.mkdir(parents=True)
    shutil.copyfile(ROOT / "LICENSE", doc / "copyright")

    arch = architecture()
    depends = shlib_depends(binary, work)
    installed_kib = sum(p.stat().st_size for p in root.rglob("*") if p.is_file()) // 1024 + 1
    control = root / "DEBIAN"
    control.mkdir()
    fields = {
        "Package": PACKAGE,
        "Version": version,
        "Architecture": arch,
        "Maintainer": MAINTAINER,
        "Installed-Size": str(installed_kib),
        "Depends": depends,
        "Section": "utils",
        "Priority": "optional",
        "Description": DESCRIPTION,
    }
    (control / "control").write_text("".join(f"{k}: {v}\n" for k, v in fields.items()))
    for path in [root, *root.rglob("*")]:
        path.chmod(0o755 if path.is_dir() or path == binary else 0o644)
        os.utime(path, (epoch, epoch), follow_symlinks=False)
    deb = out / f"{PACKAGE}_{version}_{arch}.deb"
    run(
        "dpkg-deb", "--root-owner-group", "-Zxz", "--build", root, deb,
        env={"SOURCE_DATE_EPOCH": str(epoch)},
    )  # fmt: skip
    return deb


def write_sha256(path: Path) -> str:
    """PATH.sha256 in sha256sum's format (`sha256sum -c` checks it); returns the digest."""
    digest = sha256_of(path)
    path.with_name(path.name + ".sha256").write_text(f"{digest}  {path.name}\n")
    return digest


def release(out: Path, *, allow_dirty: bool = False) -> Path:
    """Build the release of the version meson.build declares into out/<version>/."""
    version = project_version()
    final = out / version
    if final.exists():
        raise ReleaseError(
            f"release {version} is built already ({final}): a release never changes. Raise "
            "the version in loadgen/meson.build for a new one, or remove the folder."
        )
    commit = run("git", "rev-parse", "HEAD", cwd=ROOT).strip()
    epoch = int(run("git", "log", "-1", "--format=%ct", "HEAD", cwd=ROOT))
    dirty = bool(run("git", "status", "--porcelain", "--", "loadgen", cwd=ROOT).strip())
    out.mkdir(parents=True, exist_ok=True)
    staged = Path(tempfile.mkdtemp(prefix=".tmp-", dir=out))
    try:
        with tempfile.TemporaryDirectory(prefix="loadgen-release-") as scratch:
            work = Path(scratch)
            built = source_tarball(work, version, allow_dirty)
            tarball = staged / built.name
            shutil.copyfile(built, tarball)
            deb = debian_package(tarball, work, version, epoch, staged)
        files = []
        for path, kind, media_type in (
            (tarball, "source", "application/x-xz"),
            (deb, "deb", "application/vnd.debian.binary-package"),
        ):
            files.append(
                {
                    "name": path.name,
                    "kind": kind,
                    "media_type": media_type,
                    "bytes": path.stat().st_size,
                    "sha256": write_sha256(path),
                }
            )
        manifest = {
            "manifest_version": MANIFEST_VERSION,
            "name": "loadgen",
            "version": version,
            "commit": commit,
            "dirty": dirty,
            "source_date_epoch": epoch,
            "built_at": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
            "package": PACKAGE,
            "architecture": deb.stem.rsplit("_", 1)[1],
            "depends": run("dpkg-deb", "--field", deb, "Depends").strip(),
            "files": files,
        }
        (staged / MANIFEST).write_text(json.dumps(manifest, indent=2) + "\n")
        for path in staged.iterdir():
            path.chmod(0o444)
        staged.chmod(0o755)
        staged.rename(final)  # fails if another build named it meanwhile
    except BaseException:
        for path in staged.iterdir() if staged.exists() else ():
            path.chmod(0o644)
        shutil.rmtree(staged, ignore_errors=True)
        raise
    return final


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=ROOT / "var" / "loadgen-dist")
    parser.add_argument("--allow-dirty", action="store_true")
    args = parser.parse_args()
    try:
        folder = release(args.out.resolve(), allow_dirty=args.allow_dirty)
    except ReleaseError as exc:
        print(f"loadgen-dist: {exc}", file=sys.stderr)
        return 1
    for line in (folder / MANIFEST).read_text().splitlines():
        print(line)
    print(f"loadgen-dist: release in {folder}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
