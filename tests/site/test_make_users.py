"""`make staff NAME=...` and `make password NAME=...` as a person runs them (README,
"Staff and passwords"): NAME reaches manage.py as text, through the environment, never as
shell or make text nor as an option; the password is asked on the terminal (here, without
one, read from stdin as getpass does)."""

import os
import subprocess

import pytest
from django.contrib.auth.models import User
from django.db import connection

from tests.site.support import ROOT
from tests.site.test_make_reviewer import NAMES, make_reviewer

pytestmark = pytest.mark.django_db(transaction=True)

PASSWORD = "correct-Horse-battery-9"


def make(target: str, name: str, typed: str = "") -> subprocess.CompletedProcess:
    db = connection.settings_dict
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "benchsite.settings.test",
        "DATABASE_URL": f"postgresql://{db['USER']}@/{db['NAME']}?host={db['HOST']}",
    }
    return subprocess.run(
        # The virtualenv is there already: make is not to install it again.
        ["make", "-s", "--no-print-directory", "-o", ".venv/.installed", target, f"NAME={name}"],
        cwd=ROOT,
        env=env,
        input=typed,
        capture_output=True,
        text=True,
        timeout=300,
        # No controlling terminal: getpass reads the password from stdin.
        start_new_session=True,
    )


def test_staff_is_a_superuser_without_a_password_until_one_is_set():
    made = make("staff", "sam")
    assert made.returncode == 0, made.stderr
    sam = User.objects.get(username="sam")
    assert sam.is_staff and sam.is_superuser and not sam.has_usable_password()

    again = make("staff", "sam")
    assert again.returncode != 0 and "already taken" in again.stderr

    typed = make("password", "sam", f"{PASSWORD}\n{PASSWORD}\n")
    assert typed.returncode == 0, typed.stderr
    assert "Password changed successfully for user 'sam'" in typed.stdout
    sam.refresh_from_db()
    assert sam.check_password(PASSWORD)


def test_a_reviewer_without_a_password_gets_one_and_signs_in_to_the_upload_form(client):
    """The README's commands, in its order: `make reviewer` (a token, no password), then
    `make password`; then rita signs in at /accounts/login/ and the upload form is hers."""
    made = make_reviewer("rita")
    assert made.returncode == 0, made.stderr
    rita = User.objects.get(username="rita")
    assert not rita.has_usable_password()
    assert not client.login(username="rita", password=PASSWORD)
    typed = make("password", "rita", f"{PASSWORD}\n{PASSWORD}\n")
    assert typed.returncode == 0, typed.stderr
    rita.refresh_from_db()
    assert rita.check_password(PASSWORD) and not rita.is_staff

    signed_in = client.post(
        "/accounts/login/", {"username": "rita", "password": PASSWORD, "next": "/bench/upload/"}
    )
    assert signed_in.status_code == 302 and signed_in["Location"] == "/bench/upload/"
    form = client.get("/bench/upload/")
    assert form.status_code == 200 and 'name="document"' in form.content.decode()


def test_a_name_beginning_with_a_dash_is_a_name():
    made = make("staff", "-h")
    assert made.returncode == 0, made.stderr
    assert User.objects.get(username="-h").is_staff
    typed = make("password", "-h", f"{PASSWORD}\n{PASSWORD}\n")
    assert typed.returncode == 0, typed.stderr
    assert User.objects.get(username="-h").check_password(PASSWORD)


@pytest.mark.parametrize("target", ["staff", "password"])
@pytest.mark.parametrize("template", NAMES)
def test_no_text_in_the_name_is_run(target, template, tmp_path):
    ran = tmp_path / "ran"
    done = make(target, template.format(ran=ran), f"{PASSWORD}\n{PASSWORD}\n")
    assert not ran.exists(), done.stderr
    assert done.returncode != 0
    assert not User.objects.exists()


def test_an_unknown_user_or_no_name_is_refused():
    unknown = make("password", "nobody-here", f"{PASSWORD}\n{PASSWORD}\n")
    assert unknown.returncode != 0 and "does not exist" in unknown.stderr
    for target in ("staff", "password"):
        done = make(target, "")
        assert done.returncode == 2 and f"make {target} NAME=<user name>" in done.stderr
