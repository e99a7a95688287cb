"""Gold fragility: the fewest changed GOLD labels after which a challenger draws level with the
leader (``gold_fragility.csv``), the counterpart of the prediction fragility of
:mod:`evalreport.analyses.fragility`.

A gold change relabels one item: in every system's matrix one count moves from cell ``(g, p)`` to
``(g', p)`` (column sums stay fixed, row sums move), so the two systems' matrices move together. The
state of a pair is their joint table ``T[g, a, b]`` (gold, leader's label, challenger's label); a
change moves one item from ``T[g, a, b]`` to ``T[g', a, b]``. Destinations are the task's classes
(never the synthetic abstain class or a label only a system predicts).

* accuracy: closed form. Relabelling an item the leader has right and the challenger wrong to the
  challenger's label swings the gap of correct items by 2; an item both have wrong with different
  labels, relabelled to the challenger's, swings it by 1; no change swings it more. With a gap of
  ``d`` correct items and ``m2`` items of the first kind the count is ``ceil(d / 2)`` when
  ``2 m2 >= d`` (always so when every label is a task class), else ``m2 + (d - 2 m2)``.
* a measure affine in the cells (numerically, as :func:`evalreport.analyses.baselines.is_linear`):
  each item's best change has a constant effect, so the items with the largest effects first are
  optimal (exact), checked on the measure.
* any other measure: a greedy search over every single gold change (best change first, pruned
  afterwards), an upper bound checked on the measure. A count of 1 or 2 is exact (every single
  change is evaluated first); larger counts carry ``at_least = 2``.

The search reuses the prediction fragility's pieces (:class:`~.fragility_moves.Oriented`,
:func:`~.fragility_moves.values_after`, :func:`~.fragility_moves.at_least_level`): a gold change on
a matrix is a prediction change on its transpose.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

from evalreport.analyses.fragility_moves import FULL_CLASSES, Oriented, at_least_level, values_after
from evalreport.measures import bind

__all__ = ["gold_fragility", "pair_gold_fragility", "accuracy_gold_changes", "GoldFragility", "GOLD_FRAGILITY_COLUMNS",
           "joint_table"]

GOLD_FRAGILITY_COLUMNS = ["system", "measure", "leader", "changes", "at_least", "exact", "method"]

#: Above this many classes a measure that is not linear is not searched (K^3 (K - 1) candidate changes).
SEARCH_CLASSES = 10
#: The greedy search stops after this many rounds (each applies one or more changes).
MAX_ROUNDS = 2_000


@dataclass(frozen=True)
class GoldFragility:
    """Gold changes that let one challenger draw level with the leader (None: none found)."""

    changes: int | None
    exact: bool
    method: str
    at_least: int | None = None


class _Transposed(Oriented):
    """The measure of the transposed matrices: a gold change on C is a prediction change on C.T."""

    def __init__(self, f: Oriented):
        self.m, self.kw, self.sign, self._f = f.m, f.kw, f.sign, f

    def __call__(self, C: np.ndarray, chunk: int | None = None) -> np.ndarray:
        return self._f(np.swapaxes(np.asarray(C), -1, -2), chunk)


def joint_table(gold: np.ndarray, a: np.ndarray, b: np.ndarray, K: int) -> np.ndarray:
    """``T[g, x, y]``: items with gold ``g``, leader's label ``x`` and challenger's label ``y``.

    Parameters
    ----------
    gold, a, b : (N,) integer codes in 0..K-1.
    K : int
        The number of labels.

    Returns
    -------
    numpy.ndarray
        (K, K, K) integer counts.
    """
    flat = (np.asarray(gold, dtype=np.int64) * K + np.asarray(a, dtype=np.int64)) * K + np.asarray(b, dtype=np.int64)
    return np.bincount(flat, minlength=K ** 3).reshape(K, K, K)


def accuracy_gold_changes(T: np.ndarray, n_task: int | None = None) -> int | None:
    """The exact fewest gold changes for accuracy (module docstring); None when none suffice.

    Parameters
    ----------
    T : (K, K, K) joint table (gold, leader, challenger).
    n_task : int, optional
        Gold labels may change to codes ``0..n_task-1`` only (default: every code).

    Returns
    -------
    int or None
        0 when the challenger is level already.
    """
    K = T.shape[0]
    t = K if n_task is None else n_task
    idx = np.arange(K)
    d = int(T[idx, idx, :].sum() - T[idx, :, idx].sum())          # leader's correct minus challenger's
    if d <= 0:
        return 0
    g, a, b = np.indices(T.shape)
    allowed = b < t
    m2 = int(T[(a == g) & (b != g) & allowed].sum())
    m1 = int(T[(a != g) & (b != g) & (a != b) & allowed].sum())
    if 2 * m2 >= d:
        return math.ceil(d / 2)
    rest = d - 2 * m2
    return m2 + rest if m1 >= rest else None


def _joint_moves(T: np.ndarray, t: int) -> np.ndarray:
    """Every single gold change (g, a, b, g') of an occupied joint cell to a task class g' != g."""
    g, a, b = np.nonzero(T >= 1)
    dest = np.tile(np.arange(t), len(g))
    g, a, b = (np.repeat(x, t) for x in (g, a, b))
    keep = dest != g
    return np.stack([g[keep], a[keep], b[keep], dest[keep]], axis=1)


def _gains(f: Oriented, T: np.ndarray, moves: np.ndarray) -> tuple[np.ndarray, float, float]:
    """How much each gold change narrows the gap (oriented values), and the two values now."""
    X, Y = T.sum(axis=2), T.sum(axis=1)
    ft = _Transposed(f)
    vx, vy = f(np.stack([X, Y]))
    if not len(moves):
        return np.zeros(0), vx, vy
    nx = values_after(ft, X.T.astype(float), moves[:, [1, 0, 3]])
    ny = values_after(ft, Y.T.astype(float), moves[:, [2, 0, 3]])
    with np.errstate(invalid="ignore"):
        gain = np.where(np.isfinite(ny), ny - vy, -np.inf) - np.where(np.isfinite(nx), nx - vx, np.inf)
    return np.where(np.isnan(gain), -np.inf, gain), vx, vy


def _level(f: Oriented, T: np.ndarray) -> bool:
    """Whether the challenger is at least level with the leader on joint table T."""
    v = f(np.stack([T.sum(axis=2), T.sum(axis=1)]).astype(float))
    return bool(at_least_level(v[1:], v[:1])[0])


def _apply(T: np.ndarray, moves: np.ndarray, takes) -> np.ndarray:
    """T with ``takes[i]`` items moved by each move (g, a, b, g')."""
    out = T.copy()
    for (g, a, b, d), k in zip(moves, takes):
        out[g, a, b] -= k
        out[d, a, b] += k
    return out


def _linear(f: Oriented, T: np.ndarray, rng) -> bool:
    """Affine in the cells (at the data's n), tested numerically on the pair and random tables."""
    from evalreport.analyses.baselines import is_linear

    K = T.shape[0]
    n = int(T.sum())
    tables = [T.sum(axis=2), T.sum(axis=1)] + [rng.multinomial(n, np.full(K * K, 1.0 / (K * K))).reshape(K, K)
                                                for _ in range(4)]

    def values(C):
        v = f(C)
        return np.where(np.isfinite(v), v, np.nan)
    return is_linear(values, np.stack(tables).astype(float), rng, rtol=1e-7)


def _linear_exact(f: Oriented, T: np.ndarray, t: int) -> int | None:
    """Constant effects: the best change of each joint cell, largest effects first, checked on f."""
    moves = _joint_moves(T, t)
    gain, vx, vy = _gains(f, T, moves)
    gap = vx - vy
    best: dict[tuple[int, int, int], int] = {}
    for i in np.lexsort((-gain, moves[:, 2], moves[:, 1], moves[:, 0])):
        best.setdefault((int(moves[i, 0]), int(moves[i, 1]), int(moves[i, 2])), int(i))
    units = sorted(((gain[i], i) for i in best.values() if gain[i] > 0), key=lambda u: -u[0])
    total, chosen, takes = 0.0, [], []
    tol = 1e-9
    for gval, i in units:
        if total >= gap - tol:
            break
        count = int(T[tuple(moves[i, :3])])
        take = max(1, min(count, int(np.ceil((gap - total - tol) / gval))))
        total += take * gval
        chosen.append(moves[i])
        takes.append(take)
    if not _level(f, _apply(T, np.array(chosen, dtype=np.int64).reshape(-1, 4), takes)):
        return None
    return int(sum(takes))


def _shortest(ok, lo: int, hi: int) -> int:
    """The smallest k in lo..hi with ok(k), given ok(hi) (binary search; ok is monotone)."""
    while lo < hi:
        mid = (lo + hi) // 2
        if ok(mid):
            hi = mid
        else:
            lo = mid + 1
    return hi


def _greedy(f: Oriented, T0: np.ndarray, t: int, cap: int) -> int | None:
    """Greedy count: best change first, then each group cut to the fewest that keep the challenger level."""
    T = T0.copy()
    moves_done: list[np.ndarray] = []
    takes: list[int] = []
    for _ in range(MAX_ROUNDS):
        if _level(f, T):
            break
        if sum(takes) >= cap:
            return None
        moves = _joint_moves(T, t)
        gain, vx, vy = _gains(f, T, moves)
        if not len(gain) or not np.max(gain) > 0:
            return None
        i = int(np.argmax(gain))
        need = int(np.ceil((vx - vy) / gain[i])) if np.isfinite(gain[i]) and np.isfinite(vx - vy) else 1
        k = max(1, min(need, int(T[tuple(moves[i, :3])]), cap - sum(takes)))
        mv = moves[i:i + 1]
        if k > 1 and _level(f, _apply(T, mv, [k])):
            k = _shortest(lambda j, T=T, mv=mv: _level(f, _apply(T, mv, [j])), 1, k)
        T = _apply(T, mv, [k])
        moves_done.append(moves[i])
        takes.append(k)
    else:
        return None
    if not moves_done:
        return 0
    M = np.array(moves_done, dtype=np.int64)

    def fine(j: int, k: int) -> bool:
        trial = takes[:j] + [k] + takes[j + 1:]
        Tn = _apply(T0, M, trial)
        return bool((Tn >= 0).all()) and _level(f, Tn)
    for j in reversed(range(len(takes))):       # latest groups first
        if fine(j, 0):
            takes[j] = 0
        elif takes[j] > 1:
            takes[j] = _shortest(lambda k, j=j: fine(j, k), 1, takes[j])
    return int(sum(takes))


def pair_gold_fragility(measure, T: np.ndarray, *, n_task: int | None = None, positive=None, policy: str = "nan",
                        costs=None, seed: int = 0) -> GoldFragility:
    """The fewest gold changes after which the challenger is at least level (module docstring).

    Parameters
    ----------
    measure : str or Measure
        The measure (bound to the classes).
    T : (K, K, K) joint table of gold, leader's and challenger's labels (:func:`joint_table`).
    n_task : int, optional
        Gold may change to codes ``0..n_task-1`` only.
    positive, policy, costs
        As for :func:`evalreport.measures.compute`.
    seed : int
        Seed of the numerical linearity test.

    Returns
    -------
    GoldFragility
    """
    T = np.asarray(T, dtype=np.int64)
    K = T.shape[0]
    t = K if n_task is None else int(n_task)
    f = Oriented(measure, positive=positive, policy=policy, costs=costs, task=n_task)
    if _level(f, T):
        return GoldFragility(0, True, "already level", 0)
    if f.m.id == "accuracy":
        c = accuracy_gold_changes(T, n_task)
        return GoldFragility(c, True, "closed form: each change swings the gap in correct items by at most 2", c)
    if K <= FULL_CLASSES and _linear(f, T, np.random.default_rng(seed)):
        c = _linear_exact(f, T, t)
        if c is not None:
            return GoldFragility(c, True, "the measure is linear in the cells, so the changes with the largest "
                                          "effect are taken first", c)
    if K > SEARCH_CLASSES:
        return GoldFragility(None, False, f"not searched: more than {SEARCH_CLASSES} classes")
    c = _greedy(f, T, t, cap=int(T.sum()))
    if c is None:
        return GoldFragility(None, False, "greedy search over every single gold change: no sequence found", 1)
    how = "greedy search over every single gold change, checked on the measure"
    if c <= 2:
        return GoldFragility(c, True, how + ("" if c == 1 else "; no single change suffices"), c)
    return GoldFragility(c, False, how, 2)


def gold_fragility(runs, measures, *, leaders: dict[str, str], positive=None, policy: str = "nan",
                   costs=None, seed: int = 0) -> pd.DataFrame:
    """One row per measure and challenger: the fewest gold changes that bring it level with the leader.

    Parameters
    ----------
    runs : Runs
        Item-level gold labels and predictions.
    measures : list of str or Measure
        The measures (the primary measure and accuracy in the report).
    leaders : dict
        Measure id -> the leading system under it.
    positive, policy, costs, seed
        As in :func:`pair_gold_fragility`.

    Returns
    -------
    pandas.DataFrame
        Columns system, measure, leader, changes (NA: none found), at_least, exact, method.
    """
    K = len(runs.labels)
    systems = list(runs.systems)
    rows = []
    for m in measures:
        rec = bind(m, runs.labels)
        leader = leaders[rec.id]
        L = systems.index(leader)
        for s, name in enumerate(systems):
            if s == L:
                continue
            T = joint_table(runs.gold, runs.pred[L], runs.pred[s], K)
            r = pair_gold_fragility(rec, T, n_task=runs.n_task, positive=positive, policy=policy, costs=costs,
                                    seed=seed)
            rows.append({"system": name, "measure": rec.id, "leader": leader, "changes": r.changes,
                         "at_least": r.at_least, "exact": r.exact, "method": r.method})
    return pd.DataFrame(rows, columns=GOLD_FRAGILITY_COLUMNS).astype({"changes": "Int64", "at_least": "Int64"})
