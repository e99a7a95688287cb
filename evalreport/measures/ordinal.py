"""Ordinal and cost-sensitive measures: functions of the confusion tensor and a cost matrix.

Every measure here has ``kind="ordinal"`` and ``needs=("costs",)``: it reads ``ctx.costs``, a
(K, K) matrix with ``costs[i, j]`` = the cost (distance) of predicting class j for an item of
gold class i, zero on the diagonal. A class *order* is turned into costs by
:func:`costs_from_order` (absolute distance of the positions, Sebastiani 2015, eq. 7 with unit steps),
so ordinal classification is the cost-sensitive case with that matrix.

Orientation. Sebastiani (2015, section 6) writes Delta(c_i, c_j) for the cost of
classifying into c_i an item of class c_j, i.e. the transpose of ``costs``; for the
symmetric distances of ordinal classification the two agree.

Measures
--------
``k_cost``
    K for cost-sensitive and ordinal classification (Sebastiani 2015, eq. 10 with the recall of
    eq. 11). Parameter ``error``: ``"ae"`` (absolute error, E = Delta) or ``"se"`` (squared
    error, E = Delta^2); ``k_cost(error=se)`` asks for the latter.
``mae``
    mean cost per item, sum_ij c_ij Delta_ij / N: the mean absolute error when the costs are
    the distances on a class order.
``macro_mae``
    mean over the gold classes present of the class MAE (Baccianella, Esuli & Sebastiani
    2009, the ordinal measure for imbalanced data cited by Sebastiani 2015).
``kappa_linear``, ``kappa_quadratic``
    weighted kappa with disagreement weights Delta and Delta^2 (Cohen 1968); with costs from a
    class order these are scikit-learn's ``cohen_kappa_score(weights="linear"/"quadratic")``.
``expected_cost``
    normalised expected cost: the mean cost per item divided by the mean cost of the best
    constant predictor (the single class j that minimises sum_i a_i Delta_ij) on the same gold
    labels. 0 = no cost, 1 = no better than always predicting the cheapest class, > 1 worse
    than that. The unnormalised mean cost is ``mae``.
"""
from __future__ import annotations

import numpy as np

from evalreport.errors import InputError, MeasureError
from evalreport.measures._core import Context, Measure, register
from evalreport.measures.binary import P000

__all__ = ["costs_from_order", "cost_recalls", "ERRORS"]

#: The error functions of Sebastiani (2015), section 6.2, for ``k_cost(error=...)``.
ERRORS = {"ae": "absolute error AE = Delta", "se": "squared error SE = Delta^2"}


def costs_from_order(order, labels) -> np.ndarray:
    """The (K, K) absolute-distance matrix ``|pos(i) - pos(j)|`` of a class order.

    ``order`` lists every class of ``labels`` once, from one end of the scale to the other;
    row/column k of the result is ``labels[k]``. A class missing from the order, an unknown
    class in it, or a repeated one is an :class:`~evalreport.errors.InputError`.
    """
    order = [str(x).strip() for x in order]
    labels = [str(x) for x in labels]
    seen, dup = set(), []
    for x in order:
        (dup.append(x) if x in seen else seen.add(x))
    if dup:
        raise InputError(f"--order lists {', '.join(map(repr, dict.fromkeys(dup)))} more than once")
    unknown = [x for x in order if x not in labels]
    if unknown:
        raise InputError(f"--order names {', '.join(map(repr, unknown))}, not among the classes "
                         f"({', '.join(labels)})")
    missing = [x for x in labels if x not in seen]
    if missing:
        raise InputError(f"--order must list every class; missing: {', '.join(map(repr, missing))}")
    pos = np.array([order.index(x) for x in labels], dtype=float)
    return np.abs(pos[:, None] - pos[None, :])


def _reg(id, label, **meta):
    def deco(f):
        register(Measure(id=id, label=label, fn=f, kind="ordinal", needs=("costs",), **meta))
        return f
    return deco


def _error_matrix(ctx) -> np.ndarray:
    """E of Sebastiani (2015), section 6.2, for every (gold, predicted) pair: Delta or Delta^2."""
    error = str(ctx.params.get("error", "ae")).lower()
    if error not in ERRORS:
        raise MeasureError(f"k_cost: unknown error {error!r}; choose one of {', '.join(ERRORS)}")
    D = np.asarray(ctx.costs, dtype=float)
    return D if error == "ae" else D * D


