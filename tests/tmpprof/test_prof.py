import cProfile
import io
import pstats
import time
from io import StringIO

import pytest
from django.core.management import call_command
from django.urls import reverse


@pytest.mark.django_db
def test_prof(client):
    call_command("load_demo", stdout=StringIO())
    slugs = ["samsung-ssd-840-pro-256gb", "intel-ssd-530-240gb"]
    for name in ("bench:compare", "api:compare"):
        url = reverse(name, args=slugs)
        for _ in range(5):
            client.get(url, HTTP_ACCEPT="application/json")
        t = time.perf_counter()
        pr = cProfile.Profile()
        pr.enable()
        for _ in range(50):
            client.get(url, HTTP_ACCEPT="application/json")
        pr.disable()
        print(name, (time.perf_counter() - t) / 50 * 1000, "ms")
        s = io.StringIO()
        pstats.Stats(pr, stream=s).sort_stats("cumulative").print_stats(45)
        print(s.getvalue()[:9000])
