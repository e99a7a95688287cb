"""Run files that name their systems in the data: the long layout and the wide layout.

``long``  a ``system`` column: one row per (system, item), columns ``system, id, label``. The
          out-of-core backends read only this layout (:mod:`evalreport.counts.bigdata`), and the
          in-memory reader (:func:`~evalreport.inputs.readers.read_runs`) reads it the same way, so the
          same files give the same systems whatever the backend: each value of the column is a system
          (text, trimmed, numbers in their shortest form, as labels are read), never the file's name.
          A file whose column holds one value is a one-system run named by that value.
``wide``  no ``label`` column but ``label_<system>`` columns: one row per item, one column of
          predicted labels per system, named by the column's suffix (as a gold file of several
          annotators holds ``label_1``, ``label_2``, ...). Score columns would belong to no one
          system and are refused there.

The systems of such files come in natural order of their names, as the backends order them, when every
run file names its systems; beside run files that do not (each a system named by its stem) they take the
place of their file, in natural order among themselves. A message about a row names the file, its line
(Parquet: row) and the system.
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
from evalreport.inputs.lines import first_line
from evalreport.inputs.tables import DELIMITER, Table, read_table

__all__ = ["SYSTEM_COL", "RunPiece", "split_systems", "header_names"]

#: The column of a run file that names its systems (as in the out-of-core backends' run tables).
SYSTEM_COL = "system"

#: The most characters the quick look at a text file's header reads.
_QUICK_CHARS = 2 ** 20


@dataclass
class RunPiece:
    """One system's predictions in a run file that names its systems: read once, split."""

    path: Path
    table: Table
    system: str
    sha256: str


class _Piece(Table):
    """One system's part of a read table: some of its rows (None: all) and its columns under the names
    the reader asks for; lines and rows in messages are the file's, and the system is named."""

    def __init__(self, parent: Table, rows: np.ndarray | None, columns: dict[str, str], prefix: str):
        taken = None if rows is None else pa.array(rows)
        cols = {new: parent.column(old) if taken is None else parent.column(old).take(taken)
                for new, old in columns.items() if old not in parent.unusable}
        super().__init__(parent.path, parent.fmt, cols, parent.n_rows if rows is None else len(rows),
                         header=parent.header, all_names=list(columns))
        self.id_col = parent.id_col
        self.unusable = {new: parent.unusable[old] for new, old in columns.items() if old in parent.unusable}
        self._parent, self._rows, self._prefix = parent, rows, prefix

    def line(self, row: int | None) -> int | None:
        """The file's line of this piece's row ``row``."""
        return None if row is None else self._parent.line(row if self._rows is None else int(self._rows[row]))

    def error(self, problem: str, *, row: int | None = None, item=None, line: int | None = None) -> InputError:
        """An error at this piece's row ``row``, told by the file's line (or row) and the system."""
        at = None if row is None else row if self._rows is None else int(self._rows[row])
        return self._parent.error(f"{self._prefix}: {problem}", row=at, item=item, line=line)

    def where(self, row: int) -> str:
        """``line k`` or ``row k`` of the file."""
        return self._parent.where(row if self._rows is None else int(self._rows[row]))


def header_names(path, mentions: Sequence[str] = ()) -> list[str] | None:
    """The column names of a file from its header (text), schema (Parquet) or first record (JSON
    Lines); None when a quick look cannot tell (a workbook, a special file, a header too long).
    ``mentions``: a text file whose first line holds none of these strings gives ``[]`` unparsed."""
    path = Path(path)
    fmt = FORMATS.get(path.suffix.lower())
    if not path.is_file():       # a named pipe or device is not opened here: the full reader refuses it
        return None
    try:
        if fmt == "parquet":
            import pyarrow.parquet as pq

            return list(pq.read_schema(path).names)
        if fmt not in DELIMITER and fmt != "jsonl":
            return None
        with open(path, encoding="utf-8-sig", newline="") as handle:
            first = first_line(handle, _QUICK_CHARS)
        if first is None:
            return None
        if mentions and not any(m in first for m in mentions):
            return []
        if fmt == "jsonl":
            record = json.loads(first)
            return list(record) if isinstance(record, dict) else None
        from evalreport.inputs.delimiters import sniff_delimiter

        return [h.strip() for h in next(csv.reader([first], delimiter=sniff_delimiter(path, DELIMITER[fmt])), [])]
    except (OSError, ValueError, UnicodeDecodeError, pa.ArrowException, csv.Error):
        return None           # the full reader names the problem


@dataclass
class _Columns:
    """The column names that decide a run file's layout."""

    system: str | None
    id: str
    label: str

    def layout(self, names: Sequence[str]) -> str | None:
        """``"long"``, ``"wide"`` or None (one system per file) for a file with these columns."""
        if self.system is not None and self.system in names:
            return "long"
        if self.label not in names and any(n.startswith(f"{self.label}_") and n != self.id for n in names):
            return "wide"
        return None


