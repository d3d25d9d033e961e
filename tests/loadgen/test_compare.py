"""`loadgen run --compare` against the site itself, served by gunicorn on loopback: a quick run
of a drive is uploaded, then another quick run compares itself with that drive's page, and
prints under each result the run's figure, the site's (what its compare read gives, the
drive's group mean) and the difference, which is their ratio; a test the site has no figure
for is "not tested". With nothing to compare with (a closed port, an unknown drive, a URL
that is no drive page, the site's database down, a server that never answers) the run goes
to its end and says once why it compares with nothing, the wait bounded."""

import json
import re
import socket
import time
import urllib.request

import psycopg

from loadtests.appserver import AppServer
from tests.loadgen.test_upload import folder, loadgen, loadgen_run, site  # noqa: F401 - fixtures

COMPARED = re.compile(
    r"  vs (?P<drive>.+): this run (?P<mine>[\d.]+) MB/s, the site (?P<site>[\d.]+) MB/s "
    r"\((?P<how>[^)]*)\): (?P<diff>[+-][\d.]+)%"
)
NOTHING = "the run goes on and compares with nothing"
FETCH_LIMIT_S = 5  # loadgen's bound on the read (LG_COMPARE_TIMEOUT_S)


def rows_and_comparisons(stdout: str) -> dict[tuple[str, str], str]:
    """Each result row's (test, pattern) and the line under it."""
    lines = stdout.splitlines()
    found = {}
    for row, under in zip(lines, lines[1:], strict=False):
        fields = row.split()
        if len(fields) >= 3 and not row.startswith((" ", "test ")):
            found[(fields[0], fields[1])] = under
    return found


def quick_run(binary, directory, name, *args):
    return loadgen_run(
        binary, "run", "--target", directory / f"{name}.bin", "--size", "32M", "--quick",
        "--output", directory / f"{name}.json", *args,
    )  # fmt: skip


def test_a_run_beside_an_uploaded_drive(loadgen, site, folder):  # noqa: F811
    env, cluster, token_file = site
    with AppServer(env=env, log=folder / "gunicorn-compare.log", workers=1) as server:
        first = quick_run(
            loadgen, folder, "reference",
            "--tests", "randread-4k-qd3,seqwrite-128k-qd1", "--quiet",
            "--drive", "manufacturer=Compare,model=Reference Drive",
            "--upload", server.url, "--token-file", token_file,
        )  # fmt: skip
        assert first.returncode == 0, first.stderr
        run_id = int(re.search(r"/bench/runs/(\d+)/", first.stdout)[1])
        with psycopg.connect(cluster.url()) as conn:
            slug, name = conn.execute(
                "SELECT d.slug, d.model FROM drives_drive d JOIN results_run r "
                "ON r.drive_id = d.id WHERE r.id = %s",
                [run_id],
            ).fetchone()
        with urllib.request.urlopen(f"{server.url}/api/v1/compare/{slug}/{slug}/") as answer:
            comparison = json.load(answer)
        drive = comparison["a"]["drive"]["name"]
        reference = {
            (test["test"], pair["pattern"]): pair["a"]["bytes_per_second"]
            for test in comparison["tests"]
            for pair in test["patterns"]
        }
        # One run: the site's figure (its group's mean) is that run's result.
        uploaded = json.loads((folder / "reference.json").read_text())
        assert reference == {
            (r["test"], r["pattern"]): r["bytes_per_second"] for r in uploaded["results"]
        }

        page = f"{server.url}/drives/{slug}/"
        second = quick_run(
            loadgen, folder, "compared",
            "--tests", "randread-4k-qd3,seqwrite-128k-qd1,seqread-128k-qd1",
            "--compare", page,
        )  # fmt: skip
    assert second.returncode == 0, second.stderr
    assert f"loadgen: comparing with {drive} ({page}): 4 figures in 2 tests" in second.stderr
    assert NOTHING not in second.stderr
    compared = rows_and_comparisons(second.stdout)
    results = json.loads((folder / "compared.json").read_text())["results"]
    assert len(results) == 6 and set(compared) == {(r["test"], r["pattern"]) for r in results}
    for result in results:
        key = (result["test"], result["pattern"])
        under = compared[key]
        if key not in reference:
            assert result["test"] == "seqread-128k-qd1"
            assert under == f"  vs {drive}: not tested", under
            continue
        line = COMPARED.fullmatch(under)
        assert line, under
        mine, theirs = result["bytes_per_second"], reference[key]
        assert line["drive"] == drive and name in drive
        assert line["how"] == "quick run, loadgen, one run"
        assert abs(float(line["mine"]) - mine / 1e6) <= 0.05 + 1e-9
        assert abs(float(line["site"]) - theirs / 1e6) <= 0.05 + 1e-9
        # The difference is the figures' ratio.
        assert abs(float(line["diff"]) - (mine / theirs - 1) * 100) <= 0.05 + 1e-9, under


def nothing_to_compare_with(binary, directory, name, url):
    """A quick run compared with url: it goes to its end, says once why it compares with
    nothing and prints no comparison. Returns its stderr and how long it took."""
    t0 = time.monotonic()
    run = quick_run(
        binary, directory, name, "--tests", "randread-4k-qd3", "--pattern", "incompressible",
        "--compare", url,
    )  # fmt: skip
    took = time.monotonic() - t0
    assert run.returncode == 0, run.stderr
    assert run.stderr.count(NOTHING) == 1, run.stderr
    assert re.search(r"^randread-4k-qd3\s+incompressible\s", run.stdout, re.M), run.stdout
    assert " vs " not in run.stdout and "comparing with" not in run.stderr
    document = json.loads((directory / f"{name}.json").read_text())
    assert document["status"] == "complete" and len(document["results"]) == 1
    return run.stderr, took


def test_nothing_to_compare_with(loadgen, site, folder):  # noqa: F811
    env, cluster, _ = site
    with socket.socket() as closed:
        closed.bind(("127.0.0.1", 0))
        port = closed.getsockname()[1]  # bound, never listening: the connection is refused
        why, _ = nothing_to_compare_with(
            loadgen, folder, "closed", f"http://127.0.0.1:{port}/drives/any/"
        )
    assert f"--compare: http://127.0.0.1:{port}/api/v1/compare/any/any/: " in why, why

    why, _ = nothing_to_compare_with(loadgen, folder, "not-a-page", "https://bench/compare/")
    assert "https://bench/compare/ is not a drive's page on a Bench site" in why, why

    with AppServer(env=env, log=folder / "gunicorn-nothing.log", workers=1) as server:
        why, _ = nothing_to_compare_with(
            loadgen, folder, "unknown", f"{server.url}/drives/no-such-drive/"
        )
        assert f'the site {server.url} has no drive "no-such-drive" (404)' in why, why

        cluster.stop()  # the site's database gone: the site answers with a server error
        try:
            why, _ = nothing_to_compare_with(
                loadgen, folder, "server-error", f"{server.url}/drives/any-drive/"
            )
        finally:
            cluster.start()
        assert re.search(r"/api/v1/compare/any-drive/any-drive/ answered 5\d\d", why), why


def test_a_site_that_never_answers_costs_the_bound_at_most(loadgen, folder):  # noqa: F811
    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen()  # the kernel accepts the connection; nobody ever answers
        port = silent.getsockname()[1]
        why, took = nothing_to_compare_with(
            loadgen, folder, "silent", f"http://127.0.0.1:{port}/drives/any/"
        )
    assert "Timeout was reached" in why, why
    # The bound, the quick run (fill and 2 s), and the start of a process.
    assert FETCH_LIMIT_S <= took < FETCH_LIMIT_S + 20, took
