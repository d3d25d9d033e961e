"""The reviewed reference holds judge uploads against (results.plausibility): Run.reviewed,
and the "trusted reviewer" group whose runs are reviewed as they are published. Runs stored
before: reviewed when imported by a command (no submitter), submitted by staff, or held and
then approved by staff (published with the reasons of their hold)."""

from django.db import migrations, models
from django.db.models import Q

TRUSTED_GROUP = "trusted reviewer"  # results.permissions.TRUSTED_GROUP


def mark_reviewed(apps, schema_editor):
    Run = apps.get_model("results", "Run")
    Run.objects.filter(
        Q(submitter__isnull=True)
        | Q(submitter__is_staff=True)
        | (Q(status="published") & ~Q(held_reason=""))
    ).update(reviewed=True)
    apps.get_model("auth", "Group").objects.get_or_create(name=TRUSTED_GROUP)


def unmark(apps, schema_editor):
    apps.get_model("auth", "Group").objects.filter(name=TRUSTED_GROUP).delete()


class Migration(migrations.Migration):
    dependencies = [
        ("auth", "0012_alter_user_first_name_max_length"),
        ("results", "0037_drop_plain_text_tokens"),
    ]

    operations = [
        migrations.AddField(
            model_name="run",
            name="reviewed",
            field=models.BooleanField(
                db_default=False,
                default=False,
                help_text="Part of its drive's reviewed reference, which holds judge uploads "
                "against (results.plausibility): imported by staff, uploaded by a trusted "
                "reviewer, or approved by staff",
            ),
        ),
        migrations.RunPython(mark_reviewed, unmark),
    ]
