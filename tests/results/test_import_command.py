import json
from io import StringIO
from pathlib import Path

import pytest
from django.conf import settings
from django.core.management import CommandError, call_command

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


def test_folder_import_with_a_bad_file_reports_it_and_imports_the_rest(tmp_path):
    (tmp_path / "a.json").write_text(json.dumps(measured_document(seed=1)))
    (tmp_path / "nested").mkdir()
    (tmp_path / "nested" / "b.json").write_text(json.dumps(measured_document(seed=2)))
    broken = measured_document(seed=3)
    broken["results"][0]["test"] = "no-such-test"
    (tmp_path / "c.json").write_text(json.dumps(broken))
    (tmp_path / "d.json").write_text("{not json")
    (tmp_path / "notes.txt").write_text("ignored")

    out, err, error = import_results(tmp_path)

    assert "4 file(s): 2 imported, 0 already present, 2 rejected" in out
    assert f"{tmp_path / 'c.json'}: rejected" in err
    assert "/results/0/test: unknown test id 'no-such-test'" in err
    assert f"{tmp_path / 'd.json'}: rejected" in err
    assert error is not None and error.returncode == 1
    assert Run.objects.count() == 2


def test_importing_again_changes_nothing():
    out, _, error = import_results(DEMO_RUNS)
    count = Run.objects.count()
    assert error is None and count == len(list(DEMO_RUNS.glob("*.json")))
    out, _, error = import_results(DEMO_RUNS)
    assert error is None
    assert f"0 imported, {count} already present, 0 rejected" in out
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
