"""Score-based measures from a score histogram (:mod:`evalreport.counts.bigdata_scores`), with error bounds.

The values come from the same measure functions as in memory (:func:`~evalreport.measures.scores.compute_scores`
on the histogram's per-system :class:`~evalreport.counts.scores.ScoreCounts`, weighted by the cell counts).
What the histogram loses is the order inside a bin and the spread of the scores inside a cell; each value
comes with a bound B such that ``|histogram value - exact value| <= B``. A bin whose scores are all equal
(every bin of a system binned by its exact values) loses nothing and adds 0.

* ROC AUC: a positive-negative pair that shares a bin counts 1/2 instead of 0 or 1, so
  ``B = sum_b pos_b neg_b / (2 P N)`` over the bins whose scores differ (Hanley & McNeil 1982: the AUC as
  the Mann-Whitney statistic over pairs).
* Average precision: a positive in bin b, with T positives and F negatives in the bins above, has a
  precision between ``(T + 1) / (T + F + 1 + neg_b)`` and ``(T + pos_b) / (T + F + pos_b)`` whatever the
  order inside the bin, and so does the histogram's ``(T + pos_b) / (T + F + pos_b + neg_b)``:
  ``B = sum_b pos_b (upper_b - lower_b) / P``.
* Brier score: within a cell (one bin, one gold class) the squared error of the cell mean m differs from the
  items' by their variance, at most ``(max - min)^2 / 4``: ``B = sum_cells n (max - min)^2 / (4 N)``.
* Log loss: ``-ln p`` of an item and of the cell mean differ by at most ``ln(max / min)`` (positives; for
  negatives ``ln((1 - min) / (1 - max))``), with p clipped as the measure clips it.
* ECE (equal-width bins): a cell that lies inside one calibration bin, on one side of 1/2, keeps its exact
  confidence sum and correctness; an item of a cell that straddles a bin edge can land in the next bin and
  moves the ECE by at most 2/N: ``B = 2 (items in straddling cells) / N`` (quantile bins: no bound, NaN).
"""
from __future__ import annotations

import numpy as np

from evalreport.measures._core import get
from evalreport.measures.score_items import EPS
from evalreport.measures.scores import compute_scores

__all__ = ["HISTOGRAM_MEASURES", "histogram_columns", "histogram_bound"]

#: The score measures computed from a histogram, each with its error bound.
HISTOGRAM_MEASURES = ("roc_auc", "average_precision", "brier", "log_loss", "ece")


