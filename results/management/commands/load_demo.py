"""Load the demo data of `make run`: the seed articles' drives, prices and published
figures, and the real loadgen runs kept as samples. Safe to run any number of times."""

import json

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from drives.services import catalog_load
from results.documents import DocumentRejected
from results.services import run_ingest

DEMO_DIR = settings.BASE_DIR / "demo"
MEASURED_SAMPLES = settings.BASE_DIR / "results" / "schema" / "samples"


class Command(BaseCommand):
    help = __doc__

    def handle(self, *args, **options):
        counts = catalog_load(data=json.loads((DEMO_DIR / "catalog.json").read_text()))
        documents = sorted((DEMO_DIR / "runs").glob("*.json"))
        documents += sorted(MEASURED_SAMPLES.glob("measured-*.json"))
        created = 0
        for path in documents:
            try:
                outcome = run_ingest(document=path.read_bytes(), submitter=None)
            except DocumentRejected as exc:
                raise CommandError(f"demo document {path.name} is invalid: {exc}") from exc
            created += outcome.created
        self.stdout.write(
            f"demo data: {counts.drives} drives, {counts.prices} prices, "
            f"{len(documents)} runs ({created} new)"
        )
