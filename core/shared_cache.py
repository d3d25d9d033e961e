"""What every reader of the shared cache (caches["default"]: Redis, or PostgreSQL) shares: the
errors that mean it did not answer, which a reader skips it for rather than fail the
request, and its reads prepared where it is the database's."""

from __future__ import annotations

import contextlib

from django.core.cache import cache
from django.core.cache.backends.db import DatabaseCache
from django.db import DatabaseError, router

from core.db import prepared

try:
    from redis.exceptions import RedisError

    CACHE_ERRORS: tuple[type[Exception], ...] = (DatabaseError, RedisError, OSError)
except ImportError:  # pragma: no cover - redis is a locked dependency
    CACHE_ERRORS = (DatabaseError, OSError)


def prepared_reads():
    """The database cache's reads prepared (one text, a lookup by key): planned once per
    connection rather than on every request. Nothing for Redis."""
    if isinstance(cache, DatabaseCache):
        return prepared(router.db_for_read(cache.cache_model_class))
    return contextlib.nullcontext()
