import shutil
import tempfile
from pathlib import Path

import pytest


@pytest.fixture
def workdir():
    # Not pytest's tmp_path: its parents are private to the user, and as root the server
    # runs as an unprivileged user who must reach the folder.
    folder = Path(tempfile.mkdtemp(prefix="bench-site-test-"))
    folder.chmod(0o755)
    yield folder
    shutil.rmtree(folder, ignore_errors=True)
