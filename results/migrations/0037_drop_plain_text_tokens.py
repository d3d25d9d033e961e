"""API tokens are django-rest-knox's now, stored as digests. DRF's authtoken table held
every token in plain text and cannot be converted: it is dropped (where it was ever made),
and its app's migration records with it, so that no plain-text secret lingers. The holders
of those tokens get new ones (README, "Uploading results")."""

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [
        ("results", "0036_hash_stored_serials"),
    ]

    operations = [
        migrations.RunSQL(
            [
                "DROP TABLE IF EXISTS authtoken_token",
                "DELETE FROM django_migrations WHERE app = 'authtoken'",
            ],
            migrations.RunSQL.noop,
            elidable=True,
        ),
    ]
