"""The results' tables move versions by scope (core.versions) instead of the catalog's one
version (0020, removed): an upload moves its drive's pages, the rankings of the tests its
entries changed and, when they are priced, the value views; not every page."""

import importlib

from django.db import migrations

from core.versions import (
    CATALOG,
    DRIVE_PREFIX,
    TEST_PREFIX,
    VALUE,
    literal,
    prefixed,
    scope_triggers,
)

_0020 = importlib.import_module("results.migrations.0020_catalog_version")

DRIVE_OF_ROW = (
    f"(SELECT {prefixed(DRIVE_PREFIX, 'd.slug')} FROM drives_drive d WHERE d.id = r.drive_id)"
)
DRIVE_OF_RUN = (
    f"(SELECT {prefixed(DRIVE_PREFIX, 'd.slug')} FROM results_run run "
    "JOIN drives_drive d ON d.id = run.drive_id WHERE run.id = r.run_id)"
)
TEST_OF_ROW = (
    f"(SELECT {prefixed(TEST_PREFIX, 't.identifier')} FROM results_test t WHERE t.id = r.test_id)"
)
# What value views price: the entries of the 4KB throughput tests (results.value_index).
PRICED_4K_ENTRY = (
    f"(SELECT {literal(VALUE)} FROM results_test t WHERE t.id = r.test_id AND r.price_usd IS NOT NULL "
    "AND t.kind = 'throughput' AND t.block_size = 4096)"
)

# What a row of each table touches (core.versions.scope_triggers). A bench or a citation
# shows only through the runs naming it: a new one changes no page.
VERSIONED = {
    "results_suite": {"always": (CATALOG,)},
    "results_suitetest": {"always": (CATALOG,)},
    "results_test": {"always": (CATALOG,)},
    "results_testbench": {"changed": (CATALOG,)},
    "results_citation": {"changed": (CATALOG,)},
    "results_run": {"of_row": (DRIVE_OF_ROW,)},
    "results_result": {"of_row": (DRIVE_OF_RUN,)},
    "results_consistencyseries": {"of_row": (DRIVE_OF_RUN,)},
    "results_trimvalidation": {"of_row": (DRIVE_OF_RUN,)},
    "results_saturationseries": {"of_row": (DRIVE_OF_RUN,)},
    "results_leaderboardentry": {"of_row": (DRIVE_OF_ROW, TEST_OF_ROW, PRICED_4K_ENTRY)},
}
TRIGGERS = {table: scope_triggers(table, **scopes) for table, scopes in VERSIONED.items()}
INSTALL = "\n".join(install for install, _ in TRIGGERS.values())
REMOVE = "\n".join(remove for _, remove in TRIGGERS.values())
RESTORE_0020 = _0020.FORWARD + "".join(_0020.TRIGGERS.format(table=t) for t in _0020.TABLES)


class Migration(migrations.Migration):
    dependencies = [
        ("core", "0001_scope_versions"),
        ("results", "0024_leaderboard_copies_generated"),
    ]

    operations = [migrations.RunSQL(_0020.BACKWARD + INSTALL, REMOVE + RESTORE_0020)]
