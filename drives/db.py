"""Raw SQL as the ORM would run it: on the database the router reads a model from (a
replica or the primary), and prepared where that pays. Both apps' selectors use these."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

from django.conf import settings
from django.db import connections, models, router


def read_alias(model: type[models.Model]) -> str:
    """The database a read of `model` goes to (a replica or the primary, as the router
    says): raw SQL must ask, the ORM does it itself."""
    return router.db_for_read(model)


@contextlib.contextmanager
def prepared(alias: str) -> Iterator[None]:
    """Statements executed inside on `alias` are prepared: planned once per connection, for
    any parameters. Only for statements whose best plan does not depend on their parameters
    (a lookup by slug and id), and never when BENCH_DB_PREPARE is off."""
    if not settings.BENCH_DB_PREPARE:
        yield
        return
    connection = connections[alias]
    connection.ensure_connection()
    raw = connection.connection
    before = raw.prepare_threshold
    raw.prepare_threshold = 0
    try:
        yield
    finally:
        raw.prepare_threshold = before
