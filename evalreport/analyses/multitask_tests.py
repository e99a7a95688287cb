"""Statistical comparison of systems over the tasks of a benchmark (Demšar 2006, JMLR 7).

Input: the tidy ``scores`` frame of :mod:`evalreport.analyses.consensus` (``task, system,
value``; per-task ``higher_is_better``). Ranks are average ranks within a task (1 = best);
an undefined value ranks last among the systems of its task (tied).

- :func:`friedman`, :func:`friedman_from_ranks`: Friedman's chi-square
  ``chi2_F = 12N / (k(k+1)) * (sum_j R_j^2 - k(k+1)^2 / 4)`` and the Iman-Davenport statistic
  ``F_F = (N-1) chi2_F / (N(k-1) - chi2_F)`` with (k-1, (k-1)(N-1)) degrees of freedom
  (Demšar 2006, section 3.2.2). The frame path divides chi2_F by the tie correction
  ``1 - sum (t^3 - t) / (N k (k^2 - 1))`` (t = sizes of tied groups within a task), as
  :func:`scipy.stats.friedmanchisquare` does; ``tie_correction=False`` gives Demšar's formula.
  Friedman needs complete blocks: only the systems present in every task are used.
- :func:`nemenyi`: the critical difference ``CD = q_alpha sqrt(k(k+1) / (6N))`` with
  ``q_alpha`` the studentized range quantile for k groups and infinite degrees of freedom
  divided by sqrt 2 (Demšar 2006, section 3.2.2, Table 5); two systems differ significantly
  when their average ranks differ by at least CD. The pair's p-value is the studentized range
  survival function at ``sqrt 2 |R_a - R_b| / sqrt(k(k+1) / (6N))``.
- :func:`cd_cliques`: the bars of a critical-difference diagram.
- :func:`wilcoxon_holm`: Wilcoxon signed-rank tests (:func:`scipy.stats.wilcoxon`) on the
  per-task differences of every system pair, Holm-corrected over the pairs (Demšar 2006,
  sections 3.1.3 and 3.2.2).
- :func:`wins`: tasks won, and won significantly after a Holm correction across tasks.

Functions returning a DataFrame put their notes in ``frame.attrs["notes"]`` (a list of str).
"""
from __future__ import annotations

import warnings
from collections.abc import Mapping

import numpy as np
import pandas as pd
from scipy import stats

from evalreport.analyses import _tasks
from evalreport.analyses._tasks import oriented, rank_in_tasks
from evalreport.analyses.resampling import holm

__all__ = ["friedman", "friedman_from_ranks", "nemenyi", "nemenyi_q", "cd_cliques", "wilcoxon_holm", "wins"]


def _as_series(average_ranks) -> pd.Series:
    if isinstance(average_ranks, pd.DataFrame):
        average_ranks = average_ranks.set_index("system")["rank"]
    if isinstance(average_ranks, Mapping) or isinstance(average_ranks, pd.Series):
        s = pd.Series(dict(average_ranks) if isinstance(average_ranks, Mapping) else average_ranks, dtype=float)
    else:
        r = np.asarray(average_ranks, dtype=float)
        s = pd.Series(r, index=[str(i) for i in range(len(r))])
    s.index = s.index.astype(str)
    return s


# ----------------------------------------------------------------------------- Friedman


def friedman_from_ranks(average_ranks, n_tasks: int, *, tie_correction: float = 1.0) -> dict:
    """Friedman and Iman-Davenport statistics from k average ranks over N tasks.

    ``average_ranks``: a mapping system -> rank, a Series, or a sequence (named "0", "1", ...).
    ``tie_correction``: the factor chi2_F is divided by (1 = none, Demšar's formula). Returns
    ``k, N, average_ranks, chi2_F, df, p_chi2, F_F, df1, df2, p_F``; NaN statistics when
    k < 2 or N < 2.
    """
    r = _as_series(average_ranks)
    k, N = len(r), int(n_tasks)
    out = {"k": k, "N": N, "average_ranks": r.to_dict(), "df": k - 1, "df1": k - 1, "df2": (k - 1) * (N - 1)}
    if k < 2 or N < 2:
        return {**out, "chi2_F": np.nan, "p_chi2": np.nan, "F_F": np.nan, "p_F": np.nan}
    R = r.to_numpy()
    chi2 = 12.0 * N / (k * (k + 1)) * (np.sum(R ** 2) - k * (k + 1) ** 2 / 4.0) / tie_correction
    den = N * (k - 1) - chi2
    F = (N - 1) * chi2 / den if den > 1e-12 * N * k else np.inf
    return {**out, "chi2_F": float(chi2), "p_chi2": float(stats.chi2.sf(chi2, k - 1)), "F_F": float(F),
            "p_F": float(stats.f.sf(F, k - 1, (k - 1) * (N - 1))) if np.isfinite(F) else 0.0}


