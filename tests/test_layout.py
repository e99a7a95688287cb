"""The architecture is visible in the tree: data flows one way through the stages, and no module
imports a later stage (README, Layout).

Every import counts: absolute (``import evalreport.x.y``, ``from evalreport.x import y``,
``from evalreport import x``), relative (``from ..report import x``, ``from . import y``), and imports
inside functions (a lazy import of a later stage is still a dependency on it).
"""
from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path
from typing import NamedTuple

import evalreport

STAGES = ["inputs", "counts", "measures", "analyses", "charts", "report", "cli"]
PACKAGE = Path(evalreport.__file__).resolve().parent

#: The modules at the package's top level and the evalreport modules each may import (stdlib and
#: third-party imports are not checked). Foundations (errors, escape, words) import nothing from
#: evalreport, so every stage may use them; a module that imports a stage sits above that stage.
SHARED: dict[str, frozenset[str]] = {
    # the package root is the public API: it names a function of every stage, imported on first use
    # (PEP 562, inside functions), so that importing one stage never pulls in another
    "__init__": frozenset(STAGES),
    "errors": frozenset(),                    # the exceptions every stage raises
    "escape": frozenset(),                    # escaping text for Markdown, LaTeX and Typst
    "words": frozenset(),                     # numbers and lists in words
    "_atomic": frozenset({"errors"}),         # atomic file writes (raises OutputError)
    "examples": frozenset({"errors", "inputs"}),  # demo data, read back with the inputs stage
    "__main__": frozenset({"cli"}),           # ``python -m evalreport``: the command line
}


class Violation(NamedTuple):
    """One import that breaks the layering: ``path`` (relative to the package) line ``line`` imports
    ``module``; ``reason`` says which rule it breaks."""

    path: str
    line: int
    module: str
    reason: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line} imports {self.module}: {self.reason}"


def _module_name(root: Path, path: Path) -> tuple[list[str], bool]:
    """The dotted parts of the module in ``path`` (``evalreport`` first) and whether it is a package
    (an ``__init__.py``, whose relative imports start from itself)."""
    parts = [root.name, *path.relative_to(root).with_suffix("").parts]
    if parts[-1] == "__init__":
        return parts[:-1], True
    return parts, False


def _is_module(root: Path, parts: list[str]) -> bool:
    """Whether ``evalreport.<parts>`` is a module or package in the tree under ``root``."""
    base = root.joinpath(*parts)
    return base.is_dir() or base.with_suffix(".py").is_file()


def imported_modules(root: Path, path: Path) -> Iterator[tuple[str, int]]:
    """The evalreport modules ``path`` imports, as absolute dotted names with their line numbers.

    Parameters
    ----------
    root : Path
        The package folder (``.../evalreport``); its name is the package's name.
    path : Path
        A ``.py`` file under ``root``.

    Returns
    -------
    Iterator[tuple[str, int]]
        ``(module, line)`` pairs: relative imports resolved against ``path``'s package; for
        ``from X import name`` the module ``X.name`` when it exists in the tree, else ``X``. Imports
        anywhere in the file count, inside functions too. An import climbing above the package
        gives the name ``..`` (reported as a violation).
    """
    package = root.name
    parts, is_package = _module_name(root, path)
    here = parts if is_package else parts[:-1]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name == package or alias.name.startswith(package + "."):
                    yield alias.name, node.lineno
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                if node.level - 1 >= len(here):
                    yield "..", node.lineno
                    continue
                base = here[:len(here) - (node.level - 1)] + (node.module.split(".") if node.module else [])
            elif node.module == package or (node.module or "").startswith(package + "."):
                base = node.module.split(".")
            else:
                continue
            for alias in node.names:
                sub = base + [alias.name]
                yield ".".join(sub if _is_module(root, sub[1:]) else base), node.lineno


