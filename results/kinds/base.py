"""What a kind of test (Test.Kind) declares once, for every stage that handles it: the rows
ingest writes from a document's entries, and the sections (results.sections.Section, each with
its charts, its export rows and its entry in the API's compare body) a comparison shows of it.
The list of kinds is results.kinds.KINDS."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from django.db import models

from results.documents import SECTION_OF_KIND

if TYPE_CHECKING:
    from results.models import Run, Test
    from results.sections import Section
    from results.selectors.compare import Comparison
    from results.selectors.kind_rankings import RankedBy


@dataclass(frozen=True, slots=True)
class Shown:
    """How a page shows a comparison's charts: the consistency charts' scale and view
    (?scale=, ?view=), WSAT's axis (?wsat_x=)."""

    scale: str = "log"
    view: str = "full"
    wsat_axis: str = "time"


@dataclass(frozen=True, slots=True)
class Kind:
    """One kind of test.

    `rows(run, entries, tests, document)`: the model rows a document's entries of this kind
    (its section, documents.SECTION_OF_KIND) are stored as, unsaved, for one bulk insert.
    `sections(comparison, shown)`: its sections of a comparison, in the page's order.
    `ranked_by(test)`: how a test of the kind is ranked on its own page and in the API
    (results.selectors.kind_rankings); None for throughput, whose rankings are the
    leaderboards (results.selectors.rankings)."""

    name: str  # Test.Kind
    model: type[models.Model]
    rows: Callable[[Run, list[dict[str, Any]], Mapping[str, Test], Mapping[str, Any]], list]
    sections: Callable[[Comparison, Shown], list[Section]]
    ranked_by: Callable[[Test], RankedBy] | None = None

    @property
    def section(self) -> str:
        """The key of a result document that holds this kind's entries."""
        return SECTION_OF_KIND[self.name]
