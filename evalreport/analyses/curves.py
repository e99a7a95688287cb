"""The curves of scored runs as frames: ROC, precision-recall and the reliability diagram.

Each is computed from the same sufficient statistic as the measures
(:class:`~evalreport.counts.scores.ScoreCounts`: tie groups ranked once), so a curve and its area
agree: the trapezoids under :func:`roc_curves` sum to ``roc_auc``, the steps of :func:`pr_curves`
to ``average_precision``, and :func:`reliability` bins with the one binning function of ``ece`` and
``mce`` (:func:`evalreport.measures.score_items.calibration_bins`). Systems come in the runs' order; a
system without scores has no rows. Binary form (one ``score`` column, or two classes with a positive
class): one curve per system, ``class`` = the positive class; several classes: one one-vs-rest curve
per class.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from evalreport.counts.scores import ScoreCounts, score_counts
from evalreport.measures.score_items import calibration_bins, confidence

__all__ = ["roc_curves", "pr_curves", "reliability", "as_score_counts"]

ROC_COLUMNS = ["system", "class", "fpr", "tpr", "threshold"]
PR_COLUMNS = ["system", "class", "recall", "precision", "threshold"]
RELIABILITY_COLUMNS = ["system", "bin", "lo", "hi", "confidence", "accuracy", "count"]


def as_score_counts(runs, positive=None) -> ScoreCounts | None:
    """A :class:`ScoreCounts` from Runs (or the counts themselves); ``positive`` a class name or code.
    Two classes, one ``score`` column and no positive class: the second class is the positive one."""
    if runs is None or isinstance(runs, ScoreCounts):
        return runs
    if isinstance(positive, str):
        positive = list(runs.labels).index(positive)
    if positive is None and runs.scores is not None and np.ndim(runs.scores) == 2 and runs.n_classes == 2:
        positive = 1
    return score_counts(runs, positive=positive)


def _curves(sc: ScoreCounts):
    """Per scored system and curve: (system, class, positive and negative weights per group, thresholds)."""
    for s, system in enumerate(sc.systems):
        if not sc.has[s]:
            continue
        pc = sc.pos_column
        if sc.binary and pc is not None:
            wanted = [(pc, sc.columns[pc])]
        else:
            wanted = [(c, k) for c, k in enumerate(sc.columns)]
        for c, k in wanted:
            counts = sc.grouped(s, c)[0]
            pos = counts[:, k]
            yield system, sc.labels[k], pos, counts.sum(-1) - pos, sc.ranked()[1][s][c]


def roc_curves(runs, *, positive=None, drop_intermediate: bool = True) -> pd.DataFrame:
    """ROC curves of every scored system.

    Parameters
    ----------
    runs : Runs or ScoreCounts
        Scored runs.
    positive : str or int, optional
        The positive class (binary form).
    drop_intermediate : bool
        Leave out points on a straight segment between their neighbours (as scikit-learn's ``roc_curve``).

    Returns
    -------
    DataFrame
        system, class, fpr, tpr, threshold (the first row of a curve: threshold inf, (0, 0)).
    """
    sc = as_score_counts(runs, positive)
    frames = []
    for system, name, pos, neg, thr in ([] if sc is None else _curves(sc)):
        tp = np.concatenate([[0.0], np.cumsum(pos)])
        fp = np.concatenate([[0.0], np.cumsum(neg)])
        th = np.concatenate([[np.inf], thr])
        if drop_intermediate and len(tp) > 2:
            keep = np.r_[True, np.logical_or(np.diff(fp, 2), np.diff(tp, 2)), True]
            tp, fp, th = tp[keep], fp[keep], th[keep]
        P, N = tp[-1], fp[-1]
        frames.append(pd.DataFrame({"system": system, "class": name,
                                    "fpr": fp / N if N else np.full(fp.shape, np.nan),
                                    "tpr": tp / P if P else np.full(tp.shape, np.nan), "threshold": th}))
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=ROC_COLUMNS)


def pr_curves(runs, *, positive=None) -> pd.DataFrame:
    """Precision-recall step curves of every scored system (average precision sums their steps).

    Parameters
    ----------
    runs, positive
        As in :func:`roc_curves`.

    Returns
    -------
    DataFrame
        system, class, recall, precision, threshold: first (0, 1) at threshold inf, then one point per
        distinct score, highest first.
    """
    sc = as_score_counts(runs, positive)
    frames = []
    for system, name, pos, neg, thr in ([] if sc is None else _curves(sc)):
        tp, fp = np.cumsum(pos), np.cumsum(neg)
        P = tp[-1] if len(tp) else 0.0
        den = tp + fp
        prec = np.divide(tp, den, out=np.zeros_like(tp), where=den > 0)
        frames.append(pd.DataFrame({"system": system, "class": name,
                                    "recall": np.concatenate([[0.0], tp / P if P else np.full(tp.shape, np.nan)]),
                                    "precision": np.concatenate([[1.0], prec]),
                                    "threshold": np.concatenate([[np.inf], thr])}))
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=PR_COLUMNS)


def reliability(runs, bins: int = 15, strategy: str = "uniform", *, positive=None) -> pd.DataFrame:
    """The reliability diagram of every scored system: per bin of top-label confidence, the mean
    confidence, the share correct and the number of items (Guo et al. 2017, section 2).

    Parameters
    ----------
    runs : Runs or ScoreCounts
        Scored runs.
    bins : int
        The number of bins (15).
    strategy : {"uniform", "quantile"}
        Equal-width or equal-mass bins (as ``ece(strategy=...)``).
    positive : str or int, optional
        The positive class (one ``score`` column).

    Returns
    -------
    DataFrame
        system, bin (1..bins), lo, hi, confidence, accuracy, count (empty bins: count 0, NaN means).
    """
    sc = as_score_counts(runs, positive)
    if sc is None or not (sc.layout == "binary" or sc.full):
        return pd.DataFrame(columns=RELIABILITY_COLUMNS)
    conf, right = confidence(sc)
    frames = []
    for s, system in enumerate(sc.systems):
        if not sc.has[s]:
            continue
        which, edges = calibration_bins(conf[s], bins, strategy)
        count = np.bincount(which, minlength=bins).astype(float)
        csum = np.bincount(which, weights=conf[s], minlength=bins)
        rsum = np.bincount(which, weights=right[s].astype(float), minlength=bins)
        with np.errstate(invalid="ignore", divide="ignore"):
            frames.append(pd.DataFrame({"system": system, "bin": np.arange(1, bins + 1), "lo": edges[:-1],
                                        "hi": edges[1:], "confidence": csum / count, "accuracy": rsum / count,
                                        "count": count.astype(np.int64)}))
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=RELIABILITY_COLUMNS)
