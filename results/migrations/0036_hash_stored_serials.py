"""The serial number of every stored version 1 or 2 document as its salted hash: the
document's target.serial becomes target.serial_hash, as run_ingest now stores it, and the
run's unit_hash its hash. Documents are read a batch at a time. The content hash stays the
submitted document's (run_ingest computes it so), so that a document sent again is still
the run it was."""

import json

from django.db import migrations, models
from django.db.models import Q

from results.documents import hash_serial

BATCH = 500


def hash_stored_serials(apps, schema_editor):
    Run = apps.get_model("results", "Run")
    # Only text spelling "serial", or spelling a key with a \u escape, can hold the key.
    runs = (
        Run.objects.filter(schema_version__in=(1, 2))
        .filter(Q(document__contains="serial") | Q(document__contains="\\u"))
        .only("id", "document", "unit_hash")
        .order_by("id")
    )
    changed = []
    for run in runs.iterator(chunk_size=BATCH):
        document = json.loads(run.document)
        if not hash_serial(document):
            continue
        run.document = json.dumps(document, ensure_ascii=False)
        run.unit_hash = run.unit_hash or document["target"].get("serial_hash", "")
        changed.append(run)
        if len(changed) == BATCH:
            Run.objects.bulk_update(changed, ["document", "unit_hash"])
            changed = []
    Run.objects.bulk_update(changed, ["document", "unit_hash"])


class Migration(migrations.Migration):
    dependencies = [
        ("results", "0035_wsat"),
    ]

    operations = [
        migrations.AlterField(
            model_name="run",
            name="document",
            field=models.TextField(
                help_text="The result document as it was submitted, but for a version 1 or 2 document's serial number, held as its salted hash (target.serial_hash)"
            ),
        ),
        migrations.RunPython(hash_stored_serials, migrations.RunPython.noop, elidable=True),
    ]
