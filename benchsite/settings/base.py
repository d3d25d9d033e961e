"""Settings shared by every environment. Secrets and the database come from the environment."""

import os
from pathlib import Path

import dj_database_url
from csp.constants import NONE, SELF
from django.core.exceptions import ImproperlyConfigured

BASE_DIR = Path(__file__).resolve().parent.parent.parent


def env(name: str, default: str | None = None) -> str:
    value = os.environ.get(name, default)
    if value is None:
        raise ImproperlyConfigured(f"the environment variable {name} must be set")
    return value


def env_int(name: str, default: int) -> int:
    value = env(name, str(default))
    try:
        return int(value)
    except ValueError:
        raise ImproperlyConfigured(f"{name} must be a whole number (got {value!r})") from None


SECRET_KEY = env("DJANGO_SECRET_KEY", "")
DEBUG = False
ALLOWED_HOSTS = [h for h in env("DJANGO_ALLOWED_HOSTS", "").split(",") if h]

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "django.contrib.postgres",
    "django.contrib.humanize",
    "rest_framework",
    "knox",
    "django_filters",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "django_htmx",
    "csp",
    "core",
    "benchsite",
    "drives",
    "results",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "benchsite.replicas.ReplicaMiddleware",
    "csp.middleware.CSPMiddleware",
    # ETag and 304 for every page and API read, kept responses included.
    "benchsite.etags.ConditionalGetMiddleware",
    "benchsite.api.ApiCacheHeadersMiddleware",
    "benchsite.response_cache.ResponseCacheMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "benchsite.slashes.CommonMiddleware",  # Django's, redirecting with a 308
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    # A page's query parameter it cannot take: its 400 page (core.query).
    "benchsite.views.QueryErrorMiddleware",
    # The API's query, a parameter given twice refused where one value is read: last.
    "benchsite.api.ApiQueryMiddleware",
]

ROOT_URLCONF = "benchsite.urls"
WSGI_APPLICATION = "benchsite.wsgi.application"

