"""Load the demo data of `make run`: the seed articles' drives, prices and published
figures, the full-length loadgen runs measured for the demo (demo/measured/, made by
demo/measure), and the real loadgen runs kept as samples. Safe to run any number of times."""

import json

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError
from django.db.models import Q

from drives.services import catalog_load
from results.documents import DocumentRejected
from results.models import Run
from results.services import run_ingest, run_withdraw

DEMO_DIR = settings.BASE_DIR / "demo"
MEASURED_SAMPLES = settings.BASE_DIR / "results" / "schema" / "samples"
SUPERSEDED = "superseded by a corrected version of the demo data"


class Command(BaseCommand):
    help = __doc__

    def handle(self, *args, **options):
        counts = catalog_load(data=json.loads((DEMO_DIR / "catalog.json").read_text()))
        documents = sorted((DEMO_DIR / "runs").glob("*.json"))
        documents += sorted((DEMO_DIR / "measured").glob("*.json"))
        documents += sorted(MEASURED_SAMPLES.glob("measured-*.json"))
        created, current = 0, []
        for path in documents:
            try:
                outcome = run_ingest(document=path.read_bytes(), submitter=None)
            except DocumentRejected as exc:
                raise CommandError(f"demo document {path.name} is invalid: {exc}") from exc
            created += outcome.created
            current.append(outcome.run)
        withdrawn = self._withdraw_superseded(current)
        self.stdout.write(
            f"demo data: {counts.drives} drives, {counts.prices} prices, "
            f"{len(documents)} runs ({created} new, {withdrawn} superseded withdrawn)"
        )

    @staticmethod
    def _withdraw_superseded(current: list[Run]) -> int:
        """Earlier versions of the published demo documents (the same article's figures
        for the same drive, imported from the command line) leave the pages; their rows
        stay, as for any withdrawn run."""
        same_source = Q(pk__in=[])
        for run in current:
            if run.citation_id is not None:
                same_source |= Q(drive_id=run.drive_id, citation_id=run.citation_id)
        older = (
            Run.objects.published()
            .filter(same_source, source=Run.Source.PUBLISHED, submitter=None)
            .exclude(pk__in=[run.pk for run in current])
        )
        for run in older:
            run_withdraw(run=run, reason=SUPERSEDED)
        return len(older)
