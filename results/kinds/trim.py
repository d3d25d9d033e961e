"""TRIM validation: sequential write speed on a clean drive, after a torture phase of random
writes, and after a TRIM of the span (results.models.TrimValidation). Its section of a
comparison: each test and data pattern's three phases for every drive, on a chart of their
own."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from django.db.models import F, FloatField, Q
from django.db.models.functions import Cast

from results import charts
from results.charts import TRIM_PHASES
from results.documents import SECTION_OF_KIND, with_defaults
from results.kinds.base import Kind, Shown
from results.models import Run, Test, TrimValidation
from results.sections import Figure, Plot, Section, each_side, per_million, verdict_heads
from results.selectors.compare import Comparison
from results.selectors.kind_rankings import Column, RankedBy, read_pattern
from results.units import mbps, share

KIND_SECTION = SECTION_OF_KIND[Test.Kind.TRIM]


# -- ingest ----------------------------------------------------------------------------------


def rows(
    run: Run, entries: list[dict[str, Any]], tests: Mapping[str, Test], document: Mapping[str, Any]
) -> list[TrimValidation]:
    return [
        TrimValidation(
            run=run,
            test=tests[entry["test"]],
            pattern=entry["pattern"],
            span_bytes=entry.get("span_bytes"),
            torture_seconds=entry.get("torture_seconds"),
            discard_method=entry.get("discard_method", ""),
            clean_bytes_per_second=entry["clean_bytes_per_second"],
            after_torture_bytes_per_second=entry["after_torture_bytes_per_second"],
            after_trim_bytes_per_second=entry["after_trim_bytes_per_second"],
        )
        for entry in (with_defaults(KIND_SECTION, e) for e in entries)
    ]


# -- the compare section ------------------------------------------------------------------


@dataclass(slots=True)
class TrimPart:
    test: Test
    pattern: str
    plot: Plot
    sides: list  # each side's TrimValidation, or None


def sections(c: Comparison, shown: Shown) -> list[Section]:
    parts = []
    for i, (test, pattern) in enumerate(c.trim_keys):
        key = (test.identifier, pattern)
        plot = Plot(
            f"trim-{test.identifier}-{pattern}",
            f"trim-{i}",
            f"{test.name}, {pattern} data",
            lambda key=key: charts.trim_bars(c.sides, key, c.names),
        )
        parts.append(TrimPart(test, pattern, plot, [side.trim.get(key) for side in c.sides]))

    def rows() -> Iterator[list[str]]:
        blank = [""] * len(verdict_heads(len(c.sides)))
        for part in parts:
            for attr, phase in TRIM_PHASES:
                values = [
                    Figure(per_million(getattr(t, attr)), mbps(getattr(t, attr)))
                    if t
                    else "not tested"
                    for t in part.sides
                ]
                yield [
                    "TRIM validation",
                    part.test.name,
                    part.pattern,
                    phase,
                    "MB/s (higher is better)",
                    *values,
                    *blank,
                ]

    def body(keys: list[str], points: bool) -> list[dict[str, Any]]:
        return [
            {
                "test": part.test.identifier,
                "pattern": part.pattern,
                **each_side(keys, part.sides, _trim),
            }
            for part in parts
        ]

    return [Section("trim", "TRIM", parts, [p.plot for p in parts], rows, ("trim", body))]


# -- the API's compare body ---------------------------------------------------------------


def _trim(trim: TrimValidation | None) -> dict[str, Any] | None:
    if trim is None:
        return None
    return {
        "run": trim.run_id,
        "clean_bytes_per_second": trim.clean_bytes_per_second,
        "after_torture_bytes_per_second": trim.after_torture_bytes_per_second,
        "after_trim_bytes_per_second": trim.after_trim_bytes_per_second,
    }


# -- its ranking ---------------------------------------------------------------------------

RANKED_BY = RankedBy(
    model=TrimValidation,
    # The share of its clean speed a drive writes at after the TRIM.
    figure=Cast(F("after_trim_bytes_per_second"), FloatField()) / F("clean_bytes_per_second"),
    unit="% of the clean speed after TRIM (higher is better)",
    scale=100,
    what="Each drive's latest TRIM validation of one data pattern, ranked by the share of its "
    "clean sequential write speed it writes at after the TRIM of the tortured span: how much "
    "of its performance TRIM gives back.",
    choice="pattern",
    choice_param="pattern",
    choice_label="Data",
    choice_text=lambda pattern: f"{pattern} data",
    read_choice=read_pattern,
    # Tortured for less than 90% of the test's duration (a quick smoke run).
    quick=Q(torture_seconds__lt=0.9 * F("test__duration_s")),
    columns=(
        Column("Recovered by TRIM", "recovered", lambda t: t.figure, share),
        Column("Clean MB/s", "clean_bytes_per_second", lambda t: t.clean_bytes_per_second, mbps),
        Column(
            "After torture MB/s",
            "after_torture_bytes_per_second",
            lambda t: t.after_torture_bytes_per_second,
            mbps,
        ),
        Column(
            "After TRIM MB/s",
            "after_trim_bytes_per_second",
            lambda t: t.after_trim_bytes_per_second,
            mbps,
        ),
    ),
)

KIND = Kind(Test.Kind.TRIM, TrimValidation, rows, sections, ranked_by=lambda test: RANKED_BY)
