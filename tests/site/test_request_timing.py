"""The load benchmark's account of where a request's time went (loadtests/request_timing.py)."""

import pytest
from django.db import connection
from django.http import HttpResponse
from django.test import RequestFactory

from loadtests.request_timing import RequestTimingMiddleware


@pytest.mark.django_db
def test_each_request_is_one_line_with_its_database_time(settings, tmp_path):
    settings.BENCH_TIMING_LOG = str(tmp_path / "timing.tsv")

    def view(request):
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_sleep(0.02)")
            cursor.execute("SELECT 1")
        return HttpResponse("ok")

    middleware = RequestTimingMiddleware(view)
    for query in ("a=1", "b=%22x%22"):
        assert middleware(RequestFactory().get(f"/bench/value/?{query}")).content == b"ok"
    lines = [line.split("\t") for line in (tmp_path / "timing.tsv").read_text().splitlines()]
    assert [line[0] for line in lines] == ["/bench/value/?a=1", "/bench/value/?b=%22x%22"]
    for _path, total, database, statements, cache in lines:
        assert float(total) >= float(database) >= 20.0
        assert statements == "2" and cache == "-"


def test_nothing_is_written_unless_asked(settings, tmp_path):
    settings.BENCH_TIMING_LOG = ""
    RequestTimingMiddleware(lambda request: HttpResponse("ok"))(RequestFactory().get("/"))
    assert list(tmp_path.iterdir()) == []
