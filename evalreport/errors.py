"""Errors raised on bad user input.

Every problem with an input file is an :class:`InputError` that names the file, the line (or
item id) and what is wrong, so the CLI can print it and exit with status 2 without writing
anything.
"""
from __future__ import annotations


class EvalReportError(Exception):
    """Base class of the errors evalreport raises on purpose."""


class InputError(EvalReportError, ValueError):
    """A problem with an input file or argument.

    ``path`` is the file (or ``None`` for an argument), ``line`` the 1-based line number in
    that file when known, ``item`` the item id when that is more useful than a line.
    """

    def __init__(self, problem: str, *, path=None, line: int | None = None, item=None):
        self.problem = problem
        self.path = None if path is None else str(path)
        self.line = line
        self.item = item
        super().__init__(self._format())

    def _format(self) -> str:
        where = []
        if self.path is not None:
            where.append(self.path)
        if self.line is not None:
            where.append(f"line {self.line}")
        if self.item is not None:
            where.append(f"id {self.item!r}")
        return (": ".join([", ".join(where), self.problem]) if where else self.problem)


class ConfigError(InputError):
    """A problem on the organiser's side of a scoring program (the task file, the reference data,
    plugins, the measures it asks for), not in a participant's submission: the CLI exits with
    status 3 instead of 2, so the platform's log does not blame the submission (docs/codabench.md)."""

    exit_status = 3


class MeasureError(EvalReportError, ValueError):
    """An unknown measure id, a bad parameter, or a measure that does not apply."""


class OutputError(EvalReportError, FileExistsError):
    """An output folder that cannot be written (e.g. the path is a file)."""
