"""`make serve`: the site under gunicorn with the production settings.

    python -m benchsite.serve [--bind ADDRESS] [--demo] [--prepare-only | --no-prepare]

Needs DATABASE_URL (`make serve` starts the embedded PostgreSQL and sets it). Prepares the
site (migrate, which also creates the cache table; collectstatic; with --demo, the demo data),
then replaces itself with gunicorn (benchsite/gunicorn.conf.py, benchsite.wsgi).

On a loopback address it needs nothing else: DJANGO_SECRET_KEY, when unset, is read from
var/secret_key, created with a random key on first use (readable by its owner only), so it
survives restarts, differs on every machine and is never in the repository; and
DJANGO_ALLOWED_HOSTS defaults to the loopback names. On any other address both must be set
(several app servers must share one key).
"""

from __future__ import annotations

import argparse
import ipaddress
import os
import secrets
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SECRET_KEY_FILE = ROOT / "var" / "secret_key"
GUNICORN_CONFIG = ROOT / "benchsite" / "gunicorn.conf.py"
DEFAULT_BIND = "127.0.0.1:8000"
LOOPBACK_HOSTS = "127.0.0.1,localhost,[::1]"


def is_loopback(address: str) -> bool:
    """True for host:port addresses on the loopback interface (not unix sockets)."""
    if address.startswith(("unix:", "fd://")):
        return False
    host = address.rsplit(":", 1)[0].strip("[]")
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def local_secret_key(path: Path) -> str:
    """The key in path, created (mode 0600) with a random one when missing."""
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:
            pass  # another server created it meanwhile
        else:
            with os.fdopen(fd, "w") as out:
                out.write(secrets.token_urlsafe(50) + "\n")
    return path.read_text().strip()


def configure_environment(binds: list[str]) -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "benchsite.settings.prod")
    os.environ["BENCH_BIND"] = ",".join(binds)
    local = all(is_loopback(b) for b in binds)
    missing = [v for v in ("DJANGO_SECRET_KEY", "DJANGO_ALLOWED_HOSTS") if not os.environ.get(v)]
    if missing and not local:
        raise SystemExit(
            f"error: serving on {', '.join(binds)} needs {' and '.join(missing)} set "
            "(only loopback serving makes its own; see docs/deploy.md)"
        )
    if not os.environ.get("DJANGO_SECRET_KEY"):
        key_file = Path(os.environ.get("BENCH_SECRET_KEY_FILE", SECRET_KEY_FILE))
        os.environ["DJANGO_SECRET_KEY"] = local_secret_key(key_file)
    os.environ.setdefault("DJANGO_ALLOWED_HOSTS", LOOPBACK_HOSTS)


def prepare(*, demo: bool) -> None:
    import django
    from django.core.management import call_command

    django.setup()
    call_command("migrate", interactive=False, verbosity=0)
    call_command("collectstatic", interactive=False, verbosity=0)
    if demo:
        call_command("load_demo")
    from django.db import connections

    connections.close_all()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchsite.serve", description=__doc__)
    parser.add_argument(
        "--bind",
        action="append",
        help=f"address to listen on, host:port or unix:/path (default {DEFAULT_BIND}); repeatable",
    )
    parser.add_argument("--demo", action="store_true", help="load the demo data (idempotent)")
    steps = parser.add_mutually_exclusive_group()
    steps.add_argument("--prepare-only", action="store_true", help="prepare, do not serve")
    steps.add_argument("--no-prepare", action="store_true", help="serve without preparing")
    args = parser.parse_args(argv)

    configure_environment(args.bind or os.environ.get("BENCH_BIND", DEFAULT_BIND).split(","))
    if not args.no_prepare:
        prepare(demo=args.demo)
    if args.prepare_only:
        return 0
    gunicorn = Path(sys.executable).with_name("gunicorn")
    sys.stdout.flush()
    os.execv(gunicorn, [str(gunicorn), "-c", str(GUNICORN_CONFIG), "benchsite.wsgi:application"])
    return 1  # not reached


if __name__ == "__main__":
    sys.exit(main())
