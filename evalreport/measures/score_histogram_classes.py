"""Score-based measures of per-class scores from their out-of-core histogram, with error bounds.

The input is a :class:`~evalreport.counts.bigdata_score_classes.ClassHistogram`. The ranking measures take
their one-vs-rest form (scikit-learn's ``roc_auc_score(multi_class="ovr")``, ``average_precision_score``):
the value of class k is the binary measure of column k against the rest, computed by the same function as
in memory on column k's histogram, and its bound is the binary bound
(:func:`evalreport.measures.score_histogram.histogram_bound`); the macro mean (or the mean weighted by the
gold prevalence) of values within their bounds lies within the same mean of the bounds.

``roc_auc_ovo`` (Hand & Till 2001) reads A(i|j), the AUC of column i separating gold class i from gold
class j, from the same per-column histograms (their cells are split by gold class); its bound is the
tied-pair mass of the binary AUC restricted to the two classes, averaged like the values.

The Brier score and the log loss are exact sums of per-item quantities (bound 0). The ECE runs on the
histogram of the top-label confidence split by correctness: a cell inside one calibration bin keeps its
exact confidence sum; an item of a cell that straddles a bin edge moves the ECE by at most 2/N.
"""
from __future__ import annotations

import numpy as np

from evalreport.errors import InputError
from evalreport.measures._core import get
from evalreport.measures.score_histogram import histogram_bound
from evalreport.measures.scores import PROBABILITY, auc_counts, compute_scores

__all__ = ["CLASS_HISTOGRAM_MEASURES", "class_histogram_columns", "class_histogram_value"]

#: The score measures computed from a per-class histogram.
CLASS_HISTOGRAM_MEASURES = ("roc_auc", "roc_auc_weighted", "roc_auc_ovo", "average_precision", "brier", "log_loss",
                            "ece")


def _one_vs_rest(hist, family: str, s: int, policy: str) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """``(K,)`` per-class binary values and bounds of system s, with the reasons of undefined ones."""
    binary = "average_precision" if family == "average_precision" else "roc_auc"
    values, bounds, reasons = [], [], []
    for h in hist.per_class:
        res = compute_scores(binary, h.counts[s], weights=h.weights[s][None, :], policy=policy)
        values.append(float(res.value[0, 0]))
        bounds.append(histogram_bound(binary, h, s))
        if res.undefined[0, 0]:
            reasons.append(f"class {h.labels[h.positive]!r}: {res.reason[0, 0]}")
    return np.asarray(values), np.asarray(bounds), reasons


def _prevalence(hist, s: int) -> np.ndarray:
    """``(K,)`` gold items per class (from any column's histogram of system s)."""
    h = hist.per_class[0]
    return np.bincount(h.counts[s].gold, weights=h.weights[s], minlength=len(hist.labels))


def _pair_auc(h, s: int, i: int, j: int) -> tuple[float, float]:
    """A(i|j) and its bound: column i's histogram (``h``), gold class i against gold class j."""
    sc = h.counts[s]
    groups, thresholds = sc.ranked()
    group = groups[0, 0]
    G = len(thresholds[0][0])
    w = h.weights[s]
    pos = np.bincount(group, weights=np.where(sc.gold == i, w, 0.0), minlength=G)
    neg = np.bincount(group, weights=np.where(sc.gold == j, w, 0.0), minlength=G)
    low, high = np.full(G, np.inf), np.full(G, -np.inf)
    pair = (sc.gold == i) | (sc.gold == j)
    np.minimum.at(low, group[pair], h.low[s][pair])
    np.maximum.at(high, group[pair], h.high[s][pair])
    num, den = auc_counts(pos, neg)
    if den <= 0:
        return float("nan"), float("nan")
    return float(num / den), float((pos * neg * (high > low)).sum() / (2.0 * den))


def _ovo(hist, s: int) -> tuple[float, float, str]:
    """Hand & Till's (2001) macro one-vs-one AUC of system s and its bound."""
    K = len(hist.labels)
    values, bounds = [], []
    for i in range(K):
        for j in range(i + 1, K):
            a_ij, b_ij = _pair_auc(hist.per_class[i], s, i, j)
            a_ji, b_ji = _pair_auc(hist.per_class[j], s, j, i)
            values.append((a_ij + a_ji) / 2.0)
            bounds.append((b_ij + b_ji) / 2.0)
    value = float(np.mean(values))
    reason = "" if np.isfinite(value) else "ROC AUC (one-vs-one): a pair of classes without items"
    return value, float(np.mean(bounds)), reason


