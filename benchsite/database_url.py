"""Turn a DATABASE_URL into Django's DATABASES entry.

Accepted forms:
    postgresql://user:password@host:5432/name
    postgresql://user@/name?host=/path/to/socket/dir        (Unix socket)
    postgresql://user@%2Fpath%2Fto%2Fsocket%2Fdir/name      (Unix socket, encoded)
Other query parameters (sslmode, connect_timeout, ...) are passed to psycopg.
"""

from urllib.parse import parse_qsl, unquote, urlsplit

SCHEMES = {"postgres", "postgresql", "pgsql"}


class DatabaseURLError(ValueError):
    pass


def parse(url: str) -> dict:
    parts = urlsplit(url)
    if parts.scheme not in SCHEMES:
        raise DatabaseURLError(
            f"DATABASE_URL must start with postgresql:// (got {parts.scheme or 'no'} scheme): "
            "Bench runs on PostgreSQL only."
        )
    options = dict(parse_qsl(parts.query))
    host = options.pop("host", None) or unquote(parts.hostname or "")
    if not host and "%2F" in parts.netloc.upper():
        host = unquote(parts.netloc.rsplit("@", 1)[-1])
    name = unquote(parts.path.lstrip("/"))
    if not name:
        raise DatabaseURLError("DATABASE_URL names no database (expected .../DBNAME).")
    return {
        "ENGINE": "django.db.backends.postgresql",
        "NAME": name,
        "USER": unquote(parts.username or ""),
        "PASSWORD": unquote(parts.password or ""),
        "HOST": host,
        "PORT": str(parts.port or ""),
        "OPTIONS": options,
    }
