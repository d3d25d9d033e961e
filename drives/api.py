"""The catalog's REST API: drives (the catalog page's filters and search), manufacturers,
controllers, NAND types, firmware versions and prices. Read-only; slugs in URLs as on the
pages. Synthetic drives stay out, as on the pages."""

from __future__ import annotations

import django_filters
from django.db.models import QuerySet
from django.http import Http404
from drf_spectacular.utils import extend_schema, extend_schema_view
from rest_framework import serializers, viewsets
from rest_framework.request import Request
from rest_framework.response import Response

from core.filters import (
    FilterSet,
    QueryFilterBackend,
    SlugFilter,
    StableOrderingFilter,
    query_errors,
)
from core.serializers import MoneyField, RowWriter
from drives.filters import DriveFilter
from drives.models import Controller, Drive, FirmwareVersion, Manufacturer, NandType, Price
from drives.selectors import CATALOG_ORDER, catalog_row, drive_list, drive_page

# -- serializers -----------------------------------------------------------------------------


class ManufacturerSerializer(serializers.ModelSerializer):
    class Meta:
        model = Manufacturer
        fields = ["slug", "name", "website"]


class ControllerSerializer(serializers.ModelSerializer):
    vendor = serializers.CharField(source="vendor.name", read_only=True)

    class Meta:
        model = Controller
        fields = ["slug", "vendor", "model", "channels", "compresses_data"]


class NandTypeSerializer(serializers.ModelSerializer):
    vendor = serializers.CharField(
        source="vendor.name", read_only=True, default=None, allow_null=True
    )

    class Meta:
        model = NandType
        fields = ["slug", "vendor", "cell_type", "process_nm", "interface", "layers"]


class DriveSerializer(RowWriter, serializers.ModelSerializer):
    manufacturer = serializers.CharField(source="manufacturer.name", read_only=True)
    controller = serializers.SlugRelatedField(slug_field="slug", read_only=True, allow_null=True)
    nand = serializers.SlugRelatedField(slug_field="slug", read_only=True, allow_null=True)
    cell_type = serializers.CharField(read_only=True, allow_null=True)
    latest_price_usd = MoneyField(
        source="latest_price",
        max_digits=12,
        decimal_places=2,
        read_only=True,
        allow_null=True,
        help_text="The latest price seen, in US dollars",
    )
    page = serializers.CharField(
        source="url", read_only=True, help_text="The drive's page on the site"
    )

    class Meta(RowWriter.Meta):
        model = Drive
        fields = [
            "slug",
            "manufacturer",
            "model",
            "capacity_bytes",
            "part_number",
            "hardware_revision",
            "kind",
            "interface",
            "form_factor",
            "controller",
            "nand",
            "cell_type",
            "dram_bytes",
            "release_date",
            "latest_price_usd",
            "needs_review",
            "page",
        ]
        extra_kwargs = {
            "needs_review": {
                "help_text": "Created by an upload and not yet approved by staff: shown marked "
                "unreviewed, and left out of rankings and value views until approved"
            }
        }


class FirmwareSerializer(serializers.ModelSerializer):
    drive = serializers.SlugRelatedField(slug_field="slug", read_only=True)

    class Meta:
        model = FirmwareVersion
        fields = ["id", "drive", "version", "release_date", "notes"]


class PriceSerializer(serializers.ModelSerializer):
    drive = serializers.SlugRelatedField(slug_field="slug", read_only=True)
    amount = MoneyField(max_digits=12, decimal_places=2, read_only=True)

    class Meta:
        model = Price
        fields = ["id", "drive", "amount", "currency", "observed_on", "source", "source_url"]


# -- filters ---------------------------------------------------------------------------------


class DriveApiFilter(DriveFilter):
    """The catalog page's filters, plus the catalog's own names."""

    manufacturer = SlugFilter(
        to=Manufacturer, field_name="manufacturer", max_length=100, label="Manufacturer (slug)"
    )
    nand = SlugFilter(to=NandType, field_name="nand", max_length=120, label="NAND (slug)")

    class Meta(DriveFilter.Meta):
        pass


