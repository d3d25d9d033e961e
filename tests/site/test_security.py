"""Security headers: the Content-Security-Policy on every page, HTTPS behind TLS, check --deploy."""

import re
import subprocess
import sys
from collections import deque
from html.parser import HTMLParser
from io import StringIO
from urllib.parse import urljoin, urlsplit

import pytest
import requests
from django.core.management import call_command

from loadtests.appserver import server_environment
from tests.site.support import ROOT

MAX_PAGES = 400
# Places a crawl from the home page does not reach by links.
ALSO_VISIT = ["/admin/login/", "/no-such-page/"]


class PageAudit(HTMLParser):
    """Links to follow, and whatever the policy forbids: inline script, inline event handlers,
    inline style, javascript: URLs."""

    def __init__(self) -> None:
        super().__init__()
        self.links: list[tuple[str, bool]] = []  # (url, is an htmx request)
        self.problems: list[str] = []
        self._in_inline_script = False

    def handle_starttag(self, tag, attrs):
        attributes = dict(attrs)
        for name, value in attrs:
            if name.startswith("on"):
                self.problems.append(f"<{tag} {name}=...>: inline event handler")
            if name == "style":
                self.problems.append(f"<{tag} style=...>: inline style")
            if (value or "").strip().lower().startswith("javascript:"):
                self.problems.append(f"<{tag} {name}={value}>: javascript: URL")
        if tag == "style":
            self.problems.append("<style> element")
        if tag == "script":
            data_only = attributes.get("type") in ("application/json", "application/ld+json")
            self._in_inline_script = "src" not in attributes and not data_only
        if tag == "a" and attributes.get("href"):
            self.links.append((attributes["href"], False))
        for name in ("hx-get", "data-hx-get"):
            if attributes.get(name):
                self.links.append((attributes[name], True))

    def handle_endtag(self, tag):
        if tag == "script":
            self._in_inline_script = False

    def handle_data(self, data):
        if self._in_inline_script and data.strip():
            self.problems.append(f"inline <script>: {data.strip()[:60]}")


def same_site_path(base: str, href: str) -> str | None:
    url = urlsplit(urljoin(base, href))
    if url.scheme not in ("http", "https") or url.netloc != "testserver":
        return None
    return url.path + (f"?{url.query}" if url.query else "")


@pytest.mark.django_db
def test_every_page_sends_the_policy_and_breaks_none_of_it(client, settings):
    """Crawl the demo site from the home page (and every htmx fragment it links to)."""
    call_command("load_demo", stdout=StringIO())
    queue = deque([("/", False), *((path, False) for path in ALSO_VISIT)])
    seen: set[tuple[str, bool]] = set()
    problems: list[str] = []
    while queue and len(seen) < MAX_PAGES:
        path, htmx = queue.popleft()
        if (path, htmx) in seen or path.startswith("/static/"):
            continue
        seen.add((path, htmx))
        response = client.get(path, headers={"HX-Request": "true"} if htmx else {})
        if "text/html" not in response.get("Content-Type", ""):
            continue
        policy = response.get("Content-Security-Policy", "")
        if "script-src 'self'" not in policy or "default-src 'self'" not in policy:
            problems.append(f"{path}: Content-Security-Policy missing or loose: {policy!r}")
        audit = PageAudit()
        audit.feed(response.content.decode())
        problems += [f"{path}{' (htmx)' if htmx else ''}: {p}" for p in audit.problems]
        for href, is_htmx in audit.links:
            target = same_site_path(f"http://testserver{path}", href)
            if target and not target.startswith("/admin/"):
                queue.append((target, is_htmx))
    assert len(seen) > 10, f"the crawl reached only {sorted(seen)}"
    assert not problems, "\n".join(problems)


def check_deploy(**env: str) -> subprocess.CompletedProcess:
    environment = server_environment(
        {
            "DJANGO_SECRET_KEY": "a8Xk2-pQz9vLm4RtY7wNc1sHf6JdG3bE0uKiO5yTaZxCvBnMqWeRtYuIoPlKjHgF",
            "DJANGO_ALLOWED_HOSTS": "bench.example.org",
            "DATABASE_URL": "postgresql://bench@/bench?host=/nonexistent",
            **env,
        }
    )
    return subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=ROOT,
        env=environment,
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_check_deploy_is_clean_behind_tls():
    result = check_deploy(BENCH_TLS="1")
    assert result.returncode == 0, result.stderr
    assert "no issues" in result.stdout


def test_check_deploy_on_plain_http_names_what_tls_would_switch_on():
    result = check_deploy()
    assert result.returncode != 0
    for warning in ("security.W004", "security.W008", "security.W012", "security.W016"):
        assert warning in result.stderr


def test_behind_tls_http_is_redirected_and_https_gets_hsts_and_secure_cookies(site):
    https = {"X-Forwarded-Proto": "https"}
    with site.server(replica=False, workers=1, BENCH_TLS="1") as server:
        plain = requests.get(f"{server.url}/drives/", allow_redirects=False)
        assert plain.status_code == 301
        assert plain.headers["Location"].startswith("https://")
        assert requests.get(f"{server.url}/healthz").status_code == 200  # for health checks
        page = requests.get(f"{server.url}/", headers=https)
        assert page.status_code == 200
        hsts = page.headers["Strict-Transport-Security"]
        assert hsts == "max-age=31536000; includeSubDomains; preload"
        login = requests.get(f"{server.url}/admin/login/", headers=https)
        assert "secure" in login.headers["Set-Cookie"].lower()


def test_plain_loopback_serving_has_no_redirect_and_no_hsts(site):
    with site.server(replica=False, workers=1) as server:
        page = requests.get(f"{server.url}/", allow_redirects=False)
        assert page.status_code == 200
        assert "Strict-Transport-Security" not in page.headers
        assert page.headers["X-Content-Type-Options"] == "nosniff"
        assert page.headers["Referrer-Policy"] == "same-origin"
        assert page.headers["X-Frame-Options"] == "DENY"


def test_static_files_carry_the_pages_policy_and_frame_protection(site):
    """WhiteNoise answers /static/ before the policy's middleware runs: each file gets the
    pages' headers all the same, compressed or not."""
    with site.server(replica=False, workers=1) as server:
        page = requests.get(f"{server.url}/")
        policy = page.headers["Content-Security-Policy"]
        assert "frame-ancestors 'none'" in policy
        hashed = re.findall(r'(?:src|href)="(/static/[^"]+)"', page.text)
        assert any(p.endswith(".js") for p in hashed) and any(p.endswith(".css") for p in hashed)
        for path in {*hashed, "/static/js/bench.js"}:
            for encoding in ("gzip", "identity"):
                response = requests.get(server.url + path, headers={"Accept-Encoding": encoding})
                assert response.status_code == 200, path
                assert response.headers["Content-Security-Policy"] == policy, path
                assert response.headers["X-Frame-Options"] == "DENY", path
                assert response.headers["X-Content-Type-Options"] == "nosniff", path
