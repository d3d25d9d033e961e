"""One list of a result's figures (results.models.RESULT_FIGURES, Result's own fields):
ingest writes every one from a document (throughput.result_figures), and a figure the
document and the model name alike needs no line of its own there, nor in the results
list's statement."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from results.kinds import throughput
from results.models import HISTOGRAM_FIELDS, RESULT_FIGURES, Result
from results.selectors.runs import RESULT_LIST_COLUMNS


def test_the_figures_are_results_columns_but_its_key_run_test_and_histograms():
    columns = {f.attname for f in Result._meta.concrete_fields}
    assert set(RESULT_FIGURES) == columns - {"id", "run_id", "test_id", *HISTOGRAM_FIELDS}
    assert set(RESULT_LIST_COLUMNS) >= set(RESULT_FIGURES)


figure = st.none() | st.integers(min_value=0, max_value=2**40) | st.floats(min_value=0)


@given(
    entry=st.fixed_dictionaries(
        {"pattern": st.sampled_from(["compressible", "incompressible"])},
        optional={"iops": figure, "block_size": figure, "jobs": st.integers(1, 64)},
    ),
    spread=st.floats(min_value=0, allow_nan=False),
)
def test_a_figure_named_alike_in_document_and_model_is_written_as_given(entry, spread):
    # As if Result had a field iops_p99: written from the document's own iops_p99.
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(throughput, "RESULT_FIGURES", (*RESULT_FIGURES, "iops_p99"))
        figures = throughput.result_figures({**entry, "iops_p99": spread}, "lat")
    assert figures["iops_p99"] == spread
    assert list(figures) == [*RESULT_FIGURES, "iops_p99"]
    for name in ("iops", "block_size"):
        assert figures[name] == entry.get(name)
    assert figures["jobs"] == entry.get("jobs", 1) and figures["partial"] is False


@given(
    latency=st.fixed_dictionaries({}, optional={"mean": st.floats(0, 1e9), "max": st.integers(0)}),
    clat=st.fixed_dictionaries({}, optional={"min": st.integers(0), "stddev": st.floats(0, 1e9)}),
    kind=st.sampled_from(["lat", "clat"]),
)
def test_the_latency_summaries_are_written_to_their_own_fields(latency, clat, kind):
    entry = {"pattern": "compressible", "latency_ns": latency, "clat_ns": clat}
    figures = throughput.result_figures(entry, kind)
    for prefix, summary in (("latency", latency), ("clat", clat)):
        for part in ("mean", "stddev", "min", "max", "percentiles"):
            assert figures[f"{prefix}_{part}_ns"] == summary.get(part)
    assert figures["latency_kind"] == (kind if latency else "")
