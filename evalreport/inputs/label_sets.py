"""One multi-label file read as label sets: layout detection and parsing of the list, sep, long and wide
layouts (see :mod:`evalreport.inputs.multilabel` for the layouts and the rules that join files into runs)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import cast

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from evalreport.errors import InputError
from evalreport.inputs.checks import short
from evalreport.inputs.tables import HEADED, MISSING_LABELS, JsonObjectValue, Table, first_true, read_table, to_text

__all__ = ["LabelSets", "detect_form", "parse_sets", "read_with_form", "describe_form"]

_TRUE = ("1", "true")
_FALSE = ("0", "false")


@dataclass
class LabelSets:
    """One file read as sets: distinct ids in file order, and the (item, label) pairs."""

    table: Table
    layout: str
    ids: pa.Array             # (n,) distinct ids in file order
    row: np.ndarray           # (n,) the row of each id (its first row in the long form), for messages
    pair_item: np.ndarray     # (P,) index into ids
    pair_label: np.ndarray    # (P,) index into uniques
    pair_row: np.ndarray      # (P,) the row of each pair, for messages
    uniques: list[str]        # distinct labels
    columns: tuple[str, ...] = ()   # wide: every label column (labels with no 1 included)


def _is_list(col) -> bool:
    return pa.types.is_list(col.type) or pa.types.is_large_list(col.type) or pa.types.is_fixed_size_list(col.type)


def detect_form(t: Table, *, id_col: str, label_col: str, label_sep: str | None) -> str | None:
    """The layout of a read file: list, wide, sep, long or single.

    Parameters
    ----------
    t : Table
        The file as read by :func:`~evalreport.inputs.tables.read_table`.
    id_col, label_col : str
        The id and label column names.
    label_sep : str or None
        The separator between labels inside one field, if any.

    Returns
    -------
    str or None
        ``"list"``, ``"wide"``, ``"sep"``, ``"long"`` or ``"single"``; None when it is neither.
    """
    if isinstance(t.unusable.get(label_col), JsonObjectValue):
        raise t.unusable[label_col]          # an object is not a label set: no layout reads it
    if label_col in t.unusable or (label_col in t.columns and _is_list(t.column(label_col))):
        return "list"
    if label_col not in t.columns:
        others = [c for c in t.columns if c != id_col]
        return "wide" if len(others) >= 2 and all(_indicator(t, c, check=False) is not None for c in others) else None
    if label_sep is not None:
        return "sep"
    if id_col not in t.columns:
        return None
    ids = t.text(id_col)
    return "long" if pc.count_distinct(ids).as_py() < len(ids) else "single"


def _indicator(t: Table, name: str, *, check: bool = True) -> np.ndarray | None:
    """A 0/1 column as bool; with ``check`` a bad value is an error naming its line, else None."""
    col = t.column(name) if name not in t.unusable else None
    if col is None:
        if check:
            raise t.unusable[name]
        return None
    if pa.types.is_boolean(col.type):
        values = col
    else:
        text = pc.utf8_lower(to_text(col, name, t)) if not pa.types.is_nested(col.type) else None
        if text is None:
            if check:
                raise t.error(f"column {name!r} holds {col.type} values; a wide (0/1 indicator) column holds 0 or 1")
            return None
        truthy, falsy = pc.is_in(text, pa.array(_TRUE)), pc.is_in(text, pa.array(_FALSE))
        bad = pc.invert(pc.or_kleene(pc.fill_null(truthy, False), pc.fill_null(falsy, False)))
        if pc.any(bad).as_py():
            if not check:
                return None
            row = first_true(bad)
            value = text[row].as_py()
            raise t.error(f"{'empty value' if value in (None, '') else f'value {short(value)}'} in label column "
                          f"{name!r}: a wide (0/1 indicator) file holds 0 or 1 in every column but the id column",
                          row=row, item=t._item(row))
        values = truthy
    if values.null_count:
        if not check:
            return None
        row = first_true(pc.is_null(values))
        raise t.error(f"empty value in label column {name!r}", row=row, item=t._item(row))
    return values.to_numpy(zero_copy_only=False).astype(bool)


def _jsonl_lists(t: Table, label_col: str) -> pa.Array:
    """The label column of a JSON Lines file with mixed types, parsed line by line (errors name the line)."""
    lists: list[list[str | None] | None] = []
    first_scalar: int | None = None
    first_list: int | None = None
    with open(t.path, "rb") as handle:
        for line_no, raw in enumerate(handle, start=1):
            text = raw.decode("utf-8-sig" if line_no == 1 else "utf-8")
            if not text.strip():
                continue
            value = json.loads(text).get(label_col)
            if isinstance(value, list):
                first_list = first_list or line_no
                if any(isinstance(v, (list, dict)) for v in value):
                    raise InputError(f"the list in field {label_col!r} holds a nested list or object; labels are "
                                     "text or numbers", path=t.path, line=line_no)
                lists.append([None if v is None else str(v) if not isinstance(v, float) or not v.is_integer()
                              else str(int(v)) for v in value])
            elif value is None:
                lists.append(None)
            else:
                first_scalar = first_scalar or line_no
                lists.append(None)
            if first_scalar and first_list:
                raise InputError(f"field {label_col!r} holds a list of labels on line {first_list} but a single "
                                 f"label on line {first_scalar}: the file mixes multi-label and single-label rows "
                                 "(write [\"label\"] for a set of one)", path=t.path, line=max(first_scalar, first_list))
    if first_list is None:
        raise t.unusable[label_col]
    return pa.array(lists, type=pa.list_(pa.large_string()))


def _from_lists(t: Table, lists: pa.Array, label_col: str, id_col: str, *, split: bool) -> LabelSets:
    """(item, label) pairs from a list column (one item per row)."""
    if lists.null_count:
        row = first_true(pc.is_null(lists))
        what = "label field (null); an empty set is an empty field" if split else "label list (null); the empty set is []"
        raise t.error(f"missing {what} in column {label_col!r}", row=row, item=t._item(row))
    parents = pc.list_parent_indices(lists).to_numpy(zero_copy_only=False).astype(np.int64)
    values = pc.list_flatten(lists)
    if pa.types.is_null(values.type):
        values = pa.array([], type=pa.large_string())
    if values.null_count:
        row = int(parents[first_true(pc.is_null(values))])
        raise t.error(f"null label in the list of column {label_col!r}", row=row, item=t._item(row))
    values = to_text(values, label_col, t)
    encoded = pc.dictionary_encode(values)
    uniques = encoded.dictionary.to_pylist()
    codes = encoded.indices.to_numpy(zero_copy_only=False).astype(np.int64)
    bad = [k for k, u in enumerate(uniques) if u in MISSING_LABELS]
    if bad:
        at = int(np.flatnonzero(np.isin(codes, bad))[0])
        value, row = uniques[int(codes[at])], int(parents[at])
        problem = ("empty label between separators" if split else "empty label in the list") if value == "" else \
            f"label {value!r} is a missing-value marker, not a label"
        raise t.error(f"{problem} in column {label_col!r}", row=row, item=t._item(row))
    ids = _unique_ids(t, id_col)
    return LabelSets(t, "sep" if split else "list", ids, np.arange(t.n_rows), parents, codes, parents, uniques)


def _unique_ids(t: Table, id_col: str) -> pa.Array:
    t.require(id_col)
    ids = t.ids(id_col)
    first_at = pc.index_in(ids, value_set=ids).to_numpy(zero_copy_only=False)
    dup = first_at != np.arange(t.n_rows)
    if dup.any():
        row = int(np.flatnonzero(dup)[0])
        item = ids[row].as_py()
        raise t.error(f"duplicate id {item!r} (first at {t.where(int(first_at[row]))})", row=row, item=item)
    return ids


def parse_sets(t: Table, layout: str, *, id_col: str, label_col: str, label_sep: str | None) -> LabelSets:
    """One file's ids and (item, label) pairs in the given layout; bad input raises naming the line.

    Parameters
    ----------
    t, id_col, label_col, label_sep
        As in :func:`detect_form`.
    layout : str
        One of ``"list"``, ``"sep"``, ``"long"``, ``"wide"``.

    Returns
    -------
    LabelSets
        The distinct ids in file order and the (item, label) pairs.
    """
    if layout == "wide":
        ids = _unique_ids(t, id_col)
        columns = tuple(c for c in t.all_names if c != id_col)
        if not columns:
            raise t.error(f"no label columns: a wide file has the id column {id_col!r} and one 0/1 column per label",
                          line=1 if t.fmt in HEADED else None)
        # checked columns: a bad value raises, so none is None
        matrix = np.stack([cast(np.ndarray, _indicator(t, c)) for c in columns], axis=1)
        rows, cols = np.nonzero(matrix)
        return LabelSets(t, "wide", ids, np.arange(t.n_rows), rows, cols, rows, [str(c).strip() for c in columns],
                     columns=tuple(str(c).strip() for c in columns))
    t.require(id_col, label_col)
    if layout == "list":
        col = _jsonl_lists(t, label_col) if label_col in t.unusable else t.column(label_col)
        if not _is_list(col):
            raise t.error(f"column {label_col!r} holds single labels ({col.type}), not lists; "
                          "the list layout needs a list per item (JSON [..], a Parquet list column)")
        return _from_lists(t, col, label_col, id_col, split=False)
    text = t.text(label_col)
    if layout == "sep":
        if not label_sep:
            raise InputError("the sep layout needs a separator (--label-sep SEP; Python: label_sep=...)")
        text = pc.if_else(pc.equal(text, ""), pa.scalar(None, text.type), text)
        nulls = pc.is_null(t.column(label_col))
        if pc.any(nulls).as_py():     # JSON null, not an empty field
            row = first_true(nulls)
            raise t.error(f"missing label field (null) in column {label_col!r}; an empty set is an empty field",
                          row=row, item=t._item(row))
        lists = pc.split_pattern(pc.fill_null(text, "\0"), label_sep)
        lists = pc.if_else(pc.is_null(text), pa.scalar([], lists.type), lists)
        return _from_lists(t, lists, label_col, id_col, split=True)
    # long form
    ids_all = t.ids(id_col)
    enc = pc.dictionary_encode(ids_all)
    item = enc.indices.to_numpy(zero_copy_only=False).astype(np.int64)
    ids = enc.dictionary
    first_row = np.full(len(ids), t.n_rows, dtype=np.int64)
    np.minimum.at(first_row, item, np.arange(t.n_rows))
    text = pc.fill_null(text, "")
    lab = pc.dictionary_encode(text)
    uniques = lab.dictionary.to_pylist()
    codes = lab.indices.to_numpy(zero_copy_only=False).astype(np.int64)
    bad = [k for k, u in enumerate(uniques) if u in MISSING_LABELS and u != ""]
    if bad:
        row = int(np.flatnonzero(np.isin(codes, bad))[0])
        raise t.error(f"label {uniques[int(codes[row])]!r} in column {label_col!r} is a missing-value marker, "
                      "not a label (an empty label marks an id with the empty set)", row=row, item=ids_all[row].as_py())
    empty = np.isin(codes, [k for k, u in enumerate(uniques) if u == ""])
    key = item * max(len(uniques), 1) + codes
    _, first = np.unique(key, return_index=True)
    repeated = np.ones(t.n_rows, dtype=bool)
    repeated[first] = False
    if repeated.any():
        row = int(np.flatnonzero(repeated)[0])
        earlier = int(np.flatnonzero(key[:row] == key[row])[0])
        value = uniques[int(codes[row])]
        what = "empty-set row" if value == "" else f"(id, label) pair ({ids_all[row].as_py()!r}, {short(value)})"
        raise t.error(f"duplicate {what} (first at {t.where(earlier)})", row=row, item=ids_all[row].as_py())
    if empty.any():
        both = np.isin(item[empty], item[~empty])
        if both.any():
            row = int(np.flatnonzero(empty)[np.flatnonzero(both)[0]])
            raise t.error("a row with an empty label (the empty set) for an id that has labels on other rows",
                          row=row, item=ids_all[row].as_py())
    keep = ~empty
    return LabelSets(t, "long", ids, first_row, item[keep], codes[keep], np.flatnonzero(keep), uniques)


def read_with_form(path, role: str, *, id_col: str, label_col: str, label_sep: str | None):
    """One file read, with its detected layout.

    Parameters
    ----------
    path : str or Path
        The file.
    role : str
        ``"gold"`` or ``"run"``, for messages.
    id_col, label_col, label_sep
        As in :func:`detect_form`.

    Returns
    -------
    tuple of (Table, str or None)
        The table and its form (see :func:`detect_form`).
    """
    t, path = read_table(path, role, id_col=id_col)
    return t, detect_form(t, id_col=id_col, label_col=label_col, label_sep=label_sep)


def describe_form(form: str) -> str:
    """A layout in words, for messages.

    Parameters
    ----------
    form : str
        A form from :func:`detect_form`.

    Returns
    -------
    str
        E.g. ``"a list of labels per item"``.
    """
    return {"list": "a list of labels per item", "sep": "labels separated inside one field",
            "long": "several rows per id (the long form)", "wide": "0/1 indicator columns",
            "single": "one label per item"}[form]
