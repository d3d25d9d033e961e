"""loadgen's upload against the site itself: loadgen runs a quick test on a file and uploads
it (`run --upload`) to the site served by gunicorn on loopback, with a reviewer's token read
from a file: 201 and the run's page printed; `loadgen upload` of the same document: 200, the
same run; with the server stopped: retries, then a clear message and a non-zero exit, the
document kept. A token on the command line is refused. loadgen is built (make loadgen) when
the tree has no binary yet."""

import json
import math
import re
import secrets
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import psycopg
import pytest

from benchsite.embedded_pg import Cluster
from loadtests.appserver import AppServer, prepare, server_environment
from results import documents, units

ROOT = Path(__file__).resolve().parents[2]
LOADGEN = ROOT / "loadgen" / "build" / "loadgen"
REVIEWER = "rita"
LIMIT_S = 120  # any one loadgen command


@pytest.fixture(scope="module")
def loadgen() -> Path:
    subprocess.run(
        ["make", "--no-print-directory", "loadgen"],
        cwd=ROOT,
        check=True,
        capture_output=True,
        timeout=600,
    )
    built = subprocess.run(
        [LOADGEN, "upload", "--url", "http://127.0.0.1:9", "x.json"],
        capture_output=True,
        text=True,
        env={"BENCH_TOKEN": "x"},
        timeout=LIMIT_S,
    )
    assert "not built in" not in built.stderr, "make loadgen built no upload: libcurl missing"
    return LOADGEN


@pytest.fixture(scope="module")
def folder():
    # Not tmp_path: as root the server runs as an unprivileged user who must reach it.
    made = Path(tempfile.mkdtemp(prefix="bench-upload-"))
    made.chmod(0o755)
    yield made
    shutil.rmtree(made, ignore_errors=True)


@pytest.fixture(scope="module")
def site(folder):
    """The site on an ephemeral PostgreSQL: its environment and a reviewer's token file."""
    cluster = Cluster(folder / "pg", ephemeral=True)
    try:
        cluster.start()
        cluster.create_database("bench")
        env = {
            "DATABASE_URL": cluster.url(),
            "DJANGO_SECRET_KEY": secrets.token_urlsafe(50),
            "BENCH_STATIC_ROOT": str(folder / "static"),
        }
        prepare(env)
        token = subprocess.run(
            # A trusted reviewer: the first run of a drive the catalog did not know is
            # published, not held, and makes the reference the held test measures by.
            [sys.executable, "manage.py", "reviewer_token", REVIEWER, "--create", "--trusted"],
            cwd=ROOT,
            env=server_environment(env),
            capture_output=True,
            text=True,
            check=True,
            timeout=LIMIT_S,
        ).stdout.strip()
        token_file = folder / "token"
        token_file.write_text(token + "\n")
        yield env, cluster, token_file
    finally:
        cluster.stop()


def loadgen_run(loadgen, *args, env=None):
    return subprocess.run(
        [str(loadgen), *map(str, args)],
        capture_output=True,
        text=True,
        timeout=LIMIT_S,
        env=env or {"PATH": "/usr/bin:/bin"},
    )


def slow_down(result: dict, times: int) -> None:
    """A result `times` as slow as it was measured, and still plausible (results.plausibility):
    a `times`-th of the I/Os over the same time, each `times` as long (Little's law keeps the
    queue depth in flight), the slowest I/O no longer than the test and no farther from the
    fastest than the spread of fewer I/Os allows."""
    seconds = result["duration_ns"] / 1e9
    result["io_count"] //= times
    result["bytes"] = result["io_count"] * result["block_size"]
    result["iops"] = result["io_count"] / seconds
    result["bytes_per_second"] = result["bytes"] / seconds
    for figure in ("iops_stddev", "iops_min"):
        if result.get(figure) is not None:
            result[figure] /= times
    whole = result["duration_ns"]
    for block in ("latency_ns", "clat_ns"):  # the completion part within the whole latency
        latency = result.get(block)
        if not latency:
            continue
        latency.pop("histogram", None)  # of the I/Os measured, not of these
        for figure in ("mean", "stddev", "min", "max"):
            latency[figure] *= times
        widest = latency["stddev"] * math.sqrt(2 * result["io_count"])
        ceiling = int(min(latency["min"] + widest, whole) * 0.99)
        latency["max"] = whole = max(min(latency["max"], ceiling), math.ceil(latency["mean"]))
        latency["percentiles"] = {
            p: min(v * times, latency["max"]) for p, v in latency["percentiles"].items()
        }


