"""Request bodies sent without a Content-Length (Transfer-Encoding: chunked).

A client that streams its body (`curl -T -` from a pipe, a program posting a generator) sends
it in chunks and no Content-Length. gunicorn de-chunks such a body and says so
(`wsgi.input_terminated`), but Django reads exactly CONTENT_LENGTH bytes of any body, so
without the header it read none: an upload was refused as empty. Behind the reverse proxy
this never happens (nginx buffers the body and sends its length); served by gunicorn alone,
it did.

Such a body is read here, up to one byte more than the largest body any view accepts
(DATA_UPLOAD_MAX_MEMORY_SIZE), and handed on with its length, so every view sees it as if
the client had sent the header. One that goes on past that is handed on as that many bytes
with BODY_CUT set in the environ: the views' own size checks then refuse it (413), saying
it is over their limit without claiming to know its size.
"""

from __future__ import annotations

import io
from collections.abc import Callable, Iterable

from django.conf import settings

BODY_CUT = "bench.body_cut"  # the body went on past what was read (results.api.runs reads it)


def _streamed(environ: dict) -> bool:
    return (
        bool(environ.get("wsgi.input_terminated"))
        and not environ.get("CONTENT_LENGTH")
        and "chunked" in environ.get("HTTP_TRANSFER_ENCODING", "").lower()
    )


class ChunkedBodies:
    """WSGI middleware: a de-chunked body read whole (up to the limit) and given a
    Content-Length. Every other request passes untouched."""

    def __init__(self, app: Callable) -> None:
        self.app = app

    def __call__(self, environ: dict, start_response: Callable) -> Iterable[bytes]:
        if _streamed(environ):
            limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE or settings.BENCH_MAX_DOCUMENT_BYTES
            body = environ["wsgi.input"].read(limit + 1)
            environ["wsgi.input"] = io.BytesIO(body)
            environ["CONTENT_LENGTH"] = str(len(body))
            environ[BODY_CUT] = len(body) > limit
        return self.app(environ, start_response)
