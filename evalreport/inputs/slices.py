"""Slices of the test set: gold columns that split the items into parts (domain, language, length).

:func:`read_slices` reads the gold file's slice columns (``--slice-col``) into one slice name per
item. A text column gives one slice per distinct value; a numeric column with more than
:data:`NUMERIC_DISTINCT` distinct values (or any numeric column given bins) is cut into quantile bins
(``--slice-bins N``, default :data:`DEFAULT_BINS`) or at given edges, named ``[a, b)`` (the last bin
closed, ``[a, b]``). An empty value (empty text or null) is a slice of its own, :data:`EMPTY`. More
than :data:`MAX_SLICES` slices in one column is an error (one line: file, column, how many, and the
line where the first slice beyond the limit appears). Slice
names are ordered: text naturally, bins by value, :data:`EMPTY` last.
"""
from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from evalreport.errors import InputError
from evalreport.inputs.checks import listing, natural_sorted, near_miss
from evalreport.inputs.tables import Table

__all__ = ["read_slices", "slice_names", "check_bins", "take_columns", "HeldColumns", "EMPTY", "MAX_SLICES", "NUMERIC_DISTINCT", "DEFAULT_BINS"]

#: The name of the slice of items whose slice value is empty.
EMPTY = "(empty)"
#: At most this many slices per column.
MAX_SLICES = 200
#: A numeric column with more distinct values than this is cut into bins.
NUMERIC_DISTINCT = 20
#: Quantile bins of a numeric column when no ``--slice-bins`` is given.
DEFAULT_BINS = 4

Bins = int | Sequence[float] | None


def check_bins(slice_bins, slice_cols: Sequence[str]) -> dict[str, Bins]:
    """``slice_bins`` (None, an int for every column, or a mapping column -> int or edges) per column.

    Parameters
    ----------
    slice_bins : None, int or mapping
        As :func:`read_slices`.
    slice_cols : sequence of str
        The slice columns.

    Returns
    -------
    dict
        Column -> None (the default), a number of quantile bins (>= 1) or increasing edges.
    """
    if slice_bins is None or isinstance(slice_bins, (int, np.integer)) and not isinstance(slice_bins, bool):
        if slice_bins is not None and int(slice_bins) < 1:
            raise InputError(f"--slice-bins must be an integer >= 1; got {slice_bins}")
        return {c: None if slice_bins is None else int(slice_bins) for c in slice_cols}
    if not isinstance(slice_bins, Mapping):
        raise InputError(f"slice_bins must be an integer or a table column -> bins or edges; got {slice_bins!r}")
    out: dict[str, Bins] = {c: None for c in slice_cols}
    for col, spec in slice_bins.items():
        if isinstance(spec, (int, np.integer)) and not isinstance(spec, bool):
            if int(spec) < 1:
                raise InputError(f"slice_bins for {col!r} must be an integer >= 1; got {spec}")
            out[str(col)] = int(spec)
            continue
        edges = [float(x) for x in spec]
        if len(edges) < 2 or any(not math.isfinite(e) for e in edges) or any(b <= a for a, b in zip(edges, edges[1:])):
            raise InputError(f"slice_bins edges for {col!r} must be at least two finite, increasing numbers; "
                             f"got {list(spec)}")
        out[str(col)] = edges
    return out


def _numbers(values: list[str]) -> np.ndarray | None:
    """The values as finite floats, or None when one is not a number."""
    try:
        x = np.array([float(v) for v in values], dtype=float)
    except ValueError:
        return None
    return x if np.isfinite(x).all() else None


def _num(x: float) -> str:
    """An edge for a slice name: integral values without ``.0``, others in their shortest exact form."""
    return f"{x:.0f}" if float(x).is_integer() and abs(x) < 1e15 else repr(float(x))


def _cut(x: np.ndarray, bins: Bins, sample: np.ndarray) -> tuple[np.ndarray, list[str]]:
    """Bin codes of ``x`` and the bins' names (quantile bins of ``sample``, or the given edges)."""
    if isinstance(bins, (list, tuple)):
        edges = np.asarray(bins, dtype=float)
        if x.size and x.min() < edges[0]:
            edges = np.concatenate([[x.min()], edges])
        if x.size and x.max() > edges[-1]:
            edges = np.concatenate([edges, [x.max()]])
    else:
        n = DEFAULT_BINS if bins is None else int(bins)  # type: ignore[arg-type]
        # edges are values of the items (inverted CDF), so that a bin's name holds its items exactly
        edges = (np.unique(np.quantile(sample, np.linspace(0.0, 1.0, n + 1), method="inverted_cdf"))
                 if sample.size else np.array([0.0, 0.0]))
    if edges.size == 1:
        return np.zeros(x.size, dtype=np.int64), [f"[{_num(edges[0])}, {_num(edges[0])}]"]
    codes = np.clip(np.searchsorted(edges, x, side="right") - 1, 0, edges.size - 2)
    names = [f"[{_num(a)}, {_num(b)})" for a, b in zip(edges[:-2], edges[1:-1])]
    names.append(f"[{_num(edges[-2])}, {_num(edges[-1])}]")
    return codes, names