def friedman(scores: pd.DataFrame, *, higher_is_better=True, tie_correction: bool = True) -> dict:
    """The Friedman test with the Iman-Davenport correction over complete blocks.

    Uses the systems present in every task (the others are listed in ``excluded_systems`` and
    the notes). Returns :func:`friedman_from_ranks`'s keys plus ``systems``, ``tasks``,
    ``excluded_systems``, ``tie_correction`` (the factor used) and ``notes``.
    """
    w = _tasks.wide(scores, higher_is_better)
    keep: np.ndarray = w.present.all(axis=0)  # type: ignore[assignment]  # an array: present is 2-D
    systems = tuple(s for s, k in zip(w.systems, keep) if k)
    excluded = tuple(s for s, k in zip(w.systems, keep) if not k)
    values = w.values[:, keep]
    N, k = values.shape
    notes = []
    if excluded:
        notes.append("friedman: complete blocks only; left out (not in every task): " + ", ".join(map(repr, excluded)))
    if np.isnan(values).any():
        notes.append("friedman: undefined scores rank last in their task (tied)")
    ranks = rank_in_tasks(values, w.higher_is_better, None)
    factor = 1.0
    if tie_correction and N and k > 1:
        groups = (ranks[:, :, None] == ranks[:, None, :]).sum(axis=2)      # size of each system's tie group
        factor = 1.0 - float((groups ** 2 - 1).sum()) / (N * k * (k * k - 1))
        if factor < 1.0:
            notes.append(f"friedman: chi2_F divided by the tie correction {factor:.6g} (as scipy's friedmanchisquare)")
    avg = pd.Series(ranks.mean(axis=0) if N else np.full(k, np.nan), index=list(systems))
    out = friedman_from_ranks(avg, N, tie_correction=factor if factor > 0 else 1.0)
    if factor <= 0:
        out.update(chi2_F=np.nan, p_chi2=np.nan, F_F=np.nan, p_F=np.nan)
        notes.append("friedman: every task ties every system: no test")
    if k < 2 or N < 2:
        notes.append(f"friedman: needs at least 2 systems in every task and 2 tasks (k = {k}, N = {N})")
    return {**out, "systems": systems, "tasks": w.tasks, "excluded_systems": excluded, "tie_correction": factor,
            "notes": notes}


# ----------------------------------------------------------------------------- Nemenyi


def nemenyi_q(k: int, alpha: float = 0.05) -> float:
    """q_alpha of the Nemenyi test: the studentized range quantile (k groups, df = inf) / sqrt 2."""
    return float(stats.studentized_range.ppf(1.0 - alpha, k, np.inf) / np.sqrt(2.0))


def nemenyi(average_ranks, n_tasks: int, *, alpha: float = 0.05):
    """Nemenyi post hoc test: ``(cd, q_alpha, pairs)``.

    ``pairs``: ``system_a, system_b, rank_a, rank_b, difference, p, significant`` for every
    pair, systems in order of average rank (ties by name), ``system_a`` the better ranked;
    ``significant`` = the difference is at least CD.
    """
    r = _as_series(average_ranks)
    r = r.iloc[np.lexsort((r.index.to_numpy(dtype=str), r.to_numpy()))]
    k, N = len(r), int(n_tasks)
    cols = ["system_a", "system_b", "rank_a", "rank_b", "difference", "p", "significant"]
    if k < 2 or N < 1:
        return np.nan, np.nan, pd.DataFrame(columns=cols)
    q = nemenyi_q(k, alpha)
    se = np.sqrt(k * (k + 1) / (6.0 * N))
    cd = q * se
    i, j = np.triu_indices(k, 1)
    R = r.to_numpy()
    names = np.asarray(r.index, dtype=object)
    diff = np.abs(R[j] - R[i])
    p = stats.studentized_range.sf(np.sqrt(2.0) * diff / se, k, np.inf)
    pairs = pd.DataFrame({"system_a": names[i], "system_b": names[j], "rank_a": R[i], "rank_b": R[j],
                          "difference": diff, "p": np.clip(p, 0.0, 1.0), "significant": diff >= cd})
    return float(cd), q, pairs


