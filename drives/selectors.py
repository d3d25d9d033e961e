"""Reads of the drive catalog for pages and the API."""

from collections.abc import Sequence

from django.db.models import QuerySet

from drives.filters import search_q
from drives.models import Drive, Price


def drive_list(*, drives: QuerySet[Drive] | None = None) -> QuerySet[Drive]:
    """Real drives (`drives`, e.g. filtered by DriveFilter, or all) with their specs, for the
    catalog page and the API's drive list; give the page shown its prices with
    with_latest_prices (a price lookup for every drive of a 10,000-drive catalog, before the
    sort that picks the page, cost more than the rest of the list)."""
    base = drives if drives is not None else Drive.objects.all()
    return (
        base.real()
        .with_specs()
        .select_related("nand")
        .order_by("sort_name", "capacity_bytes", "pk")
    )


def drive_rows(ids: Sequence[int]) -> list[Drive]:
    """The drives of a page chosen by id (from drive_list(...).values_list("pk")), in that
    order, with their specs and latest prices. Sorting and counting only ids first keeps the
    wide joined rows out of the sort: two queries for the page whatever the catalog's size."""
    found = Drive.objects.with_specs().select_related("nand").in_bulk(list(ids))
    return list(with_latest_prices([found[pk] for pk in ids if pk in found]))


def with_latest_prices(drives: Sequence[Drive]) -> Sequence[Drive]:
    """Each drive with its latest USD price as `latest_price` (None without one). One query."""
    ids = [d.pk for d in drives]
    latest = (
        dict(
            Price.objects.filter(drive_id__in=ids, currency="USD")
            .order_by("drive_id", "-observed_on", "amount")
            .distinct("drive_id")
            .values_list("drive_id", "amount")
        )
        if ids
        else {}
    )
    for drive in drives:
        drive.latest_price = latest.get(drive.pk)
    return drives


def drive_search(text: str, *, limit: int) -> list[Drive]:
    """Drives whose name matches every word of `text`, for the pickers. One query."""
    return list(
        Drive.objects.real()
        .filter(search_q(text))
        .select_related("manufacturer")
        .order_by("sort_name", "capacity_bytes", "pk")[:limit]
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
