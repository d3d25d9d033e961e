#!/usr/bin/env python3
"""`loadgen list --json` must describe exactly the tests and suites of catalog.json.

Only the tests loadgen produces: catalog tests of another tool's method (produced_by,
e.g. AS-SSD for published figures) are not loadgen's to run. A suite's loadgen_min (the
oldest loadgen that runs it) is the site's, not loadgen's: loadgen does not list it, but
its own version (`loadgen --version`) must be at least every suite's loadgen_min.

usage: compare_catalog.py LOADGEN CATALOG_JSON
"""

import json
import re
import subprocess
import sys


def release(text: str) -> tuple[int, ...]:
    return tuple(int(part) for part in re.fullmatch(r"(\d+)\.(\d+)\.(\d+)", text).groups())


def main() -> int:
    loadgen, catalog_path = sys.argv[1], sys.argv[2]
    out = subprocess.run([loadgen, "list", "--json"], check=True, capture_output=True, text=True)
    built_in = json.loads(out.stdout)
    with open(catalog_path, encoding="utf-8") as f:
        catalog = json.load(f)
    catalog["tests"] = [
        {key: value for key, value in test.items() if key != "produced_by"}
        for test in catalog.get("tests", [])
        if test["produced_by"] == "loadgen"
    ]
    ok = True
    version = subprocess.run(
        [loadgen, "--version"], check=True, capture_output=True, text=True
    ).stdout.split()[-1]
    for suite in catalog.get("suites", []):
        needs = suite.pop("loadgen_min")
        if release(version) < release(needs):
            ok = False
            print(
                f"suites/{suite['name']}:{suite['version']} needs loadgen {needs}:"
                f" this loadgen is {version} (raise its version in meson.build)",
                file=sys.stderr,
            )
    for key in ("tests", "suites"):
        if built_in.get(key) != catalog.get(key):
            ok = False
            want = {item.get("id", item.get("name")): item for item in catalog.get(key, [])}
            have = {item.get("id", item.get("name")): item for item in built_in.get(key, [])}
            for name in sorted(set(want) | set(have)):
                if want.get(name) != have.get(name):
                    print(
                        f"{key}/{name}: catalog.json {want.get(name)!r}"
                        f" != loadgen {have.get(name)!r}",
                        file=sys.stderr,
                    )
            if list(want) != list(have):
                print(f"{key}: order differs: {list(want)} != {list(have)}", file=sys.stderr)
    extra = set(built_in) - {"tests", "suites"}
    if extra:
        ok = False
        print(f"unexpected members in loadgen list --json: {sorted(extra)}", file=sys.stderr)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
