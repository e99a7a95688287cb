"""Per-slice leaderboard keys of the Codabench scoring program: a submission's value on each slice of
the test set, beside the keys of the whole set, so that a platform can show them as columns.

Key rule (:func:`slice_key`): ``KEY__SLICE``, where ``KEY`` is the measure's leaderboard key
(:func:`evalreport.report.codabench.leaderboard_key`) and ``SLICE`` the slice's name made safe the same
way: lower case, every run of characters outside ``[a-z0-9]`` one ``_``, no ``_`` at either end (``"News
& Blogs"`` -> ``news_blogs``, ``"[0, 12)"`` -> ``0_12``, ``"(empty)"`` -> ``empty``); a name with nothing
left is ``slice``. With several slice columns the column's safe name comes first: ``KEY__COLUMN__SLICE``.
Two slices of one column whose safe names coincide are told apart by ``_2``, ``_3``, ... in the order of
the slices (the first keeps the bare name). Values only, no interval bounds; a measure undefined on a
slice gets the same stand-in value as on the whole set, or no key.

A key is at most :data:`MAX_KEY_LENGTH` (36) characters, the length of a Codabench leaderboard column's key
(``Column.key``, a ``CharField(max_length=36)`` in codalab/codabench ``src/apps/leaderboards/models.py``):
slice names come from the data, and a longer key could not be a column. A longer key keeps its first 28
characters (without a trailing ``_``), then ``__`` and the first 6 hexadecimal digits of the SHA-256 of the
whole key: stable (it depends on the names only), still ``[a-z0-9_]``, still holding ``__`` (which no key of
the whole set holds), and distinct for distinct slices.
"""
from __future__ import annotations

import hashlib
import math
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace

import numpy as np
import pandas as pd

__all__ = ["safe_name", "slice_key", "slice_keys", "slice_scores", "slice_rows", "scores_of", "detail_frame",
           "MAX_KEY_LENGTH", "ROW_COLUMNS"]

#: The longest key a Codabench leaderboard column can have (its ``Column.key`` field).
MAX_KEY_LENGTH = 36


def safe_name(name: str) -> str:
    """A slice or column name as a key part: ``[a-z0-9_]`` only (see the module docstring)."""
    return re.sub(r"[^a-z0-9]+", "_", str(name).strip().lower()).strip("_") or "slice"


def slice_key(key: str, part: str, column: str | None = None) -> str:
    """The leaderboard key of measure key ``key`` on the slice whose safe name is ``part``.

    Parameters
    ----------
    key : str
        The measure's leaderboard key.
    part : str
        The slice's safe name (:func:`slice_keys` makes them unique within a column).
    column : str, optional
        The slice column's safe name, when there are several columns.

    Returns
    -------
    str
        ``KEY__SLICE`` or ``KEY__COLUMN__SLICE``; beyond :data:`MAX_KEY_LENGTH` characters, its first 28
        and ``__`` and 6 hexadecimal digits of its SHA-256 (the module docstring).
    """
    full = f"{key}__{part}" if column is None else f"{key}__{column}__{part}"
    if len(full) <= MAX_KEY_LENGTH:
        return full
    digest = hashlib.sha256(full.encode("ascii")).hexdigest()[:6]
    return f"{full[:MAX_KEY_LENGTH - 8].rstrip('_')}__{digest}"


def slice_keys(names: Sequence[str]) -> dict[str, str]:
    """``{slice: safe name}`` for the slices of one column, unique (``_2``, ``_3`` after a repeat)."""
    out: dict[str, str] = {}
    used: set[str] = set()
    for name in dict.fromkeys(map(str, names)):
        base = safe_name(name)
        part, k = base, 1
        while part in used:
            k += 1
            part = f"{base}_{k}"
        used.add(part)
        out[name] = part
    return out


def _subset(runs, mask: np.ndarray):
    """``runs`` restricted to the items of ``mask``."""
    if hasattr(runs, "subset"):
        return runs.subset(mask)
    scores = None if runs.scores is None else np.asarray(runs.scores)[:, mask]     # (S, N) or (S, N, K)
    return replace(runs, gold=np.asarray(runs.gold)[mask], pred=np.asarray(runs.pred)[:, mask], ids=None,
                   folds=None, clusters=None, cluster_names=(), cluster_col=None, scores=scores)


