"""The public API of ``evalreport``: every name of ``__all__`` resolves and is documented (numpydoc
sections), ``import evalreport`` stays cheap, and the two-line script of the README works."""
from __future__ import annotations

import inspect
import subprocess
import sys
import types
from pathlib import Path

import pytest

import evalreport

ROOT = Path(__file__).resolve().parents[1]
STANCE = ROOT / "examples" / "stance"

PUBLIC = ["read_runs", "read_multilabel", "compare", "evaluate", "report", "read_benchmark", "compare_benchmark",
          "benchmark_report", "measures", "Settings", "Comparison", "Runs", "Counts"]


def _doc(obj) -> str:
    """The docstring a user reads for ``obj``: a callable package's is its call's."""
    if isinstance(obj, types.ModuleType) and callable(obj):
        return inspect.getdoc(type(obj).__call__) or ""
    return inspect.getdoc(obj) or ""


def _sections(doc: str) -> set[str]:
    """The numpydoc sections of a docstring: a title line underlined with dashes."""
    lines = doc.splitlines()
    return {lines[i].strip() for i in range(len(lines) - 1)
            if lines[i].strip() and set(lines[i + 1].strip()) == {"-"} and len(lines[i + 1].strip()) >= 3}


def test_all_is_exactly_the_public_api():
    assert sorted(evalreport.__all__) == sorted(PUBLIC)
    assert len(set(evalreport.__all__)) == len(evalreport.__all__)


@pytest.mark.parametrize("name", PUBLIC)
def test_every_public_name_resolves_and_is_documented(name):
    obj = getattr(evalreport, name)
    if isinstance(obj, types.ModuleType) and not callable(obj):       # measures: the registry module
        assert obj.__doc__ and obj.__doc__.strip(), name
        for function in ("catalogue", "get", "register"):
            assert inspect.getdoc(getattr(obj, function)), f"{name}.{function}"
        return
    doc = _doc(obj)
    assert doc, name
    if inspect.isclass(obj):
        return          # (classes: their docstring; the fields of Settings are checked below)
    found = _sections(doc)
    assert {"Parameters", "Returns"} <= found, f"{name}: numpydoc sections {sorted(found)}"


@pytest.mark.parametrize("name", ["compare", "report", "compare_benchmark", "Settings"])
def test_the_new_api_has_examples(name):
    assert "Examples" in _sections(_doc(getattr(evalreport, name)))


def test_settings_documents_every_field():
    import dataclasses

    doc = inspect.getdoc(evalreport.Settings)
    assert "Parameters" in _sections(doc)
    missing = [f.name for f in dataclasses.fields(evalreport.Settings) if f.name not in doc]
    assert not missing, missing


def test_an_unknown_name_is_an_attribute_error():
    with pytest.raises(AttributeError, match="no_such_name"):
        evalreport.no_such_name   # noqa: B018


def test_import_evalreport_is_cheap():
    code = ("import sys, evalreport; print(sorted(m for m in sys.modules if m.split('.')[0] in "
            "('numpy', 'pandas', 'pyarrow', 'scipy', 'jsonschema') or m.startswith('evalreport.')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT).stdout
    assert out.strip() == "[]"


def test_the_two_line_script_works():
    runs = evalreport.read_runs(STANCE / "gold.tsv", runs_dir=STANCE / "runs")
    cmp = evalreport.compare(runs, evalreport.Settings(bootstrap=50))
    assert isinstance(cmp, evalreport.Comparison)
    assert cmp.primary == "macro_f1" and cmp.settings["bootstrap"] == 50
    assert set(cmp.leaderboard["system"]) == set(runs.systems)
    assert cmp.leaderboard["lo"].notna().all()


def test_compare_takes_settings_and_shorthands_alike():
    runs = evalreport.read_runs(STANCE / "gold.tsv", runs_dir=STANCE / "runs")
    a = evalreport.compare(runs, evalreport.Settings(bootstrap=40, seed=3, primary="k"))
    b = evalreport.compare(runs, bootstrap=40, seed=3, primary="k")
    c = evalreport.compare(runs, evalreport.Settings(primary="k"), bootstrap=40, seed=3)
    for other in (b, c):
        assert a.leaderboard.equals(other.leaderboard)
    with pytest.raises(TypeError, match="unknown setting"):
        evalreport.compare(runs, bootstrapp=40)


def test_report_is_the_report_package_and_callable():
    import evalreport.report.build as build

    assert callable(evalreport.report)
    assert evalreport.report.build is build           # still the package: its modules are reachable
    assert evalreport.report.Table is not None


def test_measures_is_the_registry():
    assert evalreport.measures.get("macro_f1").id == "macro_f1"
    assert any(m.id == "mcc" for m in evalreport.measures.catalogue())
