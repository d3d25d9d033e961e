"""Imports flow one way: benchsite → results → drives → core (and loadtests, the benchmark
and fault harness, above them all). A module never imports from a layer above its own."""

import ast
from pathlib import Path

import pytest
from django.conf import settings

LAYERS = ("core", "drives", "results", "benchsite", "loadtests")  # each may import those before


def imported(path: Path) -> set[str]:
    """The top-level packages a module imports."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.add(node.module.split(".")[0])
        elif isinstance(node, ast.Import):
            found.update(alias.name.split(".")[0] for alias in node.names)
    return found


@pytest.mark.parametrize("layer", LAYERS)
def test_no_import_runs_up_the_layers(layer):
    above = set(LAYERS[LAYERS.index(layer) + 1 :])
    root = Path(settings.BASE_DIR)
    modules = sorted((root / layer).rglob("*.py"))
    assert modules, layer
    wrong = {
        str(path.relative_to(root)): sorted(imported(path) & above)
        for path in modules
        if imported(path) & above
    }
    assert wrong == {}


def test_a_module_importing_upwards_is_caught(tmp_path):
    module = tmp_path / "m.py"
    module.write_text("from results.selectors.compare import compare\nimport loadtests.loadrig\n")
    assert imported(module) == {"results", "loadtests"}
