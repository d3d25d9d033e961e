"""`make reviewer NAME=...` as a person runs it: NAME reaches manage.py reviewer_token as
text, through the environment; neither make nor the shell runs anything written in it."""

import os
import re
import subprocess

import pytest
from django.contrib.auth.models import User
from django.db import connection
from knox.crypto import hash_token
from knox.models import AuthToken

from tests.site.support import ROOT

pytestmark = pytest.mark.django_db(transaction=True)

# Each writes the file {ran} if anything in it is run: by the shell's quotes, its command
# substitutions, or make's own functions.
NAMES = [
    'x" ]; touch {ran}; [ "x',
    "x' ]; touch {ran}; [ 'x",
    "$(touch {ran})",
    "`touch {ran}`",
    "$(shell touch {ran})",
    "$$(touch {ran})",
]


def make_reviewer(name: str) -> subprocess.CompletedProcess:
    db = connection.settings_dict
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "benchsite.settings.test",
        "DATABASE_URL": f"postgresql://{db['USER']}@/{db['NAME']}?host={db['HOST']}",
    }
    return subprocess.run(
        # The virtualenv is there already: make is not to install it again.
        ["make", "-s", "--no-print-directory", "-o", ".venv/.installed", "reviewer"]
        + [f"NAME={name}"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )


@pytest.mark.parametrize("template", NAMES)
def test_no_text_in_the_name_is_run(template, tmp_path):
    ran = tmp_path / "ran"
    name = template.format(ran=ran)
    done = make_reviewer(name)
    assert not ran.exists(), done.stderr
    # Not a user name Django takes: refused, saying which name it was given.
    assert done.returncode != 0 and done.stdout == ""
    assert f"{name!r}: Enter a valid username" in done.stderr
    assert not User.objects.exists()


def test_a_name_is_made_a_reviewer_with_a_token():
    done = make_reviewer("rita.b-1@example")
    assert done.returncode == 0, done.stderr
    token = done.stdout.strip()
    assert re.fullmatch(r"[0-9a-f]{64}", token)
    (row,) = AuthToken.objects.filter(user__username="rita.b-1@example")
    assert row.digest == hash_token(token) != token


def test_no_name_is_refused():
    done = make_reviewer("")
    assert done.returncode == 2 and "make reviewer NAME=<user name>" in done.stderr


def test_a_name_beginning_with_a_dash_is_a_name():
    # A user name Django takes (letters, digits and @.+-_), not an option of the command.
    done = make_reviewer("--revoke")
    assert done.returncode == 0, done.stderr
    assert re.fullmatch(r"[0-9a-f]{64}", done.stdout.strip())
    assert AuthToken.objects.filter(user__username="--revoke").count() == 1
