#!/usr/bin/env python3
"""End-to-end smoke test of the loadgen binary on small files: short runs of an
ad-hoc test and of both suites, the documents they write (validated against the
schema), the exit codes of a usage error, a safety refusal and Ctrl-C.

usage: cli_smoke.py LOADGEN VALIDATOR SCHEMA
"""

import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print(f"FAIL: {what}", file=sys.stderr)


def load_json(path):
    with open(path) as f:
        return json.load(f)


def validate(validator, schema, path):
    r = subprocess.run([sys.executable, validator, schema, path])
    if r.returncode == 77:
        return None
    check(r.returncode == 0, f"{path} validates against the schema")
    return r.returncode == 0


def options_in(text):
    return set(re.findall(r"(?<![\w-])--[a-z][a-z-]*[a-z]", text))


def check_help(loadgen, schema):
    """--help is built from the option table; the documented contract must name the same
    options, no more, no fewer."""
    r = subprocess.run([loadgen, "--help"], capture_output=True, text=True)
    check(r.returncode == 0 and r.stdout.rstrip().endswith("without the document)."), "whole help")
    doc = Path(schema).resolve().parents[2] / "docs" / "loadgen-cli.md"
    in_help, in_doc = options_in(r.stdout), options_in(doc.read_text())
    check(in_help == in_doc, f"--help and {doc.name} differ: {sorted(in_help ^ in_doc)}")


