"""Where a request's time goes, for the load benchmark: one JSON line per request, and one
per stall a worker takes outside a request, appended to BENCH_TIMING_LOG.

A request's line holds the wall-clock moments the server can see, each from time.time()
(the client's clock too, on one machine):

- `client`: when the client sent it, from its X-Request-Start header ("t=<seconds>",
  nginx's `t=${msec}` form; bench_load's wrk scripts stamp it as they write the request);
  None without one (`stamp`: the header as sent, echoed in the response's, so that the
  client can tell which request each response answers). From then until `start` the
  request waited for a worker: in the listen backlog (a sync worker accepts only when it
  is free) or a thread pool's queue;
- `start`: a worker began it (the first middleware; before it only gunicorn's read of the
  request line and headers, and Django's making of the request);
- `own_ms`: the middleware chain and the view, of which `db_ms` in SQL statements
  (`statements` of them) and `copy_ms` reading an in-process copy again (`copies`: which,
  by its name, "catalog" (drives.catalog_index) or "value" (results.entries_index); its
  statements are not in db_ms);
- `sent`: gunicorn wrote the whole response and closed it (it calls the response's close()
  once the body is written: what the client waits for ends about here);
- `after_ms`: that close() (Django's request_finished, the response cache's write once the
  response is sent; `after_db_ms` of it in SQL statements): the worker's, not the client's,
  time, which delays the worker's next request;
- `backends`: the PostgreSQL backends its statements ran on (bench_load's lock sampler
  attributes lock waits by them);
- `compiled` and `made`: the templates it compiled and the copies' columns it made (each
  is done once in a process: what the server's warm-up does before a worker's first
  request, benchsite/warmup.py), and `warmed`, where this process was warmed ("worker"
  after gunicorn's post_worker_init; None: it was not).

A stall outside any request (the copies read in gunicorn's master before it forks,
benchsite/gunicorn.conf.py) is a line with `stall` (what), `start` and `ms`. Copies are timed
through the signals core.columns sends around each read (copy_reading, copy_read).

Switched on only by the benchmark settings when BENCH_TIMING_LOG is set; each line is
written with one append, so the workers' lines never interleave.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable
from contextlib import ExitStack
from dataclasses import dataclass, field

import orjson
from django.conf import settings
from django.db import connections
from django.http import HttpRequest, HttpResponse

from benchsite import warmup
from benchsite.response_cache import CACHE_STATUS_HEADER
from benchsite.warmup import compiled_templates
from core.columns import column_made, copy_read, copy_reading

STAMP_HEADER = "X-Request-Start"
REQUEST_START_HEADER = "HTTP_X_REQUEST_START"


def client_sent(value: str | None) -> float | None:
    """The moment (epoch seconds) an X-Request-Start header says the request was sent:
    "t=<seconds>" with a fraction (nginx's $msec), or bare; None when absent or unreadable."""
    if not value:
        return None
    try:
        return float(value.strip().removeprefix("t="))
    except ValueError:
        return None


def append(log: str, record: dict) -> None:
    fd = os.open(log, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        os.write(fd, orjson.dumps(record) + b"\n")
    finally:
        os.close(fd)


@dataclass
class _Clock:
    """One request's statements, and the copies it read again."""

    db_seconds: float = 0.0
    statements: int = 0
    copy_seconds: float = 0.0
    db_before_copy: float = 0.0
    copies: list[str] = field(default_factory=list)
    backends: set[int] = field(default_factory=set)
    made: int = 0  # copies' columns made

    def __call__(self, execute, sql, params, many, context):
        backend = context["connection"].connection.info.backend_pid
        self.backends.add(backend)
        started = time.perf_counter()
        try:
            return execute(sql, params, many, context)
        finally:
            self.db_seconds += time.perf_counter() - started
            self.statements += 1


_current = threading.local()  # the request this thread serves: its _Clock


def _copy_reading(*, name: str, **kwargs) -> None:
    clock: _Clock | None = getattr(_current, "clock", None)
    if clock is not None:  # its statements are the copy's, not the page's
        clock.db_before_copy = clock.db_seconds


def _copy_read(*, name: str, seconds: float, **kwargs) -> None:
    """A copy read again (core.columns.copy_read): in a request, as that request's copy time
    (its statements out of the database time); outside one, as a stall line of its own."""
    clock: _Clock | None = getattr(_current, "clock", None)
    if clock is not None:
        clock.copy_seconds += seconds
        clock.db_seconds = clock.db_before_copy
        clock.copies.append(name)
    elif log := getattr(settings, "BENCH_TIMING_LOG", ""):
        append(
            log,
            {
                "stall": f"copy {name}",
                "start": time.time() - seconds,
                "ms": seconds * 1e3,
                "worker": os.getpid(),
            },
        )


def _column_made(**kwargs) -> None:
    clock: _Clock | None = getattr(_current, "clock", None)
    if clock is not None:
        clock.made += 1


def time_copies() -> None:
    """Time every read of the in-process copies again, and count the columns made, in this
    process (idempotent)."""
    copy_reading.connect(_copy_reading, dispatch_uid="loadtests.request_timing.reading")
    copy_read.connect(_copy_read, dispatch_uid="loadtests.request_timing.read")
    column_made.connect(_column_made, dispatch_uid="loadtests.request_timing.made")


class RequestTimingMiddleware:
    """First in the chain (benchsite.settings.bench): see the module's docstring."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response
        self.log = settings.BENCH_TIMING_LOG
        if self.log:
            time_copies()

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if not self.log:
            return self.get_response(request)
        start = time.time()
        templates = compiled_templates()
        clock = _current.clock = _Clock()
        try:
            with ExitStack() as stack:
                for alias in connections:
                    stack.enter_context(connections[alias].execute_wrapper(clock))
                response = self.get_response(request)
        finally:
            _current.clock = None
        own = time.time() - start
        stamp = request.META.get(REQUEST_START_HEADER)
        if stamp:  # back to the client, which tells by it which request a response answers
            response[STAMP_HEADER] = stamp
        record = {
            "path": request.get_full_path(),
            "method": request.method,
            "status": response.status_code,
            "stamp": stamp,
            "client": client_sent(stamp),
            "start": start,
            "own_ms": own * 1e3,
            "db_ms": clock.db_seconds * 1e3,
            "statements": clock.statements,
            "copy_ms": clock.copy_seconds * 1e3,
            "copies": clock.copies,
            "compiled": compiled_templates() - templates,
            "made": clock.made,
            "warmed": warmup.warmed.where if warmup.warmed else None,
            "cache": response.headers.get(CACHE_STATUS_HEADER, "-"),
            "worker": os.getpid(),
            "thread": threading.get_ident(),
        }
        close = response.close  # the response cache's write once sent, if it added one

        def close_then_log() -> None:
            sent = time.time()
            after = _Clock(backends=clock.backends)
            try:
                with ExitStack() as stack:
                    for alias in connections:
                        stack.enter_context(connections[alias].execute_wrapper(after))
                    close()
            finally:
                ended = time.time()
                record.update(
                    sent=sent,
                    after_ms=(ended - sent) * 1e3,
                    after_db_ms=after.db_seconds * 1e3,
                    backends=sorted(clock.backends),
                )
                append(self.log, record)

        response.close = close_then_log
        return response
