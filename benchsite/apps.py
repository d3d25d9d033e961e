from django.apps import AppConfig
from django.core.management import call_command
from django.db.models.signals import post_migrate

from benchsite import pgcache


def _create_cache_table(sender, using, **kwargs) -> None:
    # The database cache's table, wherever migrate runs (make run, make serve, a deployment,
    # the test database); nothing to do when the cache is Redis.
    call_command("createcachetable", database=using, verbosity=0)
    pgcache.prepare_table(using)


class BenchsiteConfig(AppConfig):
    name = "benchsite"
    verbose_name = "Bench site"

    def ready(self) -> None:
        post_migrate.connect(_create_cache_table, sender=self)
        from benchsite import openapi  # noqa: F401  drf-spectacular's extensions register