# The site's pages: Jinja2 (benchsite/jinja2.py). Django's engine renders only what other
# apps bring (the admin, the API docs, form widgets).
TEMPLATES = [
    {
        "BACKEND": "benchsite.jinja2.Jinja2Fragments",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": False,
        "OPTIONS": {"environment": "benchsite.jinja2.environment"},
    },
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

# Persistent connections, checked before each request reuses them. Production keeps them
# for a minute (prod.py); 0 closes them at the end of every request.
CONN_MAX_AGE = env_int("DJANGO_CONN_MAX_AGE", 0)
# Statements running longer are cancelled (0: no limit). wsgi.py sets 10 s for the web
# workers, so one slow query cannot hold a worker; commands (migrate, imports) have none.
STATEMENT_TIMEOUT_MS = env_int("BENCH_STATEMENT_TIMEOUT_MS", 0)
BENCH_DB_PREPARE = env("BENCH_DB_PREPARE", "1") == "1"


def database_settings(url: str, *, alias: str = "default", variable: str = "DATABASE_URL") -> dict:
    """A DATABASES entry for a PostgreSQL URL (parsed by dj-database-url), with Bench's policy."""
    try:
        db = dj_database_url.parse(url, conn_max_age=CONN_MAX_AGE, conn_health_checks=True)
    except ValueError as exc:
        raise ImproperlyConfigured(f"{variable} is not a usable database URL: {exc}") from None
    if db["ENGINE"] != "django.db.backends.postgresql":
        raise ImproperlyConfigured(
            f"{variable} must start with postgresql:// (got {url.split(':', 1)[0]!r}): "
            "Bench runs on PostgreSQL only."
        )
    # Django's backend with a health check that needs no round trip on a busy connection.
    db["ENGINE"] = "benchsite.postgresql"
    if not db["NAME"]:
        raise ImproperlyConfigured(f"{variable} names no database (expected .../DBNAME).")
    options = db.setdefault("OPTIONS", {})
    if not db["HOST"] and "host" in options:  # postgresql://user@/name?host=/socket/dir
        db["HOST"] = str(options.pop("host"))
    options.setdefault("connect_timeout", 2 if alias != "default" else 5)
    # Shown in pg_stat_activity: which alias, and which process (a gunicorn worker).
    options.setdefault("application_name", f"bench {alias} pid {os.getpid()}")
    # Parameters bound on the server, so that the statements written for it can be prepared
    # (core.db.prepared): planned once per connection rather than on every request (the
    # head-to-head statement takes longer to plan than to run). Other queries are planned
    # for their own parameters each time: a filter that matches nothing would make a plan
    # made for the average value walk a whole ranking. BENCH_DB_PREPARE=0 turns both off
    # (Django's client-side binding), for a pooler in transaction mode that cannot keep
    # prepared statements (PgBouncer before 1.21).
    if BENCH_DB_PREPARE:
        options.setdefault("server_side_binding", True)
    if STATEMENT_TIMEOUT_MS > 0:
        extra = f"-c statement_timeout={STATEMENT_TIMEOUT_MS}"
        options["options"] = f"{options.get('options', '')} {extra}".strip()
    return db


DATABASES = {"default": database_settings(env("DATABASE_URL"))}
# Read replicas: page and API reads go to one of them, writes and the reads of a client
# that has just written go to the primary (benchsite/replicas.py).
DATABASE_REPLICAS = []
for _n, _url in enumerate(u.strip() for u in env("DATABASE_REPLICA_URLS", "").split(",")):
    if _url:
        _alias = f"replica_{_n}"
        DATABASES[_alias] = database_settings(_url, alias=_alias, variable="DATABASE_REPLICA_URLS")
        DATABASES[_alias]["TEST"] = {"MIRROR": "default"}
        DATABASE_REPLICAS.append(_alias)
DATABASE_ROUTERS = ["benchsite.replicas.PrimaryReplicaRouter"]
# After a write, the client's reads stay on the primary this long (a cookie), so it sees
# its own change even while the replicas lag.
BENCH_REPLICA_STICKY_SECONDS = env_int("BENCH_REPLICA_STICKY_SECONDS", 10)

# One cache shared by every worker and app server: Redis when REDIS_URL is set, else a
# table in PostgreSQL (created by migrate, see benchsite/apps.py). Entries computed from
# the catalog are invalidated by the writes that change it (benchsite/cache.py).


def cache_settings(redis_url: str) -> dict:
    """CACHES: Redis at redis_url (redis://, rediss:// or unix://), else the database."""
    if redis_url:
        default = {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": redis_url,
            # A cache that does not answer is skipped (benchsite/cache.py), not waited for.
            "OPTIONS": {"socket_connect_timeout": 1, "socket_timeout": 1},
        }
    else:
        default = {
            "BACKEND": "benchsite.pgcache.PostgresCache",
            "LOCATION": "bench_cache",
            "OPTIONS": {"MAX_ENTRIES": 20000},
        }
    return {"default": {**default, "KEY_PREFIX": "bench", "TIMEOUT": 300}}


CACHES = cache_settings(env("REDIS_URL", ""))
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = Path(env("BENCH_STATIC_ROOT", str(BASE_DIR / "static_root")))

# The open-data dumps (results/dumps.py, `manage.py dump_data`): where they are written and
# served from (/data/; behind nginx, by nginx itself: deploy/nginx.conf), how many of the
# newest are kept, and the site's own address, which a dump's links and citation give.
BENCH_DUMP_DIR = Path(env("BENCH_DUMP_DIR", str(BASE_DIR / "var" / "dumps")))
BENCH_DUMP_KEEP = env_int("BENCH_DUMP_KEEP", 30)
BENCH_SITE_URL = env("BENCH_SITE_URL", "http://127.0.0.1:8000").rstrip("/")
# loadgen's releases (`make loadgen-dist`, results/loadgen.py), served at /bench/loadgen/.
BENCH_LOADGEN_DIST_DIR = Path(env("BENCH_LOADGEN_DIST_DIR", str(BASE_DIR / "var" / "loadgen-dist")))

# Only the web benchmark (make bench-web) sets this: synthetic drives then count as real, so
# that every page searches, ranks and plots among the whole seed_scale catalog.
BENCH_SHOW_SYNTHETIC = False
# Whole responses of anonymous page and API reads, kept in the shared cache until the catalog
# changes (benchsite/response_cache.py): on in production, off elsewhere unless asked for.
BENCH_RESPONSE_CACHE = env("BENCH_RESPONSE_CACHE", "0") == "1"
BENCH_RESPONSE_CACHE_PATHS = ("/bench/", "/drives/", "/api/v1/")
# How many drives' sides of a comparison each process holds, each at the version of what it
# depends on (results.selectors.compare.held_sides); 0: none, every side read each time.
BENCH_COMPARE_SIDES = env_int("BENCH_COMPARE_SIDES", 1024)
# How many MB of sides each process also holds packed (pickled and compressed, about 25 KB a
# side): a side let go as objects is made again from there, not read from the shared cache.
BENCH_COMPARE_PACKED_MB = env_int("BENCH_COMPARE_PACKED_MB", 32)
# How long a side built by one process is kept for every process in the shared cache, at its
# version (results.selectors.compare.shared_sides), in seconds; 0: not shared.
BENCH_SHARED_SIDES_S = env_int("BENCH_SHARED_SIDES_S", 3600)

# The fonts chart images are drawn with as PNG (results/chart_images/png.py): Debian's
# fonts-dejavu-core.
BENCH_CHART_FONTS = os.environ.get("BENCH_CHART_FONTS", "/usr/share/fonts/truetype/dejavu")

# Reviewers sign in to upload results in a form (results/views/upload.py).
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "bench:upload"
LOGOUT_REDIRECT_URL = "drives:home"

# Result documents larger than this are refused before they are parsed.
BENCH_MAX_DOCUMENT_BYTES = 8 * 1024 * 1024
# How many uploads are taken in at once, across every server process (results.services.
# upload_turn; 0: no limit). An upload is CPU work (reading, checking and writing a document,
# then its drive's rankings); taken one at a time, uploads leave the rest of the CPUs to the
# readers, whose p99 under `make bench-load UPLOADS=1` fell by a tenth (docs/deploy.md).
BENCH_UPLOAD_TURNS = env_int("BENCH_UPLOAD_TURNS", 1)
DATA_UPLOAD_MAX_MEMORY_SIZE = BENCH_MAX_DOCUMENT_BYTES + 1024 * 1024

# The REST API (/api/v1/, benchsite/api.py): session or token authentication, reads for
# everyone, one error body, every list also as CSV, documented at /api/schema/ and /api/docs/.
REST_FRAMEWORK = {
    # Token first: a bad token, or an anonymous write, is answered 401 with WWW-Authenticate.
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "benchsite.api.TokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticatedOrReadOnly"],
    "DEFAULT_RENDERER_CLASSES": [
        "benchsite.api.JSONRenderer",
        "benchsite.api.CSVRenderer",
    ],
    "DEFAULT_FILTER_BACKENDS": ["core.filters.QueryFilterBackend"],
    "DEFAULT_CONTENT_NEGOTIATION_CLASS": "benchsite.api.ContentNegotiation",
    "DEFAULT_PAGINATION_CLASS": "benchsite.api.Pagination",
    "PAGE_SIZE": 50,
    # Money is a JSON number, as every figure is (a price, price per GB, per 1,000 IOPS):
    # a DecimalField writes its amount as a number, and the schema types it so.
    "COERCE_DECIMAL_TO_STRING": False,
    "EXCEPTION_HANDLER": "benchsite.api.exception_handler",
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    # Throttles count in caches["default"], shared by every worker (Redis or the database);
    # reads are not throttled. "uploads": result uploads per reviewer (results/api/runs.py).
    "DEFAULT_THROTTLE_RATES": {
        "anon": "300/min",
        "user": "1200/min",
        "uploads": env("BENCH_UPLOAD_RATE", "60/hour"),
    },
}
# API tokens (django-rest-knox): stored as their SHA-512 digest, the token itself shown once,
# when it is made; sent as "Authorization: Token <token>". A reviewer's token does not
# expire (an upload must not fail mid-run): it works until it is revoked.
REST_KNOX = {"TOKEN_TTL": None}
SPECTACULAR_SETTINGS = {
    "TITLE": "Bench API",
    "DESCRIPTION": "Storage drive benchmark results: the catalog, results with their "
    "provenance, head-to-head comparisons, leaderboards and value tables; uploads for "
    "reviewers. Every list is also CSV (?format=csv). Errors have one body: "
    '{"detail": summary, "errors": [{"pointer": JSON pointer, "message": text}]}.',
    "VERSION": "1",
    "SERVE_INCLUDE_SCHEMA": False,
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    "COMPONENT_SPLIT_REQUEST": True,
    # JSON Schema 2020-12, in which the result document's schema (draft 7: if/then, const,
    # $defs) can be the upload's request body (results.api.runs.upload_components).
    "OAS_VERSION": "3.1.0",
    # A compared drive's key (results.api.shapes): one enum wherever a body names one.
    "ENUM_NAME_OVERRIDES": {
        "DriveKeyEnum": "results.api.shapes.SIDE_CHOICES",
        "RunsClassEnum": "results.api.shapes.RUNS_CLASSES",
        "MethodEnum": "results.models.Method",
    },
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "results.api.runs.upload_components",
        "benchsite.api.document_errors",
        "benchsite.openapi.text_csv_and_required_bodies",
    ],
}

# Content-Security-Policy: no inline script anywhere (chart data travels in json_script blocks,
# read by the one script in static/js/), no eval (the Plotly bundle is the CSP-strict build,
# htmx runs with allowEval off), nothing from other origins.
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": [SELF],
        "script-src": [SELF],
        "style-src": [SELF],
        "img-src": [SELF, "data:", "blob:"],
        "font-src": [SELF],
        "connect-src": [SELF],
        "worker-src": [SELF, "blob:"],
        "object-src": [NONE],
        "base-uri": [SELF],
        "form-action": [SELF],
        "frame-ancestors": [NONE],
    }
}
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": "WARNING"},
}
