"""What is worked out once for the object a store belongs to, and read from there after."""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Any


def held(store: dict, key: Hashable, make: Callable[..., Any], *args: Any) -> Any:
    """make(*args), kept in `store` under `key` the first time and read from there after:
    for what depends only on what the store belongs to (a compare side's figures'
    Figures.shown, held while their side is: the texts of its table cell, its row of the
    API body, what the winner rule reads of it). Templates call it as `held` too
    (benchsite/jinja2.py), with a macro as `make`."""
    try:
        return store[key]
    except KeyError:
        found = store[key] = make(*args)
        return found