def test_run_upload_then_again_then_with_the_server_down(loadgen, site, folder):
    env, cluster, token_file = site
    doc = folder / "run.json"
    target = folder / "target.bin"
    with AppServer(env=env, log=folder / "gunicorn.log", workers=1) as server:
        first = loadgen_run(
            loadgen, "run", "--target", target, "--size", "32M", "--quick",
            "--tests", "randread-4k-qd3,seqwrite-128k-qd1", "--output", doc, "--quiet",
            "--drive", "manufacturer=Upload,model=Round Trip",
            "--upload", server.url, "--token-file", token_file,
        )  # fmt: skip
        assert first.returncode == 0, first.stderr
        uploaded = re.fullmatch(rf"uploaded {re.escape(str(doc))}: (\S+)\n", first.stdout)
        assert uploaded, first.stdout
        page = uploaded[1]
        # The permalink is the site's: it serves the run there.
        with psycopg.connect(cluster.url()) as conn:
            (run_id, document), *others = conn.execute(
                "SELECT id, document FROM results_run WHERE submitter_id = "
                "(SELECT id FROM auth_user WHERE username = %s)",
                [REVIEWER],
            ).fetchall()
        assert not others and json.loads(document) == json.loads(doc.read_bytes())
        assert page.startswith(server.url) and str(run_id) in page, page
        served = subprocess.run(["curl", "-sSf", page], capture_output=True, timeout=30)
        assert served.returncode == 0
        html = served.stdout.decode()
        # The run's page: its figures, and the command that repeats it.
        sent = json.loads(doc.read_bytes())
        for result in sent["results"]:
            assert units.mbps(result["bytes_per_second"]) in html
        assert (
            "loadgen run --target bench-target.dat --size 32M "
            "--tests randread-4k-qd3,seqwrite-128k-qd1 --quick" in html
        )

        again = loadgen_run(
            loadgen, "upload", "--url", server.url + "/", doc,
            env={"BENCH_TOKEN": token_file.read_text().strip()},
        )  # fmt: skip
        assert again.returncode == 0, again.stderr
        assert again.stdout == f"already uploaded {doc}: {page}\n"

    # The server is stopped: retries until --retry-for runs out, then says so.
    kept = doc.read_bytes()
    t0 = time.monotonic()
    down = loadgen_run(
        loadgen, "upload", "--url", server.url, "--token-file", token_file,
        "--retry-for", "4", doc,
    )  # fmt: skip
    took = time.monotonic() - t0
    assert down.returncode == 1 and down.stdout == ""
    assert down.stderr.count("retrying in") >= 2, down.stderr
    assert f"{doc} was not uploaded" in down.stderr and "The document is kept" in down.stderr
    assert f"loadgen upload --url {server.url} {doc}" in down.stderr
    assert took < 30 and doc.read_bytes() == kept


def test_a_refused_document_prints_the_sites_pointers(loadgen, site, folder):
    env, _, token_file = site
    bad = folder / "bad.json"
    bad.write_text(json.dumps({"schema_version": 3, "status": "done", "results": []}))
    with AppServer(env=env, log=folder / "gunicorn-bad.log", workers=1) as server:
        refused = loadgen_run(
            loadgen, "upload", "--url", server.url, "--token-file", token_file, bad
        )
    assert refused.returncode == 1
    assert f"{bad} was refused (400)" in refused.stderr
    lines = refused.stderr.splitlines()
    assert "  /status: must be one of" in refused.stderr, refused.stderr
    assert f"  (document): {documents.MISSING_FIELD.format(field='source')}" in lines


