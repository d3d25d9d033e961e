"""Dataclasses pickled as a call of their class with their fields.

A dataclass made with slots=True is pickled through the __getstate__ and __setstate__ the
decorator writes, which look up the class's fields() again for every object: unpickling a
comparison's side (results.selectors.compare.shared_sides), hundreds of such objects, spent
a sixth of its time there. ByFields pickles each as its class and its fields' values in
order, and makes it again by calling the class: the same object, through its constructor.
Only for dataclasses whose every field is an __init__ argument."""

from __future__ import annotations

import dataclasses
import functools


@functools.cache
def _init_names(cls: type) -> tuple[str, ...]:
    names = []
    for f in dataclasses.fields(cls):
        if not f.init:
            raise TypeError(f"{cls.__name__}.{f.name} is not an __init__ argument")
        names.append(f.name)
    return tuple(names)


class ByFields:
    """A dataclass pickled as a call of its class with its fields' values, in order."""

    __slots__ = ()

    def __reduce__(self):
        return type(self), tuple([getattr(self, name) for name in _init_names(type(self))])
