"""Cross-validation done right: every aggregation over folds is an explicit choice (Forman & Scholz 2010).

Forman & Scholz (2010) show that the cross-validated F-measure is five different
estimators (section 2.3), and that only one of them, F_tp,fp, is almost unbiased (section 4.3). This module computes
each of them side by side, for every measure, from the fold-level confusion tensor
``(S, F, K, K)``; the measure itself always comes from the registry
(:func:`evalreport.measures.compute`), never from a formula written here.

Aggregation ids (the ``aggregation`` column)
--------------------------------------------

``pooled``
    sum the F fold matrices, then compute the measure once. For F1 this is the paper's
    F_tp,fp, the estimator the paper recommends.
``mean``
    mean of the F fold values; every fold counts. A fold where the measure is undefined
    counts with the value of the policy: ``zero`` -> 0, ``one`` -> 1, and ``nan`` (default) or
    ``convention`` -> the measure's declared convention (0 for F1, precision and recall: Forman
    & Scholz's "F(i) := 0 when V(i) = 0", their default reading); a measure without a convention then
    has no mean (NaN, with the folds named). For F1 this is F_avg.
``mean_defined``
    mean over the folds where the measure is defined (undefined folds skipped, and named in
    ``reason``). For F1 this is F~_avg.
``pr_re`` / ``pr_re_defined`` (F-measures with a positive class: ``f1``, ``fbeta(beta=...)``)
    harmonic mean (eq. 1; weighted by beta^2 for F-beta) of the fold-averaged precision and
    recall, F_pr,re; undefined fold precisions and recalls count as 0 (the paper's zero
    substitution, Table 2's "0%†"). ``pr_re_defined`` (F~_pr,re) averages precision and recall
    over the valid folds only.
``avg`` / ``merge`` (``auc``, ``average_precision`` from scores)
    AUC_avg = mean of the per-fold values; AUC_merge = one value over the pooled scores of all
    folds (section 2.4). A fold with only one class present has no AUC: it is flagged in
    ``reason`` and :func:`score_folds`, and left out of the mean (policy ``nan`` or
    ``convention``) or counted as 0 / 1 (policy ``zero`` / ``one``).

Which folds are "undefined" for an F-measure: Forman & Scholz (section 2.3, "Exceptions") set
V(i) = 1 iff precision and recall are both defined in fold i, i.e. the fold has a predicted
positive and a gold positive; F_avg counts V(i) = 0 folds as 0, F~_avg and F~_pr,re skip them.
This is stricter than F's own 0/0 (TP = FP = FN = 0): in Table 2 fold 2 (TP = FP = 0, FN = 4)
has F = 0 by eq. 2 but is skipped by F~_avg (89%). For every other measure, a fold is undefined
where its value is (the measure's 0/0 at the fold level, under the ``nan`` policy).

Main entry points: :func:`cross_validate` (everything for a :class:`~evalreport.inputs.Runs`
with folds), :func:`aggregate` (any measures, from fold tensors), :func:`f_estimators` (the five
F variants side by side), :func:`undefined_folds`, :func:`score_aggregates` / :func:`score_folds`
(AUC and average precision), :func:`roc_auc` / :func:`average_precision` (per fold, by the registry's
one implementation in :mod:`evalreport.measures.scores`)
and :func:`recommendation` (its words, each a quotation of Forman & Scholz or computed from the tables,
are in :mod:`evalreport.analyses.crossval_words`).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

from evalreport.analyses.crossval_words import recommendation
from evalreport.counts import Counts
from evalreport.errors import InputError, MeasureError
from evalreport.measures import Context, bind, compute, default_measures, get, resolve_positive
from evalreport.measures._core import unique
from evalreport.measures.scores import binary_values

__all__ = ["AGGREGATIONS", "F_AGGREGATIONS", "SCORE_AGGREGATIONS", "SCORE_MEASURES", "ESTIMATOR_NAMES", "CVResult",
           "aggregate", "aggregate_arrays", "f_estimators", "undefined_folds",
           "roc_auc", "average_precision", "score_folds", "score_aggregates", "cross_validate",
           "recommendation", "is_f_measure"]

AGGREGATIONS = ("pooled", "mean", "mean_defined")
F_AGGREGATIONS = ("pooled", "mean", "mean_defined", "pr_re", "pr_re_defined")
SCORE_AGGREGATIONS = ("avg", "merge")
#: Measures of scores (not of a confusion matrix): computed per fold and merged, when scores are present.
SCORE_MEASURES = ("auc", "average_precision")

#: The paper's names of the estimators (Forman & Scholz 2010, sections 2.3-2.4).
ESTIMATOR_NAMES = {
    ("f", "pooled"): "F_tp,fp", ("f", "mean"): "F_avg", ("f", "mean_defined"): "F~_avg",
    ("f", "pr_re"): "F_pr,re", ("f", "pr_re_defined"): "F~_pr,re",
    ("auc", "avg"): "AUC_avg", ("auc", "merge"): "AUC_merge",
    ("average_precision", "avg"): "AP_avg", ("average_precision", "merge"): "AP_merge",
}

P001 = "Forman & Scholz 2010"


# ----------------------------------------------------------------------------- helpers


def is_f_measure(measure) -> bool:
    """Whether the five-estimator treatment of Forman & Scholz (2010) applies: F1 / F-beta of a positive class."""
    m = get(measure)
    return m.kind == "binary" and (m.family or m.id) in ("f1", "fbeta")


def _beta(m) -> float:
    return float(m.params.get("beta", 1.0)) if (m.family or m.id) == "fbeta" else 1.0


def _substitute(m, policy: str) -> float:
    """The value an undefined fold counts with in a ``mean``: see the module docstring."""
    if policy == "zero":
        return 0.0
    if policy == "one":
        return 1.0
    return math.nan if m.convention is None else float(m.convention)


def _fold_tensor(data) -> tuple[np.ndarray, list[str], list[str], list[str]]:
    if isinstance(data, Counts):
        if not data.per_fold:
            raise InputError("cross-validation needs per-fold confusion matrices (a fold column)")
        return np.asarray(data.tensor, dtype=float), list(data.labels), list(data.systems), list(data.fold_names)
    C = np.asarray(data, dtype=float)
    if C.ndim == 3:
        C = C[None]
    if C.ndim != 4 or C.shape[-1] != C.shape[-2]:
        raise MeasureError(f"expected fold confusion tensors (S, F, K, K); got shape {C.shape}")
    K = C.shape[-1]
    return (C, [str(k) for k in range(K)], [f"system_{s + 1}" for s in range(C.shape[0])],
            [str(f) for f in range(C.shape[1])])


def _fold_mean(values, use):
    """Mean over the fold axis (last) of ``values`` where ``use``; NaN where no fold is used."""
    use = np.asarray(use, dtype=bool)
    n = use.sum(axis=-1)
    total = np.where(use, values, 0.0).sum(axis=-1)
    return np.divide(total, n, out=np.full(n.shape, np.nan), where=n > 0), n


def _weighted_harmonic(p, r, beta: float, ctx: Context):
    """Eq. 1 of Forman & Scholz (2010) (weighted by beta^2 for F-beta) through the one division helper."""
    b2 = beta * beta
    return ctx.div((1 + b2) * p * r, b2 * p + r, "harmonic mean: averaged precision and recall are both 0")


@dataclass(frozen=True)
class Aggregate:
    """Array results of one measure under one aggregation: values and undefined masks (S,)."""

    value: np.ndarray
    undefined: np.ndarray
    n_folds: np.ndarray          # folds that entered the aggregate (pooled: all)
    bad_folds: np.ndarray        # (S, F) bool: the folds that were undefined for it


# ----------------------------------------------------------------------------- arrays (fast path)


def f_validity(C, positive: int | None):
    """V(i) of Forman & Scholz (2010): (S, F) masks ``precision_defined``, ``recall_defined`` from the registry."""
    pr = compute("precision", C, positive=positive, explain=False)
    re = compute("recall", C, positive=positive, explain=False)
    return ~pr.undefined, ~re.undefined, pr.value, re.value


def aggregate_arrays(measure, C, *, positive=None, policy: str = "nan", costs=None,
                     validity=None, task: int | None = None) -> dict[str, Aggregate]:
    """Every aggregation of one measure over the fold axis of ``C`` (S, F, K, K), as arrays.

    The fast path used by :func:`aggregate` and by the bias simulation (no reason texts).
    ``validity``: precomputed :func:`f_validity` (for F-measures) to share between calls.
    """
    m = get(measure)
    C = np.asarray(C, dtype=float)
    S, F = C.shape[:2]
    fold_user = compute(m, C, positive=positive, policy=policy, costs=costs, explain=False, task=task)
    if policy == "nan":
        fold_nan = fold_user
    else:
        fold_nan = compute(m, C, positive=positive, policy="nan", costs=costs, explain=False, task=task)
    bad = np.isnan(fold_nan.value)
    f_like = is_f_measure(m)
    if f_like:
        if validity is None:
            validity = f_validity(C, positive)
        pr_ok, re_ok, pr_val, re_val = validity
        bad = bad | ~(pr_ok & re_ok)
    pooled = compute(m, C.sum(axis=1), positive=positive, policy=policy, costs=costs, explain=False, task=task)
    out = {"pooled": Aggregate(pooled.value, pooled.undefined | np.isnan(pooled.value), np.full(S, F), bad)}

    sub = _substitute(m, policy)
    # the substitute fills only folds whose value is missing: a fold with V(i) = 0 where F is defined
    # (TP = 0 with FN > 0: F = 0 by Forman & Scholz 2010, eq. 2) keeps its value under every policy
    filled = np.where(bad & np.isnan(fold_user.value), sub, fold_user.value)
    mean = filled.mean(axis=-1)
    out["mean"] = Aggregate(mean, np.isnan(mean) | bad.any(axis=-1), np.full(S, F), bad)

    mdef, n_def = _fold_mean(fold_user.value, ~bad)
    out["mean_defined"] = Aggregate(mdef, np.isnan(mdef) | bad.any(axis=-1), n_def, bad)

    if f_like:
        beta = _beta(m)
        valid = pr_ok & re_ok
        pr_sub, re_sub = _substitute(get("precision"), policy), _substitute(get("recall"), policy)
        p_all = np.where(pr_ok, pr_val, pr_sub).mean(axis=-1)
        r_all = np.where(re_ok, re_val, re_sub).mean(axis=-1)
        ctx = Context((S,), policy="convention" if policy == "nan" else policy, convention=m.convention)
        f_all = _weighted_harmonic(p_all, r_all, beta, ctx)
        out["pr_re"] = Aggregate(f_all, np.isnan(f_all) | (~valid).any(axis=-1), np.full(S, F), ~valid)
        p_def, n_valid = _fold_mean(pr_val, valid)
        r_def, _ = _fold_mean(re_val, valid)
        ctx = Context((S,), policy="convention" if policy == "nan" else policy, convention=m.convention)
        f_def = _weighted_harmonic(p_def, r_def, beta, ctx)
        f_def = np.where(n_valid > 0, f_def, np.nan)
        out["pr_re_defined"] = Aggregate(f_def, np.isnan(f_def) | (~valid).any(axis=-1), n_valid, ~valid)
    return out


# ----------------------------------------------------------------------------- tidy frames


def _fold_list(names, mask) -> str:
    return ", ".join(str(names[i]) for i in np.nonzero(mask)[0])


def _reason(agg_id: str, bad_row, n_used: int, F: int, folds, substitute: float) -> str:
    """Why a (non-pooled) aggregate is flagged: which folds were undefined and what was done."""
    if not bad_row.any():
        return ""
    which = _fold_list(folds, bad_row)
    if agg_id in ("mean", "pr_re"):
        if np.isnan(substitute):
            return f"undefined in fold(s) {which}; no convention to count them with"
        return f"undefined in fold(s) {which}, counted as {substitute:g}"
    if n_used == 0:
        return f"undefined in every fold ({which})"
    return f"undefined in fold(s) {which}, skipped: mean over {n_used} of {F} folds"


def aggregate(data, measures=None, *, positive=None, policy: str = "nan", costs=None) -> pd.DataFrame:
    """Every measure under every aggregation over folds, as one tidy frame.

    ``data``: per-fold :class:`~evalreport.counts.Counts` (``fold_names`` non-empty) or an
    array (S, F, K, K). ``measures``: ids (default: every measure that applies, as in
    ``evalreport score``). Returns columns ``system, measure, aggregation, estimator, value,
    undefined, n_folds, reason``; ``estimator`` is the name Forman & Scholz (2010) give it, if any.
    """
    C, labels, systems, folds = _fold_tensor(data)
    task = getattr(data, "n_task", None)      # prediction-only classes (Runs.n_task)
    K = C.shape[-1]
    pos = resolve_positive(positive, labels, K, n_task=task) if positive is not None else None
    chosen = default_measures(positive=pos, costs=costs) if measures is None else [
        bind(m, labels) for m in unique(measures)]         # class subsets resolved to this task's classes
    frames = []
    validity = None
    for m in chosen:
        if "positive" in m.needs and pos is None:
            raise MeasureError(f"measure {m.id!r} is a binary measure: give the positive class (--positive)")
        if is_f_measure(m) and validity is None:
            validity = f_validity(C, pos)
        aggs = aggregate_arrays(m, C, positive=pos, policy=policy, costs=costs,
                                validity=validity if is_f_measure(m) else None, task=task)
        pooled_reason = compute(m, C.sum(axis=1), positive=pos, policy=policy, costs=costs, labels=labels,
                                task=task).reason
        for agg_id, a in aggs.items():
            sub = _substitute(m, policy) if agg_id == "mean" else (
                _substitute(get("precision"), policy) if agg_id == "pr_re" else math.nan)
            reasons = []
            for s in range(len(systems)):
                if agg_id == "pooled":
                    reasons.append(pooled_reason[s])
                else:
                    reasons.append(_reason(agg_id, a.bad_folds[s], int(a.n_folds[s]), len(folds), folds, sub))
            frames.append(pd.DataFrame({
                "system": systems, "measure": m.id, "aggregation": agg_id,
                "estimator": ESTIMATOR_NAMES.get(("f", agg_id), "") if is_f_measure(m) else "",
                "value": a.value, "undefined": a.undefined, "n_folds": a.n_folds.astype(int),
                "reason": reasons}))
    if not frames:
        return pd.DataFrame(columns=["system", "measure", "aggregation", "estimator", "value", "undefined",
                                     "n_folds", "reason"])
    return pd.concat(frames, ignore_index=True)


def f_estimators(data, *, positive, measure: str = "f1", policy: str = "nan") -> pd.DataFrame:
    """The five F estimators of Forman & Scholz (2010) side by side: one row per system, one column each.

    Columns ``system``, ``F_tp,fp``, ``F_avg``, ``F~_avg``, ``F_pr,re``, ``F~_pr,re`` and
    ``invalid_folds`` (the folds with V(i) = 0, i.e. undefined precision or recall).
    """
    if not is_f_measure(measure):
        raise MeasureError(f"{measure!r} is not an F-measure of a positive class (f1 or fbeta(beta=...))")
    tidy = aggregate(data, [measure], positive=positive, policy=policy)
    wide = tidy.pivot(index="system", columns="estimator", values="value")
    systems = list(dict.fromkeys(tidy["system"]))
    wide = wide.loc[systems, [ESTIMATOR_NAMES[("f", a)] for a in F_AGGREGATIONS]]
    bad = undefined_folds(data, positive=positive)
    listing = bad.groupby("system")["fold"].agg(lambda f: ", ".join(map(str, f))) if len(bad) else pd.Series(
        dtype=object)
    wide["invalid_folds"] = [listing.get(s, "") for s in systems]
    wide.columns.name = None
    return wide.reset_index()


def undefined_folds(data, *, positive) -> pd.DataFrame:
    """The folds where precision or recall of the positive class is undefined (Forman & Scholz 2010: V(i) = 0).

    Columns ``system, fold, tp, fp, fn, tn, precision_defined, recall_defined, reason``; one row
    per (system, fold) with V(i) = 0, none otherwise.
    """
    C, labels, systems, folds = _fold_tensor(data)
    pos = resolve_positive(positive, labels, C.shape[-1], n_task=getattr(data, "n_task", None))
    pr_ok, re_ok, _, _ = f_validity(C, pos)
    s_idx, f_idx = np.nonzero(~(pr_ok & re_ok))
    d = np.diagonal(C, axis1=-2, axis2=-1)[..., pos]
    col = C[..., :, pos].sum(axis=-1)
    row = C[..., pos, :].sum(axis=-1)
    n = C.sum(axis=(-2, -1))
    tp, fp, fn = d, col - d, row - d
    tn = n - tp - fp - fn
    why = np.where(~pr_ok & ~re_ok, "no gold and no predicted positives: precision and recall undefined",
                   np.where(~pr_ok, "no predicted positives (TP + FP = 0): precision undefined",
                            "no gold positives (TP + FN = 0): recall undefined"))
    return pd.DataFrame({
        "system": [systems[i] for i in s_idx], "fold": [folds[j] for j in f_idx],
        "tp": tp[s_idx, f_idx].astype(int), "fp": fp[s_idx, f_idx].astype(int),
        "fn": fn[s_idx, f_idx].astype(int), "tn": tn[s_idx, f_idx].astype(int),
        "precision_defined": pr_ok[s_idx, f_idx], "recall_defined": re_ok[s_idx, f_idx],
        "reason": why[s_idx, f_idx]})


# ----------------------------------------------------------------------------- scores: AUC, AP


def _prepare(y, scores, folds):
    y = np.asarray(y).astype(bool)
    s = np.asarray(scores, dtype=float)
    squeeze = s.ndim == 1
    if squeeze:
        s = s[None]
    if s.shape[-1] != y.shape[0]:
        raise MeasureError(f"scores have {s.shape[-1]} items, gold has {y.shape[0]}")
    if np.isinf(s).any():
        s = np.where(np.isposinf(s), np.finfo(float).max, np.where(np.isneginf(s), -np.finfo(float).max, s))
    # a missing score (an item the system did not answer) ranks at the bottom, tied with -inf scores;
    # finite, so that average_precision's "not a positive" key (+inf) stays strictly above it
    s = np.where(np.isnan(s), -np.finfo(float).max, s)
    if folds is None:
        g = np.zeros(y.shape[0], dtype=np.int64)
        G = 1
    else:
        g = np.asarray(folds).astype(np.int64)
        G = int(g.max()) + 1 if g.size else 0
    onehot = np.zeros((y.shape[0], G))
    onehot[np.arange(y.shape[0]), g] = 1.0
    return y, s, g, G, onehot, squeeze


def _per_fold(y, scores, folds, which: int) -> np.ndarray:
    """One of :func:`evalreport.measures.scores.binary_values` (0: AUC, 1: AP) per system and fold."""
    y, s, g, G, _, squeeze = _prepare(y, scores, folds)
    out = np.full((s.shape[0], G), np.nan)
    for f in range(G):
        members = g == f
        for k in range(s.shape[0]):
            out[k, f] = binary_values(y[members], s[k, members])[which]
    return out[0] if squeeze else out


def roc_auc(y, scores, folds=None) -> np.ndarray:
    """AUC per fold (Mann-Whitney U / (P N), ties count 1/2), by the registry's one implementation.

    ``y`` (N,) bool (True = positive), ``scores`` (S, N) or (N,) (higher = more positive),
    ``folds`` (N,) fold codes or ``None`` (one group: the merged AUC). Returns (S, F) (or (F,))
    with NaN where a fold has only one class.
    """
    return _per_fold(y, scores, folds, 0)


def average_precision(y, scores, folds=None) -> np.ndarray:
    """Average precision per fold: sum_t (R_t - R_{t-1}) P_t, ties sharing one threshold, as scikit-learn's
    ``average_precision_score`` (the registry's one implementation). NaN where a fold has no positives.
    Shapes as :func:`roc_auc`.
    """
    return _per_fold(y, scores, folds, 1)


def _positive_scores(runs, pos: int):
    """(S, N) scores of the positive class from a Runs (None when it has none)."""
    sc = runs.scores
    if sc is None:
        return None
    sc = np.asarray(sc, dtype=float)
    if sc.ndim == 2:         # one score column: the score of the positive class (readers.read_runs)
        return sc
    names = list(runs.score_labels) if runs.score_labels else list(runs.labels)
    label = runs.labels[pos]
    if label not in names:
        raise InputError(f"the runs have no score column for the positive class {label!r}")
    return sc[..., names.index(label)]


def score_folds(runs, *, positive) -> pd.DataFrame:
    """Per-fold AUC and average precision of the positive class, with the one-class folds flagged.

    Columns ``system, fold, measure, value, positives, negatives, undefined, reason``.
    """
    pos = resolve_positive(positive, runs.labels, runs.n_classes, n_task=runs.n_task)
    scores = _positive_scores(runs, pos)
    if scores is None:
        raise InputError("the runs carry no scores (a 'score' column): AUC needs them")
    if runs.folds is None:
        raise InputError("the gold labels have no fold column: nothing to aggregate over")
    y = np.asarray(runs.gold) == pos
    folds = np.asarray(runs.folds)
    F = runs.n_folds
    P = np.bincount(folds, weights=y.astype(float), minlength=F)
    Nn = np.bincount(folds, minlength=F) - P
    frames = []
    for mid, fn, undef in (("auc", roc_auc, (P == 0) | (Nn == 0)), ("average_precision", average_precision, P == 0)):
        vals = fn(y, scores, folds)
        why = np.where(P == 0, "no gold positives in the fold", np.where(Nn == 0, "no gold negatives in the fold",
                                                                         ""))
        S = vals.shape[0]
        frames.append(pd.DataFrame({
            "system": np.repeat(runs.systems, F), "fold": np.tile(runs.fold_names, S), "measure": mid,
            "value": vals.ravel(), "positives": np.tile(P.astype(int), S), "negatives": np.tile(Nn.astype(int), S),
            "undefined": np.tile(undef, S), "reason": np.tile(np.where(undef, why, ""), S)}))
    return pd.concat(frames, ignore_index=True)


def score_aggregates(runs, *, positive, policy: str = "nan") -> pd.DataFrame:
    """AUC_avg / AUC_merge and AP_avg / AP_merge (Forman & Scholz 2010, section 2.4) as a tidy frame.

    ``avg`` over the folds where the fold value exists; a one-class fold is named in ``reason``
    and (policy ``zero`` / ``one``) counted as 0 / 1 instead of skipped.
    """
    pos = resolve_positive(positive, runs.labels, runs.n_classes, n_task=runs.n_task)
    per_fold = score_folds(runs, positive=pos)
    scores = _positive_scores(runs, pos)
    y = np.asarray(runs.gold) == pos
    F = runs.n_folds
    rows = []
    for mid, fn in (("auc", roc_auc), ("average_precision", average_precision)):
        fold_vals = per_fold[per_fold["measure"] == mid]["value"].to_numpy().reshape(runs.n_systems, F)
        bad = np.isnan(fold_vals)
        if policy in ("zero", "one"):
            avg = np.where(bad, 0.0 if policy == "zero" else 1.0, fold_vals).mean(axis=-1)
            n_used = np.full(runs.n_systems, F)
        else:
            avg, n_used = _fold_mean(fold_vals, ~bad)
        merged = fn(y, scores, None)[:, 0]
        for s, system in enumerate(runs.systems):
            which = _fold_list(runs.fold_names, bad[s])
            if not bad[s].any():
                why = ""
            elif policy in ("zero", "one"):
                why = f"only one class in fold(s) {which}, counted as {0 if policy == 'zero' else 1}"
            elif n_used[s] == 0:
                why = f"only one class in every fold ({which})"
            else:
                why = f"only one class in fold(s) {which}, skipped: mean over {int(n_used[s])} of {F} folds"
            rows.append((system, mid, "avg", ESTIMATOR_NAMES[(mid, "avg")], avg[s], bool(bad[s].any() or
                         np.isnan(avg[s])), int(n_used[s]), why))
            rows.append((system, mid, "merge", ESTIMATOR_NAMES[(mid, "merge")], merged[s], bool(np.isnan(merged[s])),
                         F, "" if not np.isnan(merged[s]) else "only one class in the data"))
    return pd.DataFrame(rows, columns=["system", "measure", "aggregation", "estimator", "value", "undefined",
                                       "n_folds", "reason"])


# ----------------------------------------------------------------------------- everything at once


@dataclass(frozen=True)
class CVResult:
    """What the ``cv`` command prints and the report's cross-validation section shows.

    ``estimates``: tidy (system, measure, aggregation, estimator, value, undefined, n_folds,
    reason). ``f_table``: the five F estimators side by side (or ``None`` without a positive
    class). ``invalid_folds``: :func:`undefined_folds`. ``score_folds``: per-fold AUC/AP (or
    ``None`` without scores). ``recommendation``: the text of :func:`recommendation`.
    ``summary``: per system, the five F estimators, AUC_avg and AUC_merge (when scores are
    present) and the invalid folds: the table of the report's cross-validation section.
    """

    estimates: pd.DataFrame
    f_table: pd.DataFrame | None
    invalid_folds: pd.DataFrame | None
    score_folds: pd.DataFrame | None
    recommendation: str
    summary: pd.DataFrame | None = None


def cross_validate(runs, measures=None, *, positive=None, policy: str = "nan", costs=None) -> CVResult:
    """Every aggregation of every measure (plus AUC/AP from scores) for Runs with a fold column.

    ``measures``: registry ids (default: every measure that applies); ``auc`` and
    ``average_precision`` may be listed too. Those two are added whenever the runs carry scores and
    a positive class is given (they need scores, not a confusion matrix).
    """
    if runs.folds is None:
        raise InputError("cross-validation needs a fold column in the gold file (column 'fold': the fold "
                         "that predicted each item)")
    asked_scores = []
    if measures is not None:
        asked_scores = [m for m in measures if isinstance(m, str) and m.strip() in SCORE_MEASURES]
        measures = [m for m in measures if not (isinstance(m, str) and m.strip() in SCORE_MEASURES)]
        if asked_scores and (positive is None or runs.scores is None):
            raise InputError(f"{', '.join(asked_scores)} need(s) scores (a 'score' column in the runs) and the "
                             "positive class (--positive)")
    counts = Counts.from_runs(runs, per_fold=True)
    estimates = aggregate(counts, measures, positive=positive, policy=policy, costs=costs)
    f_table = invalid = sfolds = None
    has_scores = positive is not None and runs.scores is not None
    if positive is not None:
        invalid = undefined_folds(counts, positive=positive)
        if measures is None or any(is_f_measure(m) for m in measures):
            f_id = next((get(m).id for m in (measures or ["f1"]) if is_f_measure(m)), "f1")
            f_table = f_estimators(counts, positive=positive, measure=f_id, policy=policy)
    if has_scores:
        sfolds = score_folds(runs, positive=positive)
        estimates = pd.concat([estimates, score_aggregates(runs, positive=positive, policy=policy)],
                              ignore_index=True)
    summary = f_table
    if has_scores:
        auc = estimates[estimates["measure"] == "auc"].pivot(index="system", columns="estimator", values="value")
        auc = auc.reindex(list(runs.systems))[["AUC_avg", "AUC_merge"]].reset_index()
        auc.columns.name = None
        summary = auc if f_table is None else f_table.drop(columns="invalid_folds").merge(auc, on="system").assign(
            invalid_folds=f_table["invalid_folds"].to_numpy())
    return CVResult(estimates, f_table, invalid, sfolds,
                    recommendation(estimates, invalid_folds=invalid, has_scores=has_scores, score_folds=sfolds,
                                   has_positive=positive is not None, f_table=f_table, policy=policy,
                                   n_folds=runs.n_folds), summary)
