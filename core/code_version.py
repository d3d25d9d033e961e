"""The version of the site's own code: a digest of its Python modules and templates, read
once a process. What a process keeps for every process (the shared cache) under a key that
names the code that made it is never read by a process running other code: a release
changes the digest, so what the previous release kept is simply not found (and expires)."""

from __future__ import annotations

import functools
import hashlib
from pathlib import Path

from django.conf import settings

SUFFIXES = (".py", ".html", ".txt", ".md")
SKIPPED = ("var", "tests", "loadgen", "node_modules", "static_root", "demo")


@functools.cache
def code_version() -> str:
    """The digest (16 hex digits) of every .py, .html, .txt and .md file under BASE_DIR,
    outside hidden folders and those that hold no code the site runs (SKIPPED)."""
    root = Path(settings.BASE_DIR)
    digest = hashlib.sha256()
    code = (entry for entry in root.iterdir() if entry.name not in SKIPPED)
    for path in sorted(path for entry in code for path in _files(entry)):
        digest.update(str(path.relative_to(root)).encode())
        digest.update(b"\0")
        digest.update(path.read_bytes())
        digest.update(b"\0")
    return digest.hexdigest()[:16]


def _files(entry: Path):
    """`entry` if it is a file of code, else the files of code under it; nothing hidden."""
    if entry.name.startswith("."):
        return
    if entry.is_dir():
        for inner in entry.iterdir():
            yield from _files(inner)
    elif entry.suffix in SUFFIXES:
        yield entry