def _unit(module: str) -> str:
    """The stage or top-level module a dotted name belongs to (``evalreport`` alone: ``__init__``)."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def _reach(unit: str) -> set[str]:
    """The stages a top-level module depends on, directly or through the top-level modules it may import."""
    seen, todo, stages = set(), [unit], set()
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        for dep in SHARED.get(name, ()):
            if dep in STAGES:
                stages.add(dep)
            else:
                todo.append(dep)
    return stages


def _broken_rule(importer: str, unit: str) -> str | None:
    """Why a module of ``importer`` (a stage or top-level module) may not import ``unit``, or ``None``."""
    if unit == "__init__":        # the root's own imports are made on first use: importing it pulls in no stage
        return None
    if importer in STAGES:
        if unit in STAGES:
            return "a later stage" if STAGES.index(unit) > STAGES.index(importer) else None
        if unit not in SHARED:
            return "not a stage nor a known top-level module"
        later = sorted((s for s in _reach(unit) if STAGES.index(s) > STAGES.index(importer)), key=STAGES.index)
        return f"which depends on a later stage ({', '.join(later)})" if later else None
    if importer not in SHARED:
        return f"{importer} is a top-level module the layout test does not know (add it to SHARED)"
    if unit in (importer, "__init__"):
        return None
    return None if unit in SHARED[importer] else f"{importer} may import only {sorted(SHARED[importer])}"


def violations(root: Path) -> list[Violation]:
    """Every import under ``root`` that breaks the layering.

    A module of a stage may import its own stage, earlier stages, the package root and the top-level
    modules of ``SHARED`` that depend on no later stage; a top-level module may import what
    ``SHARED`` lists for it.

    Parameters
    ----------
    root : Path
        The package folder (the installed ``evalreport``, or a fake tree with the same name).

    Returns
    -------
    list[Violation]
        The violations, by file and line.
    """
    found = []
    for path in sorted(root.rglob("*.py")):
        rel = path.relative_to(root)
        importer = rel.parts[0] if len(rel.parts) > 1 else rel.stem
        for module, line in sorted(imported_modules(root, path), key=lambda m: m[1]):
            reason = ("a relative import above the package" if module == ".."
                      else _broken_rule(importer, _unit(module)))
            if reason:
                found.append(Violation(rel.as_posix(), line, module, reason))
    return found


def test_every_stage_exists_as_a_module_or_package():
    for stage in STAGES:
        assert (PACKAGE / stage).is_dir() or (PACKAGE / f"{stage}.py").is_file(), stage


def test_every_top_level_module_is_classified():
    """A new module beside the stages states what it may import (SHARED) before it is used."""
    top = {p.stem for p in PACKAGE.glob("*.py")}
    assert top == set(SHARED), f"unclassified: {sorted(top - set(SHARED))}, gone: {sorted(set(SHARED) - top)}"


def test_no_module_imports_a_later_stage():
    bad = violations(PACKAGE)
    assert not bad, "\n".join(map(str, bad))


def test_relative_imports_resolve_to_absolute_names(tmp_path):
    root = _tree(tmp_path, {
        "inputs/__init__.py": "from . import readers\nfrom .readers import read\n",
        "inputs/readers.py": "from .. import errors\nfrom ..errors import InputError\nfrom . import read\n",
        "errors.py": "",
    })
    assert list(imported_modules(root, root / "inputs" / "__init__.py")) == [
        ("evalreport.inputs.readers", 1), ("evalreport.inputs.readers", 2)]
    assert list(imported_modules(root, root / "inputs" / "readers.py")) == [
        ("evalreport.errors", 1), ("evalreport.errors", 2), ("evalreport.inputs", 3)]


def _tree(tmp_path: Path, files: dict[str, str]) -> Path:
    """A fake ``evalreport`` package under ``tmp_path`` with the given files (and the stages' ``__init__.py``)."""
    root = tmp_path / "evalreport"
    for stage in STAGES:
        (root / stage).mkdir(parents=True, exist_ok=True)
        (root / stage / "__init__.py").touch()
    (root / "__init__.py").touch()
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")
    return root


def test_the_rule_finds_exactly_the_violations_of_a_fake_tree(tmp_path):
    """The function the real test uses reports each kind of violation in a package tree written
    here, and nothing for the allowed imports beside them."""
    root = _tree(tmp_path, {
        "inputs/bad.py": ("import numpy\n"
                          "from ..report import build\n"                  # relative, later stage
                          "from . import good\n"                          # same stage: allowed
                          "from .. import errors\n"                       # a foundation: allowed
                          "def lazy():\n"
                          "    import evalreport.cli\n"),                 # absolute, inside a function
        "inputs/good.py": "from evalreport.inputs import bad\nimport evalreport\n",
        "counts/c.py": ("from evalreport import measures\n"               # from the root, later stage
                        "from evalreport import examples\n"              # examples depends on inputs only
                        "from ... import escape\n"),                     # above the package
        "measures/m.py": "from evalreport import words\nfrom evalreport.counts import c\nfrom .. import theme\n",
        "report/build.py": "from evalreport.cli.common import x\n",
        "cli/common.py": "from ..report import build\nfrom .. import examples\n",
        "errors.py": "",
        "escape.py": "",
        "words.py": "def f():\n    from .report import build\n",   # a foundation importing a stage
        "examples.py": "from .inputs import readers\n",
        "theme.py": "",                                                   # not in SHARED: no stage may use it
    })
    found = {(v.path, v.line, v.module) for v in violations(root)}
    assert found == {
        ("inputs/bad.py", 2, "evalreport.report.build"),
        ("inputs/bad.py", 6, "evalreport.cli"),
        ("counts/c.py", 1, "evalreport.measures"),
        ("counts/c.py", 3, ".."),
        ("report/build.py", 1, "evalreport.cli.common"),
        ("measures/m.py", 3, "evalreport.theme"),
        ("words.py", 2, "evalreport.report.build"),
    }


def test_a_top_level_module_that_depends_on_a_later_stage_taints_its_users(tmp_path, monkeypatch):
    """A stage may not reach a later stage through a shared module: examples may import inputs, so
    the counts stage may use it; once examples may (and does) import the report stage, it may not."""
    root = _tree(tmp_path, {"counts/c.py": "from evalreport import examples\n",
                            "examples.py": "from .report import build\n", "report/build.py": ""})
    assert [str(v) for v in violations(root)] == [
        "examples.py:1 imports evalreport.report.build: examples may import only ['errors', 'inputs']"]
    monkeypatch.setitem(SHARED, "examples", frozenset({"inputs", "report"}))
    assert [str(v) for v in violations(root)] == [
        "counts/c.py:1 imports evalreport.examples: which depends on a later stage (report)"]
