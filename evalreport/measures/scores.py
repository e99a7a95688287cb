"""Score-based measures: threshold-free (ROC AUC, average precision, PR AUC, F1 at the best
threshold) and calibration measures (Brier score, log loss, expected and maximum calibration error).

Declared once, as registry records with ``kind="scores"``: their function takes a
:class:`ScoreStats` (the :class:`~evalreport.counts.scores.ScoreCounts` of the systems under one
weighting of the items: all ones, or a block of B bootstrap resamples) and a
:class:`~evalreport.measures.Context` of batch ``(B, S)``, and returns ``(B, S)`` values. They never
take a confusion matrix (``compute`` refuses them); :func:`compute_scores` computes them.

Forms. With one ``score`` column (the positive class's score), or two classes and a positive
class, a measure takes its binary form (the positive class against the rest). With one
``score_<class>`` column per class it takes its multi-class form: the macro (or prevalence-weighted)
mean over classes of the one-vs-rest value, as scikit-learn's ``roc_auc_score(multi_class="ovr")``
and ``average_precision_score``; ``roc_auc_ovo`` is the mean over pairs of classes of Hand & Till's
(2001) A(i, j). Calibration measures read the scores as probabilities: Brier's (1950) score, the log
loss, and the expected / maximum calibration error of the top-label confidence (Guo et al. 2017;
Naeini et al. 2015), one binning (:func:`calibration_bins`) for both and for the reliability diagram.
"""
from __future__ import annotations

import math

import numpy as np

from evalreport.errors import MeasureError
from evalreport.measures._core import REGISTRY, Context, Interval, Measure, Result, get, register, result
from evalreport.measures.score_items import bin_sums, brier_items, log_items
from evalreport.measures.score_stats import SUMMARIES, ScoreStats, summaries_of

__all__ = ["ScoreStats", "compute_scores", "check_scores", "summaries_of", "SUMMARIES", "score_measures", "is_score_measure", "needs_probabilities", "PROBABILITY",
           "auc_counts", "ranked_counts", "binary_values", "pr_points", "SCORE_MEASURES"]

#: The score measures of a comparison on scored runs, in this order.
SCORE_MEASURES = ("roc_auc", "roc_auc_weighted", "roc_auc_ovo", "average_precision", "pr_auc", "best_threshold_f1",
                  "brier", "log_loss", "ece", "mce")

#: Measures that read the scores as probabilities (need values in [0, 1] summing to 1 over classes).
PROBABILITY = ("brier", "log_loss", "ece", "mce")

NO_SCORES = "no score columns in the system's run"


# ----------------------------------------------------------------------------- shared pieces


