"""Exact fragility counts (:mod:`evalreport.analyses.fragility`): the optimal changes of a measure
affine in the cells, and the exhaustive search that proves a greedy bound minimal (or finds the
minimum) with few classes and a small bound.
"""
from __future__ import annotations

import itertools
import math

import numpy as np

from evalreport.analyses.fragility_moves import (
    MAX_NEIGHBOURS,
    MAX_STATES,
    Oriented,
    at_least_level,
    candidate_moves,
    values_after,
)


def linear_on_rows(f: Oriented, X: np.ndarray, Y: np.ndarray, rng) -> bool:
    """Affine in the cells over matrices with X's row sums (numerically, as in baselines.is_linear)."""
    from evalreport.analyses.baselines import is_linear

    n = X.sum(axis=1).astype(np.int64)
    K = X.shape[-1]
    tables = [X, Y] + [np.stack([rng.multinomial(k, np.full(K, 1.0 / K)) for k in n]).astype(float)
                       for _ in range(4)]

    def values(C):
        v = f(C)
        return np.where(np.isfinite(v), v, np.nan)
    return is_linear(values, np.stack(tables), rng, rtol=1e-7)


def linear_exact(f: Oriented, X: np.ndarray, Y: np.ndarray) -> tuple[int | None, int, int]:
    """Constant effects per change: take the items with the largest effects first (optimal), then
    check the chosen changes on the matrices themselves (None when they do not close the gap)."""
    vx, vy = f(np.stack([X, Y]))
    gap = vx - vy
    units = []
    for M, lower in ((X, True), (Y, False)):
        moves = candidate_moves(M, lower=lower, rows=None)
        if not len(moves):
            continue
        v = values_after(f, M, moves)
        gain = (vx - v) if lower else (v - vy)
        # per source cell (g, p): the best destination; every item in the cell can move once
        order = np.lexsort((-gain, moves[:, 1], moves[:, 0]))
        seen = set()
        for i in order:
            key = (int(moves[i, 0]), int(moves[i, 1]))
            if key in seen:
                continue
            seen.add(key)
            if gain[i] > 0:
                units.append((float(gain[i]), int(M[key]), 0 if lower else 1, moves[i]))
    units.sort(key=lambda u: -u[0])
    total, chosen = 0.0, []
    tol = 1e-9             # the values carry 12 decimals: k summed effects are off by k x 1e-12 at most
    for g, count, side, mv in units:
        if total >= gap - tol:
            break
        take = max(1, min(count, int(np.ceil((gap - total - tol) / g))))
        total += take * g
        chosen.append((side, mv, take))
    nx, ny = X.copy(), Y.copy()
    for side, (g, p, q), take in chosen:
        M = nx if side == 0 else ny
        M[g, p] -= take
        M[g, q] += take
    v = f(np.stack([nx, ny]))
    if not at_least_level(v[1:], v[:1])[0]:
        return None, 0, 0
    a = sum(t for side, _, t in chosen if side == 0)
    b = sum(t for side, _, t in chosen if side == 1)
    return a + b, a, b


def _ball(f: Oriented, C: np.ndarray, depth: int, *, lower: bool) -> np.ndarray | None:
    """Best oriented value within 0..depth changes of C, by enumerating each distance; None when too many."""
    K = C.shape[-1]
    start = np.rint(C).astype(np.int64).reshape(1, K * K)
    g, p, q = np.array([t for t in itertools.product(range(K), repeat=3) if t[1] != t[2]]).T
    moves = np.zeros((len(g), K * K), dtype=np.int64)
    moves[np.arange(len(g)), g * K + p] -= 1
    moves[np.arange(len(g)), g * K + q] += 1
    frontier = start
    v0 = f(start.reshape(1, K, K).astype(float))[0]
    best = [v0]
    total = 1
    for d in range(1, depth + 1):
        if len(frontier) * len(moves) > MAX_NEIGHBOURS:
            return None
        nb = (frontier[:, None, :] + moves[None]).reshape(-1, K * K)
        nb = nb[(nb >= 0).all(axis=1) & (np.maximum(start - nb, 0).sum(axis=1) == d)]
        base = 2 * d + 1                     # every cell lies within d of the start: an exact integer key
        if K * K * math.log2(base) < 62:
            key = (nb - start + d) @ (base ** np.arange(K * K, dtype=np.int64))
            frontier = nb[np.unique(key, return_index=True)[1]]
        else:
            frontier = np.unique(nb, axis=0)
        total += len(frontier)
        if total > MAX_STATES:
            return None
        if not len(frontier):
            best.append(best[-1])
            continue
        v = f(frontier.reshape(-1, K, K).astype(float))
        best.append(min(best[-1], v.min()) if lower else max(best[-1], v.max()))
    return np.array(best)


def prove(f: Oriented, X: np.ndarray, Ys: list, bound: int) -> list[tuple[int, int, int] | None] | None:
    """Exhaustive check below ``bound``: per challenger the exact (moves, a, b) when fewer than
    ``bound`` changes suffice, else None (at least ``bound`` are needed); None overall when the
    enumeration is too large."""
    lo_x = _ball(f, X, bound - 1, lower=True)
    if lo_x is None:
        return None
    out = []
    for Y in Ys:
        hi_y = _ball(f, Y, bound - 1, lower=False)
        if hi_y is None:
            return None
        found = None
        for total in range(bound):
            for i in range(total + 1):
                if at_least_level(np.array([hi_y[total - i]]), np.array([lo_x[i]]))[0]:
                    found = (total, i, total - i)
                    break
            if found:
                break
        out.append(found)
    return out
