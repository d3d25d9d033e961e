"""The README's reviewer path, run as written: its two curl commands (a result document, then
fio's output) against a live server, with a token from `manage.py reviewer_token`."""

import json
import re
import shutil
import subprocess
from io import StringIO
from pathlib import Path

import pytest
from django.conf import settings
from django.contrib.auth.models import User
from django.core.management import call_command

from results.models import Run
from tests.api.conftest import SAMPLES

README = Path(settings.BASE_DIR) / "README.md"
FIO_OUTPUT = Path(__file__).parent.parent / "results" / "fio" / "fio-3.33-standard.json"
EXAMPLE_SITE = "https://bench.example.org"


def readme_curls() -> list[str]:
    section = README.read_text().split("## Uploading results (reviewers)", 1)[1].split("\n## ")[0]
    commands = re.findall(r"^(curl .*?(?:\\\n.*?)*)$", section, re.M)
    return [c.replace("\\\n", " ") for c in commands]


@pytest.mark.django_db(transaction=True)
def test_the_readme_curl_commands_upload(live_server, tmp_path):
    assert shutil.which("curl"), "curl is needed"
    User.objects.create_user("rita")
    out = StringIO()
    call_command("reviewer_token", "rita", stdout=out)
    token = out.getvalue().strip()
    (tmp_path / "run.json").write_bytes((SAMPLES / "measured-loadgen-quick.json").read_bytes())
    (tmp_path / "fio.json").write_bytes(FIO_OUTPUT.read_bytes())

    commands = readme_curls()
    assert len(commands) == 2
    answers = []
    for command in commands:
        assert EXAMPLE_SITE in command
        done = subprocess.run(
            ["bash", "-c", command.replace(EXAMPLE_SITE, live_server.url)],
            cwd=tmp_path,
            env={"BENCH_TOKEN": token, "PATH": "/usr/bin:/bin"},
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert done.returncode == 0, done.stderr
        answers.append(json.loads(done.stdout))
    document, fio = answers
    assert document["created"] and document["run"]["tool"]["name"] == "loadgen"
    assert fio["created"] and fio["run"]["tool"]["name"] == "fio"
    assert fio["fio"]["mapped"] and fio["fio"]["not_mapped"]
    assert Run.objects.count() == 2
    assert Run.objects.get(tool_name="fio").drive.model == "SSD 530"
