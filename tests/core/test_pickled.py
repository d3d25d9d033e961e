"""core.pickled.ByFields: a slots dataclass pickled as its class called with its fields."""

import pickle
from dataclasses import dataclass, field

import pytest

from core.pickled import ByFields


@dataclass(frozen=True, slots=True)
class Point(ByFields):
    x: int
    y: int = 0
    notes: dict = field(default_factory=dict)


@dataclass(slots=True)
class Box(ByFields):
    corner: Point
    shown: dict = field(default_factory=dict)


@dataclass(slots=True)
class Derived(ByFields):
    a: int
    b: int = field(init=False, default=0)


@pytest.mark.parametrize(
    "value",
    [Point(1), Point(2, 3, {"k": [1, 2]}), Box(Point(4, 5)), Box(Point(6), {("cell", "x"): "<b>"})],
)
def test_a_value_comes_back_equal_at_every_protocol(value):
    for protocol in range(2, pickle.HIGHEST_PROTOCOL + 1):
        again = pickle.loads(pickle.dumps(value, protocol))
        assert again == value and type(again) is type(value)


def test_objects_shared_inside_one_pickle_stay_shared():
    corner = Point(1, 2)
    boxes = pickle.loads(pickle.dumps([Box(corner), Box(corner)]))
    assert boxes[0].corner is boxes[1].corner


def test_a_field_that_is_not_an_init_argument_is_refused():
    with pytest.raises(TypeError, match="Derived.b"):
        pickle.dumps(Derived(1))
