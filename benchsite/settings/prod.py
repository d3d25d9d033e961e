"""Production: `make serve`, gunicorn. Every secret from the environment.

Behind a TLS-terminating proxy set BENCH_TLS=1: HTTPS redirect, HSTS and secure cookies
(`manage.py check --deploy` is clean then). Without it the site serves plain HTTP, as
`make serve` does on loopback.
"""

from benchsite.static_files import add_headers

from .base import *  # noqa: F403
from .base import DATABASES, MIDDLEWARE, env, env_int

SECRET_KEY = env("DJANGO_SECRET_KEY")
for _db in DATABASES.values():
    _db["CONN_MAX_AGE"] = env_int("DJANGO_CONN_MAX_AGE", 60)

# Static files: collected (`collectstatic`) with content-hashed, compressed copies, served
# by WhiteNoise with far-future cache headers (a CDN in front caches them for good).
MIDDLEWARE = [*MIDDLEWARE]
MIDDLEWARE.insert(1, "whitenoise.middleware.WhiteNoiseMiddleware")
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"},
}
# The pages' Content-Security-Policy and frame protection on every static file too.
WHITENOISE_ADD_HEADERS_FUNCTION = add_headers

BENCH_RESPONSE_CACHE = env("BENCH_RESPONSE_CACHE", "1") == "1"

BENCH_TLS = env("BENCH_TLS", "0") == "1"
if BENCH_TLS:
    # The proxy terminates TLS and says so in X-Forwarded-Proto (deploy/nginx.conf sets it,
    # overwriting whatever the client sent).
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    SECURE_SSL_REDIRECT = True
    SECURE_REDIRECT_EXEMPT = [r"^healthz$"]  # the proxy's health checks reach workers directly
    SESSION_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True
    SECURE_HSTS_SECONDS = env_int("BENCH_HSTS_SECONDS", 365 * 24 * 3600)
    SECURE_HSTS_INCLUDE_SUBDOMAINS = True
    SECURE_HSTS_PRELOAD = True
