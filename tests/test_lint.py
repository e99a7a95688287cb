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

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent
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


def mypy_errors(output: str) -> list[str]:
    """The error lines of mypy's output.

    Parameters
    ----------
    output : str
        mypy's standard output.

    Returns
    -------
    list of str
        The ``path:line: error: ...`` lines, without notes and the summary line.
    """
    return [line for line in output.splitlines() if ERROR_LINE.match(line)]


def test_ruff() -> None:
    ruff = _tool("ruff")
    proc = _run([str(ruff), "check", "--no-cache", "--output-format", "concise", "evalreport", "tests"])
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_mypy() -> None:
    mypy = _tool("mypy")
    proc = _run([str(mypy)])
    errors = mypy_errors(proc.stdout)
    assert not errors, "\n".join(errors)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_mypy_errors_are_read_from_its_output() -> None:
    output = ("evalreport/counts/files.py:12: error: Incompatible types  [assignment]\n"
              "evalreport/counts/files.py:12: note: see the docs\n"
              "evalreport/cli/compare.py:3:5: error: Name \"x\" is not defined  [name-defined]\n"
              "Found 2 errors in 2 files (checked 3 source files)\n")
    assert mypy_errors(output) == ["evalreport/counts/files.py:12: error: Incompatible types  [assignment]",
                                   "evalreport/cli/compare.py:3:5: error: Name \"x\" is not defined  [name-defined]"]
