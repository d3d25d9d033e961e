"""Copies held as columns (core.columns): a column compares as SQL does (NULL never matches,
text only for equality), whatever its values; a copy's load statement, made from its
(name, SQL) pairs, brings back every row's values under their names, with or without rows."""

import operator
from dataclasses import dataclass

import numpy as np
import pytest
from django.db import connection
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core.columns import _STEPS, Columns, Copy, Table, _Placed, _placed, column_made
from drives.models import Drive

SQL_OPERATORS = {"exact": operator.eq, "gte": operator.ge, "lte": operator.le}
INTEGERS = st.integers(-(2**62), 2**62)
TEXTS = st.text(st.characters(codec="utf-8", exclude_characters="\x00"), max_size=6)
# A column's values as JSON brings them (one kind, or NULL), and a value to compare with.
COLUMNS = st.one_of(
    st.tuples(st.lists(st.none() | INTEGERS), INTEGERS | st.integers(-(2**70), 2**70)),
    st.tuples(
        st.lists(st.none() | INTEGERS | st.floats(allow_nan=False, allow_infinity=False)),
        st.floats(allow_nan=False, allow_infinity=False),
    ),
    st.tuples(st.lists(st.none() | st.booleans()), st.booleans()),
    st.tuples(st.lists(st.none() | TEXTS), TEXTS),
)


def sql_compare(values: list, lookup: str, value) -> list[bool]:
    return [v is not None and SQL_OPERATORS[lookup](v, value) for v in values]


@given(column=COLUMNS, lookup=st.sampled_from(sorted(SQL_OPERATORS)), data=st.data())
def test_a_column_compares_as_sql_does(column, lookup, data):
    values, value = column
    if values and values[0] is not None and data.draw(st.booleans()):
        value = values[0]  # one that matches
    columns = Columns("default", {"c": values}, len(values))
    if isinstance(value, str) and lookup != "exact":
        with pytest.raises(ValueError):
            columns.compare("c", lookup, value)
        return
    assert columns.compare("c", lookup, value).tolist() == sql_compare(values, lookup, value)
    assert columns.compare("c", lookup, None).tolist() == [False] * len(values)
    if not isinstance(value, str):  # beyond any column's numbers
        assert columns.compare("c", lookup, 10**30).tolist() == sql_compare(values, lookup, 10**30)
    keep = data.draw(st.lists(st.booleans(), min_size=len(values), max_size=len(values)))
    kept = columns.take(np.array(keep, dtype=bool))
    chosen = [v for v, k in zip(values, keep, strict=True) if k]
    assert kept.compare("c", lookup, value).tolist() == sql_compare(chosen, lookup, value)


@given(values=st.lists(st.none() | INTEGERS), wanted=st.lists(INTEGERS, max_size=4))
def test_isin_keeps_the_rows_of_those_values_and_never_null(values, wanted):
    wanted = [*wanted, *[v for v in values[:2] if v is not None]]
    columns = Columns("default", {"c": values}, len(values))
    assert columns.isin("c", wanted).tolist() == [v is not None and v in wanted for v in values]


ASCII = st.text(st.characters(min_codepoint=32, max_codepoint=126), max_size=3)


@given(values=st.lists(st.none() | TEXTS), text=ASCII)
def test_contains_finds_ascii_text_where_python_does(values, text):
    columns = Columns("default", {"c": values}, len(values))
    assert columns.contains("c", text).tolist() == [v is not None and text in v for v in values]


# -- the load ---------------------------------------------------------------------------


@dataclass
class Held:
    version: int
    tables: dict[str, Columns]


ROWS = st.lists(st.tuples(st.none() | INTEGERS, st.none() | TEXTS, st.booleans()), max_size=20)


@pytest.mark.django_db
@settings(
    deadline=None, max_examples=40, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(rows=ROWS)
def test_a_copy_brings_back_every_row_under_its_names(rows):
    with connection.cursor() as cursor:
        cursor.execute("DROP TABLE IF EXISTS held")
        cursor.execute("CREATE TEMP TABLE held (n bigint, t text, b boolean)")
        for row in rows:
            cursor.execute("INSERT INTO held VALUES (%s, %s, %s)", row)
    table = Table(
        "held",
        (
            ("number", "h.n"),
            ("text", "h.t"),
            ("flag", "h.b"),
            ("rank", "rank() OVER (ORDER BY h.n)"),
        ),
        "held h",
    )
    copy = Copy(
        "held",
        Drive,
        "SELECT 1, false",
        [table],
        lambda alias, version, tables: Held(version, tables),
    )
    held = copy.current().tables["held"]
    got = sorted(
        zip(held.values("number"), held.values("text"), held.values("flag"), strict=True), key=str
    )
    assert got == sorted(rows, key=str) and len(held) == len(rows)
    assert held.compare("flag", "exact", True).sum() == sum(b for _, _, b in rows)


def test_make_every_makes_each_column_of_values_once_and_none_of_arrays():
    """What a server's master does before it forks (benchsite/warmup.py): every column a
    filter or a view may read made; one of JSON arrays (a row's values, read by values())
    is not a column Column.of can hold, and is left alone."""
    made = []

    def receiver(*, name, **kwargs):
        made.append(name)

    columns = Columns.loaded(
        "default", ["size", "kind", "label"], [[1, None], ["a", "b"], [[1], [2]]]
    )
    column_made.connect(receiver)
    try:
        columns.make_every()
        columns.make_every()
        assert columns["size"].null.tolist() == [False, True]
    finally:
        column_made.disconnect(receiver)
    assert made == ["size", "kind"]
    assert columns.values("label") == [[1], [2]]


@st.composite
def changes(draw):
    """A list's values, and changes to it as a copy's change log brings them: each the rows
    dropped (ascending positions) and the rows added in their place, with a note of which
    lists are read after it."""
    length = start = draw(st.integers(0, 12))
    steps = []
    for _ in range(draw(st.integers(1, _STEPS + 4))):
        dropped = sorted(draw(st.sets(st.integers(0, length - 1), max_size=4))) if length else []
        added = draw(st.integers(0, 4))
        steps.append((dropped, added, draw(st.sampled_from(["none", "a", "both"]))))
        length += added - len(dropped)
    return start, steps


@settings(max_examples=300, deadline=None)
@given(changes=changes())
def test_a_list_changed_again_and_again_is_placed_as_one_made_at_each_change(changes):
    # Each change of a table makes its lists as Columns.spliced places them (_placed) when
    # they are read, from the last made of each: the same lists and the same rows as lists
    # made at every change, whichever were read between the changes, beyond _STEPS too.
    length, steps = changes
    lists = {"a": [f"a{i}" for i in range(length)], "b": [f"b{i}" for i in range(length)]}
    values = dict(lists)
    for n, (dropped, added, read) in enumerate(steps):
        fresh = {name: [f"{name}{n}.{k}" for k in range(added)] for name in lists}
        values = _Placed(values, length, fresh, dropped)
        lists = {name: _placed(lists[name], fresh[name], dropped) for name in lists}
        length = len(lists["a"])
        for name in lists:
            assert [values.value(name, at) for at in range(length)] == lists[name]
            if read == "both" or read == name:
                assert values[name] == lists[name]
    assert set(values) == {"a", "b"} and dict(values) == lists
