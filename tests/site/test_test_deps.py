"""`make test` on a fresh machine: one target (test-deps) installs every program the tests
run, before anything needs one, and CI runs nothing but the README's test command."""

import os
import re
import stat
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
MAKEFILE = (ROOT / "Makefile").read_text()
# A test's way of saying it runs a program: shutil.which("x"), or loadgen's require_tool("x").
NEEDS = re.compile(r"""(?:shutil\.which|require_tool)\(\s*["']([\w.+-]+)["']""")


def _make_variable(name: str) -> str:
    """A variable's value, the variables it names ($(OTHER)) expanded."""
    joined = MAKEFILE.replace("\\\n", " ")
    value = re.search(rf"^{name}\s*[:?]?=\s*(.*)$", joined, re.MULTILINE)[1]
    return re.sub(r"\$\((\w+)\)", lambda m: _make_variable(m[1]), value)


def _listed_tools() -> dict[str, str]:
    """TEST_TOOLS: command -> the Debian package that has it."""
    return dict(pair.split(":") for pair in _make_variable("TEST_TOOLS").split())


def test_every_program_a_test_runs_is_installed_by_test_deps():
    listed = _listed_tools()
    sources = [*(ROOT / "tests").rglob("*.py"), *(ROOT / "loadgen" / "tests").rglob("*.py")]
    wanted = {
        name
        for path in sources
        if path != Path(__file__)  # this file names the patterns
        for name in NEEDS.findall(path.read_text())
    }
    assert {"qemu-system-x86_64", "dmsetup", "fio", "redis-server"} <= wanted  # found them
    assert wanted - set(listed) == set()
    # What the Makefile's own test targets run: clang-format (lint), loop devices (loadgen).
    assert _make_variable("CLANG_FORMAT").split()[0] in listed
    assert {"losetup", "chromium", "wrk", "nginx", "curl"} <= set(listed)
    # loadgen's upload links libcurl: its development files, found by their curl-config.
    assert listed["curl-config"] == "libcurl4-openssl-dev"


def test_make_test_installs_first_and_ci_runs_only_the_readme_command():
    prerequisites = re.search(r"^test:(.*)$", MAKEFILE, re.MULTILINE)[1].split()
    assert prerequisites[0] == "test-deps"  # before lint, which needs clang-format
    commands = [
        line.strip()
        for line in (ROOT / ".ci" / "run").read_text().splitlines()
        if line.strip() and not line.lstrip().startswith("#")
    ]
    assert commands[-1] == "exec make test"
    assert not any("apt-get" in c or "install" in c for c in commands)
    assert "make test" in (ROOT / "README.md").read_text()


def test_test_deps_names_every_missing_package(tmp_path):
    """Without root or apt-get it stops and says what to install, each package once; the
    same list it would install."""
    fake_id = tmp_path / "id"
    fake_id.write_text("#!/bin/sh\necho 1000\n")
    fake_id.chmod(fake_id.stat().st_mode | stat.S_IEXEC)
    done = subprocess.run(
        ["make", "-s", "--no-print-directory", "test-deps"],
        cwd=ROOT,
        env={**os.environ, "PATH": str(tmp_path)},
        capture_output=True,
        text=True,
        executable="/usr/bin/make",
    )
    assert done.returncode != 0
    (said,) = re.findall(r"the tests need:(.*) \(apt-get install", done.stderr)
    packages = said.split()
    assert len(packages) == len(set(packages))
    in_sbin = {
        c for c in _listed_tools() if any(Path(d, c).exists() for d in ("/sbin", "/usr/sbin"))
    }
    expected = {pkg for cmd, pkg in _listed_tools().items() if cmd not in in_sbin}
    assert expected <= set(packages) <= set(_listed_tools().values())
    assert {"clang-format", "qemu-system-x86", "curl", "chromium"} <= set(packages)


@pytest.mark.parametrize(
    ("shape", "named"),
    [("", {"wrk"}), ("deployed", {"wrk", "redis-server", "openssl"})],
)
def test_bench_load_deps_names_what_its_shape_runs(tmp_path, shape, named):
    """make bench-load installs the programs its shape runs (nginx, Redis and openssl for
    the deployed one) or, without root, names them (nginx, in /usr/sbin, is found off PATH)."""
    fake_id = tmp_path / "id"
    fake_id.write_text("#!/bin/sh\necho 1000\n")
    fake_id.chmod(fake_id.stat().st_mode | stat.S_IEXEC)
    done = subprocess.run(
        ["make", "-s", "--no-print-directory", "bench-load-deps", f"SHAPE={shape}"],
        cwd=ROOT,
        env={**os.environ, "PATH": str(tmp_path)},
        capture_output=True,
        text=True,
        executable="/usr/bin/make",
    )
    assert done.returncode != 0
    (said,) = re.findall(r"make bench-load needs:(.*) \(apt-get install", done.stderr)
    in_sbin = any(Path(d, "nginx").exists() for d in ("/sbin", "/usr/sbin"))
    assert set(said.split()) == named | ({"nginx"} if shape and not in_sbin else set())
