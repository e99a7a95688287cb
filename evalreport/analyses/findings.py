"""What a comparison found, as tidy rows: the numbers behind the report's opening findings block.

:func:`findings` reads the tables of a :class:`~evalreport.analyses.compare.Comparison` (plus the
what-if ranks and the confusion tensor) and returns one frame of rows ``finding, system, measure,
value, detail`` - every sentence of the findings block is made from these rows and nothing else,
so the report and ``findings.csv`` agree - and one frame ``fragility`` with the search per
challenger. The rows (``finding``):

``leader``            the rank-1 system under the primary measure; value = its value; detail
                      ``"sole"`` or ``"tied"`` (then one row per system tied for first)
``leader_lo`` / ``leader_hi``  its bootstrap interval (item-level input only)
``p_best``            P(rank 1) over the bootstrap resamples
``inseparable``       a system the corrected pairwise tests cannot separate from the leader (its
                      significance group); value = the corrected p-value of the pair; detail =
                      the test and correction
``separable_count``   how many systems the tests do separate from the leader (value); only
                      systems with a defined primary value and a significance group count
``untested``          a system in no significance group (its primary value undefined, or not
                      tested): neither separated nor inseparable; detail = why
``p_floor``           the smallest Holm-corrected p-value the resampling test can give (m pairs
                      with a defined p-value, B resamples: m / (B + 1),
                      :func:`evalreport.analyses.resampling.p_floor`); at or above alpha no pair
                      can be separated
``resamples_needed``  then: the fewest resamples B with m / (B + 1) < alpha (value)
``winner`` / ``winner_calibrated``  per measure, the system(s) ranked first on the raw /
                      prevalence-calibrated matrices (paper 002, eq. 6); value = its value
``winner_what_if``    per what-if class distribution, the system(s) ranked first under the primary
                      measure; detail = the scenario
``runner_up``         the system ranked second; value = the gap to the leader (oriented: > 0
                      means the leader is better)
``gap_noise``         value = the uncorrected two-sided paired bootstrap p-value of leader vs
                      runner-up; detail ``"below noise"`` when p >= alpha, else ``"beyond noise"``
``fragility``         value = the fragility count (see below); system = the challenger that needs
                      the fewest changes; detail = ``"exact: <how>"`` or ``"upper bound: <how>"``
``baseline_best``     the strongest chance baseline under the primary measure (detail = its name)
``at_or_below_baseline``  a system whose primary value is at or below a chance baseline; value =
                      the system's value, detail = the baseline's name
``baseline``          each baseline named by those rows: system = its name, value = its value
``no_value``          a system whose primary value is undefined (ranked last, in no comparison)
``undefined``         a measure with no value (0/0) for a system; detail = the reason from scores.csv
``undefined_skipped`` a class average that has a value only because undefined classes were
                      skipped; value = that value, detail = the reason
``not_available``     what cannot be said with this input, and why (detail)

Noise
-----
The gap between leader and runner-up is *below the bootstrap noise* when the paired bootstrap test
of the comparison (centred difference, :func:`evalreport.analyses.resampling.pairwise`) gives an
uncorrected p-value ``p = (1 + #{b : |d*_b - d| >= |d|}) / (1 + B) >= alpha``: at least a share
alpha of the centred bootstrap differences of the pair are as large as the observed gap ``d``, so
resampling the test set alone moves the difference by as much. (Uncorrected on purpose: this one
pair is asked about; the significance groups use Holm's correction.)

Fragility
---------
A *change* is one test item's prediction in one system's output replaced by another class: one
count moves from cell ``(g, p)`` to ``(g, p')`` of that system's matrix (rows = gold, so gold
class sizes stay fixed). The fragility count is

    F = min over challengers c of  min { a + b : after a changes to the leader's matrix and b
        changes to c's matrix, c's primary value is at least the leader's }

(values compared after rounding to 12 decimals, as the ranking does; an undefined value ranks
last). F = 0 when the leader is tied for first. The minimal number of changes between two
matrices with the same row sums is ``sum (A - B)^+`` (each change moves one unit within a row),
so F is a distance in matrix space. How it is computed:

* accuracy: closed form. A change moves the number of correct items by at most one, so
  ``F = n (acc_L - acc_c)`` minimised over challengers: the difference in correct items.
* a measure affine in the cells when the row sums are fixed (macro recall, expected cost, ...;
  tested numerically as in :func:`evalreport.analyses.baselines.is_linear`) with at most
  :data:`FULL_CLASSES` classes: every change has a constant effect, so taking the changes with
  the largest effects first, over every possible change, is optimal (exact).
* any other measure: a greedy search - each round evaluates every candidate change on the stacked
  ``(n, K, K)`` tensors and applies a batch of the strong ones only (each narrowing the gap by at
  least half as much as the best one; as many as the best one suggests are needed; when they
  close the gap, a binary search keeps the shortest closing prefix), re-evaluating between
  batches; a pruning pass then undoes every change whose removal still leaves the challenger
  level. When cheap (:data:`SINGLE_CELLS`) the one-at-a-time best-move search runs too and the
  smaller count is kept. Every count it reports is a pair of matrices checked on the measure, so
  it is an *upper bound*. Challengers are searched closest first, each only up to the best count so far.
  With few classes and a small bound, an exhaustive search over every matrix within ``bound - 1``
  changes of the leader and of each challenger proves the bound minimal (or finds the minimum),
  and the row says ``exact``.
* candidate changes: with at most :data:`FULL_CLASSES` classes every change is a candidate.
  Above that, only the changes that matter most: the leader loses a correct item of class g to
  its most frequent confusion in row g, the challenger gains one by fixing its most frequent
  error in row g, for the :data:`MAX_ROWS` classes with the fewest gold plus predicted items
  (where one item weighs most); and only the :data:`MAX_CHALLENGERS` systems closest to the
  leader are challengers. Counts found so are upper bounds. Timing, 11 ImageNet systems x 1,000
  classes: accuracy 0.04 s, macro F1 1.5 s, kappa and MCC under 1 s, confusion entropy (0.1 s per
  matrix evaluation) about 15 s. Everything is deterministic (no time limits).
"""
from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

