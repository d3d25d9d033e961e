"""A server made ready before it takes requests (benchsite/gunicorn.conf.py).

What a process does once and keeps, it would otherwise do on its first requests, each in the
worker that first needed it while the requests behind it queue: compile a page's templates
(a quarter of a second for the value page's), make the columns of an in-process copy that
a filter reads (half a second for the value views'), open its database connections and
prepare the copies' version statement. Under a burst of connections at the start, five
workers each doing it at once made the slowest reads of `make bench-load` (issue 45).

- `warm_master()`, in gunicorn's master before it forks (the site preloaded): every
  template of the site compiled, the upload's schema check compiled (a worker's first
  upload took a second under load without it), and every in-process copy
  (core.columns.COPIES) read, with every column made, from each database the pages read
  from (the primary, each replica).
  All of it is read-only afterwards, so every worker starts with it, shared with the master
  until written. The master's database connections are closed at the end: a forked worker
  must never share one.
- `warm_worker()`, in each worker before it accepts its first connection (gunicorn's
  post_worker_init, which runs before the worker's accept loop): its own connection to each
  database, comparisons read there (`warm_reads`: the head to head's statements prepared
  on the worker's own database backend, on their settled plans, the test catalog held),
  and the copies checked against their versions there (the same prepared statement every
  request runs). Without the preload, the worker does the master's part too, for itself.

`warmed` says what this process's warm-up did (None until it ran): the load benchmark's
request timing writes it beside each request, with what the request itself compiled or
made (loadtests/request_timing.py), so that a test can see a first request pay nothing.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable
from dataclasses import dataclass

from django.conf import settings
from django.db import DatabaseError, connections
from django.template import engines
from django.template.backends.jinja2 import Jinja2
from django.urls import URLResolver, get_resolver

import drives.catalog_index  # noqa: F401 - declares its copy (so does results.entries_index)
import results.entries_index  # noqa: F401
from benchsite.replicas import PRIMARY, replica_reads
from core.code_version import code_version
from core.columns import COPIES
from results import documents
from results.methodology import methodology
from results.selectors.compare import warm as compare_warm


@dataclass
class Warmed:
    """What a process's warm-up did: templates compiled, copies current (per database),
    the seconds it took, and where it ran ("master" or "worker")."""

    where: str
    templates: int
    copies: int
    databases: tuple[str, ...]
    seconds: float


warmed: Warmed | None = None


def jinja_environments() -> list:
    """The site's Jinja2 environments (the pages'; Django's own engine, for the admin and
    the API's browsable pages, compiles what it renders when it renders it)."""
    return [backend.env for backend in engines.all() if isinstance(backend, Jinja2)]


def compiled_templates() -> int:
    """How many templates this process holds compiled: a Jinja2 environment compiles a
    template once and keeps it (the production settings never reload one)."""
    return sum(len(env.cache) for env in jinja_environments() if env.cache is not None)


def compile_templates() -> int:
    """Compile every template of the site's Jinja2 environments now; how many."""
    count = 0
    for env in jinja_environments():
        for name in env.list_templates():
            env.get_template(name)
            count += 1
    return count


def prepare_urls(resolver: URLResolver | None = None) -> int:
    """Compile every URL pattern's regular expression and fill every resolver's reverse
    lookups (Django does both on first use: 45 ms on the first page that writes a link);
    how many patterns."""
    resolver = resolver or get_resolver()
    resolver.reverse_dict  # noqa: B018 - filled when first read, for this language
    count = 0
    for entry in resolver.url_patterns:
        entry.pattern.regex  # noqa: B018 - compiled when first read
        count += 1
        if isinstance(entry, URLResolver):
            count += prepare_urls(entry)
    return count


def read_databases() -> list[str]:
    """The databases page and API reads go to: the primary and each replica."""
    return [PRIMARY, *settings.DATABASE_REPLICAS]


def _reading(alias: str):
    """Reads inside go to `alias`, as a request whose reads the router sent there."""
    return contextlib.nullcontext() if alias == PRIMARY else replica_reads(alias)


def on_each_database(work: Callable[[], object]) -> tuple[str, ...]:
    """work() on each database reads go to, as a request whose reads were sent there; the
    databases that answered. One that does not is left to the first request that reads it."""
    answered = []
    for alias in read_databases():
        try:
            with _reading(alias):
                work()
        except DatabaseError:
            continue
        answered.append(alias)
    return tuple(answered)


def warm_copies(*, columns: bool) -> tuple[int, tuple[str, ...]]:
    """Every in-process copy current on each database reads go to (every column made too,
    with `columns`); how many copies, and the databases that answered."""

    def current() -> None:
        for copy in COPIES:
            copy.warm() if columns else copy.current()

    return len(COPIES), on_each_database(current)


def warm_reads() -> tuple[str, ...]:
    """What a page's first reads cost a process on each database reads go to, done now: the
    head to head's statements run until PostgreSQL has settled on their plans, the tables'
    metadata read, the test catalog held (results.selectors.compare.warm). The databases
    that answered."""
    return on_each_database(compare_warm)


def warm_master() -> Warmed:
    """Before the fork: templates and copies made once for every worker (see above); the
    connections it opened closed."""
    global warmed
    started = time.monotonic()
    try:
        templates = compile_templates()
        prepare_urls()
        methodology()  # docs/methodology.md rendered: every test page links into it
        code_version()  # the digest shared_sides' keys name, read from the site's files
        documents.warm()  # the upload's schema check compiled
        copies, databases = warm_copies(columns=True)
    finally:
        connections.close_all()
    warmed = Warmed("master", templates, copies, databases, time.monotonic() - started)
    return warmed


def warm_worker(*, preloaded: bool) -> Warmed:
    """Before the worker's first request: its own connections and the copies' versions
    checked on each (preloaded: templates and columns came from the master; otherwise made
    here)."""
    global warmed
    started = time.monotonic()
    templates = 0
    if not preloaded:
        templates = compile_templates()
        prepare_urls()
        methodology()
        code_version()
        documents.warm()
    warm_reads()
    copies, databases = warm_copies(columns=not preloaded)
    warmed = Warmed("worker", templates, copies, databases, time.monotonic() - started)
    return warmed