def cd_cliques(average_ranks, cd: float) -> list[tuple[str, ...]]:
    """Maximal groups of systems whose average ranks all lie within less than ``cd`` of each
    other, in rank order (the bars of a critical-difference diagram). A system not within CD of
    any other is a group of its own; no group is contained in another."""
    r = _as_series(average_ranks)
    r = r.iloc[np.lexsort((r.index.to_numpy(dtype=str), r.to_numpy()))]
    R = r.to_numpy()
    names = list(r.index)
    ends = np.searchsorted(R, R + cd, side="left")           # first index with R >= R_i + cd
    groups, last_end = [], 0
    for start, end in enumerate(ends):
        if end > last_end:
            groups.append(tuple(names[start:end]))
            last_end = end
    return groups


# ----------------------------------------------------------------------------- Wilcoxon


def _wilcoxon_method(d: np.ndarray, zero_method: str) -> str:
    """The p-value method scipy's ``method="auto"`` uses (scipy.stats.wilcoxon, Notes)."""
    a = np.abs(d[d != 0]) if zero_method == "wilcox" else np.abs(d)
    ties = (d == 0).any() or len(np.unique(a)) < len(a)
    if not ties:
        return "exact" if len(d) <= 50 else "asymptotic"
    return "exhaustive permutation" if len(d) <= 13 else "asymptotic"


def wilcoxon_holm(scores: pd.DataFrame, *, higher_is_better=True, alpha: float = 0.05,
                  zero_method: str = "zsplit") -> pd.DataFrame:
    """Wilcoxon signed-rank tests between every pair of systems, Holm-corrected.

    For each pair, the tasks where both systems have a defined score give the differences
    ``d = a - b`` (lower-is-better tasks negated, so d > 0 favours a). ``zero_method="zsplit"``
    splits the ranks of zero differences between the two sides, as Demšar (2006, section
    3.1.3) recommends; scipy's ``method="auto"`` chooses the p-value (the ``method`` column:
    exact null distribution for n <= 50 without ties or zeros, exhaustive permutation for
    n <= 13 with them, else the normal approximation). ``better``: the system with the larger
    signed-rank sum ("tie" when equal). ``p_holm``: Holm over all pairs with a p-value
    (:func:`evalreport.analyses.resampling.holm`); ``significant`` = ``p_holm < alpha``.
    """
    w = _tasks.wide(scores, higher_is_better)
    key = oriented(w.values, w.higher_is_better)
    ok = w.present & ~np.isnan(w.values)
    S = len(w.systems)
    rows, notes = [], [f"wilcoxon: zero_method={zero_method!r}, scipy method='auto', two-sided; Holm over all pairs"]
    small = set()
    for a, b in zip(*np.triu_indices(S, 1)):                 # one scipy call per pair
        both = ok[:, a] & ok[:, b]
        d = key[both, a] - key[both, b]
        n = int(both.sum())
        stat = p = np.nan
        method = better = ""
        if n:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                res = stats.wilcoxon(d, zero_method=zero_method, method="auto")
            stat, p = float(res.statistic), float(res.pvalue)
            method = _wilcoxon_method(d, zero_method)
            nz = d[d != 0]
            r = stats.rankdata(np.abs(nz))
            plus, minus = r[nz > 0].sum(), r[nz < 0].sum()
            better = w.systems[a] if plus > minus else w.systems[b] if minus > plus else "tie"
            if 2.0 ** (1 - n) > alpha:
                small.add(n)
        rows.append((w.systems[a], w.systems[b], n, stat, p, method, better))
    out = pd.DataFrame(rows, columns=["system_a", "system_b", "n_tasks", "statistic", "p", "method", "better"])
    out["p_holm"] = holm(out["p"].to_numpy(dtype=float))
    out["significant"] = out["p_holm"] < alpha
    for n in sorted(small):
        notes.append(f"wilcoxon: with N = {n} tasks the smallest two-sided p is 2 / 2^{n} = {2.0 ** (1 - n):.4g} "
                     f"> alpha = {alpha:g}: no such pair can be significant")
    if not ok.all():
        notes.append("wilcoxon: each pair uses the tasks where both systems have a defined score")
    out = out[["system_a", "system_b", "n_tasks", "statistic", "p", "p_holm", "significant", "better", "method"]]
    out.attrs["notes"] = notes
    return out


