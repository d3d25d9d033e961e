import gc
import os

from django.core.wsgi import get_wsgi_application

from benchsite.chunked import ChunkedBodies

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "benchsite.settings.prod")
# A web worker cancels a statement after 10 s, well inside gunicorn's 30 s worker timeout,
# so one slow query cannot hold a worker (management commands have no limit).
os.environ.setdefault("BENCH_STATEMENT_TIMEOUT_MS", "10000")
application = ChunkedBodies(get_wsgi_application())


def _settle_garbage_collector() -> None:
    """Import every view now, then leave what the process holds for good out of the cyclic
    garbage collector's full collections (gc.freeze), and run its young collections less
    often: a request allocates tens of thousands of short-lived objects, so at Python's
    default threshold (700) the collector ran dozens of times a request (the drives list's
    Python time a request fell by about a fifth in-process). Memory is still reclaimed at once
    by reference counting; only reference cycles wait a little longer."""
    from django.urls import get_resolver

    get_resolver().url_patterns  # noqa: B018 - imports the URLconf and the views
    gc.collect()
    gc.freeze()
    gc.set_threshold(GC_YOUNG_THRESHOLD, 20, 20)


GC_YOUNG_THRESHOLD = 10_000  # allocations between two young collections (Python's: 700)
_settle_garbage_collector()