def _gold_sizes(C):
    return C.sum(axis=-1)


@_reg("k_cost", "K, cost-sensitive / ordinal (Sebastiani)",
      source=f"{P000}, eq. 10 with the recall of eq. 11 (Example 6.1)", params={"error": "ae"},
      domain={"error": tuple(ERRORS)},
      formula="K/(K-1) * (sum_{j: AP_j > 0} rho_j) / (sum_j xi_j) - 1/(K-1), "
              "rho_j = (1/AP_j) sum_{d in c_j} (1 - E(d) / max(E_j)), E = Delta (ae) or Delta^2 (se)",
      range=(-1.0, 1.0), chance=None,
      chance_note="0 when every misclassification costs the same (then k_cost = k, Property 5.6); with "
                  "unequal costs a random classifier's value depends on the cost matrix",
      undefined="N = 0; only one class (K - 1 = 0); a gold class whose every prediction costs 0 (max(E_j) = 0)",
      notes="max(E_j) is the largest error possible for an item of gold class j: the maximum of row j "
            "of E. Classes absent from the gold labels are left out through xi_j (eq. 8), as in k. With "
            "all off-diagonal costs 1 (single-label classification) eq. 11 is eq. 9 and k_cost equals k.")
def k_cost(C, ctx):
    a = _gold_sizes(C)
    K = ctx.task_count(C)        # as in k: |C| is the task's class set
    present = a > 0
    rho = _cost_recalls(C, _error_matrix(ctx), ctx)
    mean_rho = ctx.div(np.where(present, rho, 0.0).sum(-1), present.sum(-1),
                       "K (costs): empty confusion matrix (N = 0)")
    return ctx.div(K * mean_rho - 1.0, K - 1, "K (costs): only one class (K - 1 = 0); K needs two or more")


def _cost_recalls(C, E, ctx):
    """rho_j of eq. 11 for every class (batch, K); classes with AP_j = 0 hold 0 (dropped by xi_j)."""
    a = _gold_sizes(C)
    if ctx.classes is not None:      # the costliest prediction among the classes that count for this matrix
        E = np.where(ctx.classes[..., None, :], E, -np.inf)
        max_e = E.max(axis=-1)
        E = np.where(np.isfinite(E), E, 0.0)
    else:
        max_e = E.max(axis=-1)                         # max(E_j): the costliest prediction for gold j
    err = (C * E).sum(axis=-1)                         # sum over the items d of class j of E(d)
    # eq. 11 written as one ratio, rho_j = (AP_j max(E_j) - sum_d E(d)) / (AP_j max(E_j)), so that the
    # policy applies to rho_j itself; classes with AP_j = 0 are dropped by xi_j (eq. 8), not divided
    return ctx.div(a * max_e - err, np.where(a > 0, a * max_e, 1.0),
                   "K (costs): every prediction for this gold class costs 0 (max(E_j) = 0)")


def cost_recalls(C, costs, *, error: str = "ae", policy: str = "nan") -> np.ndarray:
    """The class recalls rho_j of Sebastiani (2015), eq. 11 (shape ``C.shape[:-1]``), NaN for classes absent
    from the gold labels (eq. 11: undefined if AP_j = 0). The quantity inside ``k_cost``."""
    C = np.asarray(C, dtype=float)
    ctx = Context(C.shape[:-2], policy=policy, params={"error": error}, costs=np.asarray(costs, dtype=float))
    rho = _cost_recalls(C, _error_matrix(ctx), ctx)
    return np.where(_gold_sizes(C) > 0, rho, np.nan)


@_reg("mae", "Mean absolute error (mean cost)", source="ordinal regression; the AE of Sebastiani 2015, section 6.2",
      formula="(1/N) sum_ij c_ij Delta_ij", range=(0.0, float("inf")), higher_is_better=False,
      undefined="N = 0",
      notes="With costs from a class order, Delta_ij = |pos(i) - pos(j)| and this is the mean absolute "
            "error of the predicted positions. With a general cost matrix it is the mean cost per item.")
def mae(C, ctx):
    D = np.asarray(ctx.costs, dtype=float)
    return ctx.div((C * D).sum(axis=(-2, -1)), C.sum(axis=(-2, -1)), "MAE: empty confusion matrix (N = 0)")


