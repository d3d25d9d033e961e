"""Helpers for the site tests (processes, waiting)."""

import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def wait_for(condition, timeout: float = 30.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.05)
    return False
