"""The rankings scope (core.versions.RANKINGS): every write of a leaderboard entry moves it,
so that the in-process copy of the entries (results.entries_index), which rankings now rank
on, follows a ranking of any test. The entries' triggers are made again from
results.versioned.VERSIONED."""

from django.db import migrations

from core.versions import scope_triggers
from results.versioned import VERSIONED

TABLE = "results_leaderboardentry"
BEFORE = {
    "of_row": VERSIONED[TABLE]["of_row"],
}
INSTALL, REMOVE = scope_triggers(TABLE, **VERSIONED[TABLE])
INSTALL_BEFORE, REMOVE_BEFORE = scope_triggers(TABLE, **BEFORE)


class Migration(migrations.Migration):
    dependencies = [("results", "0041_result_histograms")]

    operations = [migrations.RunSQL(REMOVE_BEFORE + "\n" + INSTALL, REMOVE + "\n" + INSTALL_BEFORE)]
