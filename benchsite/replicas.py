"""Read replicas: page and API reads go to a replica, everything else to the primary.

Reads go to a replica only inside a safe request (GET, HEAD, OPTIONS) from a client that has
not written in the last BENCH_REPLICA_STICKY_SECONDS (a cookie set after every unsafe
request), so a reviewer who has just uploaded or withdrawn sees the change at once even while
the replicas lag. Everything else reads from the primary: unsafe requests (an upload checks
for the same document on the primary before writing), reads inside a transaction, the
session, auth and cache tables, management commands. A request uses one replica for all its
reads, the versions its kept response is checked against included (benchsite/cache.py); a
replica that cannot be reached is skipped for a few seconds and its reads go to the primary,
so the pages keep working while it is down.
"""

from __future__ import annotations

import contextlib
import random
import time
from collections.abc import Iterator
from contextvars import ContextVar
from dataclasses import dataclass

from django.conf import settings
from django.db import DatabaseError, connections

PRIMARY = "default"
STICKY_COOKIE = "bench_primary"
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
# Login state and cache entries must never be read stale.
PRIMARY_ONLY_APPS = frozenset({"sessions", "auth", "knox", "admin", "django_cache"})
RETRY_DOWN_REPLICA_S = 5.0


@dataclass
class _Reads:
    alias: str | None = None  # the replica chosen for this request, once one is needed


_reads: ContextVar[_Reads | None] = ContextVar("bench_replica_reads", default=None)
_down_until: dict[str, float] = {}  # per process: replicas that failed to connect


def _usable(alias: str) -> bool:
    if _down_until.get(alias, 0.0) > time.monotonic():
        return False
    connection = connections[alias]
    try:
        connection.close_if_health_check_failed()
        connection.ensure_connection()
    except DatabaseError:
        _down_until[alias] = time.monotonic() + RETRY_DOWN_REPLICA_S
        return False
    return True


def read_alias() -> str:
    """The database this thread's reads go to now."""
    reads = _reads.get()
    if reads is None or connections[PRIMARY].in_atomic_block:
        return PRIMARY
    if reads.alias is None:
        candidates = list(settings.DATABASE_REPLICAS)
        random.shuffle(candidates)
        reads.alias = next((a for a in candidates if _usable(a)), PRIMARY)
    return reads.alias


@contextlib.contextmanager
def replica_reads(alias: str | None = None) -> Iterator[None]:
    """Let the reads inside go to a replica (the middleware does this for safe requests):
    one picked at random, or `alias` (a server's warm-up reads from each in turn)."""
    token = _reads.set(_Reads(alias) if settings.DATABASE_REPLICAS else None)
    try:
        yield
    finally:
        _reads.reset(token)


class PrimaryReplicaRouter:
    def db_for_read(self, model, **hints) -> str:
        if model._meta.app_label in PRIMARY_ONLY_APPS:
            return PRIMARY
        return read_alias()

    def db_for_write(self, model, **hints) -> str:
        return PRIMARY

    def allow_relation(self, obj1, obj2, **hints) -> bool:
        return True  # every alias holds the same data

    def allow_migrate(self, db, app_label, model_name=None, **hints) -> bool:
        return db == PRIMARY


class ReplicaMiddleware:
    """Route a request's reads (see the module's docstring); mark clients that write."""

    def __init__(self, get_response) -> None:
        self.get_response = get_response

    def __call__(self, request):
        if not settings.DATABASE_REPLICAS:
            return self.get_response(request)
        if request.method not in SAFE_METHODS:
            response = self.get_response(request)
            window = settings.BENCH_REPLICA_STICKY_SECONDS
            response.set_cookie(
                STICKY_COOKIE,
                str(int(time.time() + window)),
                max_age=window,
                httponly=True,
                samesite="Lax",
                secure=settings.SESSION_COOKIE_SECURE,
            )
            return response
        try:
            sticky = int(request.COOKIES.get(STICKY_COOKIE, "0")) > time.time()
        except ValueError:
            sticky = False
        if sticky:
            return self.get_response(request)
        with replica_reads():
            return self.get_response(request)
