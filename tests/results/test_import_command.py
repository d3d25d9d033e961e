import json
from io import StringIO
from pathlib import Path

import pytest
from django.conf import settings
from django.core.management import CommandError, call_command
from django.db import connection

from drives.models import Drive
from results.models import Run
from results.synthetic import measured_document

pytestmark = pytest.mark.django_db

DEMO_RUNS = Path(settings.BASE_DIR) / "demo" / "runs"


def import_results(*args):
    out, err = StringIO(), StringIO()
    try:
        call_command("import_results", *map(str, args), stdout=out, stderr=err)
    except CommandError as exc:
        return out.getvalue(), err.getvalue(), exc
    return out.getvalue(), err.getvalue(), None


# Files that crashed the import before: now each is a rejection at a pointer.
FORMERLY_CRASHING = {
    "nul.json": ("/drive/model", lambda d: d["drive"].update(model="Model\u0000X")),
    "surrogate.json": ("/drive/firmware", lambda d: d["drive"].update(firmware="\ud800")),
    "bigint.json": ("/results/0/io_count", lambda d: d["results"][0].update(io_count=2**63)),
    "capacity.json": ("/drive/capacity_bytes", lambda d: d["drive"].update(capacity_bytes=2**64)),
    "year-zero.json": ("/started_at", lambda d: d.update(started_at="0000-01-01T00:00:00Z")),
    "name-length.json": (
        "/drive/manufacturer",
        lambda d: d["drive"].update(manufacturer="M" * 201),
    ),
}
# A fault the document cannot cause: the database refuses the drive's row.
CRASH_TRIGGER = """
    CREATE FUNCTION refuse_crash_me() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        IF NEW.model = 'Crash Me' THEN RAISE EXCEPTION 'refused by a test trigger'; END IF;
        RETURN NEW;
    END $$;
    CREATE TRIGGER refuse_crash_me BEFORE INSERT ON drives_drive
        FOR EACH ROW EXECUTE FUNCTION refuse_crash_me();
"""


def test_folder_mixing_good_bad_and_crashing_files_imports_every_good_one(tmp_path):
    with connection.cursor() as cursor:
        cursor.execute(CRASH_TRIGGER)
    (tmp_path / "a-crash.json").write_text(json.dumps(measured_document(model="Crash Me")))
    (tmp_path / "b-good.json").write_text(json.dumps(measured_document(seed=1)))
    (tmp_path / "nested").mkdir()
    (tmp_path / "nested" / "c-good.json").write_text(json.dumps(measured_document(seed=2)))
    broken = measured_document(seed=3)
    broken["results"][0]["test"] = "no-such-test"
    (tmp_path / "d-unknown-test.json").write_text(json.dumps(broken))
    (tmp_path / "e-not-json.json").write_text("{not json")
    (tmp_path / "f-binary.json").write_bytes(b"\x89PNG\r\n\x1a\n\x00\xff")
    for seed, (name, (_, mutate)) in enumerate(sorted(FORMERLY_CRASHING.items()), start=10):
        document = measured_document(seed=seed)
        mutate(document)
        (tmp_path / f"g-{name}").write_text(json.dumps(document))
    (tmp_path / "z-good.json").write_text(json.dumps(measured_document(seed=4)))
    (tmp_path / "notes.txt").write_text("ignored")
    files = 7 + len(FORMERLY_CRASHING)
    rejected = 3 + len(FORMERLY_CRASHING)

    out, err, error = import_results(tmp_path)

    assert f"{files} file(s): 3 imported, 0 already present, {rejected} rejected, 1 failed" in out
    assert error is not None and error.returncode == 1
    assert str(error) == f"{rejected + 1} file(s) not imported: {rejected} rejected, 1 failed"
    assert Run.objects.count() == 3
    assert not Drive.objects.filter(model="Crash Me").exists()
    assert (
        f"{tmp_path / 'a-crash.json'}: failed, nothing written: ProgrammingError: "
        "refused by a test trigger" in err
    )
    assert "Traceback" not in err
    assert f"{tmp_path / 'd-unknown-test.json'}: rejected\n" in err
    assert '  /results/0/test: unknown test id "no-such-test"\n' in err
    assert f"{tmp_path / 'e-not-json.json'}: rejected\n" in err
    assert f"{tmp_path / 'f-binary.json'}: rejected\n  /: the document is not UTF-8 text" in err
    for name, (where, _) in FORMERLY_CRASHING.items():
        assert f"{tmp_path / f'g-{name}'}: rejected\n  {where}: " in err, name


def test_a_failure_shows_its_traceback_at_verbosity_3(tmp_path):
    with connection.cursor() as cursor:
        cursor.execute(CRASH_TRIGGER)
    (tmp_path / "crash.json").write_text(json.dumps(measured_document(model="Crash Me")))
    _, err, error = import_results(tmp_path, "-v", "3")
    assert error is not None and "Traceback" in err and "refused by a test trigger" in err


def test_importing_again_changes_nothing():
    out, _, error = import_results(DEMO_RUNS)
    count = Run.objects.count()
    assert error is None and count == len(list(DEMO_RUNS.glob("*.json")))
    out, _, error = import_results(DEMO_RUNS)
    assert error is None
    assert f"0 imported, {count} already present, 0 rejected, 0 failed" in out
    assert Run.objects.count() == count


def test_missing_path_is_an_error(tmp_path):
    _, _, error = import_results(tmp_path / "nope.json")
    assert "no such file or folder" in str(error)


def test_submitter_must_exist(tmp_path, django_user_model):
    path = tmp_path / "a.json"
    path.write_text(json.dumps(measured_document()))
    _, _, error = import_results(path, "--submitter", "ghost")
    assert "no user named ghost" in str(error)
    django_user_model.objects.create_user("anna")
    _, _, error = import_results(path, "--submitter", "anna")
    assert error is None
    assert Run.objects.get().submitter.username == "anna"
