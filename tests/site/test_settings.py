"""Settings from the environment: database URLs (dj-database-url), replicas, the cache."""

import json
import subprocess
import sys

import pytest
from django.core.exceptions import ImproperlyConfigured

from benchsite.settings.base import database_settings
from loadtests.appserver import server_environment
from tests.site.support import ROOT


@pytest.mark.parametrize(
    ("url", "expected", "options"),
    [
        (
            "postgresql://u:p%40ss@db:5433/bench?sslmode=require",
            {"USER": "u", "PASSWORD": "p@ss", "HOST": "db", "PORT": 5433, "NAME": "bench"},
            {"sslmode": "require"},
        ),
        (
            "postgresql://bench@/bench?host=/tmp/sock",
            {"USER": "bench", "HOST": "/tmp/sock", "PORT": "", "NAME": "bench"},
            {},
        ),
        (
            "postgres://%2Fvar%2Frun%2Fpostgresql/site",
            {"HOST": "/var/run/postgresql", "NAME": "site"},
            {},
        ),
    ],
)
def test_database_url_forms(url, expected, options):
    db = database_settings(url)
    assert db["ENGINE"] == "benchsite.postgresql"
    for key, value in expected.items():
        assert db[key] == value, key
    for key, value in options.items():
        assert db["OPTIONS"][key] == value
    assert "host" not in db["OPTIONS"]
    assert db["CONN_HEALTH_CHECKS"] is True
    assert db["OPTIONS"]["connect_timeout"] == 5
    assert db["OPTIONS"]["application_name"].startswith("bench default pid ")


@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("sqlite:///db.sqlite3", "Bench runs on PostgreSQL only"),
        ("mysql://u@db/bench", "Bench runs on PostgreSQL only"),
        ("postgresql://host/", "names no database"),
        ("postgresql://db:notaport/bench", "not a usable database URL"),
    ],
)
def test_database_url_refusals(url, message):
    with pytest.raises(ImproperlyConfigured, match=message):
        database_settings(url)


SHOW_SETTINGS = """
import django, json
django.setup()
from django.conf import settings
print(json.dumps({
    "aliases": {a: [d["HOST"], d["NAME"], d.get("TEST", {}).get("MIRROR"),
                    d["OPTIONS"]["application_name"].rsplit(" pid", 1)[0]]
                for a, d in settings.DATABASES.items()},
    "replicas": settings.DATABASE_REPLICAS,
    "cache": settings.CACHES["default"]["BACKEND"].rsplit(".", 1)[1],
    "conn_max_age": settings.DATABASES["default"]["CONN_MAX_AGE"],
}))
"""


def settings_with(**env: str) -> dict:
    result = subprocess.run(
        [sys.executable, "-c", SHOW_SETTINGS],
        cwd=ROOT,
        env=server_environment(
            {"DJANGO_SECRET_KEY": "k" * 50, "DATABASE_URL": "postgresql://p@/main?host=/s", **env}
        ),
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    return json.loads(result.stdout)


def test_production_settings_from_the_environment():
    plain = settings_with()
    assert plain == {
        "aliases": {"default": ["/s", "main", None, "bench default"]},
        "replicas": [],
        "cache": "PostgresCache",
        "conn_max_age": 60,
    }
    scaled = settings_with(
        DATABASE_REPLICA_URLS="postgresql://r@one/main, postgresql://r@two/main",
        REDIS_URL="redis://cache.internal:6379/0",
        DJANGO_CONN_MAX_AGE="0",
    )
    assert scaled == {
        "aliases": {
            "default": ["/s", "main", None, "bench default"],
            "replica_0": ["one", "main", "default", "bench replica_0"],
            "replica_1": ["two", "main", "default", "bench replica_1"],
        },
        "replicas": ["replica_0", "replica_1"],
        "cache": "RedisCache",
        "conn_max_age": 0,
    }
