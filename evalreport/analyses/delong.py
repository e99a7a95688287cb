"""DeLong's test for two correlated ROC AUCs (DeLong, DeLong & Clarke-Pearson 1988), by the fast
algorithm of Sun & Xu (2014).

Every system scores the same items, so their AUCs are correlated. DeLong et al. (1988) estimate
the covariance matrix of the S AUCs from the placement values (structural components) of each
positive X_i and negative Y_j: V10(X_i) = (1/AN) sum_j psi(X_i, Y_j) and V01(Y_j) = (1/AP) sum_i
psi(X_i, Y_j), psi = 1 if X > Y, 1/2 on a tie, 0 else; S = S10 / AP + S01 / AN with S10, S01 the
sample covariance matrices (divisor AP - 1, AN - 1) of the placements across systems. For a pair
(a, b): z = (AUC_a - AUC_b) / sqrt(S_aa + S_bb - 2 S_ab), two-sided p = 2 Phi(-|z|).

Sun & Xu (2014) compute the placements from three midrank vectors (of the positives, of the
negatives, of all items: V10_i = (T_Z(i) - T_X(i)) / AN), O(N log N) per system instead of
O(AP AN). The correction over pairs is the engine's (Holm; Benjamini-Hochberg).
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from evalreport.analyses.significance import benjamini_hochberg, holm

__all__ = ["delong_covariance", "delong_pairs", "delong_table"]

DETAIL = "DeLong et al. 1988 (fast algorithm of Sun & Xu 2014), normal approximation"


def delong_covariance(scores: np.ndarray, positive: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The S AUCs and their DeLong covariance matrix.

    Parameters
    ----------
    scores : ndarray
        ``(S, N)`` scores, higher = more positive.
    positive : ndarray
        ``(N,)`` bool, the gold positives.

    Returns
    -------
    auc : ndarray
        ``(S,)``.
    cov : ndarray
        ``(S, S)``; NaN without positives or negatives (or with a single one of either, where the
        sample covariance has no degrees of freedom).
    """
    from scipy.stats import rankdata  # here: the report's kernel imports analyses without scipy.stats

    scores = np.atleast_2d(np.asarray(scores, dtype=float))
    positive = np.asarray(positive, dtype=bool)
    X, Y = scores[:, positive], scores[:, ~positive]
    m, n = X.shape[1], Y.shape[1]
    S = scores.shape[0]
    if m == 0 or n == 0:
        return np.full(S, np.nan), np.full((S, S), np.nan)
    tx = rankdata(X, axis=1)                       # midranks among the positives
    ty = rankdata(Y, axis=1)                       # among the negatives
    tz = rankdata(np.concatenate([X, Y], axis=1), axis=1)
    v10 = (tz[:, :m] - tx) / n                     # placement of each positive among the negatives
    v01 = 1.0 - (tz[:, m:] - ty) / m               # of each negative among the positives
    auc = v10.mean(axis=1)
    if m < 2 or n < 2:
        return auc, np.full((S, S), np.nan)
    cov = np.atleast_2d(np.cov(v10)) / m + np.atleast_2d(np.cov(v01)) / n
    return auc, cov


def delong_pairs(scores: np.ndarray, positive: np.ndarray, a: np.ndarray, b: np.ndarray
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(z, difference, p)`` of DeLong's test for the pairs ``(a[p], b[p])`` (difference AUC_a - AUC_b).

    A pair whose difference has variance 0 (e.g. identical scores) has z = 0 and p = 1 when the AUCs
    are equal, NaN otherwise."""
    from scipy.stats import norm

    auc, cov = delong_covariance(scores, positive)
    a, b = np.asarray(a, dtype=np.int64), np.asarray(b, dtype=np.int64)
    diff = auc[a] - auc[b]
    var = cov[a, a] + cov[b, b] - 2.0 * cov[a, b]
    with np.errstate(divide="ignore", invalid="ignore"):
        z = np.where(var > 0, diff / np.sqrt(np.where(var > 0, var, 1.0)), np.where(diff == 0, 0.0, np.nan))
    z = np.where(np.isnan(var), np.nan, z)
    return z, diff, 2.0 * norm.sf(np.abs(z))


def delong_table(scores: np.ndarray, positive: np.ndarray, systems, measure: str) -> pd.DataFrame:
    """The ``delong`` rows of the pairwise table: every pair of systems (a before b in system order).

    Parameters
    ----------
    scores : ndarray
        ``(S, N)`` the positive class's scores.
    positive : ndarray
        ``(N,)`` bool, the gold positives.
    systems : sequence of str
        The S systems.
    measure : str
        The AUC measure's id (the ``measure`` column).

    Returns
    -------
    DataFrame
        The engine's pairwise columns; ``statistic`` = z, ``difference`` = AUC_a - AUC_b, Holm and
        Benjamini-Hochberg corrections across the pairs.
    """
    S = len(systems)
    a, b = np.triu_indices(S, 1)
    z, diff, p = delong_pairs(scores, positive, a, b)
    names = np.asarray(list(systems), dtype=object)
    return pd.DataFrame({"system_a": names[a], "system_b": names[b], "measure": measure, "test": "delong",
                         "statistic": z, "difference": diff, "p_value": p, "p_holm": holm(p),
                         "p_bh": benjamini_hochberg(p), "n_resamples": np.zeros(len(a), dtype=np.int64),
                         "detail": DETAIL})
