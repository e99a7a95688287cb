"""Confusion-matrix files: counts that arrive already counted (square, long and ImageNet-style).

Part of the counts stage: a confusion file skips item-level inputs and yields :class:`Counts`
directly. It is parsed and validated with the same file toolkit as gold and run files
(:mod:`evalreport.inputs.readers`), so errors name the file, line and problem the same way.
"""
from __future__ import annotations

import warnings
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from evalreport.counts import Counts
from evalreport.errors import InputError
from evalreport.inputs.checks import (
    FORMATS,
    INTEGER,
    SCAN_CHUNK,
    as_paths,
    check_file,
    listing,
    natural_key,
    natural_sorted,
    utf8_error,
)
from evalreport.inputs.readers import too_many_classes
from evalreport.inputs.tables import HEADED, MISSING_LABELS, Table, read_table

__all__ = ["read_confusion", "read_confusions"]


# ----------------------------------------------------------------------------- confusions

_CONFUSION_FORMATS = {**FORMATS, ".json": "triplets"}
_LONG = ("gold", "predicted", "count")


def read_confusion(path, *, labels: Sequence[str] | None = None, system: str | None = None) -> Counts:
    """Read confusion counts from one file into :class:`Counts` (rows = gold, columns = predicted).

    Accepted layouts:

    * **square** (CSV/TSV): a header row of class names; each following row holds the counts
      of one gold class. The first column holds the gold class names (its header cell may be
      empty or anything, e.g. ``gold\\pred``) - recognised because there is one more column
      than rows - or is absent, in which case the rows follow the header order.
    * **long** (CSV/TSV/JSONL/Parquet): columns ``gold``, ``predicted``, ``count`` and
      optionally ``system`` (several systems per file; default name: the file stem).
      Repeated (system, gold, predicted) cells are **summed**.
    * **triplets** (``.json``, as in the ImageNet files of Gösgens et al. 2021): headerless
      ``gold<TAB>predicted<TAB>count`` lines, detected by content. Repeats are summed.

    Counts must be non-negative numbers; the tensor is int64 when all are integers, else
    float64. ``labels`` fixes the class order (and may add classes with zero counts); a class
    of the file missing from it is an error. Default order: the header order for a square
    matrix, natural sort otherwise. ``system`` names the system of a file without a
    ``system`` column (default: the file stem) or, for a long file with one, selects that
    system.
    """
    table, path, kind = _read_confusion_table(path)
    if kind == "square":
        return _square(table, path, labels, system)
    return _long(table, path, labels, system)


def read_confusions(paths, *, labels: Sequence[str] | None = None) -> Counts:
    """Read several confusion files (see :func:`read_confusion`) into one (S, K, K) :class:`Counts`.

    ``paths`` is a list of files or a folder (every ``.json``/``.csv``/``.tsv``/... file in it,
    sorted naturally). The classes are ``labels`` if given; otherwise, if every file has the
    same classes, the first file's order; otherwise the natural-sorted union. A class absent
    from a file has zero counts there. System names must be unique across files.
    """
    files = as_paths(paths)
    if len(files) == 1 and files[0].is_dir():
        folder = files[0]
        files = sorted((p for p in folder.iterdir() if p.is_file() and not p.name.startswith(".")
                        and p.suffix.lower() in _CONFUSION_FORMATS), key=lambda p: natural_key(p.name))
        if not files:
            raise InputError("no confusion files in the folder", path=folder)
        skipped = natural_sorted(_entry(p) for p in folder.iterdir() if p not in files)
        if skipped:   # as for a runs folder: a team's file is never left out without a word
            warnings.warn(f"{folder}: {len(skipped)} entr{'y' if len(skipped) == 1 else 'ies'} of the folder not read "
                          f"(confusion files end in {', '.join(_CONFUSION_FORMATS)}; hidden files are skipped): "
                          f"{listing(skipped)}", stacklevel=2)
    if not files:
        raise InputError("no confusion files given")
    parts = [read_confusion(p, labels=labels) for p in files]
    if labels is not None or all(p.labels == parts[0].labels for p in parts):
        union = list(parts[0].labels)
    elif all(set(p.labels) == set(parts[0].labels) for p in parts):
        union = list(parts[0].labels)
    else:
        union = natural_sorted({lab for p in parts for lab in p.labels})
    problem = too_many_classes(len(union), "classes in the files together")
    if problem:
        raise InputError(problem)
    index = {lab: k for k, lab in enumerate(union)}
    systems: list[str] = []
    owner: dict[str, Path] = {}
    for part, path in zip(parts, files):
        for name in part.systems:
            if name in owner:
                raise InputError(f"system {name!r} appears in {owner[name]} and {path}", path=path)
            owner[name] = path
            systems.append(name)
    integer = all(np.issubdtype(p.tensor.dtype, np.integer) for p in parts)
    if all(list(p.labels) == union for p in parts):       # one copy of each tensor, no zero-filled array first
        return Counts(np.concatenate([p.tensor for p in parts]).astype(np.int64 if integer else np.float64, copy=False),
                      tuple(union), tuple(systems))
    out = np.zeros((len(systems), len(union), len(union)), dtype=np.int64 if integer else np.float64)
    at = 0
    for part in parts:
        block = out[at:at + part.tensor.shape[0]]
        if list(part.labels) == union:
            block[...] = part.tensor
        else:
            cols = np.array([index[lab] for lab in part.labels])
            block[:, cols[:, None], cols[None, :]] = part.tensor
        at += part.tensor.shape[0]
    return Counts(out, tuple(union), tuple(systems))


