"""A chart's embed view inside another site's page: Chromium draws it in the frame (its CSP
allows any ancestor), and refuses the same page's own compare page in a frame (every other
route still forbids framing)."""

import threading
import time
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from django.urls import reverse

from tests.factories import PriceFactory
from tests.results.helpers import measured

pytestmark = pytest.mark.django_db(transaction=True)


def frame_state(frame) -> dict:
    return frame.evaluate(
        """() => ({
          traces: document.querySelectorAll('.chart .cartesianlayer .trace').length,
          rows: document.querySelectorAll('#chart-table tbody tr').length,
          title: (document.querySelector('h1') || {}).textContent || '',
        })"""
    )


@contextmanager
def review_site(body: str):
    """Another origin: a server of its own on 127.0.0.1 (the site is on localhost) answering
    every GET with `body`."""

    class Review(BaseHTTPRequestHandler):
        def do_GET(self):
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.end_headers()
            self.wfile.write(body.encode())

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Review)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/a-review/"
    finally:
        server.shutdown()
        server.server_close()


def test_the_embed_view_draws_inside_another_sites_frame(page, live_server, test_catalog):
    a = measured(manufacturer="Acme", model="Fast One", seed=1).drive
    b = measured(manufacturer="Bolt", model="Slow Two", seed=2).drive
    PriceFactory(drive=a, amount="120.00")
    compare = live_server.url + reverse("bench:compare", args=[a.slug, b.slug])
    embed = f"{compare}chart/randread-4k-qd3/embed/"
    article = (
        f"<!doctype html><title>A review</title><p>Our comparison:</p>"
        f'<iframe id="chart" src="{embed}" width="900" height="600"></iframe>'
        f'<iframe id="page" src="{compare}" width="900" height="300"></iframe>'
    )
    refused = []
    page.on("console", lambda message: refused.append(message.text))
    with review_site(article) as elsewhere:
        page.goto(elsewhere)
        page.wait_for_load_state("networkidle")
    chart = next(f for f in page.frames if f.url == embed)
    deadline = time.monotonic() + 15
    while frame_state(chart)["traces"] < 2:
        assert time.monotonic() < deadline, "the embedded chart was not drawn"
        time.sleep(0.05)
    state = frame_state(chart)
    assert state["rows"] == 4 and "4KB random read" in state["title"]
    # The compare page itself stays unframeable: Chromium says so and shows none of it.
    framed = [f for f in page.frames if f.url.startswith(compare) and f.url != embed]
    assert (
        not framed or framed[0].evaluate("() => document.body.innerText.includes('Acme')") is False
    )
    assert any("frame-ancestors" in text for text in refused)
    page.problems[:] = [p for p in page.problems if "frame-ancestors" not in p]
