"""No placeholder drives: the runs stored under a drive whose manufacturer or model names
nothing ("unknown unknown", where unnamed uploads used to pool; drives.models.is_placeholder)
are withdrawn, with the reason, and the drive leaves the catalog's lists and rankings. Its
submitters upload again naming the drive (results.services.drive_spec refuses an unnamed
one now)."""

from django.db import migrations
from django.utils import timezone

from drives.models import is_placeholder

REASON = (
    "withdrawn by the site: the run was stored under a placeholder drive ({drive}) shared "
    "by unnamed uploads; upload it again naming the drive (loadgen --drive)"
)


def withdraw_placeholders(apps, schema_editor):
    Drive = apps.get_model("drives", "Drive")
    Run = apps.get_model("results", "Run")
    Entry = apps.get_model("results", "LeaderboardEntry")
    now = timezone.now()
    for drive in Drive.objects.select_related("manufacturer").iterator():
        if not (is_placeholder(drive.manufacturer.name) or is_placeholder(drive.model)):
            continue
        name = f"{drive.manufacturer.name} {drive.model}"
        Run.objects.filter(drive=drive).exclude(status="withdrawn").update(
            status="withdrawn", withdrawn_at=now, withdrawn_reason=REASON.format(drive=name)
        )
        Entry.objects.filter(drive=drive).delete()
        Drive.objects.filter(pk=drive.pk).update(listed=False)


class Migration(migrations.Migration):
    dependencies = [
        ("drives", "0001_squashed_0012_scope_versions"),
        ("results", "0038_reviewed_reference"),
    ]

    operations = [migrations.RunPython(withdraw_placeholders, migrations.RunPython.noop)]
