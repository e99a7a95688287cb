"""Ruff and mypy pass on the package (and ruff on the tests), with the settings in pyproject.toml.

The rule against importing another module's private names is tests/test_private_names.py: ruff's own
(PLC2701) exempts first-party imports.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from test_private_names import PENDING, PENDING_DIRS, is_pending

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent
# the test files other work is rewriting in parallel with these checks (phase 2 of issue 23 empties it)
PENDING_TESTS: frozenset[str] = frozenset()
# mypy's "path:line: error: ..." lines (notes and the summary line are left out)
ERROR_LINE = re.compile(r"^(?P<path>[^:\s]+\.py):\d+(?::\d+)?: error: ")


def _tool(name: str) -> Path:
    """The tool installed beside the running interpreter, or a skip when it is missing."""
    path = BIN / name
    if not path.is_file():
        pytest.skip(f"{name} is not installed next to {sys.executable} (pip install -e '.[test]')")
    return path


def _run(command: list[str]) -> subprocess.CompletedProcess[str]:
    """Run a tool from the repository root, capturing its output."""
    return subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=600)


def pending_paths() -> list[str]:
    """Every pending file that exists, relative to the repository root.

    Returns
    -------
    list of str
        The files of `PENDING`, of the folders in `PENDING_DIRS` and of `PENDING_TESTS`, sorted.
    """
    found = {path for path in PENDING | PENDING_TESTS if (ROOT / path).is_file()}
    for folder in PENDING_DIRS:
        found.update(path.relative_to(ROOT).as_posix() for path in (ROOT / folder).rglob("*.py"))
    return sorted(found)


def mypy_errors(output: str) -> list[str]:
    """The error lines of mypy's output that are not in a pending file.

    Parameters
    ----------
    output : str
        mypy's standard output.

    Returns
    -------
    list of str
        The ``path:line: error: ...`` lines whose path is not pending.
    """
    errors = []
    for line in output.splitlines():
        match = ERROR_LINE.match(line)
        if match and not (is_pending(match["path"]) or match["path"] in PENDING_TESTS):
            errors.append(line)
    return errors


def test_ruff() -> None:
    ruff = _tool("ruff")
    excluded = [option for path in pending_paths() for option in ("--extend-exclude", path)]
    proc = _run([str(ruff), "check", "--no-cache", "--output-format", "concise", *excluded, "evalreport", "tests"])
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_mypy() -> None:
    mypy = _tool("mypy")
    pending = [path for path in pending_paths() if path.startswith("evalreport/")]
    options = []
    if pending:
        # mypy still follows imports into an excluded file: silently, so that file's errors wait for phase 2
        # (the filter below drops any that mypy reports anyway)
        options = ["--exclude", "^(" + "|".join(re.escape(path) for path in pending) + ")$",
                   "--follow-imports", "silent"]
    proc = _run([str(mypy), *options])
    errors = mypy_errors(proc.stdout)
    assert not errors, "\n".join(errors)
    # 1: type errors, here only in pending files; anything else (2: a crash, a bad option) fails
    assert proc.returncode == 0 or (proc.returncode == 1 and pending), proc.stdout + proc.stderr


def test_mypy_errors_are_read_from_its_output() -> None:
    output = ("evalreport/counts/files.py:12: error: Incompatible types  [assignment]\n"
              "evalreport/counts/files.py:12: note: see the docs\n"
              "evalreport/cli/compare.py:3:5: error: Name \"x\" is not defined  [name-defined]\n"
              "Found 2 errors in 2 files (checked 3 source files)\n")
    assert mypy_errors(output) == ["evalreport/counts/files.py:12: error: Incompatible types  [assignment]"]
