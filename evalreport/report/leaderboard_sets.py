"""The interactive leaderboard on label sets (multi-label comparisons): what the page shows in place of a
single-label comparison's confusion counts.

A label-set comparison (:mod:`evalreport.analyses.multilabel`) has no K x K confusion matrix: each label has
its own 2 x 2 matrix. So a system's drill-down shows each label's precision, recall and F1 (``per_label``),
the gold items carrying it, the items where the system adds it or drops it (``label_errors``) and how many
labels the system predicts per item against the gold sets (``cardinality``); the calibrated view is the
per-label prevalence calibration of the label-based averages (``calibration_summary``, Opitz 2022, eq. 5-6
on each label's 2 x 2 matrix; the example-based measures have no calibrated form); and the measure selector
groups the measures as label-based (averages over the per-label matrices) and example-based (per item).
With more than :data:`MAX_DRILL_LABELS` labels the drill-down shows the most and the least frequent half of
that many (as the report's per-label table does) and says how many more ``per_label.csv`` holds: the page
stays small with 500 labels.
"""
from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import numpy as np
import pandas as pd

__all__ = ["LABEL_METRICS", "MAX_DRILL_LABELS", "SET_TABLES", "label_drill", "set_calibrated", "set_group",
           "shown_labels", "hidden_note"]

#: The per-label measures of the drill-down, as columns of ``per_label.csv``.
LABEL_METRICS = ("recall", "precision", "f1")
#: The tables of a label-set comparison the page reads, besides the single-label ones.
SET_TABLES = ("per_label", "label_errors", "cardinality", "calibration_summary")
#: The most labels a system's drill-down shows: beyond it, the most and the least frequent half of this many.
MAX_DRILL_LABELS = 40


def set_group(meta: Mapping[str, Any]) -> str:
    """The selector group of a measure of label sets.

    Parameters
    ----------
    meta : mapping
        The measure's ``kind`` and ``averaging`` (a registry record's, or a row of ``measures.csv``).

    Returns
    -------
    str
        ``Example-based (per item)`` for the example-based measures, else the label-based group with its
        averaging (``Label-based (macro)``; micro averages pool the labels' matrices).
    """
    if str(meta.get("kind") or "") == "example":
        return "Example-based (per item)"
    averaging = str(meta.get("averaging") or "") or "micro"
    return f"Label-based ({averaging})"


def _grid(frame: pd.DataFrame, column: str, systems: list[str], labels: list[str],
          num: Callable[[Any], Any]) -> list[list]:
    """``frame[column]`` as ``[system][label]`` (None where a pair has no row)."""
    arr = np.full((len(systems), len(labels)), np.nan)
    if len(frame) and column in frame:
        s_i = frame["system"].astype(str).map({s: i for i, s in enumerate(systems)})
        l_i = frame["label"].astype(str).map({c: i for i, c in enumerate(labels)})
        ok = s_i.notna() & l_i.notna()
        arr[s_i[ok].astype(int), l_i[ok].astype(int)] = pd.to_numeric(frame[column][ok], errors="coerce")
    return [[num(v) for v in row] for row in arr]


def shown_labels(labels: list[str], support: pd.Series) -> list[int]:
    """The indices of the labels the drill-down shows: all, or beyond :data:`MAX_DRILL_LABELS` the most and
    the least frequent half of that many (ties in label order), most frequent first."""
    if len(labels) <= MAX_DRILL_LABELS:
        return list(range(len(labels)))
    freq = np.array([float(support[c]) if c in support.index else np.nan for c in labels])
    order = np.argsort(-np.nan_to_num(freq, nan=-1.0), kind="stable")
    half = MAX_DRILL_LABELS // 2
    return [int(k) for k in np.concatenate([order[:half], order[-half:]])]


def hidden_note(n_all: int, n_shown: int, noun: str, where: str, table: str, *, by_frequency: bool) -> str:
    """The drill-down's sentence on the labels (or classes) it leaves out.

    Parameters
    ----------
    n_all, n_shown : int
        How many there are, and how many the drill-down shows.
    noun : str
        ``"labels"`` or ``"classes"``.
    where : str
        Where the frequencies were counted (``"the gold sets"``).
    table : str
        The table that holds them all (``"per_label.csv"``).
    by_frequency : bool
        Whether the gold frequencies were known (else the first and the last in their order were kept).

    Returns
    -------
    str
    """
    half = MAX_DRILL_LABELS // 2
    which = (f"the {half} most and the {half} least frequent in {where}" if by_frequency else
             f"the first {half} and the last {half} in {noun[:-2] if noun == 'classes' else noun[:-1]} order "
             f"(the {noun}' frequencies are not in these tables)")
    rest = n_all - n_shown
    return f"{n_all:,} {noun}: {which} are shown; the other {rest:,} {'is' if rest == 1 else 'are'} in {table}."


