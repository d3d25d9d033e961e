"""A page's own query parameters (a page number, a scale, an axis): read by these helpers, so
that every page reads them by one rule. A parameter the query leaves out, or sends empty (a
form's field left blank), takes its default; one the page cannot take is a QueryError,
which answers the request with the 400 page naming the parameter and what it takes
(benchsite.views.QueryErrorMiddleware), never a silent fallback to the default: an address
shows what it says, or says why it cannot.

A filter's parameters are its FilterSet's (core.filters), whose form says the same of its
fields; the API reads its own (core.filters.whole_number, query_boolean)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from core.filters import whole_number_text

MAX_PAGE = 10_000  # of any paged list
MAX_ID = 2**31 - 1  # a row's id (PostgreSQL's integer)


class QueryError(Exception):
    """A query parameter the page cannot take: `errors` as a form gives them, by name."""

    def __init__(self, name: str, message: str) -> None:
        super().__init__(f"{name}: {message}")
        self.errors = {name: [message]}


def _given(query: Mapping[str, str], name: str) -> str | None:
    value = query.get(name)
    return value if value else None


def choice(query: Mapping[str, str], name: str, choices: Sequence[str]) -> str:
    """The parameter `name` when it is one of `choices`; the first when the query leaves it
    out; a QueryError for anything else."""
    value = _given(query, name)
    if value is None:
        return choices[0]
    if value not in choices:
        raise QueryError(name, choice_message(choices))
    return value


def choice_message(choices: Sequence[str]) -> str:
    return "must be " + (
        choices[0] if len(choices) == 1 else f"{', '.join(choices[:-1])} or {choices[-1]}"
    )


def whole_number(
    query: Mapping[str, str],
    name: str,
    *,
    default: int | None = None,
    minimum: int = 1,
    maximum: int = MAX_ID,
) -> int | None:
    """The parameter `name` as a whole number within the bounds (written as JSON writes one,
    as the API reads it: core.filters.whole_number_text); `default` when the query leaves it
    out; a QueryError for anything else."""
    value = _given(query, name)
    if value is None:
        return default
    number = whole_number_text(value)
    if number is None or not minimum <= number <= maximum:
        raise QueryError(name, number_message(minimum, maximum))
    return number


def number_message(minimum: int, maximum: int) -> str:
    return f"must be a whole number from {minimum:,} to {maximum:,}"


def page_number(query: Mapping[str, str], name: str = "page") -> int:
    """A paged list's page: 1 unless the query names one, from 1 to MAX_PAGE."""
    return whole_number(query, name, default=1, maximum=MAX_PAGE)  # type: ignore[return-value]
