"""No module of evalreport uses another module's private (`_name`) names.

Ruff's PLC2701 (import-private-name) exempts first-party imports, so this AST walk enforces the rule: no
``from X import _name`` (absolute or relative) and no ``module._name`` attribute access, where ``X`` or
``module`` is another module of the package. Dunders are fine, and so is importing a private module itself
(``from evalreport.charts import _common``) or a private module's public names: the rule is about names.
"""

from __future__ import annotations

import ast
from pathlib import Path
from typing import NamedTuple

import pytest

ROOT = Path(__file__).resolve().parent.parent

def is_private(name: str) -> bool:
    """Whether `name` is private: one leading underscore, not a dunder.

    Parameters
    ----------
    name : str
        An identifier.

    Returns
    -------
    bool
        True for ``_name``, False for ``name`` and ``__name__``.
    """
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def module_names(package_dir: Path) -> dict[str, Path]:
    """Every module of a package by dotted name.

    Parameters
    ----------
    package_dir : Path
        The package's directory (holding ``__init__.py``); its name is the top-level package name.

    Returns
    -------
    dict of str to Path
        ``{"pkg.sub.mod": path}``; a package's ``__init__.py`` is listed under the package's name.
    """
    modules: dict[str, Path] = {}
    for path in sorted(package_dir.rglob("*.py")):
        parts = path.relative_to(package_dir.parent).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        modules[".".join(parts)] = path
    return modules


def _absolute(module: str, is_package: bool, target: str | None, level: int) -> str:
    """The absolute dotted name of an import's source module."""
    if level == 0:
        return target or ""
    base = module.split(".") if is_package else module.split(".")[:-1]
    base = base[: len(base) - (level - 1)]
    return ".".join(base + ([target] if target else []))


class Use(NamedTuple):
    """One use of another module's private name."""

    path: Path
    line: int
    owner: str  # the dotted name of the module the name is taken from
    name: str
    imported: bool  # ``from owner import name`` (else ``owner.name``)

    def __str__(self) -> str:
        what = f"from {self.owner} import {self.name}" if self.imported else f"{self.owner}.{self.name}"
        return f"{self.path}:{self.line}: {what}"


def private_name_uses(path: Path, module: str, modules: dict[str, Path]) -> list[Use]:
    """Uses, in one module, of private names that another module of the package defines.

    Parameters
    ----------
    path : Path
        The module's source file.
    module : str
        Its dotted name (a key of `modules`).
    modules : dict of str to Path
        Every module of the package, from `module_names`.

    Returns
    -------
    list of Use
        One entry per violation, in source order.
    """
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    is_package = path.name == "__init__.py"
    found: set[Use] = set()
    # local names bound to a module of the package -> that module's dotted name
    bound: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name in modules or alias.name.split(".")[0] in modules:
                    if alias.asname:
                        bound[alias.asname] = alias.name
                    else:
                        top = alias.name.split(".")[0]
                        bound[top] = top
        elif isinstance(node, ast.ImportFrom):
            source = _absolute(module, is_package, node.module, node.level)
            if source not in modules:
                continue
            for alias in node.names:
                submodule = f"{source}.{alias.name}"
                if submodule in modules:
                    bound[alias.asname or alias.name] = submodule
                elif is_private(alias.name) and source != module:
                    found.add(Use(path, node.lineno, source, alias.name, True))
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Attribute) and is_private(node.attr)):
            continue
        chain: list[str] = []
        value: ast.expr = node.value
        while isinstance(value, ast.Attribute):
            chain.insert(0, value.attr)
            value = value.value
        if not isinstance(value, ast.Name) or value.id not in bound:
            continue
        owner = ".".join([bound[value.id], *chain])
        if owner in modules and owner != module and f"{owner}.{node.attr}" not in modules:
            found.add(Use(path, node.lineno, owner, node.attr, False))
    return sorted(found, key=lambda use: (use.line, str(use)))


def package_violations(
    package_dir: Path, skip: frozenset[str] = frozenset(), skip_names: frozenset[tuple[str, str]] = frozenset()
) -> list[Use]:
    """Every private-name use across modules of a package.

    Parameters
    ----------
    package_dir : Path
        The package's directory.
    skip : frozenset of str
        Dotted module names whose own uses are not reported.
    skip_names : frozenset of (str, str)
        ``(module, name)`` pairs whose uses are not reported.

    Returns
    -------
    list of Use
        The violations, module by module.
    """
    modules = module_names(package_dir)
    found: list[Use] = []
    for module, path in modules.items():
        if module not in skip:
            found.extend(use for use in private_name_uses(path, module, modules)
                         if (use.owner, use.name) not in skip_names)
    return found


def test_no_module_uses_another_modules_private_names() -> None:
    found = package_violations(ROOT / "evalreport")
    assert not found, "private names used across modules (make them public where defined):\n" + "\n".join(
        map(str, found))


@pytest.fixture
def package_with_violations(tmp_path: Path) -> Path:
    package = tmp_path / "pkg"
    (package / "sub").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "sub" / "__init__.py").write_text("")
    (package / "sub" / "_private_module.py").write_text("def helper():\n    return 1\n")
    (package / "core.py").write_text("def _helper():\n    return 1\n\n\ndef _own():\n    return _helper()\n")
    (package / "sub" / "user.py").write_text(
        "import pkg.core\n"
        "import pkg.core as core_alias\n"
        "from .. import core\n"
        "from ..core import _helper\n"
        "from pkg.core import _own as own\n"
        "from pkg.sub import _private_module\n"
        "from pkg.sub._private_module import helper\n"
        "\n"
        "x = core._helper() + pkg.core._own() + core_alias._helper()\n"
        "y = core.__name__ + helper() + _private_module.helper()\n"
    )
    return package


def test_checker_finds_imports_and_attribute_access(package_with_violations: Path) -> None:
    found = package_violations(package_with_violations)
    assert [str(use).split(": ", 1)[1] for use in found] == [
        "from pkg.core import _helper",
        "from pkg.core import _own",
        "pkg.core._helper",
        "pkg.core._own",
    ]
    assert [use.line for use in found] == [4, 5, 9, 9]
    assert {use.path.name for use in found} == {"user.py"}
    skipped = package_violations(package_with_violations, skip_names=frozenset({("pkg.core", "_helper")}))
    assert [(use.name, use.line) for use in skipped] == [("_own", 5), ("_own", 9)]


def test_checker_allows_a_modules_own_private_names(package_with_violations: Path) -> None:
    modules = module_names(package_with_violations)
    assert private_name_uses(modules["pkg.core"], "pkg.core", modules) == []
