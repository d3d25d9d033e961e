"""loadgen as the site knows it (issue 47): the release it expects, the releases built for
reviewers (`make loadgen-dist`, loadgen/release.py), and what an upload is told when the
loadgen that measured it is older than the catalog's suite versions need.

- The release the site expects is loadgen/meson.build's version, the one declaration that
  `loadgen --version` prints and every document carries as tool.version.
- Each suite version of the catalog (results/schema/catalog.json) declares `loadgen_min`, the
  oldest loadgen that runs it as the catalog defines it. A document measured by an older
  loadgen is stored all the same (it passed every check a document passes: its figures are
  usable) and its upload answers with a warning, which its run page shows too: the reviewer
  is told to install the current release. A run of tests by id (no suite) needs, for each
  test, the oldest loadgen that runs any suite holding it.
- A release lives in BENCH_LOADGEN_DIST_DIR/<version>/ (its manifest.json, the tarball, the
  .deb and their .sha256 files); it never changes once built.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from django.conf import settings
from django.urls import reverse

from results.documents import quote

ROOT = Path(__file__).resolve().parent.parent
MESON_BUILD = ROOT / "loadgen" / "meson.build"
CATALOG = Path(__file__).resolve().parent / "schema" / "catalog.json"
TOOL = "loadgen"
MANIFEST = "manifest.json"
# A release's version (loadgen/release.py writes only these); a document's tool.version may
# carry a suffix after it (a development build's "-dirty", "+g1234abc").
RELEASE = re.compile(r"(?P<major>[0-9]{1,6})\.(?P<minor>[0-9]{1,6})\.(?P<patch>[0-9]{1,6})")
TOOL_VERSION = re.compile(rf"{RELEASE.pattern}(?:[-+~][0-9A-Za-z.+~-]*)?")
PROJECT_VERSION = re.compile(
    r"project\(\s*'loadgen'.*?\bversion\s*:\s*'(?P<version>[^']*)'", re.DOTALL
)
FILE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._+~-]{0,200}")

OLDER_THAN_SUITE = (
    "loadgen {version} is older than suite {suite} version {suite_version} needs (loadgen "
    "{minimum} or later): the run is stored, but its tests may not be measured as the "
    "catalog defines them. Install the current release, loadgen {current} ({page})."
)
OLDER_THAN_TESTS = (
    "loadgen {version} is older than the tests {tests} need (loadgen {minimum} or later): "
    "the run is stored, but those tests may not be measured as the catalog defines them. "
    "Install the current release, loadgen {current} ({page})."
)
NOT_A_RELEASE = (
    "loadgen's version {version} is no release number (MAJOR.MINOR.PATCH): the site cannot "
    "tell whether it runs these tests as the catalog defines them (loadgen {minimum} or "
    "later does). Install the current release, loadgen {current} ({page})."
)


Version = tuple[int, int, int]


def parse_version(text: str, *, suffix: bool = True) -> Version | None:
    """MAJOR.MINOR.PATCH as numbers (suffix: a development build's suffix allowed after
    them), or None for anything else."""
    found = (TOOL_VERSION if suffix else RELEASE).fullmatch(text.strip() if suffix else text)
    if found is None:
        return None
    return int(found["major"]), int(found["minor"]), int(found["patch"])


@functools.cache
def expected_version() -> str:
    """The release the site expects: loadgen/meson.build's project version."""
    found = PROJECT_VERSION.search(MESON_BUILD.read_text())
    if found is None or parse_version(found["version"], suffix=False) is None:
        raise ValueError(f"{MESON_BUILD} declares no MAJOR.MINOR.PATCH version")
    return found["version"]


@dataclass(frozen=True)
class SuiteNeed:
    name: str
    version: int
    loadgen_min: str
    tests: tuple[str, ...]


@functools.cache
def suite_needs() -> tuple[SuiteNeed, ...]:
    """Each suite version of the catalog with the oldest loadgen that runs it."""
    catalog = json.loads(CATALOG.read_text())
    return tuple(
        SuiteNeed(s["name"], s["version"], s["loadgen_min"], tuple(s["tests"]))
        for s in catalog["suites"]
    )


def _minimum_of_tests(tests: Iterable[str]) -> tuple[str, list[str]] | None:
    """The loadgen a run of these tests (by id, no suite) needs: for each test the oldest
    loadgen that runs a suite holding it; the newest of those, with the tests that need it.
    None when no test is in a suite (ad-hoc tests)."""
    needed: dict[str, Version] = {}
    for test in tests:
        holding = [parse_version(s.loadgen_min) for s in suite_needs() if test in s.tests]
        if holding:
            needed[test] = min(v for v in holding if v is not None)
    if not needed:
        return None
    newest = max(needed.values())
    return ".".join(map(str, newest)), sorted(t for t, v in needed.items() if v == newest)


