"""Where a request's time goes, for the load benchmark: one line per request with its total
time and the time spent in database statements, appended to BENCH_TIMING_LOG.

Switched on only by the benchmark settings when BENCH_TIMING_LOG is set; the line is written
with one append, so the workers' lines never interleave.

    path <TAB> total ms <TAB> database ms <TAB> statements <TAB> response cache (hit, miss, -)
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from contextlib import ExitStack

from django.conf import settings
from django.db import connections
from django.http import HttpRequest, HttpResponse

from benchsite.response_cache import CACHE_STATUS_HEADER


class _StatementClock:
    def __init__(self) -> None:
        self.seconds = 0.0
        self.count = 0

    def __call__(self, execute, sql, params, many, context):
        started = time.perf_counter()
        try:
            return execute(sql, params, many, context)
        finally:
            self.seconds += time.perf_counter() - started
            self.count += 1


class RequestTimingMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response
        self.log = settings.BENCH_TIMING_LOG

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if not self.log:
            return self.get_response(request)
        clock = _StatementClock()
        started = time.perf_counter()
        with ExitStack() as stack:
            for alias in connections:
                stack.enter_context(connections[alias].execute_wrapper(clock))
            response = self.get_response(request)
        total = time.perf_counter() - started
        line = (
            f"{request.get_full_path()}\t{total * 1e3:.3f}\t{clock.seconds * 1e3:.3f}\t"
            f"{clock.count}\t{response.headers.get(CACHE_STATUS_HEADER, '-')}\n"
        )
        fd = os.open(self.log, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            os.write(fd, line.encode())
        finally:
            os.close(fd)
        return response