def auc_counts(pos: np.ndarray, neg: np.ndarray, fp: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Numerator and denominator of the AUC from weighted counts per tie group (highest first).

    ``pos``, ``neg``: ``(..., G)``; ``fp``: ``np.cumsum(neg, axis=-1)`` if already at hand. AUC = sum_g
    pos_g (neg strictly below g + neg_g / 2) / (AP AN): the Mann-Whitney statistic, a tie counting 1/2
    (Hanley & McNeil 1982)."""
    below = neg.sum(axis=-1, keepdims=True) - (np.cumsum(neg, axis=-1) if fp is None else fp)
    num = (pos * (below + neg / 2.0)).sum(axis=-1)
    return num, pos.sum(axis=-1) * neg.sum(axis=-1)


def ranked_counts(y, scores) -> tuple[np.ndarray, np.ndarray]:
    """Positive and negative counts per tie group (highest score first) of one score vector: the
    statistic every threshold-free measure here reads (``y`` (N,) bool, ``scores`` (N,))."""
    from evalreport.counts.scores import tie_groups

    group, distinct = tie_groups(scores)
    y = np.asarray(y, dtype=bool)
    pos = np.bincount(group, weights=y.astype(float), minlength=len(distinct))
    return pos, np.bincount(group, minlength=len(distinct)) - pos


def binary_values(y, scores) -> tuple[float, float]:
    """ROC AUC and average precision of one score vector (NaN where undefined): the one implementation
    that :mod:`evalreport.analyses.crossval` uses per fold."""
    pos, neg = ranked_counts(y, scores)
    num, den = auc_counts(pos, neg)
    ap_num, ap_den = _ap_counts(pos, neg)
    return (float(num / den) if den > 0 else math.nan), (float(ap_num / ap_den) if ap_den > 0 else math.nan)


def pr_points(pos: np.ndarray, neg: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Cumulative TP and FP at each threshold (predict positive iff score >= the group's score)."""
    return np.cumsum(pos, axis=-1), np.cumsum(neg, axis=-1)


def _precision(tp: np.ndarray, fp: np.ndarray) -> np.ndarray:
    """TP / (TP + FP), 0 where nothing is predicted (scikit-learn's precision_recall_curve)."""
    den = tp + fp
    return np.divide(tp, den, out=np.zeros(np.shape(tp)), where=den > 0)


def _one_vs_rest(stats: ScoreStats, s: int, k: int, what: str) -> tuple[np.ndarray, np.ndarray]:
    """Summary ``what`` (numerator, denominator) of class k's column, class k against the rest."""
    return stats.summary(s, stats.sc.columns.index(k), what)


def _binary(stats: ScoreStats, s: int, what: str) -> tuple[np.ndarray, np.ndarray]:
    """Summary ``what`` (numerator, denominator) of the positive class's column."""
    return stats.summary(s, stats.sc.pos_column, what)


def _binary_form(stats: ScoreStats, ctx: Context, what: str, reason: str) -> np.ndarray:
    """``(B, S)`` numerator / denominator of summary ``what`` of every system's positive column."""
    parts = [_binary(stats, s, what) for s in range(len(stats.sc.systems))]
    return ctx.div(np.stack([p[0] for p in parts], 1), np.stack([p[1] for p in parts], 1), reason)


def _per_system(stats: ScoreStats, fn) -> np.ndarray:
    """``fn(s)`` stacked over systems on the last axis (systems without scores: NaN)."""
    out = []
    for s in range(len(stats.sc.systems)):
        out.append(fn(s) if stats.sc.has[s] else np.full(np.shape(fn(s)), np.nan))
    return np.stack(out, axis=1)


def _classes_form(stats: ScoreStats, ctx: Context, per_class, *, weighted: bool, what: str) -> np.ndarray:
    """The mean over classes of ``per_class(s, k) -> (num, den)``: macro, or weighted by gold prevalence."""
    sc = stats.sc
    if not sc.full:
        ctx.flag(np.ones(ctx.batch, dtype=bool), f"{what}: the multi-class form needs one score column per class "
                                                 "(score_<class>)")
        return np.full(ctx.batch, np.nan)
    K = sc.n_classes
    parts = [[per_class(s, k) for k in range(K)] for s in range(len(sc.systems))]
    num = np.stack([np.stack([p[0] for p in row], axis=-1) for row in parts], axis=1)     # (B, S, K)
    den = np.stack([np.stack([p[1] for p in row], axis=-1) for row in parts], axis=1)
    values = ctx.div(num, den, f"{what}: a class without gold items or without other items")
    weights = None
    if weighted:
        gold = np.stack([stats.summary(s, 0, "gold") for s in range(len(sc.systems))], axis=1)
        weights = gold                                                                    # (B, S, K)
    return ctx.mean(values, weights=weights, what=f"one-vs-rest {what}")


def _finish(stats: ScoreStats, ctx: Context, value: np.ndarray) -> np.ndarray:
    """NaN, with the reason, for systems without scores."""
    value = np.broadcast_to(np.asarray(value, dtype=float), ctx.batch).copy()
    missing = ~np.asarray(stats.sc.has, dtype=bool)
    if missing.any():
        mask = np.broadcast_to(missing, ctx.batch)
        value[mask] = np.nan
        ctx.flag(mask, NO_SCORES)
    return value


def _need_binary(stats: ScoreStats, ctx: Context, what: str) -> bool:
    if stats.sc.pos_column is None:
        ctx.flag(np.ones(ctx.batch, dtype=bool), f"{what} is a binary measure: it needs a positive class and its "
                                                 "score column")
        return False
    return True


# ----------------------------------------------------------------------------- records


def _score(id, label, *, formula, source, range=(0.0, 1.0), higher=True, chance=None, chance_note="",
           undefined, params=None, domain=None, notes=""):
    def deco(f):
        register(Measure(id=id, label=label, fn=f, kind="scores", source=source, formula=formula, range=range,
                         higher_is_better=higher, chance=chance, chance_note=chance_note, undefined=undefined,
                         params=params or {}, domain=domain or {}, notes=notes))
        return f
    return deco


_AUC_UNDEF = "no gold positives or no gold negatives (AP AN = 0); a system without scores"
_SKL = "scikit-learn roc_auc_score"


def _auc(stats: ScoreStats, ctx: Context, *, weighted: bool) -> np.ndarray:
    sc = stats.sc
    if sc.binary:
        value = _binary_form(stats, ctx, "auc", "ROC AUC: no gold positives or no gold negatives")
    else:
        value = _classes_form(stats, ctx, lambda s, k: _one_vs_rest(stats, s, k, "auc"), weighted=weighted,
                              what="ROC AUC")
    return _finish(stats, ctx, value)


@_score("roc_auc", "ROC AUC", source=f"Hanley & McNeil 1982; Fawcett 2006; {_SKL} (multi_class='ovr', macro)",
        formula="P(score of a positive > score of a negative) + P(tie)/2 over pairs (Mann-Whitney U / (AP AN)); "
                "several classes: mean over classes of the one-vs-rest AUC",
        chance=0.5, chance_note="scores independent of the gold class", undefined=_AUC_UNDEF)
def roc_auc(stats, ctx):
    return _auc(stats, ctx, weighted=False)


@_score("roc_auc_weighted", "ROC AUC (weighted one-vs-rest)", source=f"{_SKL} (multi_class='ovr', average='weighted')",
        formula="sum over classes of (a_i / N) x one-vs-rest AUC of class i", chance=0.5,
        chance_note="scores independent of the gold class", undefined=_AUC_UNDEF)
def roc_auc_weighted(stats, ctx):
    return _auc(stats, ctx, weighted=True)


def _ovo(stats: ScoreStats, ctx: Context, *, weighted: bool) -> np.ndarray:
    sc = stats.sc
    if sc.binary:
        return _auc(stats, ctx, weighted=False)
    if not sc.full:
        return _classes_form(stats, ctx, None, weighted=False, what="ROC AUC (one-vs-one)")
    K = sc.n_classes
    pairs = [(i, j) for i in range(K) for j in range(i + 1, K)]
    first, second, weights = [], [], []
    for s in range(len(sc.systems)):
        # (B, K) numerators and denominators of A(k|j) over j, per class k's column (Hand & Till 2001)
        ovo = [stats.summary(s, sc.columns.index(k), "ovo") for k in range(K)]
        gold = stats.summary(s, sc.columns.index(0), "gold")
        first.append([(ovo[i][0][..., j], ovo[i][1][..., j]) for i, j in pairs])      # A(i|j)
        second.append([(ovo[j][0][..., i], ovo[j][1][..., i]) for i, j in pairs])     # A(j|i)
        weights.append(np.stack([gold[..., i] + gold[..., j] for i, j in pairs], -1))

    def ratio(parts: list) -> np.ndarray:
        """``(B, S, P)`` A over every system and pair, divided at once (the undefined pairs per system)."""
        num = np.stack([np.stack([n for n, _ in row], -1) for row in parts], 1)
        den = np.stack([np.stack([d for _, d in row], -1) for row in parts], 1)
        return ctx.div(num, den, "ROC AUC (one-vs-one): a pair of classes without items")

    values = [(ratio(first) + ratio(second)) / 2.0]
    value = ctx.mean(values[0], weights=np.stack(weights, 1) if weighted else None,
                     what="pairwise AUC")
    return _finish(stats, ctx, value)


@_score("roc_auc_ovo", "ROC AUC (one-vs-one)", source="Hand & Till 2001 (M, eq. 7); scikit-learn roc_auc_score "
        "(multi_class='ovo', macro)",
        formula="2 / (K (K - 1)) sum over pairs i < j of (A(i|j) + A(j|i)) / 2, A(i|j) the AUC of class i's score "
                "separating class i from class j", chance=0.5, chance_note="scores independent of the gold class",
        undefined=_AUC_UNDEF)
def roc_auc_ovo(stats, ctx):
    return _ovo(stats, ctx, weighted=False)


@_score("roc_auc_ovo_weighted", "ROC AUC (weighted one-vs-one)",
        source="Hand & Till 2001; scikit-learn roc_auc_score (multi_class='ovo', average='weighted')",
        formula="mean over pairs i < j of (A(i|j) + A(j|i)) / 2 weighted by the share of items in class i or j",
        chance=0.5, chance_note="scores independent of the gold class", undefined=_AUC_UNDEF)
def roc_auc_ovo_weighted(stats, ctx):
    return _ovo(stats, ctx, weighted=True)


def _ap_counts(pos: np.ndarray, neg: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    tp, fp = pr_points(pos, neg)
    return (pos * _precision(tp, fp)).sum(-1), pos.sum(-1)


def _curve_measure(stats: ScoreStats, ctx: Context, summary: str, what: str) -> np.ndarray:
    sc = stats.sc
    if sc.binary:
        value = _binary_form(stats, ctx, summary, f"{what}: no gold positives")
    else:
        value = _classes_form(stats, ctx, lambda s, k: _one_vs_rest(stats, s, k, summary), weighted=False,
                              what=what)
    return _finish(stats, ctx, value)


@_score("average_precision", "Average precision", source="scikit-learn average_precision_score; Manning, Raghavan "
        "& Schütze 2008 (section 8.4)",
        formula="sum over thresholds t of (R_t - R_(t-1)) P_t (step curve of precision over recall); several "
                "classes: mean over classes of the one-vs-rest value",
        chance_note="the positive class's prevalence (scores independent of the gold class); not a constant",
        undefined="no gold positives (AP = 0); a system without scores")
def average_precision(stats, ctx):
    return _curve_measure(stats, ctx, "ap", "average precision")


@_score("pr_auc", "PR AUC (trapezoids)", source="Davis & Goadrich 2006; scikit-learn auc(recall, precision)",
        formula="area under the precision-recall curve by the trapezoidal rule, from (R, P) = (0, 1); several "
                "classes: mean over classes of the one-vs-rest value",
        chance_note="about the positive class's prevalence; not a constant",
        undefined="no gold positives (AP = 0); a system without scores",
        notes="linear interpolation between points of the PR curve is optimistic (Davis & Goadrich 2006); "
              "average_precision is the step-wise sum")
def pr_auc(stats, ctx):
    return _curve_measure(stats, ctx, "trap", "PR AUC")


@_score("best_threshold_f1", "F1 at the best threshold",
        source="Lipton, Elkan & Naryanaswamy 2014 (the F1-optimal threshold)",
        formula="max over thresholds t of 2 TP_t / (2 TP_t + FP_t + FN_t), predicting positive iff score >= t",
        chance_note="depends on the prevalence; not a constant",
        undefined="no gold positives (AP = 0); no positive class; a system without scores",
        notes="an optimistic bound: the threshold is chosen on the evaluation data itself")
def best_threshold_f1(stats, ctx):
    if not _need_binary(stats, ctx, "F1 at the best threshold"):
        return np.full(ctx.batch, np.nan)

    P = np.stack([_binary(stats, s, "f1")[1] for s in range(len(stats.sc.systems))], 1)
    best = _per_system(stats, lambda s: _binary(stats, s, "f1")[0])
    value = ctx.div(best * P, P, "F1 at the best threshold: no gold positives")
    return _finish(stats, ctx, value)


# ----------------------------------------------------------------------------- calibration


def _usable(stats: ScoreStats, ctx: Context, what: str) -> bool:
    sc = stats.sc
    if sc.layout == "binary" or sc.full:
        return True
    ctx.flag(np.ones(ctx.batch, dtype=bool), f"{what} needs one score column per class (score_<class>) or one "
                                             "'score' column")
    return False


@_score("brier", "Brier score", source="Brier 1950; scikit-learn brier_score_loss",
        formula="(1/N) sum_i sum over classes k of (p_ik - y_ik)^2 (two classes, or one score column: "
                "(1/N) sum_i (p_i - y_i)^2)", range=(0.0, 2.0), higher=False,
        chance_note="the prevalence forecast (every item gets the gold class shares) scores 1 - sum_k pi_k^2 "
                    "(halved for two classes); not a constant",
        undefined="never (for N > 0); a system without scores")
def brier(stats, ctx):
    if not _usable(stats, ctx, "the Brier score"):
        return np.full(ctx.batch, np.nan)
    if stats.weights is None:       # every item once: from column totals
        return _finish(stats, ctx, stats.item_means()["brier"][None, :])
    return _finish(stats, ctx, stats.item_mean(brier_items(stats.sc)))


@_score("log_loss", "Log loss", source="Good 1952; scikit-learn log_loss",
        formula="-(1/N) sum_i ln p_i(gold class), probabilities clipped to [eps, 1 - eps]",
        range=(0.0, math.inf), higher=False,
        chance_note="the prevalence forecast scores the entropy -sum_k pi_k ln pi_k; not a constant",
        undefined="never (for N > 0); a system without scores")
def log_loss(stats, ctx):
    if not _usable(stats, ctx, "the log loss"):
        return np.full(ctx.batch, np.nan)
    if stats.weights is None:       # every item once: one system at a time
        return _finish(stats, ctx, stats.item_means()["log_loss"][None, :])
    return _finish(stats, ctx, stats.item_mean(log_items(stats.sc)))


def _bin_sums(stats: ScoreStats, ctx: Context) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(B, S, M)`` weighted sums per bin of confidence, correctness and items (shared by ece and mce)."""
    bins, strategy = int(ctx.params.get("bins", 15)), str(ctx.params.get("strategy", "uniform"))
    key = (bins, strategy)
    if key not in stats.bin_sums:
        stats.bin_sums[key] = bin_sums(stats.sc, stats.weights, bins, strategy)
    return stats.bin_sums[key]


_BINS = {"bins": 15, "strategy": "uniform"}
_BIN_DOMAIN = {"bins": Interval(1, 1000), "strategy": ("uniform", "quantile")}


@_score("ece", "Expected calibration error", source="Guo et al. 2017 (eq. 3); Naeini, Cooper & Hauskrecht 2015",
        formula="sum over bins b of (|B_b| / N) |acc(B_b) - conf(B_b)|, top-label confidence, 15 equal-width bins",
        higher=False, chance_note="no constant chance value", params=_BINS, domain=_BIN_DOMAIN,
        undefined="never (for N > 0); a system without scores",
        notes="strategy=quantile: equal-mass bins (edges at the confidences' quantiles on all items)")
def ece(stats, ctx):
    if not _usable(stats, ctx, "the calibration error"):
        return np.full(ctx.batch, np.nan)
    c_sum, r_sum, n_sum = _bin_sums(stats, ctx)
    return _finish(stats, ctx, np.abs(r_sum - c_sum).sum(-1) / n_sum.sum(-1))


@_score("mce", "Maximum calibration error", source="Naeini, Cooper & Hauskrecht 2015; Guo et al. 2017 (eq. 5)",
        formula="max over non-empty bins b of |acc(B_b) - conf(B_b)|, top-label confidence, 15 equal-width bins",
        higher=False, chance_note="no constant chance value", params=_BINS, domain=_BIN_DOMAIN,
        undefined="never (for N > 0); a system without scores")
def mce(stats, ctx):
    if not _usable(stats, ctx, "the calibration error"):
        return np.full(ctx.batch, np.nan)
    c_sum, r_sum, n_sum = _bin_sums(stats, ctx)
    gap = np.divide(np.abs(r_sum - c_sum), n_sum, out=np.zeros_like(n_sum), where=n_sum > 0)
    return _finish(stats, ctx, gap.max(-1))


# ----------------------------------------------------------------------------- compute


def is_score_measure(measure) -> bool:
    """Whether a measure id or record is a score-based measure."""
    try:
        return get(measure).kind == "scores"
    except MeasureError:
        return False


def needs_probabilities(measures) -> bool:
    """Whether any of these measures reads the scores as probabilities."""
    return any((get(m).family or get(m).id.split("(")[0]) in PROBABILITY for m in measures)


def score_measures() -> list[Measure]:
    """The default score measures (records of :data:`SCORE_MEASURES`)."""
    return [REGISTRY[i] for i in SCORE_MEASURES]


def check_scores(measure, sc) -> Measure:
    """Raise the runs' recorded score problems that ``measure`` cannot take (one line naming the file and
    line), without computing it.

    Parameters
    ----------
    measure : str or Measure
        A record with ``kind="scores"``.
    sc : ScoreCounts
        The systems' scores.

    Returns
    -------
    Measure
        The measure's record.
    """
    m = get(measure)
    if m.kind != "scores":
        raise MeasureError(f"measure {m.id!r} is not a score-based measure")
    if m.id.split("(")[0] in PROBABILITY or m.family in PROBABILITY:
        sc.require(("range", "sum", "partial"))
    else:
        sc.require(("partial",))
    return m


def compute_scores(measure, sc, *, weights: np.ndarray | None = None, policy: str = "nan", explain: bool = True,
                   stats: ScoreStats | None = None) -> Result:
    """One score measure for every system (``weights=None``) or every resample and system.

    Parameters
    ----------
    measure : str or Measure
        A record with ``kind="scores"``.
    sc : ScoreCounts
        The systems' scores (:func:`evalreport.counts.scores.score_counts`).
    weights : ndarray, optional
        ``(B, N)`` item weights: the result is then ``(B, S)``.
    policy : str
        The undefined-value policy.
    explain : bool
        Build the reason texts.
    stats : ScoreStats, optional
        Shared grouped counts of several measures under the same weights.

    Returns
    -------
    Result
        ``value`` ``(S,)`` (or ``(B, S)`` with weights).
    """
    m = check_scores(measure, sc)
    stats = stats if stats is not None else ScoreStats(sc, weights)
    ctx = Context((stats.B, len(sc.systems)), policy=policy, convention=m.convention, params=m.params,
                  n_classes=sc.n_classes)
    with np.errstate(divide="ignore", invalid="ignore"):
        value = np.asarray(m.fn(stats, ctx), dtype=float)
    res = result(m, ctx, value, list(sc.labels), explain=explain)
    if weights is None and stats.weights is None:
        return Result(res.measure, res.value[0], res.undefined[0], res.reason[0])
    return res
