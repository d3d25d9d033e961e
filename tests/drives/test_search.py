"""The catalog's search and order read each drive's search_text and sort_name, which triggers
keep from the drive, its maker and its controller: whatever writes them, and whatever is
renamed, a piece of any word of any of them finds the drive, and the order is maker and
model, then capacity."""

import string
from urllib.parse import urlencode

import pytest
from django.db import transaction
from django.http import QueryDict
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from drives.filters import MAX_SEARCH, DriveFilter, search_q, search_words
from drives.models import Drive, Manufacturer, catalog_key
from drives.selectors import drive_list, drive_match, drive_page, drive_search
from tests.factories import ControllerFactory, DriveFactory, ManufacturerFactory

pytestmark = pytest.mark.django_db

PROPERTY = settings(
    max_examples=25,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
# Names as a catalog may hold them: letters of any script, digits, punctuation and symbols
# (LIKE's % and _ among them), and spaces between words.
NAME = st.text(
    st.characters(codec="utf-8", categories=("L", "N", "P", "S", "Zs")), min_size=1, max_size=30
).filter(lambda s: s.split())
ASCII_NAME = st.text(string.ascii_letters + string.digits + " -", min_size=1, max_size=12).filter(
    lambda s: s.split()
)


def found(text: str) -> set[int]:
    return set(Drive.objects.filter(search_q(text)).values_list("pk", flat=True))


@PROPERTY
@given(maker=NAME, model=NAME, part=NAME, controller=NAME, fab=NAME, data=st.data())
def test_a_piece_of_any_word_of_any_name_finds_the_drive(maker, model, part, controller, fab, data):
    with transaction.atomic():
        made_by = ManufacturerFactory(name=maker)
        same = catalog_key(fab) == catalog_key(maker)  # one maker of both
        vendor = made_by if same else ManufacturerFactory(name=fab)
        drive = DriveFactory(
            manufacturer=made_by,
            model=model,
            part_number=part,
            controller=ControllerFactory(model=controller, vendor=vendor),
        )
        for name in (maker, model, part, controller, vendor.name):
            word = data.draw(st.sampled_from(name.split()))
            start = data.draw(st.integers(0, len(word) - 1))
            piece = word[start : start + data.draw(st.integers(1, len(word) - start))]
            assert drive.pk in found(piece), (name, piece)
            if piece.isascii():  # case folds as PostgreSQL's upper() does in the C locale
                assert drive.pk in found(piece.swapcase()), (name, piece)
        transaction.set_rollback(True)


def test_every_word_must_match_and_wildcards_are_text():
    ocz = ManufacturerFactory(name="OCZ")
    drive = DriveFactory(model="Vertex 2", manufacturer=ocz)
    DriveFactory(model="Vertex 3", manufacturer=ManufacturerFactory(name="OCZ Technology"))
    DriveFactory(model="V%rtex_2", manufacturer=ocz)
    assert found("ocz vertex 2") == {drive.pk}
    assert found("vertex %") == set() and found("_ertex") == set()


def test_renamed_makers_controllers_and_drives_are_searched_at_once():
    controller = ControllerFactory(model="SF-1200")
    drive = DriveFactory(model="Force", controller=controller)
    Manufacturer.objects.filter(pk=drive.manufacturer_id).update(name="Corsair")
    assert found("corsair force sf-1200") == {drive.pk}
    controller.model = "SF-2281"
    controller.save()
    assert found("sf-2281") == {drive.pk} and found("sf-1200") == set()
    Drive.objects.filter(pk=drive.pk).update(model="Force GT", part_number="CSSD-F120GBGT")
    assert found("gt cssd") == {drive.pk}
    # The controller's maker, as the site names the controller: renamed, or another maker.
    Manufacturer.objects.filter(pk=controller.vendor_id).update(name="SandForce")
    assert found("sandforce sf-2281") == {drive.pk}
    controller.vendor = ManufacturerFactory(name="LSI")
    controller.save()
    assert found("lsi sf-2281") == {drive.pk} and found("sandforce") == set()
    Drive.objects.filter(pk=drive.pk).update(controller=None)
    assert found("sf-2281") == set() and found("lsi") == set()
    Drive.objects.filter(pk=drive.pk).update(sort_name="x", search_text="x")  # not writable
    assert Drive.objects.get(pk=drive.pk).sort_name == "corsair force gt"


@PROPERTY
@given(
    st.lists(
        st.tuples(
            st.sampled_from(["Intel", "Intelligent", "Crucial", "OCZ"]),
            ASCII_NAME,
            st.integers(1, 4),
        ),
        min_size=2,
        max_size=8,
        unique_by=lambda row: (row[0], catalog_key(row[1]), row[2]),
    )
)
def test_the_catalog_order_is_maker_and_model_then_capacity(rows):
    with transaction.atomic():
        makers = {name: ManufacturerFactory(name=name) for name in {row[0] for row in rows}}
        for maker, model, tb in rows:
            DriveFactory(manufacturer=makers[maker], model=model, capacity_bytes=tb * 10**12)
        listed = list(drive_list())
        keys = [
            (f"{d.manufacturer.name} {d.model}".lower(), d.capacity_bytes, d.pk) for d in listed
        ]
        assert len(listed) == len(rows) and keys == sorted(keys)
        word = rows[0][1].split()[0]
        picked = drive_search(word, limit=100)
        assert picked == [d for d in listed if word.lower() in d.search_text.lower()]
        transaction.set_rollback(True)


def test_picker_search_finds_by_maker_controller_and_capacity():
    samsung = ManufacturerFactory(name="Samsung")
    drive = DriveFactory(
        manufacturer=samsung,
        model="840 Pro",
        capacity_bytes=256 * 10**9,
        controller=ControllerFactory(model="MDX"),
    )
    DriveFactory(manufacturer=samsung, model="840 Pro", capacity_bytes=512 * 10**9)
    assert [d.pk for d in drive_search("samsung mdx 256GB", limit=10)] == [drive.pk]


CAPACITY = st.one_of(
    st.none(),
    st.integers(1, 10**21),
    st.integers(1, 20_000).map(lambda gb: gb * 10**9),
    st.integers(1, 2**44).map(lambda n: n * 512),  # sizes a block device reports
)


@settings(
    max_examples=120,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    maker=NAME,
    model=NAME | ASCII_NAME.map(lambda s: s + " 240GB"),
    capacity=CAPACITY,
    revision=st.just("") | NAME,
    part=st.just("") | ASCII_NAME,
)
def test_a_drive_is_found_by_the_name_the_site_gives_it(maker, model, capacity, revision, part):
    """Typed or pasted into any search (the catalog's, the API's, a picker's, the plain
    compare form's), the name the site writes for a drive finds that drive: its capacity
    however the label rounds it, its revision in parentheses, words of its model that look
    like a capacity."""
    with transaction.atomic():
        drive = DriveFactory(
            manufacturer=ManufacturerFactory(name=maker),
            model=model,
            capacity_bytes=capacity,
            hardware_revision=revision,
            part_number=part,
        )
        DriveFactory(model=model + " other", capacity_bytes=capacity)
        name = str(drive)
        text = search_words(name)
        assert drive.pk in found(text), name
        assert drive in drive_search(text, limit=10), name
        filters = DriveFilter(QueryDict(urlencode({"q": text})), queryset=Drive.objects.all())
        assert filters.is_valid(), filters.errors
        _, rows = drive_page(filters=filters, offset=0, limit=10)
        assert drive.slug in [r.slug for r in rows], name
        if len(name) <= MAX_SEARCH:
            assert drive_match(name, limit=10)[0] == drive, name
        transaction.set_rollback(True)


def test_a_capacity_word_means_what_the_label_rounds_to():
    DriveFactory(model="Zram", capacity_bytes=9663676416)  # labelled 9.7GB
    DriveFactory(model="Zram", capacity_bytes=9640000000)  # labelled 9.6GB
    assert [d.capacity_bytes for d in drive_search("zram 9.7GB", limit=10)] == [9663676416]
    # A word more precise than names are narrows to what it writes.
    assert [d.capacity_bytes for d in drive_search("zram 9.66368GB", limit=10)] == [9663676416]
    assert drive_search("zram 9.67GB", limit=10) == []
    assert len(drive_search("zram", limit=10)) == 2


@given(
    words=st.lists(
        st.text(string.ascii_letters + string.digits, min_size=1, max_size=15), max_size=30
    ),
    spaces=st.sampled_from([" ", "  ", "\t"]),
)
def test_search_text_is_cut_to_whole_words(words, spaces):
    text = spaces.join(words)
    cut = search_words(text)
    assert len(cut) <= MAX_SEARCH
    assert cut.split() == text.split()[: len(cut.split())]  # whole words, in order
    if len(text) <= MAX_SEARCH:
        assert cut == text.strip()
    else:  # as many words as fit (one word longer than the limit is cut to it)
        kept = len(cut.split())
        fits = len(spaces.join(words[: kept + 1])) <= MAX_SEARCH
        assert not fits or kept == len(words) or len(words[0]) > MAX_SEARCH
