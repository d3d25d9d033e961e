"""Reads of the drive catalog for pages and the API."""

from django.db.models import OuterRef, QuerySet, Subquery

from drives.filters import search_q
from drives.models import Drive, Price


def drive_list(*, drives: QuerySet[Drive] | None = None) -> QuerySet[Drive]:
    """Real drives (`drives`, e.g. filtered by DriveFilter, or all) with their specs and
    latest USD price, for the catalog page."""
    latest = Price.objects.filter(drive=OuterRef("pk"), currency="USD").order_by("-observed_on")
    base = drives if drives is not None else Drive.objects.all()
    return (
        base.real()
        .with_specs()
        .annotate(latest_price=Subquery(latest.values("amount")[:1]))
        .order_by("manufacturer__name", "model", "capacity_bytes", "pk")
    )


def drive_search(text: str, *, limit: int) -> list[Drive]:
    """Drives whose name matches every word of `text`, for the pickers. One query."""
    return list(
        Drive.objects.real()
        .filter(search_q(text))
        .select_related("manufacturer")
        .order_by("manufacturer__name", "model", "capacity_bytes", "pk")[:limit]
    )


def drive_match(text: str, *, limit: int) -> tuple[Drive | None, list[Drive]]:
    """The drive that `text` names (its slug, or its full name, or the only match of a
    search) and the candidates when it names none for certain."""
    exact = Drive.objects.real().select_related("manufacturer").filter(slug=text).first()
    if exact:
        return exact, [exact]
    candidates = drive_search(text, limit=limit)
    named = [d for d in candidates if str(d).lower() == text.lower()]
    if len(named) == 1:
        return named[0], candidates
    return (candidates[0] if len(candidates) == 1 else None), candidates