def tool_warnings(
    *, tool_name: str, tool_version: str, suite: tuple[str, int] | None, tests: Iterable[str]
) -> list[str]:
    """What a reviewer is told of the loadgen that measured a run: nothing for another tool,
    or for a loadgen as recent as its suite version (or, without a suite, its tests) needs."""
    if tool_name != TOOL:
        return []
    tests = list(tests)
    if suite is not None:
        need = next((s for s in suite_needs() if (s.name, s.version) == tuple(suite)), None)
        if need is None:
            return []
        minimum, message = need.loadgen_min, OLDER_THAN_SUITE
        named = {"suite": need.name, "suite_version": need.version}
    else:
        found = _minimum_of_tests(tests)
        if found is None:
            return []
        minimum, message = found[0], OLDER_THAN_TESTS
        named = {"tests": ", ".join(found[1])}
    said = {"minimum": minimum, "current": expected_version(), "page": reverse("bench:loadgen")}
    version = parse_version(tool_version)
    if version is None:
        return [NOT_A_RELEASE.format(version=quote(tool_version), **said)]
    if version < parse_version(minimum):  # type: ignore[operator]
        return [message.format(version=tool_version.strip(), **said, **named)]
    return []


def document_warnings(document: dict) -> list[str]:
    """tool_warnings of a result document (parsed, valid)."""
    tool = document.get("tool", {})
    suite = document.get("parameters", {}).get("suite")
    tests = {
        entry["test"]
        for part in ("results", "consistency", "trim", "saturation")
        for entry in document.get(part, [])
    }
    return tool_warnings(
        tool_name=tool.get("name", ""),
        tool_version=tool.get("version", ""),
        suite=(suite["name"], suite["version"]) if suite else None,
        tests=sorted(tests),
    )


# -- releases --------------------------------------------------------------------------------
@dataclass(frozen=True)
class ReleaseFile:
    name: str
    kind: str  # source (the tarball) or deb
    media_type: str
    bytes: int
    sha256: str
    path: str  # its address on the site
    sha256_path: str  # its .sha256 file's


@dataclass(frozen=True)
class Release:
    version: str
    commit: str
    built_at: str
    package: str
    architecture: str
    depends: str
    files: tuple[ReleaseFile, ...]
    manifest_path: str

    def file(self, kind: str) -> ReleaseFile | None:
        return next((f for f in self.files if f.kind == kind), None)

    @property
    def served(self) -> frozenset[str]:
        """Every file of the release the site serves."""
        names = {f.name for f in self.files} | {f"{f.name}.sha256" for f in self.files}
        return frozenset(names | {MANIFEST})


def _store(store: Path | None) -> Path:
    return store or Path(settings.BENCH_LOADGEN_DIST_DIR)


def release_of(version: str, store: Path | None = None) -> Release | None:
    """The release of this version in the store, or None when none was built (or its
    folder holds no release loadgen/release.py wrote)."""
    if parse_version(version, suffix=False) is None:
        return None
    manifest = _store(store) / version / MANIFEST
    try:
        stat = manifest.stat()
    except OSError:
        return None
    return _read(manifest, stat.st_ino, stat.st_mtime_ns)


@functools.lru_cache(maxsize=64)
def _read(manifest: Path, inode: int, mtime_ns: int) -> Release | None:
    """A release's manifest, read once: a release never changes (its identity is in the
    key all the same)."""
    try:
        data = json.loads(manifest.read_text())
        version = data["version"]
        if version != manifest.parent.name:
            return None

        def path(file: str) -> str:
            return reverse("bench:loadgen_file", args=[version, file])

        files = tuple(
            ReleaseFile(
                name=f["name"],
                kind=f["kind"],
                media_type=f["media_type"],
                bytes=int(f["bytes"]),
                sha256=f["sha256"],
                path=path(f["name"]),
                sha256_path=path(f"{f['name']}.sha256"),
            )
            for f in data["files"]
            if FILE_NAME.fullmatch(f["name"])
        )
        return Release(
            version=version,
            commit=data["commit"],
            built_at=data["built_at"],
            package=data["package"],
            architecture=data["architecture"],
            depends=data["depends"],
            files=files,
            manifest_path=path(MANIFEST),
        )
    except (OSError, ValueError, KeyError, TypeError):
        return None


def current_release(store: Path | None = None) -> Release | None:
    """The release of the version the site expects, when it has been built."""
    return release_of(expected_version(), store)


def release_file_path(version: str, file: str, store: Path | None = None) -> Path | None:
    """The file `file` of the release `version`, or None when there is no such release or
    the release has no such file."""
    release = release_of(version, store)
    if release is None or file not in release.served:
        return None
    path = _store(store) / version / file
    return path if path.is_file() else None
