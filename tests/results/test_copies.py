"""A leaderboard entry's copies of its drive's specs (results.models.DRIVE_COPIES, kept by
the triggers results.copies makes): whatever is written to drives, their NAND types and the
entries, in any order, every entry holds what the ORM reads through its drive; and the
database's triggers are those the list makes (a copy added to it needs its migration)."""

import pytest
from django.apps import apps
from django.db import connection, transaction
from hypothesis import given, settings
from hypothesis import strategies as st

from drives.models import Drive, NandType
from results.copies import copy_sql
from results.models import DRIVE_COPIES, LeaderboardEntry, copy_field
from results.services import leaderboard_refresh
from tests.factories import ControllerFactory, NandTypeFactory
from tests.results.helpers import measured

pytestmark = pytest.mark.django_db

WRITES = st.lists(
    st.sampled_from(
        ["controller", "interface", "kind", "nand", "capacity", "cell_type", "refresh"]
    ),
    min_size=1,
    max_size=8,
)


def held_and_read() -> tuple[list, list]:
    """Every entry's copies, and what the ORM reads of them through its drive (a drive
    without a NAND type has no cell type: the entry holds "")."""
    entries = LeaderboardEntry.objects.order_by("pk")
    held = list(entries.values_list(*map(copy_field, DRIVE_COPIES)))
    read = [
        tuple(
            "" if v is None and "__" in path else v
            for path, v in zip(DRIVE_COPIES, row, strict=True)
        )
        for row in entries.values_list(*(f"drive__{path}" for path in DRIVE_COPIES))
    ]
    return held, read


@settings(max_examples=15, deadline=None, derandomize=True, database=None)
@given(writes=WRITES, data=st.data())
def test_every_entry_holds_its_drives_specs_whatever_is_written(writes, data):
    with transaction.atomic():
        runs = [measured(manufacturer="M", model=f"Drive {i}", seed=i) for i in range(2)]
        controllers = [ControllerFactory(), ControllerFactory()]
        nands = [NandTypeFactory(cell_type="mlc"), NandTypeFactory(cell_type="tlc")]
        for write in writes:
            drive = Drive.objects.get(pk=data.draw(st.sampled_from(runs)).drive_id)
            if write == "refresh":  # entries written again, from the drive as it is now
                leaderboard_refresh(drive_ids=[drive.pk])
            elif write == "cell_type":
                NandType.objects.filter(pk=data.draw(st.sampled_from(nands)).pk).update(
                    cell_type=data.draw(st.sampled_from(["slc", "mlc", "tlc", "qlc"]))
                )
            else:
                field = "capacity_bytes" if write == "capacity" else write
                value = {
                    "controller": st.sampled_from([*controllers, None]),
                    "interface": st.sampled_from(["sata-3g", "pcie-nvme", ""]),
                    "kind": st.sampled_from(["ssd", "hdd"]),
                    "nand": st.sampled_from([*nands, None]),
                    "capacity_bytes": st.sampled_from([None, 120 * 10**9, 10**12]),
                }[field]
                Drive.objects.filter(pk=drive.pk).update(**{field: data.draw(value)})
            held, read = held_and_read()
            assert held == read, writes
        transaction.set_rollback(True)


def _function(name: str) -> str:
    with connection.cursor() as cursor:
        cursor.execute("SELECT prosrc FROM pg_proc WHERE proname = %s", [name])
        return cursor.fetchone()[0].strip()


def test_the_databases_triggers_are_those_the_list_of_copies_makes():
    made = copy_sql(
        apps.get_model("drives", "Drive"),
        apps.get_model("results", "LeaderboardEntry"),
        DRIVE_COPIES,
    ).create
    for name in (
        "results_leaderboard_copy_fill",
        "results_leaderboard_drive_sync",
        "results_leaderboard_nand_sync",
    ):
        assert _function(name) in made, name
