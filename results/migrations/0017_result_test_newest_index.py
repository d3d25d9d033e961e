import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):
    """The results of a test newest first, from an index on (test, id); it also serves the
    test key's lookups, so the key's own index goes (after the new one is built)."""

    dependencies = [
        ("results", "0016_leaderboard_ranking_covering_indexes"),
    ]

    operations = [
        migrations.AddIndex(
            model_name="result",
            index=models.Index(fields=["test", "id"], name="result_test_newest_idx"),
        ),
        migrations.AlterField(
            model_name="result",
            name="test",
            field=models.ForeignKey(
                db_index=False,
                on_delete=django.db.models.deletion.PROTECT,
                related_name="results",
                to="results.test",
            ),
        ),
    ]
