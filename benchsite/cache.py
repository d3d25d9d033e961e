"""Values computed from the catalog, cached for every worker and invalidated by every write.

A page or endpoint caches what is expensive with one line:

    table = cached("leaderboard", test.pk, pattern, compute=lambda: leaderboard(...))

Each entry is stored with the catalog version it was computed at. Every write to a model of
the drives and results apps (run_ingest, run_withdraw, an edit in the admin) replaces the
version once its transaction commits, before the request that wrote returns, so no reader is
served a value computed before the change (a withdrawn run is gone from every cached page when
the withdrawal returns). A hit costs one cache round trip (the entry and the version in one
read); a miss adds the computation and one write.

With read replicas the version also records the primary's WAL position at the write, and a
value is computed on a replica only when that replica has replayed the write; otherwise it is
computed on the primary, so a lagging replica never puts an old value in the cache.

The cache is caches["default"]; when it cannot be reached, values are computed uncached.
Reads of the database cache are prepared statements (core.db.prepared).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import uuid
from collections.abc import Callable
from typing import Any, TypeVar

from django.apps import apps
from django.conf import settings
from django.core.cache import cache
from django.core.cache.backends.db import DatabaseCache
from django.db import DatabaseError, router, transaction
from django.db.models.signals import post_delete, post_save

from benchsite import replicas
from core.db import prepared

logger = logging.getLogger(__name__)
T = TypeVar("T")

VERSION_KEY = "bench:catalog-version"
ENTRY_KEY = "bench:entry:{name}:{digest}"
DEFAULT_TIMEOUT_S = 600
UNKNOWN_POSITION = "FFFFFFFF/FFFFFFFF"  # beyond any WAL position
CATALOG_APPS = ("drives", "results")

try:
    from redis.exceptions import RedisError

    CACHE_ERRORS: tuple[type[Exception], ...] = (DatabaseError, RedisError, OSError)
except ImportError:  # pragma: no cover - redis is a locked dependency
    CACHE_ERRORS = (DatabaseError, OSError)

Version = tuple[str, str | None]  # (unique token, primary WAL position or None)


def entry_key(name: str, parts: tuple) -> str:
    digest = hashlib.sha256(json.dumps(parts, default=str).encode()).hexdigest()[:32]
    return ENTRY_KEY.format(name=name, digest=digest)


def bump_catalog_version() -> None:
    """Give the catalog a new version: every cached value computed before is stale."""
    position = None
    if settings.DATABASE_REPLICAS:
        try:
            position = replicas.primary_position()
        except DatabaseError:
            position = UNKNOWN_POSITION  # no replica counts as caught up: fills read the primary
    try:
        cache.set(VERSION_KEY, (uuid.uuid4().hex, position), timeout=None)
    except CACHE_ERRORS:
        # The write has committed; entries computed before it can now be served until they
        # expire (DEFAULT_TIMEOUT_S). Say so loudly.
        logger.exception("could not bump the catalog version; cached pages may be stale")


def catalog_changed(using: str = "default") -> None:
    """Bump the catalog version when the current transaction commits (at once outside one)."""
    transaction.on_commit(bump_catalog_version, using=using)


def _on_catalog_write(sender, using, **kwargs) -> None:
    catalog_changed(using)


def connect_invalidation() -> None:
    """Invalidate on every save and delete of a catalog model (benchsite's AppConfig.ready)."""
    for label in CATALOG_APPS:
        for model in apps.get_app_config(label).get_models():
            for signal in (post_save, post_delete):
                signal.connect(
                    _on_catalog_write, sender=model, dispatch_uid=f"bench-cache-{model._meta}"
                )


def _current_version(found: dict) -> Version:
    version = found.get(VERSION_KEY)
    if version is None:  # never bumped, or evicted: start a version all writers will replace
        cache.add(VERSION_KEY, (uuid.uuid4().hex, None), timeout=None)
        version = cache.get(VERSION_KEY)
    return version


def _prepared_reads():
    """The database cache's reads prepared (one text, a lookup by key): planned once per
    connection rather than on every request. Nothing for Redis."""
    if isinstance(cache, DatabaseCache):
        return prepared(router.db_for_read(cache.cache_model_class))
    return contextlib.nullcontext()


def current_version() -> Version | None:
    """The catalog version now (None when the cache cannot be reached)."""
    try:
        with _prepared_reads():
            found = cache.get_many([VERSION_KEY])
        return _current_version(found)
    except CACHE_ERRORS:
        logger.warning("cache unavailable", exc_info=True)
        return None


def lookup(key: str) -> tuple[bool, Any, Version | None]:
    """(hit, value, version) for key: a hit when stored at the current catalog version.

    version is None when the cache cannot be reached (then nothing should be stored)."""
    try:
        with _prepared_reads():
            found = cache.get_many([key, VERSION_KEY])
        version = _current_version(found)
    except CACHE_ERRORS:
        logger.warning("cache unavailable; computing %s uncached", key, exc_info=True)
        return False, None, None
    entry = found.get(key)
    if entry is not None and entry[0] == version:
        return True, entry[1], version
    return False, None, version


def store(key: str, version: Version, value: Any, timeout: int = DEFAULT_TIMEOUT_S) -> None:
    """Keep value for key as computed at version (from lookup)."""
    try:
        cache.set(key, (version, value), timeout=timeout)
    except CACHE_ERRORS:
        logger.warning("cache unavailable; %s not stored", key, exc_info=True)


def cached(name: str, *parts: Any, compute: Callable[[], T], timeout: int = DEFAULT_TIMEOUT_S) -> T:
    """compute(), or the value it returned for the same name and parts at this catalog version.

    name and parts identify the value (parts are JSON-serialised: numbers, strings, lists).
    The value must pickle.
    """
    key = entry_key(name, parts)
    hit, value, version = lookup(key)
    if hit:
        return value
    if version is None:
        return compute()
    with replicas.reads_including(version[1]):
        value = compute()
    store(key, version, value, timeout)
    return value