def _in_order(names: np.ndarray, order: Sequence[str]) -> list[str]:
    """The slices present in ``names``: those of ``order`` first, then the others as they come."""
    present = dict.fromkeys(names.tolist())
    listed = [s for s in order if s in present]
    known = set(listed)
    return listed + [s for s in present if s not in known]


#: Columns of the per-slice rows (:func:`slice_rows`).
ROW_COLUMNS = ["slice_col", "slice", "n", "measure", "key", "value"]


def slice_rows(runs, slices: Mapping[str, np.ndarray] | None, records, keys: Sequence[str], *,
               evaluate_subset) -> pd.DataFrame:
    """Every measure's value on every slice of one submission.

    Parameters
    ----------
    runs : Runs
        The submission read against the reference (one system).
    slices : mapping of str to array, or None
        Per slice column, one slice name per item (``Runs.slices``); None or empty: no rows.
    records : sequence of Measure
        The measures of the leaderboard, in the order of ``keys``.
    keys : sequence of str
        Their leaderboard keys.
    evaluate_subset : callable
        ``runs -> values``: the value of every record on a subset of the items (NaN where undefined).

    Returns
    -------
    DataFrame
        :data:`ROW_COLUMNS`: the slice column and slice, its items, the measure id, the per-slice key
        (:func:`slice_key`) and the value (NaN where undefined); slice columns and slices in their order.
    """
    rows: list[dict] = []
    order = dict(getattr(runs, "slice_names", None) or {})
    several = len(slices or {}) > 1
    for column, names in (slices or {}).items():
        names = np.asarray(names, dtype=object).astype(str)
        col = safe_name(column) if several else None
        for name, part in slice_keys(_in_order(names, order.get(column, ()))).items():
            mask = names == name
            values = evaluate_subset(_subset(runs, mask))
            for record, key, value in zip(records, keys, values):
                rows.append({"slice_col": str(column), "slice": name, "n": int(mask.sum()), "measure": record.id,
                             "key": slice_key(key, part, col), "value": float(value)})
    return pd.DataFrame(rows, columns=ROW_COLUMNS)


def scores_of(rows: pd.DataFrame, records, *, stand_in) -> dict[str, float]:
    """``{slice key: value}`` of :func:`slice_rows`' rows: an undefined value replaced by ``stand_in(record)``'s
    value, or left out when that is not finite either."""
    by_id = {m.id: m for m in records}
    out: dict[str, float] = {}
    for key, measure, value in zip(rows["key"], rows["measure"], rows["value"]):
        if not math.isfinite(value):
            value = stand_in(by_id[measure])[0]
        if math.isfinite(value):
            out[str(key)] = float(value)
    return out


def detail_frame(rows: pd.DataFrame, label: Callable[[str], str]) -> pd.DataFrame:
    """The participant page's table: one row per slice (named ``column: slice`` with several columns),
    its items, then one column per measure (by ``label``)."""
    several = rows["slice_col"].nunique() > 1
    names = [f"{c}: {s}" if several else s for c, s in zip(rows["slice_col"], rows["slice"])]
    rows = rows.assign(name=names, label=[label(m) for m in rows["measure"]])
    order = list(dict.fromkeys(rows["name"]))
    wide = rows.pivot_table(index="name", columns="label", values="value", aggfunc="first", dropna=False).reindex(
        index=order, columns=list(dict.fromkeys(rows["label"])))
    wide.insert(0, "items", rows.drop_duplicates("name").set_index("name")["n"].reindex(order).astype(np.int64))
    wide.index.name, wide.columns.name = "slice", None
    return wide


def slice_scores(runs, slices: Mapping[str, np.ndarray] | None, records, keys: Sequence[str], *, evaluate_subset,
                 stand_in) -> dict[str, float]:
    """The per-slice keys of one submission.

    Parameters
    ----------
    runs, slices, records, keys, evaluate_subset
        As in :func:`slice_rows` (no slices: no keys).
    stand_in : callable
        ``record -> (value, rule)``: what the leaderboard shows for an undefined value.

    Returns
    -------
    dict of str to float
        ``{slice key: value}``, slice columns and slices in their order.
    """
    return scores_of(slice_rows(runs, slices, records, keys, evaluate_subset=evaluate_subset), records,
                     stand_in=stand_in)
