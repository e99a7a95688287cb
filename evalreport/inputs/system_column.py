"""Run files that name their systems in a column: the long layout ``system, id, label``.

A run file with a ``system`` column holds the predictions of the systems it names there, one row per
(system, item); the out-of-core backends read only this layout (:mod:`evalreport.counts.bigdata`), and
the in-memory reader (:func:`~evalreport.inputs.readers.read_runs`) reads it the same way, so the same
files give the same systems whatever the backend: each value of the column is a system (text, trimmed,
numbers in their shortest form, as labels are read), never the file's name. A file with the column
holding one value is a one-system run named by that value.

The systems of such files come in natural order of their names, as the backends order them, when every
run file has the column; beside run files without it (each a system named by its stem) they take the
place of their file, in natural order among themselves. The split keeps each row's place in the file, so
a message about a row names the long file and its line.
"""
from __future__ import annotations

import csv
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pyarrow as pa

from evalreport.errors import InputError
from evalreport.inputs.checks import FORMATS, hash_file, listing, natural_sorted
from evalreport.inputs.tables import DELIMITER, Table, read_table

__all__ = ["SYSTEM_COL", "RunPiece", "split_systems", "has_column"]

#: The column of a run file that names its systems (as in the out-of-core backends' run tables).
SYSTEM_COL = "system"

#: The most characters the quick look at a text file's header reads.
_QUICK_CHARS = 2 ** 20


@dataclass
class RunPiece:
    """The rows of one system in a run file that names its systems in a column: read once, split."""

    path: Path
    table: Table
    system: str
    sha256: str


class _Rows(Table):
    """Some rows of a read table, in file order; lines and rows in messages are those of the file."""

    def __init__(self, parent: Table, rows: np.ndarray, drop: str, system: str):
        taken = pa.array(rows)
        columns = {name: parent.column(name).take(taken) for name in parent.columns
                   if name != drop and name not in parent.unusable}
        super().__init__(parent.path, parent.fmt, columns, len(rows), header=parent.header,
                         all_names=[n for n in parent.all_names if n != drop])
        self.id_col = parent.id_col
        self.unusable = {k: v for k, v in parent.unusable.items() if k != drop}
        self._parent, self._rows, self._system = parent, rows, system

    def line(self, row: int | None) -> int | None:
        """The file's line of this piece's row ``row``."""
        return None if row is None else self._parent.line(int(self._rows[row]))

    def error(self, problem: str, *, row: int | None = None, item=None, line: int | None = None) -> InputError:
        """An error at this piece's row ``row``, told by the file's line (or row) and the system."""
        return self._parent.error(f"system {self._system!r}: {problem}", row=None if row is None else int(self._rows[row]),
                                  item=item, line=line)

    def where(self, row: int) -> str:
        """``line k`` or ``row k`` of the file."""
        return self._parent.where(int(self._rows[row]))


def has_column(path, name: str) -> bool | None:
    """Whether the file's header (text), schema (Parquet) or first record (JSON Lines) names column
    ``name``; None when a quick look cannot tell (a workbook, a header too long to glance at)."""
    path = Path(path)
    fmt = FORMATS.get(path.suffix.lower())
    if not path.is_file():       # a named pipe or device is not opened here: the full reader refuses it
        return None
    try:
        if fmt == "parquet":
            import pyarrow.parquet as pq

            return name in pq.read_schema(path).names
        if fmt not in DELIMITER and fmt != "jsonl":
            return None
        with open(path, encoding="utf-8-sig", newline="") as handle:
            first = _first_line(handle)
        if first is None:
            return None
        if fmt == "jsonl":
            record = json.loads(first)
            return isinstance(record, dict) and name in record
        from evalreport.inputs.delimiters import sniff_delimiter

        header = next(csv.reader([first], delimiter=sniff_delimiter(path, DELIMITER[fmt])), [])
        return name in [h.strip() for h in header]
    except (OSError, ValueError, UnicodeDecodeError, pa.ArrowException, csv.Error):
        return None           # the full reader names the problem


