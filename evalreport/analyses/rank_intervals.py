"""Simultaneous rank intervals from the corrected pairwise decisions, and the systems tied for first.

A system's rank interval ``[rank_lo, rank_hi]`` counts the systems the chosen pairwise test
(Holm-corrected over all pairs, Holm 1979) separates from it:

* ``rank_lo = 1 + #{systems significantly better}``,
* ``rank_hi = S - #{systems significantly worse}``.

This is the construction of simultaneous confidence intervals for ranks from all pairwise
comparisons (in the spirit of Al Mohamad et al. 2022, "simultaneous confidence intervals for
ranks"): when no pairwise decision of the family is wrong, every system truly better than ``i``
is the only kind that can be declared better, so ``rank_lo`` is at most ``i``'s best possible true
rank and ``rank_hi`` at least its worst. Holm's correction bounds the probability of any wrong
decision in the family by alpha, so all S intervals hold together with probability at least
``1 - alpha`` (up to the direction errors of two-sided tests, which are smaller still). With tied
true values the true rank is the range of places the tie spans, and an interval covers it when it
contains that range.

The systems tied for first are those with ``rank_lo == 1``: no system is significantly better.
"""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from evalreport.analyses.significance import CORRECTIONS

__all__ = ["rank_intervals", "tied_first", "true_rank_range", "rank_interval_sentence", "RANK_COLUMNS"]

RANK_COLUMNS = ["system", "rank_lo", "rank_hi"]


def rank_intervals(pairwise: pd.DataFrame, systems: Sequence[str], *, alpha: float = 0.05, test: str = "bootstrap",
                   correction: str = "holm") -> pd.DataFrame:
    """Simultaneous rank intervals of every system from the corrected pairwise decisions.

    Parameters
    ----------
    pairwise : DataFrame
        The pairwise table (:data:`evalreport.analyses.engine.PAIRWISE_COLUMNS`) of one measure;
        ``difference > 0`` means ``system_a`` is better.
    systems : sequence of str
        Every system of the leaderboard (a system without a test row gets ``[1, S]``).
    alpha : float
        The family's level.
    test : str
        The test whose rows decide.
    correction : {"holm", "bh", "none"}
        Which p-value column decides (Holm gives simultaneous coverage; the others do not).

    Returns
    -------
    DataFrame
        system, rank_lo, rank_hi (integers), in the order of ``systems``.
    """
    names = [str(s) for s in systems]
    S = len(names)
    pos = {s: i for i, s in enumerate(names)}
    better = np.zeros(S, dtype=np.int64)           # systems significantly better than s
    worse = np.zeros(S, dtype=np.int64)            # systems significantly worse than s
    if S and len(pairwise):
        rows = pairwise[(pairwise["test"] == test) & pairwise["system_a"].isin(pos) & pairwise["system_b"].isin(pos)]
        p = rows[CORRECTIONS[correction]].to_numpy(dtype=float)
        d = rows["difference"].to_numpy(dtype=float)
        a = rows["system_a"].map(pos).to_numpy(dtype=np.int64)
        b = rows["system_b"].map(pos).to_numpy(dtype=np.int64)
        sig = (p < alpha) & ~np.isnan(d) & (d != 0)            # NaN p: no decision
        a_wins = sig & (d > 0)
        b_wins = sig & (d < 0)
        better += np.bincount(b[a_wins], minlength=S) + np.bincount(a[b_wins], minlength=S)
        worse += np.bincount(a[a_wins], minlength=S) + np.bincount(b[b_wins], minlength=S)
    return pd.DataFrame({"system": names, "rank_lo": 1 + better, "rank_hi": S - worse}, columns=RANK_COLUMNS)


def tied_first(board: pd.DataFrame) -> list[str]:
    """The systems no other system is significantly better than (``rank_lo == 1``), in board order.

    Parameters
    ----------
    board : DataFrame
        A leaderboard with ``system`` and ``rank_lo``.

    Returns
    -------
    list of str
        Empty when the board has no rank intervals.
    """
    if "rank_lo" not in board or board["rank_lo"].isna().all():
        return []
    lo = pd.to_numeric(board["rank_lo"], errors="coerce")
    return [str(s) for s in board.loc[lo == 1, "system"]]


def true_rank_range(values: Sequence[float], higher_is_better: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """The places each system's true value can take: ``(1 + #better, S - #worse)`` (ties span a range).

    Parameters
    ----------
    values : sequence of float
        The true values.
    higher_is_better : bool
        The measure's direction.

    Returns
    -------
    lo, hi : ndarray
        Integer arrays of length S.
    """
    v = np.asarray(values, dtype=float)
    v = v if higher_is_better else -v
    S = v.shape[0]
    better = (v[None, :] > v[:, None]).sum(axis=1)
    worse = (v[None, :] < v[:, None]).sum(axis=1)
    return 1 + better, S - worse


def rank_interval_sentence(test_name: str, alpha: float) -> str:
    """How the rank intervals are made, in one sentence for the methods paragraph and captions."""
    return (f"Rank intervals are simultaneous at {100 * (1 - float(alpha)):g}%: a system's best rank is one more "
            f"than the number of systems the {test_name} test (Holm-corrected over all pairs; Holm 1979) finds "
            "significantly better, its worst rank the number of systems minus those it finds significantly "
            "worse (after Al Mohamad et al. 2022).")
