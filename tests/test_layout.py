"""The architecture is visible in the tree: data flows one way through the stages, and no module
imports a later stage (README, Layout)."""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

import evalreport

STAGES = ["inputs", "counts", "measures", "analyses", "charts", "report", "cli"]
PACKAGE = Path(evalreport.__file__).resolve().parent


def _imports(path: Path):
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            yield node.module, node.lineno
        elif isinstance(node, ast.Import):
            yield from ((a.name, node.lineno) for a in node.names)


def test_every_stage_exists_as_a_module_or_package():
    for stage in STAGES:
        assert (PACKAGE / stage).is_dir() or (PACKAGE / f"{stage}.py").is_file(), stage


@pytest.mark.parametrize("stage", STAGES)
def test_no_module_imports_a_later_stage(stage):
    files = sorted((PACKAGE / stage).rglob("*.py")) if (PACKAGE / stage).is_dir() else [PACKAGE / f"{stage}.py"]
    later = set(STAGES[STAGES.index(stage) + 1:])
    bad = [f"{f.relative_to(PACKAGE)}:{line} imports {module}" for f in files for module, line in _imports(f)
           if module.startswith("evalreport.") and module.split(".")[1] in later]
    assert not bad, "\n".join(bad)


def test_the_checker_sees_a_violation(tmp_path):
    """The check above can fail: a module importing a later stage is found."""
    f = tmp_path / "m.py"
    f.write_text("from evalreport.report.build import analyse\nimport evalreport.cli\n")
    assert [m for m, _ in _imports(f)] == ["evalreport.report.build", "evalreport.cli"]
