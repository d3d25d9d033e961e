"""Content hashes of the canonical form with numbers by value (2.56e11 is 256000000000).

Runs ingested before hashed numbers as spelled; their hashes are recomputed from the
stored documents so that a reformatted copy of an old document is found, not ingested
again. Where two stored runs turn out to be one content, the later keeps its old hash
(both stay; withdraw one by hand).
"""

import hashlib
import json

from django.db import migrations


def canonical(value):
    # results.documents._canonical as of this migration.
    if isinstance(value, float):
        return int(value) if value.is_integer() else value
    if isinstance(value, dict):
        return {key: canonical(item) for key, item in value.items()}
    if isinstance(value, list):
        return [canonical(item) for item in value]
    return value


def content_hash(text: str) -> str:
    document = json.loads(text)
    canonical_text = json.dumps(
        canonical(document), sort_keys=True, separators=(",", ":"), ensure_ascii=False
    )
    return hashlib.sha256(canonical_text.encode()).hexdigest()


def rehash(apps, schema_editor):
    Run = apps.get_model("results", "Run")
    taken = set(Run.objects.values_list("content_hash", flat=True))
    for run in Run.objects.exclude(source="synthetic").only("document", "content_hash"):
        digest = content_hash(run.document)
        if digest != run.content_hash and digest not in taken:
            taken.discard(run.content_hash)
            taken.add(digest)
            run.content_hash = digest
            run.save(update_fields=["content_hash"])


class Migration(migrations.Migration):
    dependencies = [("results", "0004_test_catalog_as_ssd_trim")]

    operations = [migrations.RunPython(rehash, migrations.RunPython.noop)]
