"""The greedy fragility search (:mod:`evalreport.analyses.fragility`): batches of strong changes
until the challenger draws level, the one-at-a-time best-move search when it is cheap, and the
pruning pass that undoes every change not needed. Every count it returns is checked on the
measure, so it is an upper bound.
"""
from __future__ import annotations

import numpy as np

from evalreport.analyses.fragility_moves import (
    FULL_CLASSES,
    MAX_ROWS,
    Oriented,
    apply_both,
    at_least_level,
    candidate_moves,
    rows_for,
    values_after,
)

__all__ = ["SINGLE_CELLS", "greedy_bound", "greedy_search", "prune", "reverts"]

#: The one-at-a-time search also runs when (count so far) x (candidates) x K^2 is at most this many cells.
SINGLE_CELLS = 20_000_000


def greedy_bound(f: Oriented, X: np.ndarray, Y: np.ndarray, *, max_steps: int) -> tuple[int | None, int, int]:
    """Greedy search: (moves, leader moves, challenger moves) of a verified pair of matrices, or None.

    The batched search of :func:`greedy_search`; when that is cheap enough (:data:`SINGLE_CELLS`) the
    one-at-a-time best-move search (each round applies the single change that narrows the gap
    most) runs as well, up to the count found, and the smaller count is kept.
    """
    found = greedy_search(f, X, Y, max_steps=max_steps)
    K = X.shape[-1]
    cap = max_steps if found[0] is None else found[0]
    cands = 2 * K * K * (K - 1) if K <= FULL_CLASSES else 4 * MAX_ROWS
    if cap * cands * K * K <= SINGLE_CELLS:
        single = greedy_search(f, X, Y, max_steps=cap, single=True)
        if single[0] is not None and (found[0] is None or single[0] < found[0]):
            return single
    return found


@np.errstate(invalid="ignore")
def greedy_search(f: Oriented, X: np.ndarray, Y: np.ndarray, *, max_steps: int,
            single: bool = False) -> tuple[int | None, int, int]:
    """One greedy search (``single``: one change per round, the best).

    Each round evaluates every candidate change on the current matrices (one stacked tensor per
    system) and applies a batch of the *strong* changes only: those narrowing the gap by at least
    half as much as the best one (one destination per source cell, taken in turn, each cell's
    items at most once per turn), at most as many as the best one suggests are needed. A batch
    that closes the gap is cut to its shortest closing prefix (binary search); one that narrows it
    by less than the best change alone is replaced by that change. The values are re-evaluated
    between batches. A pruning pass then undoes every change whose removal still leaves the
    challenger level (:func:`prune`), and the count is the distance ``sum (X - X')^+`` of the
    matrices found, so a change undone later (p -> q -> p) is not counted.
    """
    X0, Y0 = X.astype(float), Y.astype(float)
    X, Y = X0.copy(), Y0.copy()
    K = X.shape[-1]
    vx, vy = f(np.stack([X, Y]))

    def applied(batch, k):
        return apply_both(X, Y, batch, k)

    def closes(batch, k):
        nx, ny = applied(batch, k)
        v = f(np.stack([nx, ny]))
        return bool(at_least_level(v[1:], v[:1])[0]), v

    def used():
        return int(np.maximum(X0 - X, 0).sum() + np.maximum(Y0 - Y, 0).sum())

    while not at_least_level(np.array([vy]), np.array([vx]))[0]:
        if used() >= max_steps:
            return None, 0, 0
        rx, ry = rows_for(X, Y, K)
        mx, my = candidate_moves(X, lower=True, rows=rx), candidate_moves(Y, lower=False, rows=ry)
        gx = values_after(f, X, mx)                                    # leader's new values
        gy = values_after(f, Y, my)                                    # challenger's new values
        gain = np.concatenate([vx - gx, gy - vy])               # how much each move narrows the gap
        gain = np.where(np.isnan(gain), -np.inf, gain)
        if not len(gain) or not np.max(gain) > 0:
            return None, 0, 0
        gap = vx - vy
        order = np.argsort(-gain, kind="stable")
        best = gain[order[0]]
        strong = order[(gain[order] > 0) & (gain[order] >= best / 2)] if np.isfinite(best) else order[:1]
        need = int(np.ceil(gap / best)) if np.isfinite(best) and np.isfinite(gap) else 1
        target = 1 if single else max(1, min(need, max_steps - used()))
        # one destination per source cell (the strongest), the cells taken in turn
        picked, units, seen = [], [], set()
        for j in strong:
            side, mv = (0, mx[j]) if j < len(mx) else (1, my[j - len(mx)])
            key = (side, int(mv[0]), int(mv[1]))
            if key in seen:
                continue
            seen.add(key)
            picked.append((side, *mv))
            units.append(int((X if side == 0 else Y)[mv[0], mv[1]]))
        chosen: list[tuple] = []
        turn = 0
        while len(chosen) < target:
            more = [mv for mv, u in zip(picked, units) if u > turn]
            if not more:
                break
            chosen += more[:target - len(chosen)]
            turn += 1
        batch = np.array(chosen, dtype=np.int64)
        ok, v = closes(batch, len(batch))
        if ok:
            lo, hi = 0, len(batch)                 # not closed after lo changes, closed after hi
            while hi - lo > 1:
                mid = (lo + hi) // 2
                if closes(batch, mid)[0]:
                    hi = mid
                else:
                    lo = mid
            k = hi
        elif v[0] - v[1] <= gap - best and len(batch) > 1:
            k = len(batch)
        else:
            k = 1
        X, Y = applied(batch, k)
        vx, vy = f(np.stack([X, Y]))
    X, Y = prune(f, X0, Y0, X, Y)
    a, b = int(np.maximum(X0 - X, 0).sum()), int(np.maximum(Y0 - Y, 0).sum())
    return a + b, a, b


