"""What a written row of each results table touches (core.versions.scope_triggers): an
upload moves its drive's pages, the rankings of the tests its entries changed and, when they
are priced, the value views; not every page. A bench or a citation shows only through the
runs naming it: a new one changes no page. The migration that installs the triggers, and any
later one that changes them, reads this one declaration."""

from core.versions import (
    CATALOG,
    DRIVE_PREFIX,
    RANKINGS,
    TEST_PREFIX,
    VALUE,
    WHOLE,
    literal,
    prefixed,
)
from drives.versioned import DRIVE_OF_ROW

DRIVE_OF_RUN = (
    f"(SELECT {prefixed(DRIVE_PREFIX, 'd.slug')} FROM results_run run "
    "JOIN drives_drive d ON d.id = run.drive_id WHERE run.id = r.run_id)"
)
TEST_OF_ROW = (
    f"(SELECT {prefixed(TEST_PREFIX, 't.identifier')} FROM results_test t WHERE t.id = r.test_id)"
)
# What value views price: the entries of the 4KB throughput tests (results.entries_index).
PRICED_4K_ENTRY = (
    f"(SELECT {literal(VALUE)} FROM results_test t WHERE t.id = r.test_id "
    "AND r.price_usd IS NOT NULL AND t.kind = 'throughput' AND t.block_size = 4096)"
)

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
    "results_leaderboardentry": {
        "always": (RANKINGS,),
        "of_row": (DRIVE_OF_ROW, TEST_OF_ROW, PRICED_4K_ENTRY),
    },
}

# The leaderboard entries rankings rank and value views price, held in each server process
# (results.entries_index): which drive's rows a written row changes
# (core.versions.copy_triggers), or WHOLE: an edit of a maker or a controller shows on every
# drive's label and entries that name it, a test's on all its entries. The log names the
# copy "value", as migration 0040 installed it when it held the priced entries alone.
ENTRIES_COPY = "value"
ENTRIES_COPIED = {
    "drives_drive": "r.id",
    "drives_price": "r.drive_id",
    "drives_manufacturer": WHOLE,
    "drives_controller": WHOLE,
    "results_leaderboardentry": "r.drive_id",
    "results_test": WHOLE,
}