def test_the_sites_warnings_are_printed(loadgen, site, folder):
    """A document measured by a loadgen older than its tests need is stored all the same, and
    loadgen prints what the site's answer warns (its `warnings`) on stderr; a document of
    this loadgen has nothing to be warned of."""
    env, _, token_file = site
    current, old = folder / "warned-current.json", folder / "warned-old.json"
    measured = loadgen_run(
        loadgen, "run", "--target", folder / "warned.bin", "--size", "16M", "--quick",
        "--tests", "randread-4k-qd3", "--output", current, "--quiet",
        "--drive", "manufacturer=Upload,model=Warned",
    )  # fmt: skip
    assert measured.returncode == 0, measured.stderr
    document = json.loads(current.read_text())
    document["tool"]["version"] = "0.0.9"
    old.write_text(json.dumps(document))
    with AppServer(env=env, log=folder / "gunicorn-warned.log", workers=1) as server:
        sent = loadgen_run(
            loadgen, "upload", "--url", server.url, "--token-file", token_file, old, current
        )
    assert sent.returncode == 0, sent.stderr
    lines = sent.stdout.splitlines()
    assert [line.split(":")[0] for line in lines] == [f"uploaded {old}", f"uploaded {current}"]
    (warned,) = [line for line in sent.stderr.splitlines() if "the site warns" in line]
    assert warned.startswith(
        "loadgen: the site warns: loadgen 0.0.9 is older than the tests randread-4k-qd3 need "
    ), sent.stderr
    assert "/bench/loadgen/" in warned


def test_a_token_on_the_command_line_or_none_at_all_is_refused(loadgen, folder):
    doc = folder / "any.json"
    doc.write_text("{}")
    given = loadgen_run(loadgen, "upload", "--url", "http://127.0.0.1:9", "--token", "abc", doc)
    assert given.returncode == 2 and "BENCH_TOKEN or --token-file" in given.stderr
    assert "abc" not in given.stderr
    none = loadgen_run(loadgen, "upload", "--url", "http://127.0.0.1:9", doc)
    assert none.returncode == 2 and "no API token" in none.stderr
    run = loadgen_run(
        loadgen, "run", "--target", folder / "t.bin", "--size", "16M", "--quick",
        "--tests", "randread-4k-qd3", "--output", folder / "never.json",
        "--upload", "http://127.0.0.1:9",
    )  # fmt: skip
    assert run.returncode == 2 and "nothing was run" in run.stderr
    assert not (folder / "never.json").exists() and not (folder / "t.bin").exists()


def test_a_held_upload_prints_the_link_that_opens_it_for_its_submitter(loadgen, site, folder):
    """loadgen prints the answer's run.page: for a run held for review, the link with the key
    that opens its page without a session (issue 43, item 7); the page without it is a 404."""
    env, _, token_file = site
    first, far = folder / "held-first.json", folder / "held-far.json"
    with AppServer(env=env, log=folder / "gunicorn-held.log", workers=1) as server:
        measured = loadgen_run(
            loadgen, "run", "--target", folder / "held.bin", "--size", "16M", "--quick",
            "--tests", "randread-4k-qd3", "--output", first, "--quiet",
            "--drive", "manufacturer=Upload,model=Held Back",
            "--upload", server.url, "--token-file", token_file,
        )  # fmt: skip
        assert measured.returncode == 0, measured.stderr
        # The same drive again, a twentieth as fast: far from its other run, held for review.
        document = json.loads(first.read_text())
        for result in document["results"]:
            slow_down(result, 20)
        far.write_text(json.dumps(document))
        held = loadgen_run(loadgen, "upload", "--url", server.url, "--token-file", token_file, far)
        assert held.returncode == 0, held.stderr
        printed = re.fullmatch(
            rf"uploaded {re.escape(str(far))}: (\S+) \(held for review\)\n", held.stdout
        )
        assert printed, held.stdout
        page = printed[1]
        assert page.startswith(server.url + "/bench/runs/") and "?key=" in page, page
        served = subprocess.run(["curl", "-sSf", "-D", "-", page], capture_output=True, timeout=30)
        assert served.returncode == 0, served.stderr
        answer = served.stdout.decode()
        assert "Held for review: not public." in answer
        assert "cache-control: private, no-store" in answer.lower()
        bare = page.split("?", 1)[0]
        status = subprocess.run(
            ["curl", "-sS", "-o", "/dev/null", "-w", "%{http_code}", bare],
            capture_output=True,
            text=True,
            timeout=30,
        )
        assert status.stdout == "404"