def _bins(hist, s: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(G,)`` positives, negatives and whether the scores differ, per bin of system s (highest first)."""
    sc = hist.counts[s]
    groups, thresholds = sc.ranked()
    group = groups[0, 0]
    G = len(thresholds[0][0])
    w = hist.weights[s]
    positive = sc.gold == hist.positive
    pos = np.bincount(group, weights=np.where(positive, w, 0.0), minlength=G)
    neg = np.bincount(group, weights=np.where(positive, 0.0, w), minlength=G)
    low = np.full(G, np.inf)
    high = np.full(G, -np.inf)
    np.minimum.at(low, group, hist.low[s])
    np.maximum.at(high, group, hist.high[s])
    return pos, neg, high > low


def _auc_bound(hist, s: int) -> float:
    pos, neg, spread = _bins(hist, s)
    den = 2.0 * pos.sum() * neg.sum()
    return float((pos * neg * spread).sum() / den) if den > 0 else float("nan")


def _ap_bound(hist, s: int) -> float:
    pos, neg, spread = _bins(hist, s)
    T = np.cumsum(pos) - pos
    F = np.cumsum(neg) - neg
    with np.errstate(divide="ignore", invalid="ignore"):
        upper = np.where(pos > 0, (T + pos) / (T + F + pos), 0.0)
        lower = np.where(pos > 0, (T + 1.0) / (T + F + 1.0 + neg), 0.0)
    P = pos.sum()
    return float((pos * (upper - lower) * spread).sum() / P) if P > 0 else float("nan")


def _brier_bound(hist, s: int) -> float:
    w = hist.weights[s]
    return float((w * (hist.high[s] - hist.low[s]) ** 2).sum() / (4.0 * w.sum()))


def _log_bound(hist, s: int) -> float:
    w = hist.weights[s]
    lo = np.clip(hist.low[s], EPS, 1 - EPS)
    hi = np.clip(hist.high[s], EPS, 1 - EPS)
    positive = hist.counts[s].gold == hist.positive
    gap = np.where(positive, np.log(hi) - np.log(lo), np.log1p(-lo) - np.log1p(-hi))
    return float((w * gap).sum() / w.sum())


def _ece_bound(hist, s: int, params: dict) -> float:
    if str(params.get("strategy", "uniform")) != "uniform":
        return float("nan")
    m = int(params.get("bins", 15))
    edges = np.linspace(0.0, 1.0, m + 1)[1:-1]
    # where an item's (confidence bin, top label) changes, in score space: p = e, p = 1 - e and p = 1/2
    jumps = np.unique(np.concatenate([edges, 1.0 - edges, [0.5]]))
    lo, hi, w = hist.low[s], hist.high[s], hist.weights[s]
    straddles = (hi > lo) & (np.searchsorted(jumps, lo, side="left") != np.searchsorted(jumps, hi, side="right"))
    return float(2.0 * w[straddles].sum() / w.sum())


_BOUNDS = {"roc_auc": _auc_bound, "average_precision": _ap_bound, "brier": _brier_bound, "log_loss": _log_bound}


def histogram_bound(measure, hist, s: int) -> float:
    """The error bound of one measure's histogram value for system ``s`` (module docstring).

    Parameters
    ----------
    measure : str or Measure
        One of :data:`HISTOGRAM_MEASURES` (with parameters, e.g. ``ece(bins=10)``).
    hist : ScoreHistogram
        The binned scores.
    s : int
        The system.

    Returns
    -------
    float
        ``|histogram value - exact value| <= bound``; NaN where no bound is known.
    """
    m = get(measure)
    family = m.family or m.id.split("(")[0]
    if family == "ece":
        return _ece_bound(hist, s, dict(m.params))
    fn = _BOUNDS.get(family)
    return fn(hist, s) if fn is not None else float("nan")


def histogram_columns(hist, measures=None, *, policy: str = "nan") -> dict[str, np.ndarray]:
    """The tidy columns (system, measure, value, undefined, reason, bound) of the histogram's measures.

    Parameters
    ----------
    hist : ScoreHistogram or ClassHistogram
        The binned scores (:func:`evalreport.counts.bigdata_scores.histogram_scores`); per-class histograms
        go to :func:`evalreport.measures.score_histogram_classes.class_histogram_columns`.
    measures : sequence of str, optional
        Score measures (default: :data:`HISTOGRAM_MEASURES`, the probability ones left out when a system's
        scores lie outside [0, 1]).
    policy : str
        The undefined-value policy.

    Returns
    -------
    dict of ndarray
        One row per (measure, system).
    """
    from evalreport.measures.scores import PROBABILITY

    if hasattr(hist, "per_class"):          # per-class score columns (ClassHistogram)
        from evalreport.measures.score_histogram_classes import class_histogram_columns

        return class_histogram_columns(hist, measures, policy=policy)
    if measures is None:
        off_range = any("range" in p for sc in hist.counts for p in sc.problems.values())
        measures = [m for m in HISTOGRAM_MEASURES if not (off_range and m in PROBABILITY)]
    out: dict[str, list] = {k: [] for k in ("system", "measure", "value", "undefined", "reason", "bound")}
    for measure in measures:
        m = get(measure)
        for s, system in enumerate(hist.systems):
            res = compute_scores(m, hist.counts[s], weights=hist.weights[s][None, :], policy=policy)
            out["system"].append(system)
            out["measure"].append(m.id)
            out["value"].append(float(res.value[0, 0]))
            out["undefined"].append(bool(res.undefined[0, 0]))
            out["reason"].append(str(res.reason[0, 0]))
            out["bound"].append(histogram_bound(m, hist, s))
    return {"system": np.asarray(out["system"], dtype=object), "measure": np.asarray(out["measure"], dtype=object),
            "value": np.asarray(out["value"], dtype=float), "undefined": np.asarray(out["undefined"], dtype=bool),
            "reason": np.asarray(out["reason"], dtype=object), "bound": np.asarray(out["bound"], dtype=float)}