def label_drill(systems: list[str], labels: list[str], tables: Mapping[str, pd.DataFrame],
                num: Callable[[Any], Any]) -> dict:
    """The drill-down of label sets: per-label scores, gold items, labels added and dropped, labels per item.

    Parameters
    ----------
    systems, labels : list of str
        The page's systems and the task's labels (full names, as the tables hold them).
    tables : mapping of str to DataFrame
        The comparison's tables (``per_label``, ``label_errors``, ``cardinality`` when present).
    num : callable
        A value as the page stores numbers (rounded; None for NaN).

    Returns
    -------
    dict
        ``kind`` ``"labels"``, ``metrics``, ``per_label`` ``[system][metric][label]``, ``support``
        ``[label]``, ``added`` and ``dropped`` ``[system][label]``, ``cardinality`` (``gold`` and one
        entry per system: labels per item, density, share of empty sets), each None when its table is
        missing; ``per_class`` and ``confusion`` are None (label sets have neither). With more than
        :data:`MAX_DRILL_LABELS` labels, ``shown`` lists the indices into ``labels`` of those kept (most
        frequent first; the per-label arrays hold only these) and ``hidden_note`` says how many are left
        out; else both are None.
    """
    out: dict[str, Any] = {"kind": "labels", "metrics": list(LABEL_METRICS), "per_class": None, "confusion": None,
                           "per_label": None, "support": None, "added": None, "dropped": None, "cardinality": None,
                           "shown": None, "hidden_note": None}
    pl = tables.get("per_label", pd.DataFrame())
    support = (pl.assign(label=pl["label"].astype(str)).drop_duplicates("label").set_index("label")["support"]
               if len(pl) and "support" in pl else pd.Series(dtype=float))
    shown = shown_labels(labels, support)
    if len(shown) < len(labels):
        out["shown"] = shown
        out["hidden_note"] = hidden_note(len(labels), len(shown), "labels", "the gold sets", "per_label.csv",
                                         by_frequency=bool(len(support)))
    kept = [labels[k] for k in shown]
    if len(pl) and kept:
        grids = [_grid(pl, m, systems, kept, num) for m in LABEL_METRICS]
        out["per_label"] = [[grids[j][s] for j in range(len(LABEL_METRICS))] for s in range(len(systems))]
        out["support"] = [None if c not in support.index else num(support[c]) for c in kept]
    errors = tables.get("label_errors", pd.DataFrame())
    if len(errors) and kept:
        out["added"] = _grid(errors, "added", systems, kept, num)
        out["dropped"] = _grid(errors, "dropped", systems, kept, num)
    card = tables.get("cardinality", pd.DataFrame())
    if len(card) and {"source", "role", "cardinality", "density", "empty"} <= set(card):
        def row(r: pd.Series) -> dict:
            return {"cardinality": num(r["cardinality"]), "density": num(r["density"]), "empty": num(r["empty"])}

        gold = card[card["role"] == "gold"]
        own = card[card["role"] == "system"]
        own = own.assign(source=own["source"].astype(str)).drop_duplicates("source").set_index("source")
        out["cardinality"] = {"gold": row(gold.iloc[0]) if len(gold) else None,
                              "systems": [row(own.loc[s]) if s in own.index else None for s in systems]}
    return out


def set_calibrated(measures: list[str], systems: list[str], tables: Mapping[str, pd.DataFrame],
                   num: Callable[[Any], Any], rank: Callable[[Any], Any]) -> dict:
    """The calibrated view of label sets: each label-based average after per-label prevalence calibration.

    Parameters
    ----------
    measures, systems : list of str
        The page's measures and systems.
    tables : mapping of str to DataFrame
        The comparison's tables (``calibration_summary``: system, measure, value, calibrated, rank,
        rank_calibrated).
    num, rank : callable
        A value and a rank as the page stores them.

    Returns
    -------
    dict
        ``{measure: {"value": [...], "rank": [...]}}`` in the order of ``systems``, for the measures the
        table has (the label-based averages).
    """
    summary = tables.get("calibration_summary", pd.DataFrame())
    out: dict[str, dict] = {}
    if not len(summary) or not {"calibrated", "rank_calibrated"} <= set(summary):
        return out
    for mid in measures:
        rows = summary[summary["measure"] == mid]
        if not len(rows):
            continue
        rows = rows.assign(system=rows["system"].astype(str)).drop_duplicates("system").set_index("system")
        out[mid] = {"value": [num(rows.loc[s, "calibrated"]) if s in rows.index else None for s in systems],
                    "rank": [rank(rows.loc[s, "rank_calibrated"]) if s in rows.index else None for s in systems]}
    return out