from evalreport.errors import MeasureError
from evalreport.analyses.resampling import p_floor, resamples_needed
from evalreport.measures import bind, compute, get

__all__ = ["findings", "Findings", "fragility", "pair_fragility", "FULL_CLASSES", "MAX_ROWS", "MAX_CHALLENGERS",
           "COLUMNS"]

COLUMNS = ["finding", "system", "measure", "value", "detail"]
FRAGILITY_COLUMNS = ["system", "moves", "at_least", "leader_moves", "challenger_moves", "exact", "method"]

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
_ROUND = 12


# ----------------------------------------------------------------------------- fragility


@dataclass(frozen=True)
class PairFragility:
    """Changes that let one challenger draw level with the leader."""

    moves: int | None            # None: no sequence of changes found
    leader_moves: int | None
    challenger_moves: int | None
    exact: bool
    method: str
    at_least: int | None = None  # a proven lower bound (= moves when exact)

    def __post_init__(self):
        if self.exact and self.at_least is None:
            object.__setattr__(self, "at_least", self.moves)


class _Oriented:
    """A measure as a function of stacked matrices, oriented so that higher is better; NaN -> -inf."""

    def __init__(self, measure, *, positive=None, policy="nan", costs=None, task=None):
        self.m = get(measure)
        self.kw = dict(positive=positive, policy=policy, costs=costs, task=task)
        self.sign = 1.0 if self.m.higher_is_better else -1.0
        self.calls = 0

    def __call__(self, C: np.ndarray, chunk: int | None = None) -> np.ndarray:
        C = np.asarray(C, dtype=float)
        K = C.shape[-1]
        chunk = chunk or max(1, int(2e7 // max(K * K, 1)))
        out = []
        for i in range(0, len(C), chunk):
            self.calls += 1
            v = compute(self.m, C[i:i + chunk], explain=False, **self.kw).value
            out.append(np.round(self.sign * np.asarray(v, dtype=float), _ROUND))
        v = np.concatenate(out) if out else np.zeros(0)
        return np.where(np.isnan(v), -np.inf, v)


def _level(challenger: np.ndarray, leader: np.ndarray) -> np.ndarray:
    """Challenger at least level with the leader (values oriented, rounded; -inf = undefined)."""
    return (challenger >= leader) & np.isfinite(challenger)


def _candidates(X: np.ndarray, *, lower: bool, rows: np.ndarray | None) -> np.ndarray:
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


def _apply(X: np.ndarray, moves: np.ndarray) -> np.ndarray:
    """A stack: X with each move applied alone."""
    out = np.repeat(X[None], len(moves), axis=0)
    i = np.arange(len(moves))
    out[i, moves[:, 0], moves[:, 1]] -= 1
    out[i, moves[:, 0], moves[:, 2]] += 1
    return out


def _apply_both(X: np.ndarray, Y: np.ndarray, moves: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """Copies of X (side 0) and Y (side 1) with the first ``k`` of ``moves`` (side, gold, from, to) applied."""
    out = X.copy(), Y.copy()
    for side, M in enumerate(out):
        part = moves[:k][moves[:k, 0] == side]
        np.add.at(M, (part[:, 1], part[:, 2]), -1)
        np.add.at(M, (part[:, 1], part[:, 3]), 1)
    return out


def _after(f: "_Oriented", X: np.ndarray, moves: np.ndarray) -> np.ndarray:
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


def _rows_for(X: np.ndarray, Y: np.ndarray, K: int) -> tuple[np.ndarray | None, np.ndarray | None]:
    if K <= FULL_CLASSES:
        return None, None
    n = X.sum(axis=1)

    def pick(M, lower):
        weight = n + M.sum(axis=0)              # where one item weighs most in class-averaged measures
        usable = (np.diag(M) >= 1) if lower else (n - np.diag(M) >= 1)
        idx = np.flatnonzero(usable & (n > 0))
        return idx[np.argsort(weight[idx], kind="stable")][:MAX_ROWS]
    return pick(X, True), pick(Y, False)


#: The one-at-a-time search also runs when (count so far) x (candidates) x K^2 is at most this many cells.
SINGLE_CELLS = 20_000_000


def _greedy(f: _Oriented, X: np.ndarray, Y: np.ndarray, *, max_steps: int) -> tuple[int | None, int, int]:
    """Greedy search: (moves, leader moves, challenger moves) of a verified pair of matrices, or None.

    The batched search of :func:`_search`; when that is cheap enough (:data:`SINGLE_CELLS`) the
    one-at-a-time best-move search (each round applies the single change that narrows the gap
    most) runs as well, up to the count found, and the smaller count is kept.
    """
    found = _search(f, X, Y, max_steps=max_steps)
    K = X.shape[-1]
    cap = max_steps if found[0] is None else found[0]
    cands = 2 * K * K * (K - 1) if K <= FULL_CLASSES else 4 * MAX_ROWS
    if cap * cands * K * K <= SINGLE_CELLS:
        single = _search(f, X, Y, max_steps=cap, single=True)
        if single[0] is not None and (found[0] is None or single[0] < found[0]):
            return single
    return found


@np.errstate(invalid="ignore")
def _search(f: _Oriented, X: np.ndarray, Y: np.ndarray, *, max_steps: int,
            single: bool = False) -> tuple[int | None, int, int]:
    """One greedy search (``single``: one change per round, the best).

    Each round evaluates every candidate change on the current matrices (one stacked tensor per
    system) and applies a batch of the *strong* changes only: those narrowing the gap by at least
    half as much as the best one (one destination per source cell, taken in turn, each cell's
    items at most once per turn), at most as many as the best one suggests are needed. A batch
    that closes the gap is cut to its shortest closing prefix (binary search); one that narrows it
    by less than the best change alone is replaced by that change. The values are re-evaluated
    between batches. A pruning pass then undoes every change whose removal still leaves the
    challenger level (:func:`_prune`), and the count is the distance ``sum (X - X')^+`` of the
    matrices found, so a change undone later (p -> q -> p) is not counted.
    """
    X0, Y0 = X.astype(float), Y.astype(float)
    X, Y = X0.copy(), Y0.copy()
    K = X.shape[-1]
    vx, vy = f(np.stack([X, Y]))

    def applied(batch, k):
        return _apply_both(X, Y, batch, k)

    def closes(batch, k):
        nx, ny = applied(batch, k)
        v = f(np.stack([nx, ny]))
        return bool(_level(v[1:], v[:1])[0]), v

    def used():
        return int(np.maximum(X0 - X, 0).sum() + np.maximum(Y0 - Y, 0).sum())

    while not _level(np.array([vy]), np.array([vx]))[0]:
        if used() >= max_steps:
            return None, 0, 0
        rx, ry = _rows_for(X, Y, K)
        mx, my = _candidates(X, lower=True, rows=rx), _candidates(Y, lower=False, rows=ry)
        gx = _after(f, X, mx)                                    # leader's new values
        gy = _after(f, Y, my)                                    # challenger's new values
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
        batch, turn = [], 0
        while len(batch) < target:
            more = [mv for mv, u in zip(picked, units) if u > turn]
            if not more:
                break
            batch += more[:target - len(batch)]
            turn += 1
        batch = np.array(batch, dtype=np.int64)
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
    X, Y = _prune(f, X0, Y0, X, Y)
    a, b = int(np.maximum(X0 - X, 0).sum()), int(np.maximum(Y0 - Y, 0).sum())
    return a + b, a, b


def _reverts(M0: np.ndarray, M: np.ndarray) -> np.ndarray:
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
def _prune(f: _Oriented, X0: np.ndarray, Y0: np.ndarray, X: np.ndarray, Y: np.ndarray):
    """Undo changes while the challenger stays level: each round evaluates undoing every single
    change (of either system), then undoes as many of those that keep it level as it can at once,
    the ones leaving the widest margin first (binary search on that order, each step verified).
    Ends when undoing any one change would leave the challenger behind."""
    X, Y = X.copy(), Y.copy()
    while True:
        vx, vy = f(np.stack([X, Y]))
        rx, ry = _reverts(X0, X), _reverts(Y0, Y)
        if not len(rx) + len(ry):
            return X, Y
        nx, ny = _after(f, X, rx), _after(f, Y, ry)
        margin = np.concatenate([np.where(np.isfinite(vy), vy - nx, -np.inf),
                                 np.where(np.isfinite(ny), ny - vx, -np.inf)])
        margin = np.where(np.isnan(margin), -np.inf, margin)
        keep = np.flatnonzero(margin >= 0)
        if not len(keep):
            return X, Y
        keep = keep[np.argsort(-margin[keep], kind="stable")]
        undo = np.array([(0, *rx[j]) if j < len(rx) else (1, *ry[j - len(rx)]) for j in keep], dtype=np.int64)

        def state(k):
            return _apply_both(X, Y, undo, k)

        def fine(k):
            nx_, ny_ = state(k)
            if (nx_ < 0).any() or (ny_ < 0).any():
                return False
            if (np.maximum(X0 - nx_, 0).sum() + np.maximum(Y0 - ny_, 0).sum()
                    != np.maximum(X0 - X, 0).sum() + np.maximum(Y0 - Y, 0).sum() - k):
                return False                      # two undos of the same cell pair overshoot
            v = f(np.stack([nx_, ny_]))
            return bool(_level(v[1:], v[:1])[0])

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


def _is_linear(f: _Oriented, X: np.ndarray, Y: np.ndarray, rng) -> bool:
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


def _linear_exact(f: _Oriented, X: np.ndarray, Y: np.ndarray) -> tuple[int | None, int, int]:
    """Constant effects per change: take the items with the largest effects first (optimal), then
    check the chosen changes on the matrices themselves (None when they do not close the gap)."""
    vx, vy = f(np.stack([X, Y]))
    gap = vx - vy
    units = []
    for M, lower in ((X, True), (Y, False)):
        moves = _candidates(M, lower=lower, rows=None)
        if not len(moves):
            continue
        v = _after(f, M, moves)
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
    if not _level(v[1:], v[:1])[0]:
        return None, 0, 0
    a = sum(t for side, _, t in chosen if side == 0)
    b = sum(t for side, _, t in chosen if side == 1)
    return a + b, a, b


def _ball(f: _Oriented, C: np.ndarray, depth: int, *, lower: bool) -> np.ndarray | None:
    """Best oriented value reachable within 0..depth changes of C (min for the leader, max for the
    challenger), by enumerating every matrix at each distance; None when there are too many.

    The matrices at distance d are the neighbours (one change) of those at distance d - 1 whose
    distance ``sum (C - X)^+`` is d, so no set of visited matrices is needed.
    """
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


def _prove(f: _Oriented, X: np.ndarray, Ys: list, bound: int) -> list | None:
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
                if _level(np.array([hi_y[total - i]]), np.array([lo_x[i]]))[0]:
                    found = (total, i, total - i)
                    break
            if found:
                break
        out.append(found)
    return out


_GREEDY_ALL = "greedy search over every single change"
_GREEDY_RESTRICTED = f"greedy search over restricted candidate changes (at most {MAX_ROWS} classes per system)"


def _pairs(f: _Oriented, X: np.ndarray, Ys: list, *, seed: int = 0, exhaustive: bool = True) -> list[PairFragility]:
    K = X.shape[-1]
    n = int(round(X.sum()))
    vx = f(X[None])[0]
    out: list[PairFragility | None] = []
    todo = []
    for i, Y in enumerate(Ys):
        vy = f(Y[None])[0]
        if _level(np.array([vy]), np.array([vx]))[0]:
            out.append(PairFragility(0, 0, 0, True, "already level"))
        elif f.m.id == "accuracy" and np.isfinite(vx) and np.isfinite(vy):
            d = int(round(np.trace(X) - np.trace(Y)))
            out.append(PairFragility(d, d, 0, True, "closed form: the difference in correct items"))
        else:
            out.append(None)
            todo.append(i)
    if not todo:
        return out
    if K <= FULL_CLASSES and _is_linear(f, X, Ys[todo[0]], np.random.default_rng(seed)):
        for i in todo:
            moves, a, b = _linear_exact(f, X, Ys[i])
            if moves is not None:
                out[i] = PairFragility(moves, a, b, True, "the measure is linear in the cells, so the changes "
                                                          "with the largest effect are taken first")
        todo = [i for i in todo if out[i] is None]
        if not todo:
            return out
    how = _GREEDY_ALL if K <= FULL_CLASSES else _GREEDY_RESTRICTED
    cap = 2 * n + 1
    for i in todo:          # closest challengers first: a later one is searched only up to the best so far
        moves, a, b = _greedy(f, X, Ys[i], max_steps=cap)
        if moves is not None:
            cap = min(cap, moves)
        out[i] = (PairFragility(moves, a, b, moves == 1, "one change suffices" if moves == 1 else how, at_least=1)
                  if moves is not None else
                  PairFragility(None, None, None, False, how + (": no sequence found" if cap == 2 * n + 1 else
                                                                f": stopped after {cap} change{'s' * (cap > 1)} "
                                                                "(another challenger needs no more)"), at_least=1))
    bound = min((out[i].moves for i in todo if out[i].moves is not None), default=None)
    if bound is None:        # the greedy search is stuck: search the whole space if it is small
        bound = n + 1
    if exhaustive and K <= FULL_CLASSES and bound > 1:
        proof = _prove(f, X, [Ys[i] for i in todo], bound)
        if proof is not None:
            what = f"exhaustive search over every matrix within {bound - 1} changes of both systems"
            for i, found in zip(todo, proof):
                if found is not None:
                    out[i] = PairFragility(*found, True, what)
                elif out[i].moves is None and bound == n + 1:
                    out[i] = PairFragility(None, None, None, True, "exhaustive search: no sequence of changes "
                                                                   "lets the challenger draw level", at_least=bound)
                elif out[i].moves == bound:
                    out[i] = PairFragility(out[i].moves, out[i].leader_moves, out[i].challenger_moves, True,
                                           how + "; " + what + " finds no shorter one")
                else:     # at least `bound`: the others decide the minimum
                    out[i] = PairFragility(out[i].moves, out[i].leader_moves, out[i].challenger_moves, False,
                                           how + f" (at least {bound})", at_least=bound)
    return out


def pair_fragility(measure, leader: np.ndarray, challenger: np.ndarray, *, positive=None, policy: str = "nan",
                   costs=None, task=None, exhaustive: bool = True, seed: int = 0) -> PairFragility:
    """The fewest changes to ``leader``'s and ``challenger``'s (K, K) matrices after which the
    challenger is at least level under ``measure`` (see the module docstring)."""
    f = _Oriented(measure, positive=positive, policy=policy, costs=costs, task=task)
    return _pairs(f, np.asarray(leader, dtype=float), [np.asarray(challenger, dtype=float)], seed=seed,
                  exhaustive=exhaustive)[0]


def fragility(counts, primary: str, leader: str, *, positive=None, policy: str = "nan", costs=None,
              challengers=None, exhaustive: bool = True) -> pd.DataFrame:
    """One row per challenger: system, moves (the count found; NA: none), at_least (a proven lower
    bound), leader_moves, challenger_moves, exact, method."""
    tensor = np.asarray(counts.pooled().tensor, dtype=float)
    systems = list(counts.systems)
    K = tensor.shape[-1]
    L = systems.index(leader)
    f = _Oriented(bind(primary, counts.labels), positive=positive, policy=policy, costs=costs,
                  task=getattr(counts, "n_task", None))
    if challengers is None:
        v = f(tensor)
        order = [int(i) for i in np.argsort(-v, kind="stable") if i != L]
        if K > FULL_CLASSES and get(primary).id != "accuracy":
            order = order[:MAX_CHALLENGERS]
        challengers = [systems[i] for i in order]
    res = _pairs(f, tensor[L], [tensor[systems.index(c)] for c in challengers], exhaustive=exhaustive)
    return pd.DataFrame([{"system": c, "moves": r.moves, "at_least": r.at_least, "leader_moves": r.leader_moves,
                          "challenger_moves": r.challenger_moves, "exact": r.exact, "method": r.method}
                         for c, r in zip(challengers, res)],
                        columns=FRAGILITY_COLUMNS).astype({k: "Int64" for k in FRAGILITY_COLUMNS[1:5]})


# ----------------------------------------------------------------------------- findings


@dataclass(frozen=True)
class Findings:
    """``findings``: tidy rows (finding, system, measure, value, detail); ``fragility``: per challenger."""

    findings: pd.DataFrame
    fragility: pd.DataFrame

    def tables(self) -> dict[str, pd.DataFrame]:
        return {"findings": self.findings, "fragility": self.fragility}


def _winners(frame: pd.DataFrame, key: str) -> list[tuple]:
    """(key value, system, value) of every rank-1 system per ``key`` (ties: several)."""
    out = []
    for k, one in frame[frame["value"].notna()].groupby(key, sort=False):     # undefined values win nothing
        best = one["rank"].min()
        if pd.isna(best):
            continue
        top = one[one["rank"] == best]
        # an average rank > 1 for the best means a tie for first: every tied system wins
        out += [(k, s, v) for s, v in zip(top["system"], top["value"])]
    return out


def findings(comp, counts=None, *, what_if: pd.DataFrame | None = None, alpha: float | None = None,
             costs=None, fragility_count: bool = True) -> Findings:
    """Every finding of the report's opening block, from the comparison's tables.

    ``comp``: a :class:`~evalreport.analyses.compare.Comparison`; ``counts``: its confusion
    tensor (:class:`~evalreport.counts.Counts`, for the fragility count); ``what_if``: the frame of
    :func:`evalreport.analyses.prevalence.what_if_ranks` (optional).
    """
    primary = comp.primary
    m = comp.record(primary)            # bound to the comparison's classes and gain matrix
    alpha = comp.settings.get("alpha", 0.05) if alpha is None else alpha
    rows: list[dict] = []

    def add(finding, system="", measure="", value=np.nan, detail=""):
        rows.append({"finding": finding, "system": system, "measure": measure, "value": value, "detail": detail})

    board = comp.leaderboard
    defined = board[board["value"].notna()]
    resampled = len(comp.intervals) > 0
    frag = pd.DataFrame(columns=FRAGILITY_COLUMNS)
    if defined.empty:
        add("not_available", measure=primary, detail=f"{m.label} is undefined for every system")
        return Findings(pd.DataFrame(rows, columns=COLUMNS), frag)
    top = defined[defined["rank"] == defined["rank"].min()]
    leader = str(top["system"].iloc[0])
    lead = top.iloc[0]
    for _, r in top.iterrows():
        add("leader", r["system"], primary, float(r["value"]), "tied" if len(top) > 1 else "sole")
    if resampled and pd.notna(lead["lo"]):
        add("leader_lo", leader, primary, float(lead["lo"]), f"{100 * (1 - alpha):g}% bootstrap interval")
        add("leader_hi", leader, primary, float(lead["hi"]), f"{100 * (1 - alpha):g}% bootstrap interval")
    if resampled and pd.notna(lead["p_best"]):
        add("p_best", leader, primary, float(lead["p_best"]), "share of bootstrap resamples ranking it first")

    # the corrected pairwise tests: the leader's significance group
    test = comp.settings.get("pairwise_test", "bootstrap")
    pw = comp.pairwise[(comp.pairwise["test"] == test)] if len(comp.pairwise) else comp.pairwise
    if len(pw) and len(comp.groups):
        g = comp.groups.set_index("system")["group"]
        lead_group = g.get(leader)
        valued = set(defined["system"])
        # tested: a defined primary value and a significance group; the others are named, not counted
        tested = [s for s in comp.groups["system"] if s != leader and s in valued and pd.notna(g.get(s))]
        for s in board["system"]:
            if s != leader and s not in tested:
                add("untested", s, primary, np.nan, "no significance group: " + (
                    f"{m.label} is undefined" if s not in valued else "not tested against the others"))
        for s in tested:
            pair = pw[((pw["system_a"] == leader) & (pw["system_b"] == s))
                      | ((pw["system_b"] == leader) & (pw["system_a"] == s))]
            p = float(pair["p_holm"].iloc[0]) if len(pair) else np.nan
            if pd.notna(lead_group) and g.get(s) == lead_group:
                add("inseparable", s, primary, p, f"{test} test, Holm-corrected, alpha {alpha:g}")
        n_sep = int(sum(1 for s in tested if pd.notna(lead_group) and g.get(s) != lead_group))
        # the smallest Holm-corrected p the test can give: m pairs with a defined p x 1 / (B + 1)
        floor = p_floor(pw, test) if "n_resamples" in pw else None
        if floor is not None:
            add("p_floor", "", primary, floor["holm"],
                f"{floor['pairs']} pair{'s' * (floor['pairs'] != 1)} with a p-value and {floor['B']:,} resamples: "
                "Holm's smallest attainable p")
            if floor["holm"] >= alpha:
                add("resamples_needed", "", primary, resamples_needed(floor["pairs"], alpha),
                    f"the fewest resamples B with {floor['pairs']} / (B + 1) below alpha {alpha:g}")
        add("separable_count", leader, primary, n_sep, f"{test} test, Holm-corrected, alpha {alpha:g}")

    # who wins under each measure: raw, calibrated, what-if distributions
    ranks = comp.ranks if len(comp.systems) > 1 else comp.ranks.iloc[:0]      # one system wins trivially
    for cal, name in ((False, "winner"), (True, "winner_calibrated")):
        part = ranks[ranks["calibrated"].astype(bool) == cal]
        for meas, s, v in _winners(part, "measure"):
            add(name, s, meas, float(v) if pd.notna(v) else np.nan)
    if what_if is not None and len(what_if) and len(comp.systems) > 1:
        wi = what_if[what_if["scenario"] != "observed"]
        for scen, s, v in _winners(wi, "scenario"):
            add("winner_what_if", s, primary, float(v) if pd.notna(v) else np.nan, str(scen))

    # the runner-up, the gap and the noise
    sign = 1.0 if m.higher_is_better else -1.0
    others = defined[defined["system"] != leader]
    runner = None
    if len(others):
        runner_row = others.iloc[0]
        runner = str(runner_row["system"])
        add("runner_up", runner, primary, sign * (float(lead["value"]) - float(runner_row["value"])),
            "gap to the leader (leader better: > 0)")
        boot = comp.pairwise[comp.pairwise["test"] == "bootstrap"] if len(comp.pairwise) else comp.pairwise
        pair = boot[((boot["system_a"] == leader) & (boot["system_b"] == runner))
                    | ((boot["system_b"] == leader) & (boot["system_a"] == runner))] if len(boot) else boot
        if len(pair) and pd.notna(pair["p_value"].iloc[0]):
            p = float(pair["p_value"].iloc[0])
            add("gap_noise", runner, primary, p, "below noise" if p >= alpha else "beyond noise")

    # fragility of the top position
    if len(top) > 1:
        add("fragility", str(top["system"].iloc[1]), primary, 0, "exact: tied for first")
    elif fragility_count and counts is not None and runner is not None:
        try:
            frag = fragility(counts, m, leader, positive=_positive(comp),
                             policy=comp.settings.get("policy", "nan"), costs=costs)
        except (MeasureError, ValueError) as exc:        # the count is an extra: say why it is missing
            add("not_available", measure=primary, detail=f"fragility count not computed: {exc}")
        found = frag[frag["moves"].notna()]
        if len(found):
            best = found.loc[found["moves"].astype(float).idxmin()]
            F = int(best["moves"])
            tied_min = found[found["moves"] == F]
            # every system with a defined value, the leader aside, was a challenger
            every = set(defined["system"]) - {leader} <= set(frag["system"])
            # exact when every other system was a challenger and none can need fewer than F
            exact = every and bool(frag["at_least"].notna().all()) and int(frag["at_least"].min()) >= F
            how = ("exact: " if exact else "upper bound: ") + str(best["method"])
            if not every:
                how += f"; challengers: the {len(frag)} systems closest to the leader"
            add("fragility", best["system"], primary, F,
                how + f"; leader changes {int(best['leader_moves'])}, "
                f"challenger changes {int(best['challenger_moves'])}"
                + (f"; {len(tied_min)} challengers need as few" if len(tied_min) > 1 else ""))

    # systems without a primary value: never tested, never compared with a baseline
    for s in board.loc[board["value"].isna(), "system"]:
        add("no_value", str(s), primary, np.nan, f"{m.label} is undefined")

    # chance baselines under the primary measure
    base = comp.baselines[comp.baselines["measure"] == primary] if len(comp.baselines) else comp.baselines
    base = base[base["value"].notna()] if len(base) else base
    if len(base):
        # the strongest; among equals a named predictor or random model before "always predicting <class>"
        top_v = (sign * base["value"]).max()
        equal = base[sign * base["value"] >= top_v - 10.0 ** -_ROUND]
        strongest = equal.iloc[int(np.argmin([str(b).startswith("constant:") for b in equal["baseline"]]))]
        add("baseline_best", str(strongest["baseline"]), primary, float(strongest["value"]), str(strongest["baseline"]))
        named: dict = {}
        for _, r in board.iterrows():
            if pd.isna(r["value"]):
                continue
            beaten = base[sign * base["value"] >= sign * r["value"] - 10.0 ** -_ROUND]
            if len(beaten):
                b = beaten.loc[(sign * beaten["value"]).idxmax()]
                add("at_or_below_baseline", r["system"], primary, float(r["value"]), str(b["baseline"]))
                named.setdefault(str(b["baseline"]), float(b["value"]))
        for name, v in named.items():       # the value of each baseline named above, in its own row
            add("baseline", name, primary, v, "a chance baseline a system is at or below")

    # undefined measures and why
    sc = comp.scores[comp.scores["undefined"].astype(bool) & ~comp.scores["calibrated"].astype(bool)]
    for _, r in sc.iterrows():
        reason = "" if pd.isna(r["reason"]) else str(r["reason"])
        if pd.isna(r["value"]):
            add("undefined", r["system"], r["measure"], np.nan, reason)
        else:           # a class average with undefined classes skipped: it has a value
            add("undefined_skipped", r["system"], r["measure"], float(r["value"]), reason)

    # what this input cannot tell
    if not resampled:
        counted = any(r["finding"] == "fragility" for r in rows)
        why = ("with confusion matrices only there are no bootstrap intervals, P(best) or significance tests (they "
               "resample test items, which need item-level predictions), so whether the leader's lead is larger than "
               "the sampling noise cannot be said"
               + ("; the fragility count still shows how many changed predictions it rests on" if counted else "")
               if comp.settings.get("input") == "confusion matrices" else
               "no resampling was requested (bootstrap = 0), so there are no intervals, P(best) or significance "
               "tests, and whether the leader's lead is larger than the sampling noise cannot be said")
        add("not_available", measure=primary, detail=why)
    return Findings(pd.DataFrame(rows, columns=COLUMNS), frag)


def _positive(comp):
    pos = comp.settings.get("positive")
    return None if pos is None else list(comp.labels).index(pos)