def _entry(path: Path) -> str:
    if path.is_symlink() and not path.exists():
        return f"{path.name} (broken or looping symbolic link)"
    if path.name.startswith(".") and path.is_file():
        return f"{path.name} (hidden)"
    return path.name + ("/" if path.is_dir() else "")


def _read_confusion_table(path) -> tuple[Table, Path, str]:
    path, fmt = check_file(path, "confusion", _CONFUSION_FORMATS)
    if fmt == "triplets":
        with open(path, "rb") as handle:
            first = handle.readline(SCAN_CHUNK)
        try:
            fields = first.decode("utf-8-sig").strip("\r\n").split("\t")
        except UnicodeDecodeError:
            error = utf8_error(path)
            assert error is not None              # line 1 is not UTF-8, so neither is the file
            raise error from None
        if len(fields) != 3 or not all(INTEGER.fullmatch(f.strip()) for f in fields):
            raise InputError("a .json confusion file must hold headerless 'gold<TAB>predicted<TAB>count' "
                             f"lines of integers; line 1 is {first[:80].decode('utf-8', 'replace').rstrip()!r}",
                             path=path, line=1)
        table, path = read_table(path, "confusion", formats=_CONFUSION_FORMATS, names=_LONG, fmt="tsv")
        return table, path, "long"
    table, path = read_table(path, "confusion", formats=_CONFUSION_FORMATS)
    if all(c in table.columns for c in _LONG):
        return table, path, "long"
    if fmt not in HEADED:
        table.require(*_LONG)
    return table, path, "square"


def _counts(table: Table, column: str, label_for_message: str | None = None) -> np.ndarray:
    values = table.numbers(column, "count")
    negative = values < 0
    if negative.any():
        row = int(np.flatnonzero(negative)[0])
        where = f" in column {label_for_message!r}" if label_for_message is not None else ""
        raise table.error(f"negative count {values[row]:g}{where}", row=row)
    if np.isinf(values).any():
        row = int(np.flatnonzero(np.isinf(values))[0])
        raise table.error("infinite count", row=row)
    return values


def _finish(tensor: np.ndarray) -> np.ndarray:
    """int64 when every count is an integer, else float64."""
    if tensor.dtype == np.int64:
        return tensor
    if np.all(tensor == np.round(tensor)) and (tensor.size == 0 or tensor.max() < 2 ** 53):
        return np.round(tensor).astype(np.int64)
    return tensor


def _order(found: list[str], labels, table: Table, default_sorted: bool) -> list[str]:
    if labels is None:
        return natural_sorted(found) if default_sorted else list(found)
    order = [str(x).strip() for x in labels]
    if len(set(order)) != len(order):
        raise InputError("labels list names a class more than once")
    missing = [f for f in found if f not in set(order)]
    if missing:
        raise table.error(f"class(es) {listing(missing)} are not in the labels list {listing(order)}")
    return order


