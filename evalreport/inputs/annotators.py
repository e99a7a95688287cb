"""A gold file with several annotators: columns ``label_1``, ``label_2``, ... (wide; any suffix names
the annotator; an empty cell: that annotator did not label the item) or a long file with columns
``id``, ``annotator`` and ``label`` (one row per item and annotator). Read into
:class:`Annotations` for the agreement and per-annotator tables of
:mod:`evalreport.analyses.annotators`.

The gold file itself may hold several annotators in the wide layout (:func:`majority_gold`): with no
label column but ``label_1``, ``label_2``, ... (the label column's name, ``_`` and a number), the
reference label of an item is its annotators' majority label; a tie goes to the label of the
lowest-numbered annotator among those who gave one of the tied labels.
"""
from __future__ import annotations

import re
import warnings
from collections import Counter
from dataclasses import dataclass

import numpy as np
import pyarrow as pa

from evalreport.errors import InputError
from evalreport.inputs.tables import MISSING_LABELS, Table, read_table
from evalreport.words import counted

__all__ = ["Annotations", "read_annotations", "majority_gold", "WIDE_COLUMN"]

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
    note : how the reference labels were made from these, when the gold file itself held them
        (:func:`majority_gold`); empty for ``--annotators``.
    """

    ids: np.ndarray
    annotators: tuple[str, ...]
    values: np.ndarray
    path: str = ""
    note: str = ""

    def label_set(self) -> list[str]:
        """The distinct labels the annotators gave, in first-seen order (annotator by annotator).

        Returns
        -------
        list of str
        """
        return list(dict.fromkeys(v for row in self.values for v in row if v is not None))

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


def majority_gold(table: Table, id_col: str, label_col: str) -> Annotations | None:
    """Give a gold table of several annotators (``label_1``, ``label_2``, ... and no ``label_col``)
    the column ``label_col``: each item's majority label (module docstring for the tie rule).

    Warns once, in words, how many annotators voted and how many ties were broken.

    Parameters
    ----------
    table : Table
        The gold file as read; ``label_col`` is added to its columns.
    id_col, label_col : str
        The gold file's item-id and label columns.

    Returns
    -------
    Annotations or None
        The annotators' labels (named by their numbers, as :func:`read_annotations` names them), or
        None when the file has ``label_col`` or no annotator columns (nothing changed).

    Raises
    ------
    InputError
        A long file (an ``annotator`` column; it goes to ``--annotators``), a single annotator column,
        or an item no annotator labelled (naming its line).
    """
    if label_col in table.all_names or id_col not in table.columns:
        return None
    pattern = re.compile(re.escape(label_col) + r"_(\d+)")
    wide = [c for c in table.columns if pattern.fullmatch(c)]
    if not wide:
        if "annotator" in table.all_names:
            raise InputError(f"a gold file with an annotator column (one row per item and annotator) is not read as "
                             f"the gold; give one {label_col!r} per item as the gold and this file with "
                             "--annotators FILE", path=table.path)
        return None
    if len(wide) < 2:
        raise InputError(f"one annotator column ({wide[0]}) and no {label_col!r} column; several annotators need "
                         f"{label_col}_1, {label_col}_2, ...", path=table.path)
    ids = [str(x) for x in table.ids(id_col).to_pylist()]
    values = np.array([[_text(v) for v in table.text(c).to_pylist()] for c in wide], dtype=object)
    order = sorted(range(len(wide)), key=lambda a: int(pattern.fullmatch(wide[a]).group(1)))  # type: ignore[union-attr]
    majority, ties = _majority(values, order, table, ids)
    table.columns[label_col] = pa.array(majority, type=pa.string())
    note = (f"gold: majority of {len(wide)} annotators ({', '.join(wide)}); ties: {counted(ties, 'item')}, broken "
            "by annotator order (the lowest-numbered annotator's label among the tied)")
    warnings.warn(note, stacklevel=4)
    return Annotations(np.array(ids, dtype=object), tuple(c[len(label_col) + 1:] for c in wide), values,
                       str(table.path), note)


def _majority(values: np.ndarray, order: list[int], table: Table, ids: list[str]) -> tuple[list[str], int]:
    """Each item's majority label (ties: the first annotator in ``order`` with a tied label) and the tie count."""
    out: list[str] = []
    ties = 0
    for j in range(values.shape[1]):
        votes = Counter(v for v in values[:, j] if v is not None)
        if not votes:
            raise table.error("no label from any annotator (every annotator column is empty)", row=j, item=ids[j])
        top = max(votes.values())
        tied = {v for v, n in votes.items() if n == top}
        if len(tied) > 1:
            ties += 1
            out.append(next(values[a, j] for a in order if values[a, j] in tied))
        else:
            out.append(next(iter(tied)))
    return out, ties