def split_systems(run_paths: Sequence[Path], names: Sequence[str] | None, *, system_col: str | None, id_col: str,
                  label_col: str, wanted: Callable[[str], bool], as_dict: Sequence[str],
                  hashed: bool) -> tuple[list[Path | RunPiece], list[str] | None]:
    """The runs to read, one per system, and their names.

    Parameters
    ----------
    run_paths : sequence of Path
        The run files, in order.
    names : sequence of str or None
        Names the caller gives the systems (``--names``): one per system after the split, in its order.
    system_col : str or None
        The column that names the systems of a long file (None: no file is read as long).
    id_col, label_col : str
        The runs' id and label columns (a wide file has ``<label_col>_<system>`` columns instead).
    wanted : callable
        The columns the reader needs (the system and the wide label columns are read as well).
    as_dict : sequence of str
        Text columns of few distinct values (see :func:`~evalreport.inputs.tables.read_table`).
    hashed : bool
        Whether to record each file's SHA-256 (else ``""``).

    Returns
    -------
    runs : list of Path or RunPiece
        A file of one system as it was given; a long or wide file as one :class:`RunPiece` per system.
    names : list of str or None
        The system names (``names`` when given); None when no file names its systems (the caller then
        names them by ``names``, or each file's stem).
    """
    cols = _Columns(system_col, id_col, label_col)
    looks = [header_names(p, [x for x in (system_col, f"{label_col}_") if x]) for p in run_paths]
    # a file a quick look cannot judge is read whole here only when it is a workbook (small by its
    # limits); any other (missing, a pipe, an odd header) goes to the reader, which names its problem
    # after the gold file's
    kinds = [cols.layout(h) if h is not None else
             "?" if Path(p).suffix.lower() == ".xlsx" and Path(p).is_file() else None
             for p, h in zip(run_paths, looks)]
    if not any(kinds):
        return list(run_paths), None
    out: list[Path | RunPiece] = []
    found: list[str] = []
    split_any, every = False, True
    for path, kind in zip(run_paths, kinds):
        table = None
        if kind is not None:
            table, path = read_table(path, "run", id_col=id_col, dictionary=tuple(as_dict),
                                     wanted=lambda n: n == system_col or n.startswith(f"{label_col}_") or wanted(n))
            kind = cols.layout(table.all_names)
        if kind is None:
            piece = path if table is None else RunPiece(path, table, path.stem, hash_file(path) if hashed else "")
            out.append(piece)
            found.append(path.stem)
            every = False
            continue
        assert table is not None
        digest = hash_file(path) if hashed else ""
        pieces = _long(table, path, cols, digest) if kind == "long" else _wide(table, path, cols, wanted, digest)
        split_any = True
        out += pieces
        found += [p.system for p in pieces]
    if not split_any:
        return list(run_paths), None
    if every:
        order = natural_sorted(found)
        at = np.argsort([order.index(s) for s in found], kind="stable")
        out, found = [out[k] for k in at], [found[k] for k in at]
    _distinct(found, out)
    if names is not None:
        names = [str(n) for n in names]
        if len(names) != len(found):
            raise InputError(f"{len(names)} system name(s) for {len(found)} systems ({listing(found)}: a run file "
                             f"with a {system_col!r} column or {label_col}_<system> columns names its systems)")
        found = names
    return out, found


def _long(table: Table, path: Path, cols: _Columns, digest: str) -> list[RunPiece]:
    """One piece per value of the system column, in natural order of the names."""
    assert cols.system is not None
    codes, systems = table.labels(cols.system, what="system")
    keep = {n: n for n in [*table.columns, *table.unusable] if n != cols.system}
    return [RunPiece(path, _Piece(table, np.flatnonzero(codes == systems.index(s)), keep, f"system {s!r}"), s, digest)
            for s in natural_sorted(systems)]


def _wide(table: Table, path: Path, cols: _Columns, wanted: Callable[[str], bool], digest: str) -> list[RunPiece]:
    """One piece per ``<label>_<system>`` column, in natural order of the names; every row is an item."""
    prefix = f"{cols.label}_"
    per_system = {n[len(prefix):].strip(): n for n in table.all_names if n.startswith(prefix) and n != cols.id}
    scores = [n for n in table.all_names if n not in per_system.values() and n != cols.id and wanted(n)
              and n.split("_")[0] == "score"]
    if scores:
        raise InputError(f"a wide run file ({prefix}<system> columns) cannot carry score columns ({listing(scores)}): "
                         "they belong to no one system; give one file per system, or the long layout "
                         f"(columns system, {cols.id}, {cols.label}, score...)", path=path)
    empty = [n for n, c in per_system.items() if not n]
    if empty:
        raise InputError(f"column {per_system[empty[0]]!r} names no system (nothing after {prefix!r})", path=path,
                         line=1 if table.header else None)
    shared = {n: n for n in [*table.columns, *table.unusable] if n not in per_system.values()}
    return [RunPiece(path, _Piece(table, None, {**shared, cols.label: per_system[s]},
                                  f"system {s!r} (column {per_system[s]!r})"), s, digest)
            for s in natural_sorted(per_system)]


def _distinct(found: list[str], runs: list[Path | RunPiece]) -> None:
    """Each system name once over every run file."""
    seen: dict[str, int] = {}
    for k, name in enumerate(found):
        if name in seen:
            where = [str(r.path if isinstance(r, RunPiece) else r) for r in (runs[seen[name]], runs[k])]
            raise InputError(f"system name {name!r} is used twice ({where[0]} and {where[1]}); a system's "
                             "predictions must lie in one run file (use --names, Python: names=[...], to rename)")
        seen[name] = k
