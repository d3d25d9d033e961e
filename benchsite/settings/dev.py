"""Local development: `make run`."""

from .base import *  # noqa: F403
from .base import INSTALLED_APPS, env

DEBUG = True
SECRET_KEY = env("DJANGO_SECRET_KEY", "dev-only-insecure-key-never-used-in-production")
ALLOWED_HOSTS = ["127.0.0.1", "localhost"]
# The benchmark and fault harness (bench_* commands): not part of the served site.
INSTALLED_APPS = [*INSTALLED_APPS, "loadtests"]
