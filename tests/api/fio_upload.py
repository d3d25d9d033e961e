"""The fio output the API tests upload, and the drive it measured: one place for the
schemathesis hooks (which schemathesis.toml loads by path, so no test imports them) and the
tests that upload it themselves."""

from pathlib import Path

FIO_OUTPUT = Path(__file__).resolve().parents[1] / "results" / "fio" / "fio-3.41-standard.json"
# The drive fio-3.41-standard.json measured (tests/results/fio/README.md): a 16 MiB file.
FIO_DRIVE = {
    "manufacturer": "Linux",
    "model": "16 MiB file on ext4",
    "kind": "virtual",
    "interface": "other",
}
