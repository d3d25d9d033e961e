"""Query strings of a FilterSet's filters, made from its declaration: the one generator of
filter values for the property tests that hold a filter's SQL, its mask over a copy, and the
pages and API to its ORM filter. A filter declared later is drawn with the others."""

from collections.abc import Sequence

import django_filters
from hypothesis import strategies as st

from core.filters import FilterSet, SlugFilter
from drives.filters import SearchFilter

NUMBERS = ("0", "100", "120", "240", "240.5", "512", "1000", "4000")


def filter_values(
    flt: django_filters.Filter,
    *,
    words: st.SearchStrategy[str],
    numbers: Sequence[str] = NUMBERS,
) -> st.SearchStrategy[str]:
    """Values of one filter that keep some rows, none, or (a search) text that means
    something to LIKE: a choice of its choices; a slug of its entries (read from the
    database) or of none; words of `words`; one of `numbers`."""
    if isinstance(flt, SearchFilter):
        return st.lists(words, min_size=1, max_size=3).map(" ".join)
    if isinstance(flt, SlugFilter):
        slugs = list(flt.to._default_manager.order_by("slug").values_list("slug", flat=True))
        return st.sampled_from([*slugs, "no-such-slug"])
    if isinstance(flt, django_filters.ChoiceFilter):
        return st.sampled_from([str(value) for value, _ in flt.extra["choices"]])
    if isinstance(flt, django_filters.NumberFilter):
        return st.sampled_from(numbers)
    raise TypeError(f"no values for {type(flt).__name__}: add them here")


def filter_queries(
    filterset: type[FilterSet],
    *,
    words: st.SearchStrategy[str],
    numbers: Sequence[str] = NUMBERS,
    max_size: int = 3,
) -> st.SearchStrategy[dict[str, str]]:
    """Query strings of any combination of up to `max_size` of `filterset`'s filters (see
    filter_values)."""
    values = {
        name: filter_values(flt, words=words, numbers=numbers)
        for name, flt in filterset.base_filters.items()
    }
    return st.dictionaries(st.sampled_from(sorted(values)), st.none(), max_size=max_size).flatmap(
        lambda keys: st.fixed_dictionaries({k: values[k] for k in keys})
    )