def main():
    loadgen, validator, schema = sys.argv[1:4]
    check_help(loadgen, schema)
    with tempfile.TemporaryDirectory(dir=".") as tmp:
        target = os.path.join(tmp, "target.bin")
        doc = os.path.join(tmp, "adhoc.json")

        # usage error
        r = subprocess.run([loadgen, "run", "--target", target], capture_output=True, text=True)
        check(r.returncode == 2, f"no test selection is a usage error (got {r.returncode})")
        r = subprocess.run(
            [
                loadgen,
                "run",
                "--target",
                target,
                "--rw",
                "randwrite",
                "--time",
                "1",
                "--output",
                doc,
            ],
            capture_output=True,
            text=True,
        )
        check(r.returncode == 2 and "--size" in r.stderr, "a missing file needs --size")

        # a blank provenance value, which the schema would reject, is refused up front
        blank = os.path.join(tmp, "blank.json")
        r = subprocess.run(
            [loadgen, "run", "--target", target, "--size", "16M", "--rw", "randwrite"]
            + ["--time", "0.3", "--output", blank, "--drive", "manufacturer= ,model=X"],
            capture_output=True,
            text=True,
        )
        check(
            r.returncode == 2 and "manufacturer" in r.stderr and "blank" in r.stderr,
            f"a blank --drive manufacturer is a usage error (got {r.returncode}: {r.stderr})",
        )
        check(not os.path.exists(blank) and not os.path.exists(target), "nothing written")

        # ad-hoc random write, both patterns
        r = subprocess.run(
            [
                loadgen,
                "run",
                "--target",
                target,
                "--size",
                "16M",
                "--rw",
                "randwrite",
                "--bs",
                "4k",
                "--qd",
                "8",
                "--time",
                "0.3",
                "--seed",
                "42",
                "--output",
                doc,
                "--drive",
                " manufacturer = Test , model = Smoke ",
                "--bench",
                "cpu= Some CPU ",
            ],
            capture_output=True,
            text=True,
        )
        check(r.returncode == 0, f"ad-hoc run exits 0 (got {r.returncode}: {r.stderr})")
        check("adhoc-randwrite-4k-qd8" in r.stdout, "the table shows the test")
        d = load_json(doc)
        check(d["status"] == "complete", "status complete")
        check(
            (d["drive"]["manufacturer"], d["drive"]["model"], d["bench"]["cpu"])
            == ("Test", "Smoke", "Some CPU"),
            f"provenance values trimmed (got {d['drive']}, {d['bench']})",
        )
        check(
            d["parameters"]["ad_hoc"] is True and d["parameters"]["seed"] == 42,
            "ad hoc and seed recorded",
        )
        check(
            [x["pattern"] for x in d["results"]] == ["compressible", "incompressible"],
            "one result per pattern",
        )
        for x in d["results"]:
            check(
                x["io_count"] > 0 and x["bytes"] == x["io_count"] * 4096, "bytes = io_count * 4096"
            )
            check(x["span_bytes"] == 16 << 20, "span clamped to the file")
            check(
                set(x["latency_ns"]["percentiles"])
                == {"1", "5", "10", "25", "50", "75", "90", "95", "99", "99.9", "99.99"},
                "every percentile",
            )
        validate(validator, schema, doc)

        # the file loadgen created may be written again without --force
        doc2 = os.path.join(tmp, "suite.json")
        r = subprocess.run(
            [
                loadgen,
                "run",
                "--target",
                target,
                "--suite",
                "desktop-2011",
                "--duration-scale",
                "0.002",
                "--output",
                doc2,
                "--quiet",
            ],
            capture_output=True,
            text=True,
        )
        check(r.returncode == 0, f"desktop-2011 short run exits 0 (got {r.returncode}: {r.stderr})")
        d = load_json(doc2)
        check(d["parameters"]["suite"] == {"name": "desktop-2011", "version": 1}, "suite recorded")
        check(len(d["results"]) == 10, "5 tests x 2 patterns")
        validate(validator, schema, doc2)

        doc3 = os.path.join(tmp, "steady.json")
        r = subprocess.run(
            [
                loadgen,
                "run",
                "--target",
                target,
                "--suite",
                "steady-state-2013",
                "--duration-scale",
                "0.001",
                "--output",
                doc3,
                "--quiet",
            ],
            capture_output=True,
            text=True,
        )
        check(
            r.returncode == 0,
            f"steady-state-2013 short run exits 0 (got {r.returncode}: {r.stderr})",
        )
        d = load_json(doc3)
        check(
            [c["spare_area_percent"] for c in d.get("consistency", [])] == [0, 25],
            "two spare-area levels",
        )
        for c in d.get("consistency", []):
            check(len(c["iops"]) == 2, f"2 s of consistency give 2 points (got {len(c['iops'])})")
        check(
            len(d.get("trim", [])) == 1 and d["trim"][0]["discard_method"] == "punch-hole",
            "TRIM on a file punches holes",
        )
        validate(validator, schema, doc3)

        # an existing file loadgen did not create is refused (exit 3), nothing written
        plain = os.path.join(tmp, "plain.bin")
        with open(plain, "wb") as f:
            f.write(b"keep me" * 100000)
        before = Path(plain).read_bytes()
        doc4 = os.path.join(tmp, "refused.json")
        r = subprocess.run(
            [
                loadgen,
                "run",
                "--target",
                plain,
                "--rw",
                "write",
                "--bs",
                "128k",
                "--time",
                "0.2",
                "--output",
                doc4,
            ],
            capture_output=True,
            text=True,
        )
        check(r.returncode == 3, f"refusal exits 3 (got {r.returncode})")
        check(
            f"{plain} exists" in r.stderr and "--force" in r.stderr,
            f"the refusal names the file and --force:\n{r.stderr}",
        )
        check(not os.path.exists(doc4), "no document on refusal")
        check(Path(plain).read_bytes() == before, "the file is untouched")

        # Ctrl-C: exit 130 and a valid document marked incomplete
        doc5 = os.path.join(tmp, "interrupted.json")
        p = subprocess.Popen(
            [
                loadgen,
                "run",
                "--target",
                target,
                "--rw",
                "randread",
                "--bs",
                "4k",
                "--qd",
                "4",
                "--time",
                "30",
                "--output",
                doc5,
                "--quiet",
            ]
        )
        time.sleep(1.5)
        p.send_signal(signal.SIGINT)
        code = p.wait(timeout=20)
        check(code == 130, f"SIGINT exits 130 (got {code})")
        d = load_json(doc5)
        check(d["status"] == "incomplete", "status incomplete")
        validate(validator, schema, doc5)

    if failures:
        print(f"{len(failures)} check(s) failed", file=sys.stderr)
        return 1
    print("cli smoke: all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
