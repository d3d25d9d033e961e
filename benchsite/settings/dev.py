"""Local development: `make run`."""

from .base import *  # noqa: F403
from .base import env

DEBUG = True
SECRET_KEY = env("DJANGO_SECRET_KEY", "dev-only-insecure-key-never-used-in-production")
ALLOWED_HOSTS = ["127.0.0.1", "localhost"]