class DriveChildFilter(FilterSet):
    drive = django_filters.CharFilter(
        field_name="drive__slug", max_length=255, label="Drive", help_text="A drive's slug"
    )


class PriceFilter(DriveChildFilter):
    currency = django_filters.CharFilter(max_length=3, lookup_expr="iexact")
    observed_after = django_filters.DateFilter(field_name="observed_on", lookup_expr="gte")
    observed_before = django_filters.DateFilter(field_name="observed_on", lookup_expr="lte")

    class Meta:
        model = Price
        fields: list[str] = []


class FirmwareFilter(DriveChildFilter):
    class Meta:
        model = FirmwareVersion
        fields: list[str] = []


# -- views -----------------------------------------------------------------------------------


class CatalogViewSet(viewsets.ReadOnlyModelViewSet):
    lookup_field = "slug"
    lookup_value_regex = "[-a-zA-Z0-9_]+"


@extend_schema_view(
    list=extend_schema(
        summary="Drives",
        description="Every drive of the catalog with its specs and latest price. `q` "
        "searches model, maker, controller and part number (a word such as 240GB matches "
        "the capacity); capacities in decimal GB.",
    ),
    retrieve=extend_schema(summary="One drive"),
)
class DriveViewSet(CatalogViewSet):
    serializer_class = DriveSerializer
    filterset_class = DriveApiFilter
    filter_backends = [QueryFilterBackend, StableOrderingFilter]
    ordering_fields = ["model", "capacity_bytes", "release_date", "manufacturer__name"]

    def get_queryset(self) -> QuerySet[Drive]:
        return drive_list()  # the catalog page's read

    def list(self, request: Request, *args, **kwargs) -> Response:
        # The filter and ordering backends' own validation, then the catalog page's read
        # (drive_page) with their filters and order.
        queryset = self.get_queryset()
        filters = QueryFilterBackend().get_filterset(request, queryset, self)
        if not filters.is_valid():
            raise query_errors(filters.errors)
        order = StableOrderingFilter().get_ordering(request, queryset, self) or CATALOG_ORDER
        paginator = self.paginator
        paginator.request = request
        paginator.limit = paginator.get_limit(request)
        paginator.offset = paginator.get_offset(request)
        paginator.count, rows = drive_page(
            filters=filters, order=order, offset=paginator.offset, limit=paginator.limit
        )
        return paginator.get_paginated_response(self.get_serializer(rows, many=True).data)

    def retrieve(self, request: Request, *args, **kwargs) -> Response:
        row = catalog_row(kwargs["slug"])
        if row is None:
            raise Http404("No Drive matches the given query.")
        return Response(self.get_serializer(row).data)


class ManufacturerViewSet(CatalogViewSet):
    serializer_class = ManufacturerSerializer
    queryset = Manufacturer.objects.order_by("name")


class ControllerViewSet(CatalogViewSet):
    serializer_class = ControllerSerializer
    queryset = Controller.objects.select_related("vendor").order_by("vendor__name", "model")


class NandTypeViewSet(CatalogViewSet):
    serializer_class = NandTypeSerializer
    queryset = NandType.objects.select_related("vendor").order_by("slug")


class FirmwareViewSet(viewsets.ReadOnlyModelViewSet):
    serializer_class = FirmwareSerializer
    filterset_class = FirmwareFilter

    def get_queryset(self) -> QuerySet[FirmwareVersion]:
        return (
            FirmwareVersion.objects.filter(drive__in=Drive.objects.real())
            .select_related("drive")
            .order_by("drive__slug", "version")
        )


class PriceViewSet(viewsets.ReadOnlyModelViewSet):
    serializer_class = PriceSerializer
    filterset_class = PriceFilter

    def get_queryset(self) -> QuerySet[Price]:
        return (
            Price.objects.filter(drive__in=Drive.objects.real())
            .select_related("drive")
            .order_by("drive__slug", "-observed_on", "pk")
        )
