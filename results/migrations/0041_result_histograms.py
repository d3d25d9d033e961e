"""Each result's latency histograms as its document gives them (schema version 5): results
stored before have none (their documents are kept, but no page reads them from there)."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("results", "0040_value_copy_changes"),
    ]

    operations = [
        migrations.AddField(
            model_name="result",
            name="latency_histogram",
            field=models.JSONField(
                blank=True, help_text="Its latency's histogram (schema version 5)", null=True
            ),
        ),
        migrations.AddField(
            model_name="result",
            name="read_latency_histogram",
            field=models.JSONField(blank=True, null=True),
        ),
        migrations.AddField(
            model_name="result",
            name="write_latency_histogram",
            field=models.JSONField(blank=True, null=True),
        ),
    ]
