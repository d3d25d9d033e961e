import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "benchsite.settings.prod")
# A web worker cancels a statement after 10 s, well inside gunicorn's 30 s worker timeout,
# so one slow query cannot hold a worker (management commands have no limit).
os.environ.setdefault("BENCH_STATEMENT_TIMEOUT_MS", "10000")
application = get_wsgi_application()
