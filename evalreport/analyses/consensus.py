"""Consensus rankings of systems over the tasks of a benchmark, side by side.

Input: a tidy frame ``scores`` with columns ``task``, ``system``, ``value`` (one row per task x
system that took part; NaN = undefined), per-task directions ``higher_is_better`` (a bool or a
mapping task -> bool), optional task ``weights`` (mapping task -> weight >= 0) and the policy
for gaps ``missing``: ``"drop"`` (a system's aggregates use the tasks it took part in; the
rank-based methods rank the systems present in each task) or ``"last"`` (a system absent from
a task is ranked last there, tied with the other absent ones). Removing systems that miss any
task ("exclude") is the caller's job. An undefined value ranks last among the systems present
(tied) and the notes say so. Systems are handled in name order, so no result depends on row
order.

Methods (each: rank 1 = best, tied aggregates share the average rank):

- ``mean_score`` (``weighted_mean_score`` with weights): the (weighted) mean of a system's
  defined values over its tasks, in the tasks' common direction (with mixed directions: of the
  values with lower-is-better tasks negated). Under ``"last"`` a system without a defined
  value in every weighted task is ranked after the complete ones; under ``"drop"`` its mean
  uses the tasks where it has one.
- ``pooled``: only when the caller passes a frame ``system, value`` (the micro score over
  tasks that share a class set).
- ``mean_rank`` and ``median_rank``: (weighted) mean and median of the per-task ranks (the
  weighted median averages the two middle values when the cumulative weight hits one half
  exactly, so unit weights give :func:`numpy.median`).
- ``borda``: points ``n_t - rank`` in each task (n_t = systems ranked in task t; tied systems
  share the average points), weighted sum over tasks (de Borda 1781). With complete tasks and
  no weights it orders systems exactly as ``mean_rank`` does; under ``"drop"`` a sum, so the
  tasks a system skipped earn it no points.
- ``copeland``: for each system pair, the weight of the tasks ranking i ahead of j versus j
  ahead of i (tasks ranking only one of them, or neither, are not counted); a pairwise
  majority gives +1, an equal split +0.5 to each; the score is the sum over opponents
  (Copeland 1951).
- ``kemeny``: the order minimising the total weighted pairwise disagreement with the per-task
  rankings (a tie in a task costs 1/2), see :mod:`evalreport.analyses.kemeny`: exact for
  S <= ``kemeny_exact_max``, else insertion local search from the better of the mean-rank and
  Copeland orders. When several orders attain the optimum, the systems they order differently
  are tied (they share the average of the positions their block spans); no tie-break by name or
  by another statistic decides a Kemeny rank, so renaming systems never changes one, and two
  systems that every task ties (identical runs) are tied here too. With the heuristic the ties
  are those of the orders one insertion move from the local optimum at no extra cost.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from evalreport.analyses import _tasks
from evalreport.analyses._tasks import oriented, rank_in_tasks, tier_ranks
from evalreport.analyses.kemeny import (
    KEMENY_EXACT_MAX,
    KEMENY_EXACT_MAX_BATCH,
    kemeny_exact_positions,
    kemeny_local,
    local_positions,
    tie_ranks,
)
from evalreport.analyses.ranking import inconsistency, rank_correlation

__all__ = ["METHODS", "Consensus", "task_ranks", "consensus", "consensus_ranks", "kemeny_note",
           "KEMENY_EXACT_MAX", "KEMENY_EXACT_MAX_BATCH"]

METHODS = ("mean_score", "mean_rank", "median_rank", "borda", "copeland", "kemeny")
KEMENY_EXACT_LIMIT = 22
TABLE_ORDER = ("mean_score", "weighted_mean_score", "pooled", "mean_rank", "median_rank", "borda", "copeland",
               "kemeny")


@dataclass(frozen=True)
class Consensus:
    """The consensus rankings of one benchmark (see the module doc).

    ``table``: ``method, system, aggregate, rank`` (methods in :data:`TABLE_ORDER`, rows by rank
    then system; ``aggregate`` is the method's score - NaN for ``kemeny``, whose result is an
    order, not a per-system score); ``agreement``: ``method_a, method_b,
    kendall_tau, flips`` (tau-b; flips = system pairs the two methods order differently,
    a tie against a strict order included); ``disagreements``: ``system_a, system_b,
    methods_a_first, methods_b_first, methods_tied`` (tuples of method names) for every pair on
    which the methods do not all agree; ``notes``: how gaps, undefined values, ties and Kemeny
    were handled.
    """

    table: pd.DataFrame
    agreement: pd.DataFrame
    disagreements: pd.DataFrame
    notes: list[str] = field(default_factory=list)


# ----------------------------------------------------------------------------- per task


def task_ranks(scores: pd.DataFrame, *, higher_is_better=True, missing: str = "drop") -> pd.DataFrame:
    """Every system's average rank (1 = best) in every task: ``task, system, value, rank,
    missing, undefined``. One row per task x system; ``missing`` = the system did not take
    part (its rank is NaN under ``"drop"``, tied last under ``"last"``); ``undefined`` = its
    value is NaN (ranked last among the systems present, tied)."""
    w = _tasks.wide(scores, higher_is_better)
    ranks = rank_in_tasks(w.values, w.higher_is_better, w.present, missing)
    T, S = w.values.shape
    return pd.DataFrame({
        "task": np.repeat(np.asarray(w.tasks, dtype=object), S),
        "system": np.tile(np.asarray(w.systems, dtype=object), T),
        "value": w.values.ravel(), "rank": ranks.ravel(),
        "missing": ~w.present.ravel(), "undefined": (w.present & np.isnan(w.values)).ravel()})


# ----------------------------------------------------------------------------- vectorised core


def _weighted_median(x: np.ndarray, w: np.ndarray, tol: float) -> np.ndarray:
    """Weighted median along the last axis ignoring NaN entries of ``x``."""
    w = np.where(np.isnan(x), 0.0, np.broadcast_to(w, x.shape))
    order = np.argsort(np.where(np.isnan(x), np.inf, x), axis=-1, kind="stable")
    xs = np.take_along_axis(x, order, -1)
    ws = np.take_along_axis(w, order, -1)
    cw = np.cumsum(ws, axis=-1)
    half = cw[..., -1:] / 2
    n = x.shape[-1]
    lo = np.minimum((cw < half - tol).sum(axis=-1, keepdims=True), n - 1)
    hi = np.minimum((cw <= half + tol).sum(axis=-1, keepdims=True), n - 1)
    out = (np.take_along_axis(xs, lo, -1) + np.take_along_axis(xs, hi, -1))[..., 0] / 2
    return np.where(half[..., 0] > 0, out, np.nan)


def _pairwise(ranks: np.ndarray, w: np.ndarray):
    """(ahead, tied) of shape (..., S, S): task weight ranking i ahead of j / tying them."""
    ri = ranks[..., :, :, None]
    rj = ranks[..., :, None, :]
    wt = w[:, None, None]
    ahead = ((ri < rj) * wt).sum(axis=-3)               # NaN comparisons are False: unranked pairs drop
    tied = ((ri == rj) * wt).sum(axis=-3)
    S = ranks.shape[-1]
    tied[..., np.arange(S), np.arange(S)] = 0.0
    return ahead, tied


def _rank_desc(key: np.ndarray) -> np.ndarray:
    """Average ranks of ``key`` (larger = better) along the last axis; NaN keys last (tied)."""
    return tier_ranks(key, np.where(np.isnan(key), 1, 0))


def _core(values, higher_is_better, weights, present, missing, methods, kemeny_exact_max):
    """{method: (aggregate (..., S), rank (..., S))} and the Kemeny convergence flags."""
    values = np.asarray(values, dtype=float)
    T, S = values.shape[-2:]
    hib = np.asarray(higher_is_better, dtype=bool).reshape(T)
    w = np.ones(T) if weights is None else np.asarray(weights, dtype=float).reshape(T)
    present = np.ones((T, S), dtype=bool) if present is None else np.asarray(present, dtype=bool)
    present = np.broadcast_to(present, values.shape)
    tol = 1e-9 * max(1.0, float(w.sum()))
    out = {}
    key = oriented(values, hib)
    ok = present & ~np.isnan(values)
    if "mean_score" in methods:
        wk = np.where(ok, w[:, None], 0.0)
        den = wk.sum(axis=-2)
        mean = np.divide((np.where(ok, key, 0.0) * wk).sum(axis=-2), den,
                         out=np.full(den.shape, np.nan), where=den > 0)
        complete = (ok | (w[:, None] == 0)).all(axis=-2)
        tier = np.where(np.isnan(mean), 2, 0 if missing == "drop" else np.where(complete, 0, 1))
        shown = -mean if not hib.any() else mean
        out["mean_score"] = (shown, tier_ranks(mean, tier))
    ranks = rank_in_tasks(values, hib, present, missing)
    ranked = ~np.isnan(ranks)
    wr = np.where(ranked, w[:, None], 0.0)
    den = wr.sum(axis=-2)
    mean_rank = np.divide((np.where(ranked, ranks, 0.0) * wr).sum(axis=-2), den,
                          out=np.full(den.shape, np.nan), where=den > 0)
    if "mean_rank" in methods or "kemeny" in methods:
        out["mean_rank"] = (mean_rank, _rank_desc(-mean_rank))
    if "median_rank" in methods:
        med = _weighted_median(np.swapaxes(ranks, -1, -2), w, tol)
        out["median_rank"] = (med, _rank_desc(-med))
    if "borda" in methods:
        n_t = ranked.sum(axis=-1, keepdims=True)
        points = ((n_t - np.where(ranked, ranks, n_t)) * w[:, None]).sum(axis=-2)
        out["borda"] = (points, _rank_desc(points))
    if "copeland" in methods or "kemeny" in methods:
        ahead, tied = _pairwise(ranks, w)
        margin = ahead - np.swapaxes(ahead, -1, -2)
        score = np.where(margin > tol, 1.0, np.where(margin >= -tol, 0.5, 0.0))
        score[..., np.arange(S), np.arange(S)] = 0.0
        copeland = score.sum(axis=-1)
        out["copeland"] = (copeland, _rank_desc(copeland))
    converged = None
    if "kemeny" in methods:
        lead = values.shape[:-2]
        cost = (np.swapaxes(ahead, -1, -2) + tied / 2).reshape(-1, S, S)     # cost of i before j
        # reference order: mean rank, ties by column index (a stable sort)
        ref = np.argsort(np.where(np.isnan(mean_rank), np.inf, mean_rank).reshape(-1, S), axis=-1, kind="stable")
        if S <= kemeny_exact_max:
            if S > KEMENY_EXACT_LIMIT:
                raise ValueError(f"kemeny_exact_max = {kemeny_exact_max} asks for an exact search over 2^{S} subsets; "
                                 f"the limit is S = {KEMENY_EXACT_LIMIT} (time and memory grow as S 2^S)")
            _, first, last = kemeny_exact_positions(cost, ref)
        else:
            ref_pos = np.argsort(ref, axis=-1)
            cop = np.lexsort((ref_pos, -copeland.reshape(-1, S)), axis=-1)      # Copeland, ties by ref
            orders, converged = kemeny_local(cost, [ref, cop])
            first, last = local_positions(cost, orders)
        # systems whose order differs between optimal orders share a rank: no tie-break decides
        kem_rank = tie_ranks(first, last).reshape(lead + (S,))
        out["kemeny"] = (np.full(kem_rank.shape, np.nan), kem_rank)
    return {m: out[m] for m in methods}, converged


def _check_methods(methods) -> tuple[str, ...]:
    names = tuple("mean_score" if m == "weighted_mean_score" else m for m in methods)
    bad = [m for m in names if m not in METHODS]
    if bad:
        raise ValueError(f"unknown consensus method(s) {', '.join(map(repr, bad))}; choose from {', '.join(METHODS)}")
    return names


def consensus_ranks(values: np.ndarray, *, higher_is_better, weights=None, present=None, missing: str = "drop",
                    methods=METHODS, kemeny_exact_max: int = KEMENY_EXACT_MAX_BATCH) -> dict[str, np.ndarray]:
    """Consensus ranks of every method for many score tables at once.

    ``values``: (..., T, S) (leading axes = e.g. bootstrap replicates); ``higher_is_better``:
    (T,) bool; ``weights``: (T,) or None; ``present``: (T, S) or (..., T, S) bool or None (all
    present). Returns ``{method: ranks (..., S)}`` (1 = best), the mean-score key named
    ``weighted_mean_score`` when weights are given, exactly as :func:`consensus` ranks each
    table. Kemeny is exact for S <= ``kemeny_exact_max`` (default
    :data:`~evalreport.analyses.kemeny.KEMENY_EXACT_MAX_BATCH`), else the local search:
    :func:`kemeny_note` states which.
    """
    _tasks.check_missing(missing)
    names = _check_methods(methods)
    res, _ = _core(values, higher_is_better, weights, present, missing, names, kemeny_exact_max)
    rename = "weighted_mean_score" if weights is not None else "mean_score"
    return {(rename if m == "mean_score" else m): r for m, (_, r) in res.items()}


def kemeny_note(n_systems: int, kemeny_exact_max: int = KEMENY_EXACT_MAX) -> str:
    """The sentence stating how Kemeny was computed for ``n_systems`` systems."""
    if n_systems <= kemeny_exact_max:
        return f"kemeny: exact (dynamic programming over 2^S subsets), S = {n_systems} <= {kemeny_exact_max}"
    return (f"kemeny: heuristic (insertion local search from the better of the mean-rank and Copeland orders; "
            f"a local optimum, not proven optimal), S = {n_systems} > {kemeny_exact_max}")


# ----------------------------------------------------------------------------- the frame path


def consensus(scores: pd.DataFrame, *, higher_is_better=True, weights=None, missing: str = "drop",
              pooled: pd.DataFrame | None = None, pooled_higher_is_better: bool | None = None,
              kemeny_exact_max: int = KEMENY_EXACT_MAX, seed: int = 0) -> Consensus:
    """All consensus rankings of a benchmark, their agreement and their disagreements.

    See the module doc for the methods. ``pooled``: optional frame ``system, value`` ranked in
    ``pooled_higher_is_better`` (default: the tasks' common direction). ``seed`` is accepted for
    interface stability; every method here is deterministic.
    """
    _tasks.check_missing(missing)
    w = _tasks.wide(scores, higher_is_better)
    wts = _tasks.task_weights(w.tasks, weights)
    res, converged = _core(w.values, w.higher_is_better, wts, w.present, missing, METHODS, kemeny_exact_max)
    systems = np.asarray(w.systems, dtype=object)
    S = len(systems)
    mean_name = "weighted_mean_score" if wts is not None else "mean_score"
    parts = {(mean_name if m == "mean_score" else m): v for m, v in res.items()}
    if pooled is not None:
        direction = pooled_higher_is_better
        if direction is None:
            direction = bool(w.higher_is_better.all()) or not bool((~w.higher_is_better).all())
        p = pooled.assign(system=pooled["system"].astype(str)).set_index("system")["value"]
        pv = pd.to_numeric(p.reindex(systems), errors="coerce").to_numpy(dtype=float)
        parts["pooled"] = (pv, _rank_desc(pv if direction else -pv))
    order = [m for m in TABLE_ORDER if m in parts]
    table = pd.concat([pd.DataFrame({"method": m, "system": systems, "aggregate": parts[m][0],
                                     "rank": parts[m][1]}) for m in order], ignore_index=True)
    table["_o"] = table["method"].map({m: i for i, m in enumerate(order)})
    table = table.sort_values(["_o", "rank", "system"], kind="stable").drop(columns="_o").reset_index(drop=True)
    notes = _notes(w, missing, wts, converged, kemeny_exact_max, S)
    return Consensus(table=table, agreement=_agreement(table, order), disagreements=_disagreements(table, order),
                     notes=notes)


def _agreement(table: pd.DataFrame, order) -> pd.DataFrame:
    """Kendall tau-b and flips between every pair of methods (reusing :mod:`ranking`)."""
    cols = ["method_a", "method_b", "kendall_tau", "flips"]
    if len(order) < 2:
        return pd.DataFrame(columns=cols)
    frame = table.rename(columns={"method": "measure"})
    tau = rank_correlation(frame[["system", "measure", "rank"]], "kendall")
    flips = inconsistency(frame[["system", "measure"]].assign(value=frame["rank"]),
                          higher_is_better={m: False for m in order})
    out = tau.rename(columns={"measure_a": "method_a", "measure_b": "method_b", "value": "kendall_tau"}).merge(
        flips.rename(columns={"measure_a": "method_a", "measure_b": "method_b", "discordant": "flips"}),
        on=["method_a", "method_b"])
    pos = {m: i for i, m in enumerate(order)}
    out = out[out["method_a"].map(pos) < out["method_b"].map(pos)]
    return out[cols].reset_index(drop=True)


def _disagreements(table: pd.DataFrame, order) -> pd.DataFrame:
    """System pairs on which the methods do not all agree (pairs in mean-rank order)."""
    wide = table.pivot(index="system", columns="method", values="rank")[list(order)]
    wide = wide.sort_values(["mean_rank", "system"] if "mean_rank" in wide else ["system"])
    names = np.asarray(wide.index, dtype=object)
    r = wide.to_numpy(dtype=float)                                  # (S, M)
    i, j = np.triu_indices(len(names), 1)
    sign = np.sign(r[j] - r[i])                                     # +1: system i ahead
    split = ~np.all(sign == sign[:, :1], axis=1)
    meth = np.asarray(order, dtype=object)
    rows = [(names[a], names[b], tuple(meth[s > 0]), tuple(meth[s < 0]), tuple(meth[s == 0]))
            for a, b, s in zip(i[split], j[split], sign[split])]
    return pd.DataFrame(rows, columns=["system_a", "system_b", "methods_a_first", "methods_b_first",
                                       "methods_tied"])


def _notes(w, missing, wts, converged, kemeny_exact_max, S) -> list[str]:
    notes = []
    for s, system in enumerate(w.systems):
        absent = [t for t, p in zip(w.tasks, w.present[:, s]) if not p]
        if absent:
            how = ("dropped from those tasks' rankings; its aggregates use the tasks it took part in"
                   if missing == "drop" else "ranked last there (tied with other absent systems)")
            notes.append(f"{system!r} did not take part in task(s) {', '.join(map(repr, absent))}: {how}")
        undefined = [t for t, p, v in zip(w.tasks, w.present[:, s], w.values[:, s]) if p and np.isnan(v)]
        if undefined:
            notes.append(f"{system!r} has an undefined score in task(s) {', '.join(map(repr, undefined))}: ranked "
                         "last there among the systems present (tied), left out of its mean score")
    if missing == "last" and (~w.present).any():
        notes.append("mean score: systems without a score in every task are ranked after the complete ones")
    if w.higher_is_better.any() and not w.higher_is_better.all():
        notes.append("mean score: tasks have mixed directions; lower-is-better scores are negated before averaging")
    if wts is not None:
        notes.append("weights: " + ", ".join(f"{t!r} = {x:g}" for t, x in zip(w.tasks, wts)))
    notes.append("copeland: pairwise majority over the tasks ranking both systems (+1 win, +0.5 tie)"
                 + (", tasks weighted" if wts is not None else ""))
    notes.append(kemeny_note(S, kemeny_exact_max) + "; systems that optimal orders put in different orders "
                 "are tied (they share a rank)" + ("" if S <= kemeny_exact_max else
                                                   " (among the orders one insertion move from the local optimum)"))
    if converged is not None and not converged.all():
        notes.append("kemeny: the local search hit its move limit before reaching a local optimum")
    return notes