def _ece(hist, m, s: int, policy: str) -> tuple[float, float, str]:
    """The ECE of system s from the confidence histogram, and its bound (NaN for quantile bins)."""
    h = hist.confidence
    res = compute_scores(m, h.counts[s], weights=h.weights[s][None, :], policy=policy)
    params = dict(m.params)
    bound = float("nan")
    if str(params.get("strategy", "uniform")) == "uniform":
        edges = np.linspace(0.0, 1.0, int(params.get("bins", 15)) + 1)[1:-1]
        lo, hi, w = h.low[s], h.high[s], h.weights[s]
        straddles = (hi > lo) & (np.searchsorted(edges, lo, side="left") != np.searchsorted(edges, hi, side="right"))
        bound = float(2.0 * w[straddles].sum() / w.sum())
    return float(res.value[0, 0]), bound, str(res.reason[0, 0]) if res.undefined[0, 0] else ""


def class_histogram_value(measure, hist, s: int, *, policy: str = "nan") -> tuple[float, float, str]:
    """One measure of system ``s`` from a per-class histogram: value, bound and the reason if undefined.

    Parameters
    ----------
    measure : str or Measure
        One of :data:`CLASS_HISTOGRAM_MEASURES` (``ece`` with its parameters).
    hist : ClassHistogram
        The binned per-class scores.
    s : int
        The system.
    policy : str
        The undefined-value policy of the binary measures.

    Returns
    -------
    tuple of (float, float, str)
        Value, bound (``|value - exact value| <= bound``; 0 where exact) and the reason ("" if defined).
    """
    m = get(measure)
    family = m.family or m.id.split("(")[0]
    name = hist.systems[s]
    if family in PROBABILITY and name in hist.problems:
        raise InputError(next(iter(hist.problems[name].values())))
    if family in ("roc_auc", "roc_auc_weighted", "average_precision"):
        values, bounds, reasons = _one_vs_rest(hist, family, s, policy)
        weights = _prevalence(hist, s) if family == "roc_auc_weighted" else np.ones(len(values))
        weights = weights / weights.sum()
        value = float((weights * values).sum())
        return value, float((weights * bounds).sum()), "; ".join(reasons) if not np.isfinite(value) else ""
    if family == "roc_auc_ovo":
        return _ovo(hist, s)
    if family in ("brier", "log_loss"):
        total = hist.brier_sum[s] if family == "brier" else hist.log_sum[s]
        return float(total / hist.n_items), 0.0, ""
    if family == "ece":
        return _ece(hist, m, s, policy)
    raise InputError(f"measure {m.id!r} is not computed from the out-of-core score histogram; choose from "
                     f"{', '.join(CLASS_HISTOGRAM_MEASURES)} or use --backend memory")


def class_histogram_columns(hist, measures=None, *, policy: str = "nan") -> dict[str, np.ndarray]:
    """The tidy columns (system, measure, value, undefined, reason, bound) of a per-class histogram.

    Parameters
    ----------
    hist : ClassHistogram
        The binned per-class scores (:func:`evalreport.counts.bigdata_scores.histogram_scores`).
    measures : sequence of str, optional
        Score measures (default: :data:`CLASS_HISTOGRAM_MEASURES`, the probability ones left out when a
        system's scores are not probabilities).
    policy : str
        The undefined-value policy.

    Returns
    -------
    dict of ndarray
        One row per (measure, system).
    """
    if measures is None:
        measures = [m for m in CLASS_HISTOGRAM_MEASURES if not (hist.problems and m in PROBABILITY)]
    out: dict[str, list] = {k: [] for k in ("system", "measure", "value", "undefined", "reason", "bound")}
    for measure in measures:
        m = get(measure)
        for s, system in enumerate(hist.systems):
            value, bound, reason = class_histogram_value(m, hist, s, policy=policy)
            out["system"].append(system)
            out["measure"].append(m.id)
            out["value"].append(value)
            out["undefined"].append(not np.isfinite(value))
            out["reason"].append(reason)
            out["bound"].append(bound)
    return {"system": np.asarray(out["system"], dtype=object), "measure": np.asarray(out["measure"], dtype=object),
            "value": np.asarray(out["value"], dtype=float), "undefined": np.asarray(out["undefined"], dtype=bool),
            "reason": np.asarray(out["reason"], dtype=object), "bound": np.asarray(out["bound"], dtype=float)}
