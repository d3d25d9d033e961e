"""Reads of the drive catalog for pages and the API."""

from django.db.models import OuterRef, Q, QuerySet, Subquery

from drives.models import Drive, Price


def drive_list(*, search: str = "", kind: str = "", interface: str = "") -> QuerySet[Drive]:
    """Real (non-synthetic) drives with their specs and latest USD price, for the home page."""
    latest = Price.objects.filter(drive=OuterRef("pk"), currency="USD").order_by("-observed_on")
    drives = (
        Drive.objects.real()
        .with_specs()
        .annotate(latest_price=Subquery(latest.values("amount")[:1]))
        .order_by("manufacturer__name", "model", "capacity_bytes")
    )
    for word in search.split():
        drives = drives.filter(
            Q(model__icontains=word)
            | Q(manufacturer__name__icontains=word)
            | Q(controller__model__icontains=word)
            | Q(part_number__icontains=word)
        )
    if kind:
        drives = drives.filter(kind=kind)
    if interface:
        drives = drives.filter(interface=interface)
    return drives


def drive_detail(*, slug: str) -> Drive:
    """One drive with its specs, firmware versions and price history. Raises DoesNotExist."""
    return Drive.objects.with_specs().prefetch_related("firmware_versions", "prices").get(slug=slug)