def reverts(M0: np.ndarray, M: np.ndarray) -> np.ndarray:
    """Moves (g, q, p) that undo one change of M0 -> M: one item of row g back from a cell q that
    gained items to a cell p that lost some (each lowers the distance ``sum (M0 - M)^+`` by one)."""
    D = M - M0
    out = []
    for g in np.flatnonzero((D > 0).any(axis=1)):
        gained, lost = np.flatnonzero(D[g] > 0), np.flatnonzero(D[g] < 0)
        q, p = np.repeat(gained, len(lost)), np.tile(lost, len(gained))
        out.append(np.stack([np.full(len(q), g), q, p], axis=1))
    return np.concatenate(out).astype(np.int64) if out else np.zeros((0, 3), dtype=np.int64)


@np.errstate(invalid="ignore")
def prune(f: Oriented, X0: np.ndarray, Y0: np.ndarray, X: np.ndarray, Y: np.ndarray):
    """Undo changes while the challenger stays level: each round evaluates undoing every single
    change (of either system), then undoes as many of those that keep it level as it can at once,
    the ones leaving the widest margin first (binary search on that order, each step verified).
    Ends when undoing any one change would leave the challenger behind."""
    X, Y = X.copy(), Y.copy()
    while True:
        vx, vy = f(np.stack([X, Y]))
        rx, ry = reverts(X0, X), reverts(Y0, Y)
        if not len(rx) + len(ry):
            return X, Y
        nx, ny = values_after(f, X, rx), values_after(f, Y, ry)
        margin = np.concatenate([np.where(np.isfinite(vy), vy - nx, -np.inf),
                                 np.where(np.isfinite(ny), ny - vx, -np.inf)])
        margin = np.where(np.isnan(margin), -np.inf, margin)
        keep = np.flatnonzero(margin >= 0)
        if not len(keep):
            return X, Y
        keep = keep[np.argsort(-margin[keep], kind="stable")]
        undo = np.array([(0, *rx[j]) if j < len(rx) else (1, *ry[j - len(rx)]) for j in keep], dtype=np.int64)

        def state(k, X=X, Y=Y, undo=undo):
            return apply_both(X, Y, undo, k)

        def fine(k, X=X, Y=Y):
            nx_, ny_ = state(k)
            if (nx_ < 0).any() or (ny_ < 0).any():
                return False
            if (np.maximum(X0 - nx_, 0).sum() + np.maximum(Y0 - ny_, 0).sum()
                    != np.maximum(X0 - X, 0).sum() + np.maximum(Y0 - Y, 0).sum() - k):
                return False                      # two undos of the same cell pair overshoot
            v = f(np.stack([nx_, ny_]))
            return bool(at_least_level(v[1:], v[:1])[0])

        lo, hi = 1, len(undo)                     # lo: fine (a single undo keeping level); hi: unknown
        if fine(hi):
            lo = hi
        else:
            while hi - lo > 1:
                mid = (lo + hi) // 2
                if fine(mid):
                    lo = mid
                else:
                    hi = mid
        X, Y = state(lo)