def test_run_upload_checks_the_token_before_any_io(loadgen, site, folder):
    """run --upload asks the site once whether it takes the token before it touches the target
    (issue 48, item 6): a refused token, an address that is no Bench site and a site that
    cannot be reached each stop it, saying which, with the target untouched, no document and
    no run; a good token proceeds."""
    env, cluster, token_file = site
    target = folder / "checked.bin"
    target.write_bytes(b"\xa5" * (1 << 20))
    before = (target.read_bytes(), target.stat().st_mtime_ns)
    doc = folder / "checked.json"
    bad = folder / "bad-token"
    bad.write_text(secrets.token_hex(32) + "\n")

    def run(url, tokens):
        return loadgen_run(
            loadgen, "run", "--target", target, "--size", "16M", "--force", "--quick",
            "--tests", "randread-4k-qd3", "--pattern", "incompressible", "--output", doc,
            "--drive", "manufacturer=Upload,model=Token Check",
            "--upload", url, "--token-file", tokens,
        )  # fmt: skip

    def runs_of_reviewer():
        with psycopg.connect(cluster.url()) as conn:
            return conn.execute(
                "SELECT count(*) FROM results_run WHERE submitter_id = "
                "(SELECT id FROM auth_user WHERE username = %s)",
                [REVIEWER],
            ).fetchone()[0]

    def refused_before_any_io(answer):
        assert answer.returncode == 2, answer.stderr
        assert answer.stdout == "" and "nothing was run" in answer.stderr, answer.stderr
        assert (target.read_bytes(), target.stat().st_mtime_ns) == before
        assert not doc.exists()
        assert not list(folder.glob("checked.json.tmp.*"))

    runs = runs_of_reviewer()
    with AppServer(env=env, log=folder / "gunicorn-check.log", workers=1) as server:
        refused = run(server.url, bad)
        refused_before_any_io(refused)
        assert f"{server.url} refused the token" in refused.stderr, refused.stderr
        assert "/api/v1/me/runs/?limit=1: 401" in refused.stderr
        assert bad.read_text().strip() not in refused.stderr

        elsewhere = run(server.url + "/no-site-here", token_file)
        refused_before_any_io(elsewhere)
        assert "did not accept the token" in elsewhere.stderr
        assert "answered 404" in elsewhere.stderr, elsewhere.stderr

        accepted = run(server.url, token_file)
        assert accepted.returncode == 0, accepted.stderr
        assert f"{server.url} accepts the token" in accepted.stderr
        assert accepted.stdout.splitlines()[-1].startswith(f"uploaded {doc}: ")
        assert runs_of_reviewer() == runs + 1

    doc.unlink()
    target.write_bytes(before[0])
    before = (target.read_bytes(), target.stat().st_mtime_ns)
    unreachable = run(server.url, token_file)  # the server is stopped
    refused_before_any_io(unreachable)
    assert f"cannot reach {server.url}" in unreachable.stderr, unreachable.stderr
    assert runs_of_reviewer() == runs + 1
