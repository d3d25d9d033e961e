"""Real Chromium (Debian's package, driven by Playwright) against the site served from the
test process, with the site's Content-Security-Policy on. A failing test leaves a screenshot
in var/browser-failures/."""

import os
import shutil
import tempfile
from pathlib import Path

import pytest
from django.conf import settings

CHROMIUM = os.environ.get("BENCH_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
FAILURES = Path(settings.BASE_DIR) / "var" / "browser-failures"
PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 900}

# Playwright's sync API runs an event loop in this thread; the ORM calls that build test
# data are still made one at a time, outside it.
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item, call):
    report = yield
    setattr(item, f"report_{report.when}", report)
    return report


@pytest.fixture(scope="session")
def chromium():
    from playwright.sync_api import sync_playwright

    if not Path(CHROMIUM).exists():
        pytest.fail(f"{CHROMIUM} is missing: install Debian's chromium (make test does)")
    profile = tempfile.mkdtemp(prefix="bench-chromium-")
    with sync_playwright() as playwright:
        context = playwright.chromium.launch_persistent_context(
            profile, executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True
        )
        yield context
        context.close()
    shutil.rmtree(profile, ignore_errors=True)


@pytest.fixture
def page(chromium, request):
    """A fresh tab that records console errors, page errors and CSP violations; the test
    fails on any of them."""
    tab = chromium.new_page()
    problems: list[str] = []
    tab.on("pageerror", lambda error: problems.append(f"page error: {error}"))
    tab.on(
        "console",
        lambda message: message.type == "error" and problems.append(f"console: {message.text}"),
    )
    tab.problems = problems
    yield tab
    report = getattr(request.node, "report_call", None)
    if report is not None and report.failed:
        FAILURES.mkdir(parents=True, exist_ok=True)
        tab.screenshot(
            path=str(FAILURES / f"{request.node.name}.png"), full_page=True, caret="initial"
        )
    tab.close()
    assert not problems, problems
