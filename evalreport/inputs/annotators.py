"""A gold file with several annotators: columns ``label_1``, ``label_2``, ... (wide; any suffix names
the annotator; an empty cell: that annotator did not label the item) or a long file with columns
``id``, ``annotator`` and ``label`` (one row per item and annotator). Read into
:class:`Annotations` for the agreement and per-annotator tables of
:mod:`evalreport.analyses.annotators`.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from evalreport.errors import InputError
from evalreport.inputs.tables import MISSING_LABELS, read_table

__all__ = ["Annotations", "read_annotations", "WIDE_COLUMN"]

#: A wide file's annotator column: ``label_<name>``.
WIDE_COLUMN = re.compile(r"label_(.+)")


@dataclass(frozen=True)
class Annotations:
    """Labels of several annotators on the same items.

    Attributes
    ----------
    ids : (N,) item ids (str).
    annotators : the A annotator names.
    values : (A, N) object array of label texts; None where an annotator did not label the item.
    path : the file read.
    """

    ids: np.ndarray
    annotators: tuple[str, ...]
    values: np.ndarray
    path: str = ""

    def codes(self, labels) -> np.ndarray:
        """(A, N) integer codes into ``labels``; -1 where missing.

        Parameters
        ----------
        labels : sequence of str
            The task's classes.

        Returns
        -------
        numpy.ndarray

        Raises
        ------
        InputError
            A label that is not one of ``labels``.
        """
        index = {str(x): i for i, x in enumerate(labels)}
        out = np.full(self.values.shape, -1, dtype=np.int64)
        for a in range(self.values.shape[0]):
            for j, v in enumerate(self.values[a]):
                if v is None:
                    continue
                if v not in index:
                    raise InputError(f"annotator {self.annotators[a]!r} labels item {self.ids[j]!r} {v!r}, which is "
                                     f"not a class of the task ({', '.join(map(str, labels))})", path=self.path)
                out[a, j] = index[v]
        return out


def _text(v) -> str | None:
    """A cell as a label, or None when empty or a missing-value marker."""
    if v is None:
        return None
    s = str(v).strip()
    return None if s == "" or s in MISSING_LABELS else s


def read_annotations(path, *, id_col: str = "id") -> Annotations:
    """Read a gold file of several annotators (wide or long layout, module docstring).

    Parameters
    ----------
    path : str or Path
        A TSV, CSV, JSON Lines, Parquet or XLSX file.
    id_col : str
        The item-id column.

    Returns
    -------
    Annotations

    Raises
    ------
    InputError
        No id column, fewer than two annotators, a repeated item (or item and annotator), or an item
        no annotator labelled; the message names the file and line.
    """
    table, path = read_table(path, "gold", id_col=id_col)
    names = list(table.columns)
    if id_col not in names:
        raise InputError(f"no {id_col!r} column (columns: {', '.join(names)})", path=path)
    ids = [str(x).strip() for x in table.columns[id_col].to_pylist()]
    wide = [c for c in names if WIDE_COLUMN.fullmatch(c)]
    if wide:
        if len(wide) < 2:
            raise InputError(f"one annotator column ({wide[0]}); several annotators need label_1, label_2, ...",
                             path=path)
        seen: dict[str, int] = {}
        for row, i in enumerate(ids):
            if i in seen:
                raise table.error(f"item {i!r} has two rows (first on line {table.line(seen[i])})", row=row)
            seen[i] = row
        values = np.array([[_text(v) for v in table.columns[c].to_pylist()] for c in wide], dtype=object)
        empty = np.flatnonzero((values == None).all(axis=0))     # noqa: E711 (elementwise)
        if len(empty):
            raise table.error(f"item {ids[int(empty[0])]!r} has no label from any annotator", row=int(empty[0]))
        return Annotations(np.array(ids, dtype=object), tuple(c[len('label_'):] for c in wide),
                           values, str(path))
    if "annotator" not in names or "label" not in names:
        raise InputError("a gold file of several annotators has columns label_1, label_2, ... or the columns "
                         f"{id_col}, annotator and label; found {', '.join(names)}", path=path)
    who = [str(x).strip() for x in table.columns["annotator"].to_pylist()]
    labels = [_text(v) for v in table.columns["label"].to_pylist()]
    items = list(dict.fromkeys(ids))
    annotators = list(dict.fromkeys(who))
    if len(annotators) < 2:
        raise InputError("one annotator; the annotator column must name at least two", path=path)
    col = {i: j for j, i in enumerate(items)}
    ann = {a: k for k, a in enumerate(annotators)}
    values = np.full((len(annotators), len(items)), None, dtype=object)
    first: dict[tuple[int, int], int] = {}
    for row, (i, a, v) in enumerate(zip(ids, who, labels)):
        key = (ann[a], col[i])
        if key in first:
            raise table.error(f"annotator {a!r} labels item {i!r} twice (first on line {table.line(first[key])})",
                              row=row)
        if v is None:
            raise table.error(f"annotator {a!r} gives item {i!r} no label", row=row)
        first[key] = row
        values[key] = v
    return Annotations(np.array(items, dtype=object), tuple(annotators), values, str(path))