def _first_line(handle) -> str | None:
    """The first non-blank line, or None when it is not whole within :data:`_QUICK_CHARS` characters."""
    read = 0
    while read < _QUICK_CHARS:
        line = handle.readline(_QUICK_CHARS - read)
        if not line:
            return None
        read += len(line)
        if not line.endswith(("\n", "\r")) and handle.read(1):
            return None
        if line.strip():
            return line
    return None


def split_systems(run_paths: Sequence[Path], names: Sequence[str] | None, *, system_col: str | None, id_col: str,
                  wanted: Callable[[str], bool], as_dict: Sequence[str],
                  hashed: bool) -> tuple[list[Path | RunPiece], list[str] | None]:
    """The runs to read, one per system, and their names.

    Parameters
    ----------
    run_paths : sequence of Path
        The run files, in order.
    names : sequence of str or None
        Names the caller gives the systems (``--names``): one per system after the split, in its order.
    system_col : str or None
        The column that names the systems (None: every file is one system, named by its stem).
    id_col : str
        The runs' id column (names items in messages).
    wanted : callable
        The columns the reader needs (``system_col`` is read as well).
    as_dict : sequence of str
        Text columns of few distinct values (see :func:`~evalreport.inputs.tables.read_table`).
    hashed : bool
        Whether to record each file's SHA-256 (else ``""``).

    Returns
    -------
    runs : list of Path or RunPiece
        A file without the column as it was given; a file with it as one :class:`RunPiece` per system.
    names : list of str or None
        The system names (``names`` when given); None when no file has the column (the caller names
        the systems as before: ``names``, or each file's stem).
    """
    if system_col is None:
        return list(run_paths), None
    looks = [has_column(p, system_col) for p in run_paths]
    # a file a quick look cannot judge is read whole here only when it is a workbook (small by its
    # limits); any other (missing, a pipe, an odd header) goes to the reader, which names its problem
    # after the gold file's
    looks = [False if x is None and not (Path(p).suffix.lower() == ".xlsx" and Path(p).is_file()) else x
             for p, x in zip(run_paths, looks)]
    if not any(x is None or x for x in looks):
        return list(run_paths), None
    out: list[Path | RunPiece] = []
    found: list[str] = []
    split_any, every = False, True
    for path, look in zip(run_paths, looks):
        if look is False:
            out.append(path)
            found.append(path.stem)
            every = False
            continue
        table, path = read_table(path, "run", id_col=id_col, dictionary=tuple(as_dict),
                                 wanted=lambda n: n == system_col or wanted(n))
        if system_col not in table.columns:      # (a workbook without the column: read once, one system)
            out.append(RunPiece(path, table, path.stem, hash_file(path) if hashed else ""))
            found.append(path.stem)
            every = False
            continue
        pieces = _pieces(table, path, system_col, hashed)
        split_any = True
        out += pieces
        found += [p.system for p in pieces]
    if not split_any:
        return list(run_paths), None
    if every:
        order = np.argsort(np.array([natural_sorted(found).index(s) for s in found]), kind="stable")
        out, found = [out[k] for k in order], [found[k] for k in order]
    _distinct(found, out)
    if names is not None:
        names = [str(n) for n in names]
        if len(names) != len(found):
            raise InputError(f"{len(names)} system name(s) for {len(found)} systems ({listing(found)}: the "
                             f"{system_col!r} column of a run file names one system per value)")
        found = names
    return out, found


def _pieces(table: Table, path: Path, system_col: str, hashed: bool) -> list[RunPiece]:
    """One piece per system of a read run file, in natural order of the system names."""
    codes, systems = table.labels(system_col, what="system")
    digest = hash_file(path) if hashed else ""
    order = natural_sorted(systems)
    return [RunPiece(path, _Rows(table, np.flatnonzero(codes == systems.index(s)), system_col, s), s, digest)
            for s in order]


def _distinct(found: list[str], runs: list[Path | RunPiece]) -> None:
    """Each system name once over every run file."""
    seen: dict[str, int] = {}
    for k, name in enumerate(found):
        if name in seen:
            first, other = runs[seen[name]], runs[k]
            where = [str(r.path if isinstance(r, RunPiece) else r) for r in (first, other)]
            raise InputError(f"system name {name!r} is used twice ({where[0]} and {where[1]}); a system's "
                             "predictions must lie in one run file (use --names, Python: names=[...], to rename)")
        seen[name] = k
