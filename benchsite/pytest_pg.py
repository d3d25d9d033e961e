"""pytest plugin: run the test suite against a throw-away PostgreSQL cluster.

Loaded with `-p benchsite.pytest_pg` (see pyproject.toml). When DATABASE_URL is set,
that server is used instead and nothing is started.
"""

import contextlib
import os

import pytest

from benchsite.embedded_pg import EmbeddedPostgresError, running_cluster

_stack = contextlib.ExitStack()


@pytest.hookimpl(tryfirst=True)
def pytest_load_initial_conftests(early_config, parser, args):
    # Runs before pytest-django reads the settings, which need DATABASE_URL.
    if os.environ.get("DATABASE_URL"):
        return
    try:
        os.environ["DATABASE_URL"] = _stack.enter_context(running_cluster(None))
    except EmbeddedPostgresError as exc:
        raise pytest.UsageError(f"cannot start the test database: {exc}") from exc


def pytest_unconfigure(config):
    _stack.close()