def slice_names(values: Sequence[str | None], column: str, bins: Bins = None, *,
                where=None, counts: np.ndarray | None = None,
                text_as_is: bool = False, too_many=None) -> tuple[np.ndarray, tuple[str, ...]]:
    """One slice name per item of a column's values, and the slices in order.

    Parameters
    ----------
    values : sequence of str or None
        The column's values as text (None or ``""``: empty).
    column : str
        The column's name (messages).
    bins : None, int or sequence of float
        None: a numeric column with more than :data:`NUMERIC_DISTINCT` distinct values is cut into
        :data:`DEFAULT_BINS` quantile bins, others are taken as they are; an int: quantile bins of a
        numeric column; edges: bins at those edges.
    where : callable, optional
        ``where(problem) -> InputError`` (names the file); default a plain :class:`InputError`.
    counts : ndarray, optional
        How many items hold each of ``values`` (when ``values`` are a column's distinct values): the
        quantile bins are those of the items; default one item each.
    text_as_is : bool, optional
        A text column given ``bins`` is taken as it is instead of refused (``--slice-bins N`` names a
        number of bins for every numeric slice column, beside text ones).
    too_many : callable, optional
        ``too_many(problem, names, hint) -> InputError`` for more than :data:`MAX_SLICES` slices, given the
        slice name of each of ``values`` (so that it can say where the first slice beyond the limit
        appears); default ``where``.

    Returns
    -------
    names : ndarray
        ``(N,)`` object array of slice names.
    order : tuple of str
        The slices: text naturally sorted, bins by value, :data:`EMPTY` last.
    """
    fail = where or InputError
    text = ["" if v is None else str(v).strip() for v in values]
    found, inverse = np.unique(np.asarray(text, dtype=object), return_inverse=True) if text else (
        np.array([], dtype=object), np.array([], dtype=np.int64))
    uniques = [str(u) for u in found]
    filled = [u for u in uniques if u != ""]
    empty = np.asarray(text, dtype=object) == "" if text else np.zeros(0, dtype=bool)
    numbers = _numbers(filled) if filled else None
    out = np.empty(len(text), dtype=object)
    weight = np.ones(len(text), dtype=np.int64) if counts is None else np.asarray(counts, dtype=np.int64)
    if numbers is not None and (bins is not None or len(filled) > NUMERIC_DISTINCT):
        x = np.array([float(t) for t in np.asarray(text, dtype=object)[~empty]], dtype=float)
        codes, names = _cut(x, bins, np.repeat(x, weight[~empty]))
        out[~empty] = np.asarray(names, dtype=object)[codes]
        held = np.bincount(codes, weights=weight[~empty], minlength=len(names)) > 0    # bins with items
        order: list[str] = [n for n, h in zip(names, held) if h]
    else:
        if bins is not None and not (text_as_is and numbers is None):
            raise fail(f"slice column {column!r} is not numeric (e.g. {next(u for u in filled if _numbers([u]) is None)!r}): "
                       "--slice-bins cuts numeric columns only")
        out[:] = np.asarray(uniques, dtype=object)[inverse] if text else out
        order = list(sorted(filled, key=float) if numbers is not None else natural_sorted(filled))
    out[empty] = EMPTY
    if (empty & (weight > 0)).any():
        order.append(EMPTY)
    if len(order) > MAX_SLICES:
        hint = ("; cut it into fewer bins with --slice-bins N" if numbers is not None else
                "; is it the right column? a numeric column is cut into bins with --slice-bins N")
        problem = f"slice column {column!r} has {len(order):,} slices, more than the {MAX_SLICES} a comparison shows"
        raise too_many(problem, out, hint) if too_many is not None else fail(problem + hint)
    return out, tuple(order)


