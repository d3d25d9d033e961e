from django.contrib import admin

from drives.models import Controller, Drive, FirmwareVersion, Manufacturer, NandType, Price


@admin.register(Manufacturer)
class ManufacturerAdmin(admin.ModelAdmin):
    list_display = ["name", "slug", "website"]
    search_fields = ["name"]
    prepopulated_fields = {"slug": ["name"]}


@admin.register(Controller)
class ControllerAdmin(admin.ModelAdmin):
    list_display = ["__str__", "channels", "compresses_data"]
    list_filter = ["vendor", "compresses_data"]
    search_fields = ["model", "vendor__name"]
    list_select_related = ["vendor"]
    autocomplete_fields = ["vendor"]


@admin.register(NandType)
class NandTypeAdmin(admin.ModelAdmin):
    list_display = ["__str__", "process_nm", "cell_type", "interface", "layers"]
    list_filter = ["vendor", "cell_type", "interface"]
    search_fields = ["vendor__name", "slug"]
    list_select_related = ["vendor"]
    autocomplete_fields = ["vendor"]


class FirmwareInline(admin.TabularInline):
    model = FirmwareVersion
    extra = 0


class PriceInline(admin.TabularInline):
    model = Price
    extra = 0


@admin.register(Drive)
class DriveAdmin(admin.ModelAdmin):
    list_display = [
        "__str__",
        "kind",
        "interface",
        "form_factor",
        "controller",
        "nand",
        "release_date",
        "needs_review",
        "synthetic",
    ]
    list_filter = [
        "needs_review",
        "kind",
        "interface",
        "form_factor",
        "synthetic",
        "manufacturer",
        "controller__vendor",
        "nand__cell_type",
    ]
    search_fields = ["model", "manufacturer__name", "part_number", "slug"]
    list_select_related = ["manufacturer", "controller__vendor", "nand__vendor"]
    autocomplete_fields = ["manufacturer", "controller", "nand"]
    prepopulated_fields = {"slug": ["model"]}
    inlines = [FirmwareInline, PriceInline]
    actions = ["mark_reviewed"]
    show_full_result_count = False

    @admin.action(description="Mark the selected drives reviewed (their specs were checked)")
    def mark_reviewed(self, request, queryset):
        done = queryset.filter(needs_review=True).update(needs_review=False)
        self.message_user(request, f"{done} drive(s) marked reviewed")


@admin.register(FirmwareVersion)
class FirmwareVersionAdmin(admin.ModelAdmin):
    list_display = ["version", "drive", "release_date"]
    search_fields = ["version", "drive__model", "drive__manufacturer__name"]
    list_select_related = ["drive__manufacturer"]
    autocomplete_fields = ["drive"]


@admin.register(Price)
class PriceAdmin(admin.ModelAdmin):
    list_display = ["drive", "amount", "currency", "observed_on", "source"]
    list_filter = ["currency", "observed_on"]
    search_fields = ["drive__model", "drive__manufacturer__name", "source"]
    list_select_related = ["drive__manufacturer"]
    autocomplete_fields = ["drive"]
    date_hierarchy = "observed_on"
