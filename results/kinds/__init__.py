"""The kinds of test (Test.Kind), one module each: what a document's entries of the kind are
stored as (ingest: results.services), and the sections a comparison shows of it, each with its
charts, export rows and entry in the API's body (results.sections). Ingest, the compare page,
its exports, its chart images and the API iterate over KINDS; a new kind is a module here
and its line in KINDS (docs/extending.md)."""

# curve too, which throughput imports where it is called (it reads throughput's texts).
from results.kinds import consistency, curve, saturation, throughput, trim  # noqa: F401
from results.kinds.base import Kind, Shown
from results.sections import Section
from results.selectors.compare import Comparison

# In the compare page's order of sections.
KINDS: tuple[Kind, ...] = (throughput.KIND, consistency.KIND, trim.KIND, saturation.KIND)
KIND_OF = {kind.name: kind for kind in KINDS}
# The kinds ranked on a page of their own (results.selectors.kind_rankings), by name.
RANKED_KINDS = tuple(kind.name for kind in KINDS if kind.ranked_by is not None)
AS_DEFAULT = Shown()  # the charts as an address that asks for nothing shows them


def compare_sections(c: Comparison, shown: Shown = AS_DEFAULT) -> list[Section]:
    """Every section of a comparison, in the page's order (each, empty or not)."""
    return [section for kind in KINDS for section in kind.sections(c, shown)]


__all__ = ["KINDS", "KIND_OF", "RANKED_KINDS", "Kind", "Shown", "compare_sections"]
