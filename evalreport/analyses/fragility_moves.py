"""The pieces the fragility search works with (:mod:`evalreport.analyses.fragility`): its limits,
the measure as a function of stacked matrices (:class:`Oriented`), the candidate changes of a
matrix and the measure's value after each of them.
"""
from __future__ import annotations

import numpy as np

from evalreport.analyses.significance import ROUND_DECIMALS
from evalreport.measures import compute, get

__all__ = ["FULL_CLASSES", "MAX_ROWS", "MAX_CHALLENGERS", "MAX_STATES", "MAX_NEIGHBOURS",
           "apply_both", "rows_for", "Oriented", "at_least_level", "candidate_moves", "values_after"]

#: Up to this many classes every single change is a candidate move (K^2 (K-1) of them).
FULL_CLASSES = 20
#: Above FULL_CLASSES, candidate moves come from at most this many classes per system.
MAX_ROWS = 32
#: Above FULL_CLASSES, only the systems closest to the leader under the primary measure are challengers.
MAX_CHALLENGERS = 3
#: The exhaustive proof enumerates at most this many matrices per system and distance bound.
MAX_STATES = 60_000
#: ... and looks at most this many neighbours of one distance's matrices at once.
MAX_NEIGHBOURS = 400_000


class Oriented:
    """A measure as a function of stacked matrices, oriented so that higher is better; NaN -> -inf."""

    def __init__(self, measure, *, positive=None, policy="nan", costs=None, task=None):
        self.m = get(measure)
        self.kw = dict(positive=positive, policy=policy, costs=costs, task=task)
        self.sign = 1.0 if self.m.higher_is_better else -1.0

    def __call__(self, C: np.ndarray, chunk: int | None = None) -> np.ndarray:
        C = np.asarray(C, dtype=float)
        K = C.shape[-1]
        chunk = chunk or max(1, int(2e7 // max(K * K, 1)))
        out = []
        for i in range(0, len(C), chunk):
            v = compute(self.m, C[i:i + chunk], explain=False, **self.kw).value
            out.append(np.round(self.sign * np.asarray(v, dtype=float), ROUND_DECIMALS))
        v = np.concatenate(out) if out else np.zeros(0)
        return np.where(np.isnan(v), -np.inf, v)


def at_least_level(challenger: np.ndarray, leader: np.ndarray) -> np.ndarray:
    """Challenger at least level with the leader (values oriented, rounded; -inf = undefined)."""
    return (challenger >= leader) & np.isfinite(challenger)


def candidate_moves(X: np.ndarray, *, lower: bool, rows: np.ndarray | None) -> np.ndarray:
    """Candidate moves (g, p, q) on matrix X: all moves (rows None) or the restricted set.

    Restricted, for the leader (``lower``): a correct item of class g to the class g is most often
    confused with; for the challenger: the most frequent error in row g fixed.
    """
    K = X.shape[-1]
    if rows is None:
        g, p = np.nonzero(X >= 1)
        q = np.tile(np.arange(K), len(g))
        g, p = np.repeat(g, K), np.repeat(p, K)
        keep = q != p
        return np.stack([g[keep], p[keep], q[keep]], axis=1)
    off = X[rows].copy()
    off[np.arange(len(rows)), rows] = -1
    if lower:
        cols = X.sum(axis=0)
        # rows without errors: the class predicted most often elsewhere
        fallback = np.argsort(-cols, kind="stable")[:2]
        q = np.where(off.max(axis=1) > 0, off.argmax(axis=1), np.where(fallback[0] == rows, fallback[-1], fallback[0]))
        ok = X[rows, rows] >= 1
        return np.stack([rows[ok], rows[ok], q[ok]], axis=1)
    ok = off.max(axis=1) >= 1
    return np.stack([rows[ok], off.argmax(axis=1)[ok], rows[ok]], axis=1)


def apply_both(X: np.ndarray, Y: np.ndarray, moves: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """Copies of X (side 0) and Y (side 1) with the first ``k`` of ``moves`` (side, gold, from, to) applied."""
    out = X.copy(), Y.copy()
    for side, M in enumerate(out):
        part = moves[:k][moves[:k, 0] == side]
        np.add.at(M, (part[:, 1], part[:, 2]), -1)
        np.add.at(M, (part[:, 1], part[:, 3]), 1)
    return out


def values_after(f: Oriented, X: np.ndarray, moves: np.ndarray) -> np.ndarray:
    """The oriented value of X after each move alone, evaluated in chunks of stacked matrices.

    One buffer of copies of X (about 20M cells) is reused: each chunk's moves are applied to it and
    undone after the evaluation, so X is copied once per call, not once per move.
    """
    if not len(moves):
        return np.zeros(0)
    K = X.shape[-1]
    step = min(len(moves), max(1, int(2e7 // (K * K))))
    buf = np.empty((step, K, K))
    buf[:] = X
    out = []
    for i in range(0, len(moves), step):
        mv = moves[i:i + step]
        j = np.arange(len(mv))
        buf[j, mv[:, 0], mv[:, 1]] -= 1
        buf[j, mv[:, 0], mv[:, 2]] += 1
        out.append(f(buf[:len(mv)]))
        buf[j, mv[:, 0], mv[:, 1]] += 1
        buf[j, mv[:, 0], mv[:, 2]] -= 1
    return np.concatenate(out)


def rows_for(X: np.ndarray, Y: np.ndarray, K: int) -> tuple[np.ndarray | None, np.ndarray | None]:
    if K <= FULL_CLASSES:
        return None, None
    n = X.sum(axis=1)

    def pick(M, lower):
        weight = n + M.sum(axis=0)              # where one item weighs most in class-averaged measures
        usable = (np.diag(M) >= 1) if lower else (n - np.diag(M) >= 1)
        idx = np.flatnonzero(usable & (n > 0))
        return idx[np.argsort(weight[idx], kind="stable")][:MAX_ROWS]
    return pick(X, True), pick(Y, False)
