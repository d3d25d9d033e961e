"""tests/fresh_machine.sh's copy of the host's extra CA certificates into a minbase Debian
root, which has no /usr/local/share/ca-certificates (issue 48, item 12): the function alone,
sourced from the script, on folders of this test's own."""

import subprocess

from tests.site.support import ROOT

SCRIPT = ROOT / "tests" / "fresh_machine.sh"


def copy(source, root) -> subprocess.CompletedProcess:
    return subprocess.run(
        ["bash", "-c", 'source "$0" && copy_host_ca_certificates "$1" "$2"', SCRIPT, source, root],
        capture_output=True,
        text=True,
        timeout=30,
    )


def test_certificates_reach_a_root_without_the_folder(tmp_path):
    host = tmp_path / "host"
    (host / "proxy").mkdir(parents=True)
    (host / "egress.crt").write_text("EGRESS\n")
    (host / "proxy" / "corp ca.crt").write_text("CORP\n")
    (host / "README").write_text("not a certificate\n")
    (host / "linked.crt").symlink_to(host / "egress.crt")
    root = tmp_path / "root"
    (root / "usr").mkdir(parents=True)  # a minbase root: no usr/local/share/ca-certificates

    done = copy(host, root)
    assert done.returncode == 0, done.stderr
    copied = root / "usr" / "local" / "share" / "ca-certificates"
    assert sorted(p.relative_to(copied).as_posix() for p in copied.rglob("*") if p.is_file()) == [
        "egress.crt",
        "linked.crt",
        "proxy/corp ca.crt",
    ]
    assert (copied / "proxy" / "corp ca.crt").read_text() == "CORP\n"
    assert not (copied / "linked.crt").is_symlink()


def test_no_certificates_change_nothing(tmp_path):
    root = tmp_path / "root"
    root.mkdir()
    for host in (tmp_path / "missing", tmp_path / "empty"):
        if host.name == "empty":
            host.mkdir()
        done = copy(host, root)
        assert done.returncode == 0, done.stderr
    assert list(root.iterdir()) == []


def test_sourcing_the_script_runs_nothing_else(tmp_path):
    # Sourced, it stops after its functions: no root check, no debootstrap, no chroot.
    done = subprocess.run(
        ["bash", "-c", 'source "$0"; echo sourced', SCRIPT],
        capture_output=True,
        text=True,
        timeout=30,
        cwd=tmp_path,
    )
    assert done.returncode == 0 and done.stdout == "sourced\n", done.stderr
