from django.apps import AppConfig
from django.apps import apps as installed_apps
from django.db.models.signals import post_migrate


def _sync_test_catalog(sender, using, apps=installed_apps, **kwargs) -> None:
    """After `migrate`, the tests and suites are catalog.json's (services.suite_catalog_sync);
    not when the results tables stand at an earlier migration (migrate back to one), whose
    Test lacks fields the catalog names. `flush` (which tests run between transactional
    tests) sends no migration state: the tables are then the models'."""
    from results.models import Test
    from results.services import suite_catalog_sync

    try:
        migrated = apps.get_model("results", "Test")
    except LookupError:
        return
    held = {f.name for f in migrated._meta.get_fields()}
    if all(f.name in held for f in Test._meta.concrete_fields):
        suite_catalog_sync(using=using)


class ResultsConfig(AppConfig):
    name = "results"
    verbose_name = "Results"

    def ready(self) -> None:
        post_migrate.connect(_sync_test_catalog, sender=self)