def read_slices(g, slice_cols: Sequence[str], slice_bins=None) -> tuple[dict[str, np.ndarray], dict[str, tuple[str, ...]]]:
    """The slices of a gold table's ``slice_cols``: names per item, and the slices of each column in order.

    Parameters
    ----------
    g : Table
        The gold file, read (:func:`evalreport.inputs.tables.read_table`) with the slice columns.
    slice_cols : sequence of str
        Gold columns, in the order given.
    slice_bins : None, int or mapping
        :func:`check_bins`.

    Returns
    -------
    slices : dict
        Column -> ``(N,)`` object array of slice names, in item (gold row) order.
    order : dict
        Column -> the slices in order.
    """
    bins = check_bins(slice_bins, slice_cols)
    # one number of bins for every column: it cuts the numeric columns, text columns stay as they are,
    # unless no column is numeric (then the option cuts nothing and is refused)
    shared = not isinstance(slice_bins, Mapping) and slice_bins is not None
    numeric = {col: _is_numeric(g, col) for col in slice_cols if col in g.columns} if shared else {}
    lenient = shared and any(numeric.values())
    slices, order = {}, {}
    for col in slice_cols:
        if col not in g.columns:
            found = list(g.all_names)
            raise g.error(f"no slice column {col!r} (--slice-col); the gold file's columns are "
                          f"{listing(found)}{near_miss(col, found)}", line=1 if g.fmt in ("tsv", "csv", "xlsx") else None)
        text = g.text(col)
        if isinstance(text, pa.ChunkedArray):
            text = text.combine_chunks()
        encoded = pc.dictionary_encode(text)
        dictionary = encoded.dictionary.to_pylist()
        idx = encoded.indices.fill_null(len(dictionary)).to_numpy(zero_copy_only=False)
        counts = np.bincount(idx, minlength=len(dictionary) + 1)
        per_value, names = slice_names(dictionary + [None], col, bins[col], counts=counts,
                                       where=lambda problem: g.error(problem), text_as_is=lenient,
                                       too_many=lambda problem, per, hint, idx=idx: _beyond(g, problem, per[idx], hint))
        # slice_names ran on the distinct values: map them back to items, keep the order of the slices present
        present = np.zeros(len(dictionary) + 1, dtype=bool)
        present[np.unique(idx)] = True
        values = per_value[idx]
        used = set(per_value[present].tolist())
        slices[col] = values
        order[col] = tuple(n for n in names if n in used)
    return slices, order


def _beyond(g, problem: str, per_row: np.ndarray, hint: str) -> InputError:
    """The too-many-slices error at the row where the first slice beyond :data:`MAX_SLICES` appears."""
    _, first = np.unique(per_row.astype(str), return_index=True)
    row = int(np.sort(first)[MAX_SLICES])
    n = MAX_SLICES + 1
    nth = f"{n}{'th' if 10 <= n % 100 <= 20 else {1: 'st', 2: 'nd', 3: 'rd'}.get(n % 10, 'th')}"
    return g.error(f"{problem}: the {nth}, {str(per_row[row])!r}, first appears here{hint}", row=row)


def _is_numeric(g, col: str) -> bool:
    """Whether every filled value of a gold column reads as a number."""
    text = g.text(col)
    values = pc.unique(text.combine_chunks() if isinstance(text, pa.ChunkedArray) else text).to_pylist()
    filled = [str(v).strip() for v in values if v is not None and str(v).strip() != ""]
    return bool(filled) and _numbers(filled) is not None


class HeldColumns:
    """Slice columns taken out of a file's table before its layout is detected (a wide multi-label file
    treats every other column as a label), read later for one row per item."""

    def __init__(self, table, columns: Sequence[str]) -> None:
        self.table = table
        self.names = list(table.all_names)            # the file's columns, for messages
        self.columns = {c: table.columns.pop(c) for c in columns if c in table.columns}
        table.all_names = [c for c in table.all_names if c not in self.columns]

    def rows(self, rows: np.ndarray):
        """A table of the held columns at ``rows`` (one per item), named as the file."""
        at = pa.array(np.asarray(rows, dtype=np.int64))
        t = self.table
        return _HeldRows(t, np.asarray(rows, dtype=np.int64), {c: col.take(at) for c, col in self.columns.items()},
                         all_names=self.names)


class _HeldRows(Table):
    """Held columns at some rows of their file: a message about row ``i`` names the file's row ``rows[i]``."""

    def __init__(self, source: Table, rows: np.ndarray, columns: dict, *, all_names: Sequence[str]) -> None:
        super().__init__(source.path, source.fmt, columns, len(rows), header=source.header, all_names=all_names)
        self.source, self.rows = source, rows

    def line(self, row: int | None) -> int | None:
        """The file's line of row ``row`` of these rows."""
        return None if row is None else self.source.line(int(self.rows[row]))

    def error(self, problem: str, *, row: int | None = None, item=None, line: int | None = None) -> InputError:
        """:meth:`Table.error` at the file's row."""
        return self.source.error(problem, row=None if row is None else int(self.rows[row]), item=item, line=line)


def take_columns(table, columns: Sequence[str]) -> HeldColumns:
    """Set ``columns`` of ``table`` aside (:class:`HeldColumns`).

    Parameters
    ----------
    table : Table
        A file read (:func:`evalreport.inputs.tables.read_table`).
    columns : sequence of str
        The slice columns.

    Returns
    -------
    HeldColumns
    """
    return HeldColumns(table, columns)
