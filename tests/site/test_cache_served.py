"""Kept responses under gunicorn: several workers, each holding pages in its own memory
(benchsite/response_cache.py), serve an upload on its drive's page and its test's ranking
in the first response after the upload returns, and its withdrawal likewise. Each page is
held against the same page from a server that keeps nothing, on the same database."""

import datetime
import json

import requests

from tests.results.helpers import faster
from tests.site.conftest import query
from tests.site.support import ROOT

SAMPLE = ROOT / "results/schema/samples/measured-loadgen-quick.json"
TEST = "randread-4k-qd3"
WORKERS = 3
READS = 4 * WORKERS  # enough for every worker to answer several (the kernel picks)


def _document(scale: float) -> dict:
    """The demo's quick sample, newer and with another 4KB random-read figure: `scale`
    times its own (within the tenfold a figure may move before it is held for review)."""
    document = json.loads(SAMPLE.read_text())
    document["tool"]["command_line"] += " # served-cache test"
    started = datetime.datetime.now(datetime.UTC) - datetime.timedelta(minutes=10)
    document["started_at"] = started.isoformat()
    document["finished_at"] = (started + datetime.timedelta(minutes=5)).isoformat()
    for result in document["results"]:
        if result["test"] == TEST:
            faster(result, scale)
    return document


def _pages_agree(kept_url: str, plain_url: str, paths: list[str], *, hits: bool) -> None:
    for path in paths:
        plain = requests.get(plain_url + path, timeout=30)
        assert plain.status_code == 200, path
        for _ in range(READS):
            kept = requests.get(kept_url + path, timeout=30)
            assert kept.status_code == 200, path
            assert kept.text == plain.text, path
            if hits:
                assert kept.headers["X-Bench-Cache"] == "hit", path


def test_an_upload_and_its_withdrawal_show_in_every_worker_at_once(site):
    create = "from django.contrib.auth.models import User; User.objects.create_user('una')"
    site.manage("shell", "-c", create)
    token = site.manage("reviewer_token", "una").stdout.strip()
    auth = {"Authorization": f"Token {token}"}
    ((slug,),) = query(
        site.primary.url(),
        "SELECT slug FROM drives_drive WHERE model = %s",
        [json.loads(SAMPLE.read_text())["drive"]["model"]],
    )
    paths = [  # a quick run's pages; the consistency ranking depends on every write
        f"/drives/{slug}/",
        f"/bench/tests/{TEST}/?method=quick",
        "/bench/tests/consistency-4k-qd32/?method=quick",
    ]
    with (
        site.server(replica=False, workers=WORKERS, BENCH_RESPONSE_CACHE="1") as kept,
        site.server(replica=False, workers=1, BENCH_RESPONSE_CACHE="0") as plain,
    ):
        for path in paths:  # kept in the shared cache and in the workers' own memory
            for _ in range(READS):
                requests.get(kept.url + path, timeout=30)
        _pages_agree(kept.url, plain.url, paths, hits=True)
        before = {path: requests.get(plain.url + path, timeout=30).text for path in paths}

        uploaded = requests.post(
            f"{kept.url}/api/v1/runs/", json=_document(1.75), headers=auth, timeout=60
        )
        assert uploaded.status_code == 201, uploaded.text
        _pages_agree(kept.url, plain.url, paths, hits=False)
        for path in paths:
            assert requests.get(plain.url + path, timeout=30).text != before[path], path

        run = uploaded.json()["run"]["id"]
        withdrawn = requests.post(
            f"{kept.url}/api/v1/runs/{run}/withdraw/",
            json={"reason": "a test of kept pages"},
            headers=auth,
            timeout=60,
        )
        assert withdrawn.status_code == 200, withdrawn.text
        _pages_agree(kept.url, plain.url, paths, hits=False)
        ranking = paths[1]
        assert requests.get(plain.url + ranking, timeout=30).text == before[ranking]
