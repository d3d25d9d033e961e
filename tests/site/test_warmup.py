"""What a server's warm-up (benchsite/warmup.py) leaves done for every worker's first
requests: here, the upload's schema check."""

import fastjsonschema
import pytest

from benchsite import warmup
from results import documents
from results.services import run_ingest
from tests.site.support import ROOT

SAMPLE = ROOT / "results/schema/samples/measured-loadgen-quick.json"


@pytest.fixture
def compiles(monkeypatch):
    """Each schema compiled from now on (the process's compiled check forgotten first)."""
    made = []
    compile_schema = fastjsonschema.compile

    def counted(*args, **kwargs):
        made.append(args[0])
        return compile_schema(*args, **kwargs)

    documents._fast_check.cache_clear()
    monkeypatch.setattr(fastjsonschema, "compile", counted)
    yield made
    documents._fast_check.cache_clear()


@pytest.mark.django_db(transaction=True)
def test_a_warmed_process_checks_its_first_upload_without_compiling(compiles, monkeypatch):
    monkeypatch.setattr(warmup, "warmed", None)  # what this process's warm-up did, as it was
    warmup.warm_master()
    assert len(compiles) == 1
    assert run_ingest(document=SAMPLE.read_bytes(), submitter=None).created
    assert len(compiles) == 1


@pytest.mark.django_db
def test_without_the_warm_up_the_first_upload_compiles_the_check(compiles):
    assert run_ingest(document=SAMPLE.read_bytes(), submitter=None).created
    assert len(compiles) == 1
