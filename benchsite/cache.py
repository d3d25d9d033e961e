"""Values computed from the catalog, cached for every worker, current by the versions of the
scopes they depend on (core.versions).

A page or endpoint caches what is expensive with one line:

    table = cached("leaderboard", test.pk, pattern, scopes=[ranking_scope(test.identifier)],
                   compute=lambda: leaderboard(...))

Each entry is stored with the version of its scopes (and of CATALOG, which every page
depends on) read before it was computed; without scopes, it depends on every write (ANY). A
write moves the version of the scopes it touches when its transaction commits, before the
request that wrote returns, so no reader is served a value computed before the change. A hit
costs the version (one prepared statement) and the entry (one cache read); a miss adds the
computation and one write.

The version is read from the database the computation's reads go to (a replica, or the
primary): a value computed on a lagging replica is stored under that replica's version, so
a reader of the primary, who sees a newer version, never gets it.

The cache is caches["default"]; when it cannot be reached, values are computed uncached, as
they are in a transaction that has itself written (core.versions.read_version).
"""

from __future__ import annotations

import hashlib
import json
import logging
from collections.abc import Callable, Iterable
from typing import Any, TypeVar

from django.core.cache import cache
from django.db import DatabaseError

from benchsite import replicas
from core.shared_cache import CACHE_ERRORS, prepared_reads
from core.versions import ANY, CATALOG, read_version

logger = logging.getLogger(__name__)
T = TypeVar("T")

ENTRY_KEY = "bench:entry:{name}:{digest}"
DEFAULT_TIMEOUT_S = 600

Version = int  # of a set of scopes (core.versions.read_version)


def entry_key(name: str, parts: tuple) -> str:
    digest = hashlib.sha256(json.dumps(parts, default=str).encode()).hexdigest()[:32]
    return ENTRY_KEY.format(name=name, digest=digest)


def page_scopes(scopes: Iterable[str] | None) -> list[str]:
    """What a value depends on: CATALOG and its own scopes, or every write (None)."""
    return [ANY] if scopes is None else sorted({CATALOG, *scopes})


def current_version(scopes: list[str]) -> Version | None:
    """The version of `scopes` where this request's reads go, or None when what is
    computed now must not be kept (this transaction has written, or the database failed:
    the computation will say so itself)."""
    try:
        return read_version(replicas.read_alias(), scopes)
    except DatabaseError:
        logger.warning("scope versions unreadable; computing uncached", exc_info=True)
        return None


def lookup(key: str, version: Version) -> tuple[bool, Any] | None:
    """(hit, value) for key, a hit when it was stored at this version; None when the
    cache cannot be reached (then nothing should be stored)."""
    try:
        with prepared_reads():
            entry = cache.get(key)
    except CACHE_ERRORS:
        logger.warning("cache unavailable; computing %s uncached", key, exc_info=True)
        return None
    if entry is not None and entry[0] == version:
        return True, entry[1]
    return False, None


def store(key: str, version: Version, value: Any, timeout: int = DEFAULT_TIMEOUT_S) -> None:
    """Keep value for key as computed at version (read before it was computed)."""
    try:
        cache.set(key, (version, value), timeout=timeout)
    except CACHE_ERRORS:
        logger.warning("cache unavailable; %s not stored", key, exc_info=True)


def cached(
    name: str,
    *parts: Any,
    scopes: Iterable[str] | None = None,
    compute: Callable[[], T],
    timeout: int = DEFAULT_TIMEOUT_S,
) -> T:
    """compute(), or the value it returned for the same name and parts while the version
    of `scopes` (core.versions; None: any write) has not moved.

    name and parts identify the value (parts are JSON-serialised: numbers, strings, lists).
    The value must pickle.
    """
    version = current_version(page_scopes(scopes))
    if version is None:
        return compute()
    key = entry_key(name, parts)
    found = lookup(key, version)
    if found is None:
        return compute()
    hit, value = found
    if hit:
        return value
    value = compute()
    store(key, version, value, timeout)
    return value