@_reg("macro_mae", "Macro-averaged mean absolute error",
      source="Baccianella et al. 2009 (ordinal evaluation on imbalanced data); cited in Sebastiani 2015",
      formula="(1/|{j: a_j > 0}|) sum_j (1/a_j) sum_k c_jk Delta_jk", range=(0.0, float("inf")),
      higher_is_better=False,
      undefined="per class: a_j = 0 (class absent from gold); skipped with the nan policy, counted as "
                "0/1 with zero/one",
      notes="Each gold class weighs the same, so a system cannot look good by getting only the large "
            "classes right.")
def macro_mae(C, ctx):
    D = np.asarray(ctx.costs, dtype=float)
    per_class = ctx.div((C * D).sum(axis=-1), _gold_sizes(C), "class MAE: class absent from the gold labels "
                        "(a_j = 0)")
    return ctx.mean(per_class, what="class MAE values")


def _weighted_kappa(C, W, ctx, name):
    a = C.sum(axis=-1)
    b = C.sum(axis=-2)
    n = C.sum(axis=(-2, -1))
    observed = n * (C * W).sum(axis=(-2, -1))                              # n^2 sum w_ij o_ij
    expected = (W * a[..., :, None] * b[..., None, :]).sum(axis=(-2, -1))  # n^2 sum w_ij e_ij
    return ctx.div(expected - observed, expected,
                   f"{name}: expected weighted disagreement is 0 (gold and predictions all in one class, "
                   "or every disagreement weighs 0)")


_KAPPA_NOTE = ("1 - sum_ij w_ij o_ij / sum_ij w_ij e_ij with o_ij = c_ij / N and e_ij = a_i b_j / N^2 "
               "(Cohen 1968).")


@_reg("kappa_linear", "Weighted kappa (linear weights)", source="Cohen 1968; ordinal agreement",
      formula="1 - sum_ij Delta_ij c_ij / sum_ij Delta_ij a_i b_j / N", range=(-1.0, 1.0), chance=0.0,
      chance_note="chance corrected: 0 in expectation for predictions independent of gold",
      undefined="sum_ij Delta_ij a_i b_j = 0",
      notes=_KAPPA_NOTE + " Weights w_ij = Delta_ij: with an order, |pos(i) - pos(j)|, as scikit-learn's "
            "cohen_kappa_score(weights='linear') on the ordered labels.")
def kappa_linear(C, ctx):
    return _weighted_kappa(C, np.asarray(ctx.costs, dtype=float), ctx, "linear kappa")


@_reg("kappa_quadratic", "Weighted kappa (quadratic weights)", source="Cohen 1968; ordinal agreement",
      formula="1 - sum_ij Delta_ij^2 c_ij / sum_ij Delta_ij^2 a_i b_j / N", range=(-1.0, 1.0), chance=0.0,
      chance_note="chance corrected: 0 in expectation for predictions independent of gold",
      undefined="sum_ij Delta_ij^2 a_i b_j = 0",
      notes=_KAPPA_NOTE + " Weights w_ij = Delta_ij^2: with an order, (pos(i) - pos(j))^2, as scikit-learn's "
            "cohen_kappa_score(weights='quadratic').")
def kappa_quadratic(C, ctx):
    D = np.asarray(ctx.costs, dtype=float)
    return _weighted_kappa(C, D * D, ctx, "quadratic kappa")


@_reg("expected_cost", "Normalised expected cost",
      source="Sebastiani 2015, section 6.2 (cost-sensitive classification); normalisation by the best constant "
             "predictor",
      formula="sum_ij c_ij Delta_ij / min_k sum_i a_i Delta_ik", range=(0.0, float("inf")),
      higher_is_better=False, chance=None,
      chance_note=">= 1 for any predictor independent of the gold labels (it cannot beat the best constant "
                  "one in expectation); not a constant",
      undefined="the best constant prediction costs 0 (e.g. a single gold class)",
      notes="Normalisation chosen here: the cost of always predicting the one class that is cheapest on "
            "these gold labels, so 1 means 'no better than a trivial system'. mae is the unnormalised "
            "mean cost.")
def expected_cost(C, ctx):
    D = np.asarray(ctx.costs, dtype=float)
    a = C.sum(axis=-1)
    total = (C * D).sum(axis=(-2, -1))
    constant = (a[..., :, None] * D).sum(axis=-2)           # cost of always predicting class k
    # the trivial system predicts one of the task's classes (not another team's stray label)
    constant = constant[..., :ctx.task_count(C)]
    return ctx.div(total, constant.min(axis=-1),
                   "expected cost: the best constant prediction costs 0 (nothing to normalise by)")
