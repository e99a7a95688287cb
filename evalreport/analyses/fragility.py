"""The fragility count of the top position: the fewest changed predictions after which a challenger
draws level with the leader (the ``fragility`` rows of :func:`evalreport.analyses.findings.findings`).

A *change* replaces one item's prediction in one system's output by another class: one count moves
from cell ``(g, p)`` to ``(g, p')`` (rows = gold, so gold class sizes stay fixed). The count is

    F = min over challengers c of  min { a + b : after a changes to the leader's matrix and b
        changes to c's matrix, c's primary value is at least the leader's }

(values rounded to 12 decimals, as the ranking does; an undefined value ranks last; F = 0 for a
tie). Two matrices with the same row sums are ``sum (A - B)^+`` changes apart, so F is a distance.

* accuracy: closed form, ``F = n (acc_L - acc_c)`` minimised over challengers.
* a measure affine in the cells at fixed row sums (tested as in
  :func:`evalreport.analyses.baselines.is_linear`) with at most :data:`FULL_CLASSES` classes: the
  changes with the largest effects first are optimal (exact; :mod:`.fragility_proof`).
* any other measure: the greedy search of :mod:`.fragility_search`, an upper bound checked on the
  measure; with few classes and a small bound, the exhaustive search of :mod:`.fragility_proof`
  proves it minimal (or finds the minimum) and the row says ``exact``.
* above :data:`FULL_CLASSES` classes the candidate changes are restricted to the :data:`MAX_ROWS`
  classes where one item weighs most and the challengers to the :data:`MAX_CHALLENGERS` systems
  closest to the leader (:mod:`.fragility_moves`); such counts are upper bounds.

Everything is deterministic (no time limits); timings are in benchmarks/bench_fragility.py.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import cast

import numpy as np
import pandas as pd

from evalreport.analyses.fragility_moves import (  # noqa: F401
    FULL_CLASSES,
    MAX_CHALLENGERS,
    MAX_NEIGHBOURS,
    MAX_ROWS,
    MAX_STATES,
    Oriented,
    at_least_level,
)
from evalreport.analyses.fragility_proof import linear_exact, linear_on_rows, prove
from evalreport.analyses.fragility_search import SINGLE_CELLS, greedy_bound  # noqa: F401
from evalreport.measures import bind, get

__all__ = ["fragility", "pair_fragility", "PairFragility", "FRAGILITY_COLUMNS", "FULL_CLASSES", "MAX_ROWS",
           "MAX_CHALLENGERS", "MAX_STATES", "MAX_NEIGHBOURS", "SINGLE_CELLS"]

FRAGILITY_COLUMNS = ["system", "moves", "at_least", "leader_moves", "challenger_moves", "exact", "method"]


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



_GREEDY_ALL = "greedy search over every single change"
_GREEDY_RESTRICTED = f"greedy search over restricted candidate changes (at most {MAX_ROWS} classes per system)"


def _pairs(f: Oriented, X: np.ndarray, Ys: list, *, seed: int = 0, exhaustive: bool = True) -> list[PairFragility]:
    K = X.shape[-1]
    n = int(round(X.sum()))
    vx = f(X[None])[0]
    out: list[PairFragility | None] = []
    todo = []
    for i, Y in enumerate(Ys):
        vy = f(Y[None])[0]
        if at_least_level(np.array([vy]), np.array([vx]))[0]:
            out.append(PairFragility(0, 0, 0, True, "already level"))
        elif f.m.id == "accuracy" and np.isfinite(vx) and np.isfinite(vy):
            d = int(round(np.trace(X) - np.trace(Y)))
            out.append(PairFragility(d, d, 0, True, "closed form: the difference in correct items"))
        else:
            out.append(None)
            todo.append(i)
    if not todo:
        return cast(list[PairFragility], out)        # every pair has its result
    if K <= FULL_CLASSES and linear_on_rows(f, X, Ys[todo[0]], np.random.default_rng(seed)):
        for i in todo:
            moves, a, b = linear_exact(f, X, Ys[i])
            if moves is not None:
                out[i] = PairFragility(moves, a, b, True, "the measure is linear in the cells, so the changes "
                                                          "with the largest effect are taken first")
        todo = [i for i in todo if out[i] is None]
        if not todo:
            return cast(list[PairFragility], out)    # every pair has its result
    how = _GREEDY_ALL if K <= FULL_CLASSES else _GREEDY_RESTRICTED
    cap = 2 * n + 1
    for i in todo:          # closest challengers first: a later one is searched only up to the best so far
        moves, a, b = greedy_bound(f, X, Ys[i], max_steps=cap)
        if moves is not None:
            cap = min(cap, moves)
        out[i] = (PairFragility(moves, a, b, moves == 1, "one change suffices" if moves == 1 else how, at_least=1)
                  if moves is not None else
                  PairFragility(None, None, None, False, how + (": no sequence found" if cap == 2 * n + 1 else
                                                                f": stopped after {cap} change{'s' * (cap > 1)} "
                                                                "(another challenger needs no more)"), at_least=1))
    done = cast(list[PairFragility], out)          # every pair has its result (the same list)
    bound = min((moves for i in todo if (moves := done[i].moves) is not None), default=None)
    if bound is None:        # the greedy search is stuck: search the whole space if it is small
        bound = n + 1
    if exhaustive and K <= FULL_CLASSES and bound > 1:
        proof = prove(f, X, [Ys[i] for i in todo], bound)
        if proof is not None:
            what = f"exhaustive search over every matrix within {bound - 1} changes of both systems"
            for i, found in zip(todo, proof):
                if found is not None:
                    done[i] = PairFragility(*found, True, what)
                elif done[i].moves is None and bound == n + 1:
                    done[i] = PairFragility(None, None, None, True, "exhaustive search: no sequence of changes "
                                                                   "lets the challenger draw level", at_least=bound)
                elif done[i].moves == bound:
                    done[i] = PairFragility(done[i].moves, done[i].leader_moves, done[i].challenger_moves, True,
                                           how + "; " + what + " finds no shorter one")
                else:     # at least `bound`: the others decide the minimum
                    done[i] = PairFragility(done[i].moves, done[i].leader_moves, done[i].challenger_moves, False,
                                           how + f" (at least {bound})", at_least=bound)
    return done


def pair_fragility(measure, leader: np.ndarray, challenger: np.ndarray, *, positive=None, policy: str = "nan",
                   costs=None, task=None, exhaustive: bool = True, seed: int = 0) -> PairFragility:
    """The fewest changes to ``leader``'s and ``challenger``'s (K, K) matrices after which the
    challenger is at least level under ``measure`` (see the module docstring)."""
    f = Oriented(measure, positive=positive, policy=policy, costs=costs, task=task)
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
    f = Oriented(bind(primary, counts.labels), positive=positive, policy=policy, costs=costs,
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
