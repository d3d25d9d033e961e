"""deploy/nginx.conf for real: nginx with TLS in front of two gunicorn app servers."""

import re
import shutil
import subprocess
from dataclasses import dataclass

import pytest
import requests

from benchsite.embedded_pg import wait_until
from loadtests.appserver import AppServer
from loadtests.deployed import free_port, listening
from tests.site.support import ROOT

SECURITY_HEADERS = (
    "X-Frame-Options",
    "X-Content-Type-Options",
    "Referrer-Policy",
    "Cross-Origin-Opener-Policy",
)
EXAMPLE_UPSTREAMS = "\n".join(
    f"    server 10.0.0.{n}:8000 max_fails=3 fail_timeout=10s;" for n in (11, 12, 13)
)


@dataclass
class Proxy:
    http: str
    https: str
    servers: list[AppServer]
    client: requests.Session


def rendered(replacements: dict[str, str]) -> str:
    """deploy/nginx.conf with its example values ("yours") replaced by the test's."""
    conf = (ROOT / "deploy" / "nginx.conf").read_text()
    for example, ours in replacements.items():
        assert example in conf, f"deploy/nginx.conf no longer has {example!r}"
        conf = conf.replace(example, ours)
    return conf


@pytest.fixture(scope="module")
def proxy(site):
    workdir = site.folder / "nginx"
    workdir.mkdir()
    nginx = shutil.which("nginx") or "/usr/sbin/nginx"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1"]
        + ["-subj", "/CN=bench.example.org", "-addext", "subjectAltName=IP:127.0.0.1"]
        + ["-keyout", workdir / "key.pem"]
        + ["-out", workdir / "cert.pem"],
        check=True,
        capture_output=True,
    )
    servers = [site.server(replica=False, workers=1, BENCH_TLS="1") for _ in range(2)]
    for server in servers:
        server.start()
    http, https = free_port(), free_port()
    upstreams = "\n".join(
        f"    server {s.url.removeprefix('http://')} max_fails=1 fail_timeout=10s;" for s in servers
    )
    (workdir / "bench.conf").write_text(
        rendered(
            {
                EXAMPLE_UPSTREAMS: upstreams,
                "listen 80;": f"listen 127.0.0.1:{http};",
                "listen [::]:80;": "",
                "listen 443 ssl;": f"listen 127.0.0.1:{https} ssl;",
                "listen [::]:443 ssl;": "",
                "/etc/ssl/certs/bench.example.org.pem": str(workdir / "cert.pem"),
                "/etc/ssl/private/bench.example.org.key": str(workdir / "key.pem"),
                "root /srv/bench;": f"root {site.folder};",  # holds static/ (STATIC_ROOT)
            }
        )
    )
    temp = " ".join(
        f"{kind}_temp_path {workdir / kind};" for kind in ("client_body", "proxy", "fastcgi")
    )
    (workdir / "nginx.conf").write_text(
        f"daemon off; worker_processes 1; pid {workdir}/nginx.pid;\n"
        f"error_log {workdir}/error.log;\nevents {{}}\n"
        f"http {{ include /etc/nginx/mime.types; access_log {workdir}/access.log; {temp}\n"
        f"uwsgi_temp_path {workdir}/uwsgi; scgi_temp_path {workdir}/scgi;\n"
        f"include {workdir}/bench.conf; }}\n"
    )
    check = subprocess.run([nginx, "-t", "-c", workdir / "nginx.conf"], capture_output=True)
    assert check.returncode == 0, check.stderr.decode()
    process = subprocess.Popen([nginx, "-c", workdir / "nginx.conf"])
    try:
        assert wait_until(lambda: listening(http) and listening(https), 10), "nginx did not start"
        client = requests.Session()
        client.verify = str(workdir / "cert.pem")  # made for 127.0.0.1: TLS verified for real
        client.trust_env = False  # REQUESTS_CA_BUNDLE would replace it
        yield Proxy(f"http://127.0.0.1:{http}", f"https://127.0.0.1:{https}", servers, client)
    finally:
        process.terminate()
        process.wait(10)
        for server in servers:
            server.stop()
        shutil.rmtree(workdir, ignore_errors=True)


def test_nginx_proxies_to_the_app_servers_over_tls(proxy):
    plain = requests.get(f"{proxy.http}/", allow_redirects=False)
    assert plain.status_code == 301
    assert plain.headers["Location"] == "https://127.0.0.1/"
    page = proxy.client.get(f"{proxy.https}/")
    assert page.status_code == 200
    # The app saw HTTPS through X-Forwarded-Proto: HSTS and the policy are on the answer.
    assert page.headers["Strict-Transport-Security"].startswith("max-age=31536000")
    assert "script-src 'self'" in page.headers["Content-Security-Policy"]
    assert requests.get(f"{proxy.http}/healthz").text == "ok\n"


def test_nginx_serves_the_static_files_itself_cached_for_good(proxy):
    page = proxy.client.get(f"{proxy.https}/").text
    href = page.split('href="/static/css/bench.', 1)[1].split('"', 1)[0]
    response = proxy.client.get(
        f"{proxy.https}/static/css/bench.{href}", headers={"Accept-Encoding": "gzip"}
    )
    assert response.status_code == 200
    assert response.headers["Server"].startswith("nginx")
    assert response.headers["Cache-Control"] == "public, max-age=315360000, immutable"
    assert response.headers["Content-Encoding"] == "gzip"


def directives(policy: str) -> set[str]:
    return {d.strip() for d in policy.split(";")}


def test_nginx_gives_static_files_the_headers_the_app_servers_give_them(proxy):
    page = proxy.client.get(f"{proxy.https}/")
    paths = {*re.findall(r'(?:src|href)="(/static/[^"]+)"', page.text), "/static/js/bench.js"}
    assert len(paths) > 3
    for path in paths:
        served = proxy.client.get(proxy.https + path)
        assert served.status_code == 200 and served.headers["Server"].startswith("nginx")
        app = requests.get(proxy.servers[0].url + path, headers={"X-Forwarded-Proto": "https"})
        assert app.status_code == 200 and "nginx" not in app.headers.get("Server", "")
        policy = directives(page.headers["Content-Security-Policy"])
        assert directives(served.headers["Content-Security-Policy"]) == policy, path
        assert directives(app.headers["Content-Security-Policy"]) == policy, path
        for header in SECURITY_HEADERS:
            assert served.headers[header] == app.headers[header] == page.headers[header], header
    missing = proxy.client.get(f"{proxy.https}/static/no-such-file.js")
    assert missing.status_code == 404 and "Content-Security-Policy" in missing.headers


def test_an_app_server_going_down_costs_no_request(proxy):  # the last: it stops one
    proxy.servers[0].stop()
    for _ in range(6):
        assert proxy.client.get(f"{proxy.https}/").status_code == 200
