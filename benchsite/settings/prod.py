"""Production: every secret from the environment, HTTPS only."""

from .base import *  # noqa: F403
from .base import env

SECRET_KEY = env("DJANGO_SECRET_KEY")
DATABASES["default"]["CONN_MAX_AGE"] = int(env("DJANGO_CONN_MAX_AGE", "60"))  # noqa: F405
SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
SESSION_COOKIE_SECURE = True
CSRF_COOKIE_SECURE = True
SECURE_HSTS_SECONDS = 3600
