"""Factories for catalog rows and builders for result documents."""

import copy

import factory

from drives.models import Controller, Drive, Manufacturer, NandType, Price

GB = 10**9


class ManufacturerFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Manufacturer

    name = factory.Sequence(lambda n: f"Maker {n}")
    slug = factory.Sequence(lambda n: f"maker-{n}")


class ControllerFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Controller

    vendor = factory.SubFactory(ManufacturerFactory)
    model = factory.Sequence(lambda n: f"CTL-{n}")
    slug = factory.Sequence(lambda n: f"ctl-{n}")
    channels = 8


class NandTypeFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = NandType

    vendor = factory.SubFactory(ManufacturerFactory)
    process_nm = 25
    cell_type = NandType.CellType.MLC
    interface = NandType.Interface.SYNC_ONFI
    slug = factory.Sequence(lambda n: f"nand-{n}")


class DriveFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Drive

    manufacturer = factory.SubFactory(ManufacturerFactory)
    model = factory.Sequence(lambda n: f"Drive {n}")
    capacity_bytes = 256 * GB
    slug = factory.Sequence(lambda n: f"drive-{n}")
    kind = Drive.Kind.SSD
    interface = Drive.Interface.SATA_6G


class PriceFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Price

    drive = factory.SubFactory(DriveFactory)
    amount = "199.99"
    currency = "USD"
    observed_on = "2013-11-15"
    source = factory.Sequence(lambda n: f"Shop {n}")


def with_changes(document: dict, **changes) -> dict:
    changed = copy.deepcopy(document)
    changed.update(changes)
    return changed
