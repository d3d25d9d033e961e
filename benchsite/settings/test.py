"""The test suite: `make test`."""

from .base import *  # noqa: F403
from .base import INSTALLED_APPS, env

SECRET_KEY = env("DJANGO_SECRET_KEY", "test-only-insecure-key")
ALLOWED_HOSTS = ["testserver", "127.0.0.1", "localhost"]
# The benchmark and fault harness (bench_* commands): not part of the served site.
INSTALLED_APPS = [*INSTALLED_APPS, "loadtests"]
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
