"""The gold-label tables of a comparison: ``gold_fragility`` (:mod:`.gold_fragility`) and, when noise
rates or a flip matrix are set, ``label_noise`` (:mod:`.label_noise`), added to the comparison's
extra tables so that ``compare --out`` and the report write them.
"""
from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd

from evalreport.analyses.gold_fragility import gold_fragility
from evalreport.analyses.label_noise import label_noise, noise_sentence

__all__ = ["gold_tables", "with_gold", "noise_finding", "annotator_tables", "gold_measure", "STAND_IN"]

#: The measure of the gold-label checks when the primary one is score-based: the checks change gold labels
#: and search confusion matrices, which a score-based measure is not computed from.
STAND_IN = "accuracy"


def gold_measure(primary: str) -> str:
    """The id of the measure the gold-label checks rank by: the primary measure, or :data:`STAND_IN` when
    the primary is score-based.

    Parameters
    ----------
    primary : str
        The comparison's primary measure.

    Returns
    -------
    str
    """
    from evalreport.measures.scores import is_score_measure

    return STAND_IN if is_score_measure(primary) else primary


def _leaders(ranks: pd.DataFrame, measures: list[str]) -> dict[str, str]:
    """Measure -> the first system of the raw ranking (ties: the first listed)."""
    raw = ranks[~ranks["calibrated"].astype(bool)] if "calibrated" in ranks else ranks
    out = {}
    for m in measures:
        r = raw[raw["measure"] == m].sort_values("rank", kind="stable")
        if len(r):
            out[m] = str(r["system"].iloc[0])
    return out


def gold_tables(data, comparison, settings) -> dict[str, pd.DataFrame]:
    """The gold-label tables of a comparison of item-level runs (none for other inputs).

    Parameters
    ----------
    data : Runs or other
        What was compared; only :class:`~evalreport.inputs.Runs` has items to relabel.
    comparison : Comparison
        Its comparison (primary measure, raw ranks).
    settings : Settings
        ``label_noise``, ``noise_matrix``, ``label_noise_draws``, ``seed``, ``alpha``, ``policy``, ``costs``.

    Returns
    -------
    dict
        ``gold_fragility`` and, when noise is set, ``label_noise``.
    """
    from evalreport.inputs.runs import Runs

    # several runs per system: the runs are not the comparison's systems (not searched yet)
    if not isinstance(data, Runs) or len(data.systems) < 2 or not len(data.gold) or data.run_system is not None:
        return {}
    pos = comparison.settings.get("positive")
    pos = None if pos is None else list(comparison.labels).index(pos)
    primary = comparison.record(gold_measure(comparison.primary))     # the searches change confusion matrices
    ranks = comparison.ranks
    measures = [primary] + ([] if primary.id == "accuracy" else ["accuracy"])
    from evalreport.analyses.ranking import rank
    from evalreport.measures import evaluate

    if "accuracy" not in set(ranks["measure"]):
        acc = evaluate(_counts(data), ["accuracy"], positive=pos, policy=settings.policy, costs=settings.costs)
        ranks = pd.concat([ranks, rank(acc).assign(calibrated=False)], ignore_index=True)
    leaders = _leaders(ranks, [primary.id, "accuracy"])
    out = {"gold_fragility": gold_fragility(data, measures, leaders=leaders, positive=pos, policy=settings.policy,
                                            costs=settings.costs, seed=settings.seed)}
    rates, matrix = tuple(getattr(settings, "label_noise", ()) or ()), getattr(settings, "noise_matrix", None)
    if rates or matrix is not None:
        out["label_noise"] = label_noise(data, primary, rates=rates,
                                         matrix=None if matrix is None else np.asarray(matrix, dtype=float),
                                         draws=settings.label_noise_draws, seed=settings.seed, alpha=settings.alpha,
                                         positive=pos, policy=settings.policy, costs=settings.costs)
    annotations = getattr(settings, "annotations", None) or getattr(data, "annotations", None)
    if annotations is not None:
        out.update(annotator_tables(data, annotations, primary, positive=pos, policy=settings.policy,
                                    costs=settings.costs))
    return out


def annotator_tables(runs, annotations, measure, *, positive=None, policy: str = "nan",
                     costs=None) -> dict[str, pd.DataFrame]:
    """``agreement`` and ``annotators`` of a gold file of several annotators, on the items of ``runs``.

    Parameters
    ----------
    runs : Runs
        Item-level predictions (with item ids).
    annotations : Annotations
        :func:`evalreport.inputs.annotators.read_annotations`.
    measure : str or Measure
        The measure the systems are scored by against each annotator.
    positive, policy, costs
        As for :func:`evalreport.measures.compute`.

    Returns
    -------
    dict
        ``agreement`` (one row) and ``annotators``.

    Raises
    ------
    InputError
        No item of the annotator file among the runs' items.
    """
    from evalreport.analyses.annotators import agreement_table, annotator_scores
    from evalreport.errors import InputError

    ids = np.asarray(runs.ids if runs.ids is not None else np.arange(len(runs.gold)).astype(str), dtype=object)
    where = {str(i): j for j, i in enumerate(ids)}
    cols = np.array([where.get(str(i), -1) for i in annotations.ids])
    keep = cols >= 0
    if not keep.any():
        raise InputError("no item of the annotators' file is among the items of the runs", path=annotations.path)
    codes = annotations.codes(runs.labels)[:, keep]
    K = len(runs.labels)
    return {"agreement": agreement_table(codes, runs.n_task or K),
            "annotators": annotator_scores(runs.pred[:, cols[keep]], runs.systems, codes, annotations.annotators,
                                           measure, n_classes=K, positive=positive, policy=policy, costs=costs,
                                           task=runs.n_task)}


def _counts(data):
    """The pooled confusion counts of runs."""
    from evalreport.counts import count

    return count(data).pooled()


def with_gold(comparison, data, settings):
    """``comparison`` with :func:`gold_tables` added to its extra tables."""
    tables = gold_tables(data, comparison, settings)
    if not tables:
        return comparison
    recorded = dict(comparison.settings)        # the manifest says how the gold tables were made
    if "label_noise" in tables:
        recorded.update(label_noise=list(settings.label_noise), label_noise_draws=settings.label_noise_draws,
                        noise_matrix=settings.noise_matrix is not None)
    if "annotators" in tables:
        annotations = getattr(settings, "annotations", None) or data.annotations   # --annotators, else the gold's
        recorded["annotators"] = annotations.path
        if annotations.note:
            recorded["gold_majority"] = annotations.note
    return dataclasses.replace(comparison, extra={**dict(comparison.extra), **tables}, settings=recorded)


def noise_finding(comparison) -> dict | None:
    """The findings row of the label-noise table (finding ``label_noise``), or None without one.

    Parameters
    ----------
    comparison : Comparison

    Returns
    -------
    dict or None
        finding, system, measure, value (the leader's p_first), detail (the sentence).
    """
    table = dict(comparison.extra).get("label_noise")
    if table is None or table.empty:
        return None
    measure = gold_measure(comparison.primary)         # the measure the draws ranked by
    leader = _leaders(comparison.ranks, [measure]).get(measure)
    if leader is None:
        return None
    sentence = noise_sentence(table, leader)
    if sentence is None:
        return None
    p = table[table["system"] == leader].sort_values("noise_rate")["p_first"].iloc[-1]
    return {"finding": "label_noise", "system": leader, "measure": measure, "value": float(p),
            "detail": sentence}