def _square(table: Table, path: Path, labels, system) -> Counts:
    header = list(table.columns)
    n_rows = table.n_rows
    if len(header) == n_rows + 1:
        row_names_col, classes = header[0], header[1:]
        row_local, row_uniques = table.labels(row_names_col, what="gold class name")
        row_names = [row_uniques[k] for k in row_local]    # one per class: K, not per item
        row_of: dict[str, int] = {}
        header_set = set(classes)
        for row, name in enumerate(row_names):
            if name in row_of:
                raise table.error(f"gold class {name!r} has two rows (first at {table.where(row_of[name])})", row=row)
            if name not in header_set:
                raise table.error(f"gold class {name!r} is not in the header {listing(classes)}", row=row)
            row_of[name] = row
        # rows name every header class (same count, all known, no repeats): reorder to header order
        order = np.array([row_of[c] for c in classes])
    elif len(header) == n_rows:
        classes, order = header, np.arange(n_rows)
    else:
        raise InputError(f"not a square confusion matrix: the header has {len(header)} fields and there are "
                         f"{n_rows} rows (expected as many rows as classes, with or without a first column "
                         "of gold class names); a long file needs columns gold, predicted, count", path=path)
    problem = too_many_classes(len(classes), "classes in the header")
    if problem:
        raise InputError(problem, path=path, line=1)
    for name in classes:
        if name in MISSING_LABELS:
            raise InputError("empty class name in the header", path=path, line=1)
    matrix = np.column_stack([_counts(table, c, c) for c in classes])[order]
    final = _order(classes, labels, table, default_sorted=False)
    position = {c: k for k, c in enumerate(final)}
    index = np.array([position[c] for c in classes])
    tensor = np.zeros((1, len(final), len(final)), dtype=matrix.dtype)
    tensor[0, index[:, None], index[None, :]] = matrix
    _check_classes(final, path)
    _check_not_empty(tensor, (system or path.stem,), path)
    return Counts(_finish(tensor), tuple(final), (system or path.stem,))


def _long(table: Table, path: Path, labels, system) -> Counts:
    table.require(*_LONG)
    counts = _counts(table, "count")
    keep = None
    if "system" in table.columns:
        sys_local, sys_uniques = table.labels("system", what="system name")
        if system is not None:
            if system not in sys_uniques:
                raise InputError(f"system {system!r} is not in the file (systems: {listing(sys_uniques)})", path=path)
            keep = sys_local == sys_uniques.index(system)
            sys_local, sys_uniques = np.zeros(int(keep.sum()), dtype=np.int64), [system]
    else:
        sys_local, sys_uniques = np.zeros(table.n_rows, dtype=np.int64), [system or path.stem]
    gold_local, gold_uniques = table.labels("gold", what="gold class")
    pred_local, pred_uniques = table.labels("predicted", what="predicted class")
    if keep is not None:
        gold_local, pred_local, counts = gold_local[keep], pred_local[keep], counts[keep]
    found = sorted(set(gold_uniques) | set(pred_uniques))
    problem = too_many_classes(len(found), "distinct class names")
    if problem:
        raise InputError(problem, path=path)
    final = _order(found, labels, table, default_sorted=True)
    index = {c: k for k, c in enumerate(final)}
    K, S = len(final), len(sys_uniques)
    g = np.array([index[u] for u in gold_uniques], dtype=np.int64)[gold_local]
    p = np.array([index[u] for u in pred_uniques], dtype=np.int64)[pred_local]
    flat = (sys_local.astype(np.int64) * K + g) * K + p
    whole = np.round(counts)
    if counts.size and (whole == counts).all() and counts.sum() < 2 ** 53:
        # integer counts whose float sums would be exact: the same int64 tensor, summed in int64 over the
        # file's rows (a few thousand) instead of converted cell by cell (10^6 cells at K = 1,000)
        cells = np.zeros(S * K * K, dtype=np.int64)
        np.add.at(cells, flat, whole.astype(np.int64))
        tensor = cells.reshape(S, K, K)
    else:
        tensor = np.bincount(flat, weights=counts, minlength=S * K * K).reshape(S, K, K)
    _check_classes(final, path)
    _check_not_empty(tensor, tuple(sys_uniques), path)
    return Counts(_finish(tensor), tuple(final), tuple(sys_uniques))


def _check_classes(classes: list[str], path: Path):
    if len(classes) < 2:
        raise InputError(f"only one class ({listing(classes)}); measures need at least two", path=path)


def _check_not_empty(tensor: np.ndarray, systems, path: Path):
    """A matrix whose counts are all 0 holds no items: nothing to evaluate, every measure would be 0/0."""
    empty = np.flatnonzero(tensor.sum(axis=(-2, -1)) == 0)
    if empty.size:
        who = "" if len(systems) == 1 else f"system {systems[int(empty[0])]!r}: "
        raise InputError(f"{who}every count is 0: the confusion matrix holds no items to evaluate", path=path)