# ----------------------------------------------------------------------------- wins


def wins(scores: pd.DataFrame, pvalues: pd.DataFrame | None = None, *, higher_is_better=True,
         alpha: float = 0.05) -> pd.DataFrame:
    """Tasks each system wins, and wins significantly.

    A win is first place in a task (best defined score). A tie for first is a shared win: each
    of the n tied systems counts 1/n in ``wins`` and lists the task in ``tasks_won``.
    ``pvalues``: tidy ``task, system_a, system_b, p`` of per-task paired tests (uncorrected,
    either order). A task is won significantly when it has a single winner and the winner's
    comparison with every other system of the task has ``p < alpha`` after one Holm correction
    over all winners' comparisons across all tasks; a missing comparison, or a task with a
    single system, gives no significant win. Without ``pvalues`` the significant columns are
    NaN / None. Columns: ``system, tasks, wins, significant_wins, tasks_won,
    tasks_won_significantly`` (tuples of task names).
    """
    w = _tasks.wide(scores, higher_is_better)
    key = np.where(w.present & ~np.isnan(w.values), oriented(w.values, w.higher_is_better), -np.inf)
    best = key.max(axis=1, keepdims=True)
    winner = (key == best) & np.isfinite(best)                          # (T, S)
    n_win = winner.sum(axis=1)
    share = np.divide(winner, n_win[:, None], out=np.zeros(winner.shape), where=n_win[:, None] > 0)
    notes = ["wins: a tie for first is a shared win (1/n each)"]
    sig = None
    if pvalues is not None:
        sig, more = _significant(w, winner, n_win, pvalues, alpha)
        notes += more
    rows = []
    for s, system in enumerate(w.systems):
        won = tuple(t for t, x in zip(w.tasks, winner[:, s]) if x)
        rows.append({"system": system, "tasks": int(w.present[:, s].sum()), "wins": float(share[:, s].sum()),
                     "significant_wins": np.nan if sig is None else float(sig[:, s].sum()),
                     "tasks_won": won,
                     "tasks_won_significantly": None if sig is None else
                     tuple(t for t, x in zip(w.tasks, sig[:, s]) if x)})
    out = pd.DataFrame(rows, columns=["system", "tasks", "wins", "significant_wins", "tasks_won",
                                      "tasks_won_significantly"])
    out.attrs["notes"] = notes
    return out


def _significant(w, winner, n_win, pvalues: pd.DataFrame, alpha: float):
    need = [c for c in ("task", "system_a", "system_b", "p") if c not in pvalues.columns]
    if need:
        raise ValueError(f"pvalues needs columns task, system_a, system_b, p; missing {', '.join(need)}")
    lookup: dict[tuple[str, frozenset[str]], float] = {}
    for t, a, b, p in zip(pvalues["task"].astype(str), pvalues["system_a"].astype(str),
                          pvalues["system_b"].astype(str), pd.to_numeric(pvalues["p"], errors="coerce")):
        lookup.setdefault((t, frozenset((a, b))), float(p))
    comps, missing = [], []                                     # (task index, p) of every winner comparison
    for ti, task in enumerate(w.tasks):
        if n_win[ti] != 1:
            continue
        s = int(np.flatnonzero(winner[ti])[0])
        others = [o for o in np.flatnonzero(w.present[ti]) if o != s]
        for o in others:
            p = lookup.get((task, frozenset((w.systems[s], w.systems[o]))), np.nan)
            if np.isnan(p):
                missing.append(task)
            comps.append((ti, p))
    sig = np.zeros(winner.shape, dtype=bool)
    notes = ["wins: significant = sole winner separated from every other system of the task, Holm over "
             f"{len(comps)} winner comparisons across tasks, alpha = {alpha:g}"]
    if comps:
        tidx = np.array([c[0] for c in comps])
        ph = holm(np.array([c[1] for c in comps]))
        passed = np.where(np.isnan(ph), False, ph < alpha)
        for ti in np.unique(tidx):
            if passed[tidx == ti].all():
                sig[ti] = winner[ti]
    if missing:
        notes.append("wins: no p-value for some winner comparisons in task(s) "
                     + ", ".join(map(repr, dict.fromkeys(missing))) + ": not counted as significant")
    return sig, notes
