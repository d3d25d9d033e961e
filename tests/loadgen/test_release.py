"""A release of loadgen (`make loadgen-dist`, loadgen/release.py; issue 47): one real build
(about 25 s: meson dist, then the package built from the tarball), its files checked as a
reviewer would check them, and served at /bench/loadgen/ with its three lines; the page
without a release."""

import hashlib
import importlib.util
import json
import re
import shutil
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest
from django.test import override_settings

from results import loadgen
from tests.loadgen.test_interrupted_run import ROOT

PAGE = "/bench/loadgen/"


def _release_module():
    spec = importlib.util.spec_from_file_location("loadgen_release", ROOT / "loadgen/release.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def store(tmp_path_factory) -> Path:
    """A store with the release of this tree's version, built as `make loadgen-dist` builds
    it (the tarball is the commit's, so a tree being edited is allowed)."""
    out = tmp_path_factory.mktemp("loadgen-dist")
    done = subprocess.run(
        [sys.executable, str(ROOT / "loadgen/release.py"), "--out", str(out), "--allow-dirty"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr
    return out


@pytest.fixture(scope="module")
def release(store) -> Path:
    return store / loadgen.expected_version()


def _manifest(release: Path) -> dict:
    return json.loads((release / "manifest.json").read_text())


def _file(release: Path, kind: str) -> Path:
    (name,) = [f["name"] for f in _manifest(release)["files"] if f["kind"] == kind]
    return release / name


def test_make_loadgen_dist_runs_the_release_script():
    dry = subprocess.run(
        ["make", "-n", "-o", ".venv/.installed", "loadgen-dist", "LOADGEN_DIST=/tmp/x"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert re.search(r"python loadgen/release\.py --out /tmp/x\s*$", dry.stdout, re.M), dry


def test_every_file_has_its_sha256_and_the_manifest_says_them(release):
    manifest = _manifest(release)
    assert manifest["version"] == loadgen.expected_version() == release.name
    assert {f["kind"] for f in manifest["files"]} == {"source", "deb"}
    for entry in manifest["files"]:
        path = release / entry["name"]
        digest = hashlib.sha256(path.read_bytes()).hexdigest()
        assert (entry["sha256"], entry["bytes"]) == (digest, path.stat().st_size)
        checked = subprocess.run(
            ["sha256sum", "-c", f"{entry['name']}.sha256"], cwd=release, capture_output=True
        )
        assert checked.returncode == 0, checked
    assert sorted(p.name for p in release.iterdir()) == sorted(
        [
            *(f["name"] for f in manifest["files"]),
            *(f"{f['name']}.sha256" for f in manifest["files"]),
            "manifest.json",
        ]  # fmt: skip
    )
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True, text=True)
    assert manifest["commit"] == head.stdout.strip()


def test_the_tarball_is_the_loadgen_source_of_its_version(release):
    version = loadgen.expected_version()
    tarball = _file(release, "source")
    assert tarball.name == f"loadgen-{version}.tar.xz"
    with tarfile.open(tarball) as t:
        names = set(t.getnames())
        meson = t.extractfile(f"loadgen-{version}/meson.build").read().decode()
    assert {f"loadgen-{version}/src/main.c", f"loadgen-{version}/README.md"} <= names
    assert f"version : '{version}'" in meson


def test_the_deb_installs_loadgen_and_its_man_page_and_names_its_version(release, tmp_path):
    version = loadgen.expected_version()
    deb = _file(release, "deb")
    arch = subprocess.run(["dpkg", "--print-architecture"], capture_output=True, text=True)
    assert deb.name == f"bench-loadgen_{version}_{arch.stdout.strip()}.deb"

    def field(name: str) -> str:
        done = subprocess.run(["dpkg-deb", "--field", str(deb), name], capture_output=True)
        return done.stdout.decode().strip()

    assert field("Package") == "bench-loadgen"
    assert field("Version") == version
    assert field("Architecture") == arch.stdout.strip()
    assert re.search(r"\blibc6 \(>= ", field("Depends")) and "libcurl" in field("Depends")
    listed = subprocess.run(["dpkg-deb", "-c", str(deb)], capture_output=True, text=True).stdout
    paths = {line.split()[-1] for line in listed.splitlines()}
    assert {"./usr/bin/loadgen", "./usr/share/man/man1/loadgen.1.gz"} <= paths
    # The binary it installs names the release, and so does the document it writes.
    subprocess.run(["dpkg-deb", "-x", str(deb), str(tmp_path / "root")], check=True)
    binary = tmp_path / "root/usr/bin/loadgen"
    said = subprocess.run([binary, "--version"], capture_output=True, text=True)
    assert said.stdout.strip() == f"loadgen {version}"
    plan = subprocess.run(
        [binary, "run", "--plan", "--target", tmp_path / "t.bin", "--size", "64M", "--tests",
         "randread-4k-qd3", "--drive", "manufacturer=Generic,model=Release test"],
        capture_output=True, text=True,
    )  # fmt: skip
    assert json.loads(plan.stdout)["tool"]["version"] == version


def test_a_release_is_never_built_again(store):
    module = _release_module()
    before = sorted(p.name for p in (store / loadgen.expected_version()).iterdir())
    with pytest.raises(module.ReleaseError, match="is built already"):
        module.release(store, allow_dirty=True)
    assert sorted(p.name for p in (store / loadgen.expected_version()).iterdir()) == before
    assert [p.name for p in store.iterdir()] == [loadgen.expected_version()]  # no leftovers


# -- the page ----------------------------------------------------------------------------------
@pytest.mark.django_db
def test_the_page_offers_the_release_with_its_three_lines(client, store, release):
    with override_settings(BENCH_LOADGEN_DIST_DIR=store):
        response = client.get(PAGE)
    assert response.status_code == 200
    html = response.content.decode()
    version = loadgen.expected_version()
    deb, tarball = _file(release, "deb"), _file(release, "source")
    for path in (deb, tarball):
        digest = hashlib.sha256(path.read_bytes()).hexdigest()
        assert digest in html and f"{path.stat().st_size:,}" in html
        assert f'href="/bench/loadgen/{version}/{path.name}"' in html
    assert f"curl -fLO http://testserver/bench/loadgen/{version}/{deb.name}" in html
    assert f"sudo apt install ./{deb.name}" in html
    assert "--upload http://testserver" in html and "BENCH_TOKEN" in html
    assert "make reviewer NAME=" in html  # where the token comes from
    assert f"loadgen {version}" in html
    assert "no-cache" in response["Cache-Control"]  # the folder, not the database: not kept


@pytest.mark.django_db
def test_the_release_files_are_served_immutable(client, store, release):
    version = loadgen.expected_version()
    deb = _file(release, "deb")
    with override_settings(BENCH_LOADGEN_DIST_DIR=store):
        response = client.get(f"{PAGE}{version}/{deb.name}")
        assert response.status_code == 200
        assert b"".join(response.streaming_content) == deb.read_bytes()
        assert response["Content-Type"] == "application/vnd.debian.binary-package"
        assert response["ETag"] == f'"{hashlib.sha256(deb.read_bytes()).hexdigest()}"'
        assert "immutable" in response["Cache-Control"]
        assert "attachment" in response["Content-Disposition"]
        checksum = client.get(f"{PAGE}{version}/{deb.name}.sha256")
        assert checksum.status_code == 200 and checksum["Content-Type"].startswith("text/plain")
        assert b"".join(checksum.streaming_content).decode().endswith(f"  {deb.name}\n")
        manifest = client.get(f"{PAGE}{version}/manifest.json")
        assert json.loads(b"".join(manifest.streaming_content))["version"] == version
        for missing in (
            f"{PAGE}{version}/other.deb",  # not the release's
            f"{PAGE}{version}/..%2Fmanifest.json",
            f"{PAGE}9.9.9/{deb.name}",  # no such release
            f"{PAGE}latest/{deb.name}",  # not a version: no such address
        ):
            assert client.get(missing).status_code == 404, missing


@pytest.mark.django_db
def test_without_a_release_the_page_says_how_to_build_one(client, tmp_path):
    with override_settings(BENCH_LOADGEN_DIST_DIR=tmp_path / "none"):
        response = client.get(PAGE)
    assert response.status_code == 200
    html = response.content.decode()
    assert "No release built yet" in html and "make loadgen-dist" in html
    assert "--upload http://testserver" in html  # built from the source, run the same way


@pytest.mark.django_db
def test_a_folder_that_holds_no_release_is_no_release(client, tmp_path):
    """A manifest that is not one release.py wrote (cut short, another version's) is not
    offered: the page says there is no release, and its files are not served."""
    version = loadgen.expected_version()
    folder = tmp_path / version
    folder.mkdir()
    (folder / "loadgen.tar.xz").write_bytes(b"x")
    with override_settings(BENCH_LOADGEN_DIST_DIR=tmp_path):
        for manifest in ("{", json.dumps({"version": "0.0.1", "files": []})):
            (folder / "manifest.json").write_text(manifest)
            loadgen._read.cache_clear()
            assert "No release built yet" in client.get(PAGE).content.decode()
            assert client.get(f"{PAGE}{version}/loadgen.tar.xz").status_code == 404


def test_no_stray_build_tools_were_needed():
    """What the release runs is installed by `make release-deps` (RELEASE_TOOLS)."""
    for tool in ("dpkg-deb", "dpkg-shlibdeps", "xz", "git"):
        assert shutil.which(tool), tool
