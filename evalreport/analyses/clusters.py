"""Clustered items: the paired cluster bootstrap, cluster swaps, the clustered McNemar test and the
design effect (used by :class:`evalreport.analyses.resampling.ConfusionDesign` when the runs have a
cluster column, ``--cluster-col``). Why items of one cluster must be resampled together, the tests
(Durkalski et al. 2003's clustered McNemar) and the design effect (Kish 1965, measured by the
bootstrap) are in docs/usage.md#clusters; clusters are resampled within folds, and gold strata are
refused (a cluster belongs to no single class stratum).

How it stays fast: the items are reduced to their distinct (fold, gold, predictions) patterns, as for
independent items (:mod:`evalreport.analyses.resampling_patterns`); a sparse ``(C, P)`` matrix ``M``
holds how many items of cluster c have pattern p. A resample draws cluster counts ``d`` (C clusters
with replacement within each fold), its pattern counts are ``d @ M``, and the confusion tensors follow
by the same sparse product as for items: nothing of size N x B is made. The item bootstrap behind the
design effect runs with fewer resamples (:data:`ITEM_RESAMPLES`), enough for a ratio of variances.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import sparse, stats

from evalreport.analyses.resampling_patterns import DRAW_BUDGET, TENSOR_BUDGET, Patterns
from evalreport.errors import InputError
from evalreport.measures import Measure, compute

__all__ = ["ClusterPlan", "cluster_plan", "draw_cluster_weights", "cluster_swap_differences",
           "clustered_mcnemar", "design_effect", "design_sentence", "item_stream", "ITEM_RESAMPLES",
           "FEW_CLUSTERS", "DESIGN_COLUMNS", "few_clusters_warning"]

#: Item bootstrap resamples behind the design effect (at most the cluster bootstrap's B).
ITEM_RESAMPLES = 250

#: Fewer clusters than this: the report warns that the cluster bootstrap is unreliable.
FEW_CLUSTERS = 30

def few_clusters_warning(n_clusters: int) -> str:
    """The end of a comparison's note on clustered items: a warning below :data:`FEW_CLUSTERS` clusters, else "".

    Parameters
    ----------
    n_clusters : int
        The number of clusters.

    Returns
    -------
    str
        Empty, or "; warning: ..." to append to the note.
    """
    if n_clusters >= FEW_CLUSTERS:
        return ""
    return (f"; warning: with only {n_clusters} clusters the cluster bootstrap is unreliable (its intervals too "
            f"narrow and its tests too ready to separate below about {FEW_CLUSTERS} clusters): treat the "
            "intervals, tests and letters as rough")


DESIGN_COLUMNS = ["system", "measure", "se_cluster", "se_item", "design_effect", "n_clusters", "n_items",
                  "mean_cluster_size", "min_cluster_size", "max_cluster_size", "n_resamples_cluster",
                  "n_resamples_item", "cluster_col"]


@dataclass(frozen=True, eq=False)
class ClusterPlan:
    """The clusters of a :class:`Patterns`: ``matrix`` ``(C, P)`` items of cluster c with pattern p
    (CSC of its transpose is kept for the product), ``fold`` (C,) each cluster's fold, ``sizes`` (C,)
    its items, ``names`` the C cluster names."""

    matrix: sparse.csr_array
    fold: np.ndarray
    sizes: np.ndarray
    names: tuple[str, ...]
    n_folds: int

    @property
    def n_clusters(self) -> int:
        return int(self.sizes.shape[0])

    def by_fold(self) -> list[np.ndarray]:
        """The cluster ids of each fold."""
        return [np.flatnonzero(self.fold == f) for f in range(self.n_folds)]


def cluster_plan(pat: Patterns, clusters: np.ndarray, names: tuple[str, ...]) -> ClusterPlan:
    """The cluster x pattern count matrix of item-level patterns.

    Parameters
    ----------
    pat : Patterns
        Patterns of a :class:`~evalreport.inputs.runs.Runs` (``inverse`` known).
    clusters : ndarray
        ``(N,)`` cluster code of every item.
    names : tuple of str
        The cluster names.

    Returns
    -------
    ClusterPlan
    """
    if pat.inverse is None:
        raise InputError("clustered resampling needs item-level runs (the items' clusters), not pattern counts")
    codes = np.asarray(clusters, dtype=np.int64)
    C, P = len(names), pat.n_patterns
    matrix = sparse.csr_array((np.ones(codes.shape[0]), (codes, pat.inverse)), shape=(C, P))
    matrix.sum_duplicates()
    sizes = np.bincount(codes, minlength=C)
    first = np.zeros(C, dtype=np.int64)                  # each cluster's first item
    present, at = np.unique(codes, return_index=True)
    first[present] = at
    fold = pat.fold[pat.inverse[first]]
    used = sizes > 0
    if not used.all():      # names of clusters without items (a selection of items): drop them
        keep = np.flatnonzero(used)
        matrix, sizes, fold = matrix[keep], sizes[keep], fold[keep]
        names = tuple(names[k] for k in keep)
    return ClusterPlan(matrix=sparse.csr_array(matrix), fold=np.asarray(fold, dtype=np.int64), sizes=sizes,
                       names=tuple(names), n_folds=pat.n_folds)


def draw_cluster_weights(plan: ClusterPlan, rng: np.random.Generator, b: int,
                         transposed: sparse.csc_array | None = None) -> np.ndarray:
    """``(b, P)`` pattern counts of b cluster resamples: within each fold its C_f clusters drawn with
    replacement (C_f uniform draws, counted), turned into pattern counts by the cluster matrix.

    The result is the transpose of a C-ordered ``(P, b)`` array: the layout
    :func:`~evalreport.analyses.resampling_patterns.resampled_confusions` multiplies with."""
    C = plan.n_clusters
    D = np.zeros((b, C), dtype=float)
    rows = np.arange(b, dtype=np.int64)[:, None]
    for ids in plan.by_fold():       # a loop over folds only
        c_f = ids.shape[0]
        if c_f == 0:
            continue
        idx = rng.integers(0, c_f, size=(b, c_f))
        D[:, ids] = np.bincount((rows * c_f + idx).ravel(), minlength=b * c_f).reshape(b, c_f)
    MT = plan.matrix.T.tocsc() if transposed is None else transposed
    return np.asarray(MT @ D.T).T                      # (P, b) C-ordered, returned as (b, P)


def item_stream(seed: int | None) -> np.random.Generator:
    """The generator of the design effect's item bootstrap: a third stream of ``seed``, independent of
    the bootstrap's and the randomisation test's."""
    return np.random.default_rng(np.random.SeedSequence(seed).spawn(3)[2])


# ----------------------------------------------------------------------------- randomisation


def cluster_swap_differences(pat: Patterns, plan: ClusterPlan, m: Measure, C: np.ndarray, first: np.ndarray,
                             second: np.ndarray, R: int, rng: np.random.Generator, *, positive, policy, costs,
                             task=None, progress=None) -> np.ndarray:
    """``(R, P)`` oriented differences ``m(first[i]) - m(second[i])`` after each of R rounds in which
    every cluster has the two systems' outputs on all its items swapped with probability 1/2.

    ``C`` (S, K, K) pooled tensors. For a block of pairs a sparse matrix maps each (pair, cluster) to
    the change of the first system's tensor when that cluster is swapped (its discordant items move
    from the first system's cell to the second's); one product with the rounds' coin flips gives
    every round's tensors. ``progress(pairs done, pairs)`` after each block of pairs."""
    K = pat.n_classes
    Cn = plan.n_clusters
    sign = 1.0 if m.higher_is_better else -1.0
    coo = plan.matrix.tocoo()
    ck, pk, nk = coo.row.astype(np.int64), coo.col.astype(np.int64), coo.data
    g = pat.gold[pk]
    n_pairs = first.shape[0]
    out = np.empty((R, n_pairs))
    pair_step = max(1, min(DRAW_BUDGET // max(nk.shape[0], Cn, 1), TENSOR_BUDGET // (64 * 2 * K * K)))
    for lo in range(0, n_pairs, pair_step):
        hi = min(n_pairs, lo + pair_step)
        npb = hi - lo
        a = pat.pred[first[lo:hi]][:, pk]
        b = pat.pred[second[lo:hi]][:, pk]
        i, e = np.nonzero(a != b)
        cell = (i * K + g[e]) * K
        cols = i * Cn + ck[e]
        # integer counts and coins: no float copy of the (units x rounds) coins (|sums| <= N < 2^31)
        counts = np.rint(nk[e]).astype(np.int32)
        move = sparse.csc_array((np.r_[-counts, counts], (np.r_[cell + a[i, e], cell + b[i, e]], np.r_[cols, cols])),
                                shape=(npb * K * K, npb * Cn))
        base = np.stack([C[first[lo:hi]], C[second[lo:hi]]], axis=1)          # (npb, 2, K, K)
        r_step = max(1, min(R, DRAW_BUDGET // max(npb * Cn, 1), TENSOR_BUDGET // (npb * 2 * K * K)))
        for r0 in range(0, R, r_step):
            r = min(R, r0 + r_step) - r0
            coins = _coins(rng, npb * Cn, r)
            delta = (move @ coins).T.reshape(r, npb, K, K)
            T = np.empty((r,) + base.shape)
            np.add(base[:, 0], delta, out=T[:, :, 0])
            np.subtract(base[:, 1], delta, out=T[:, :, 1])
            v = compute(m, T, positive=positive, policy=policy, costs=costs, explain=False, task=task).value
            out[r0:r0 + r, lo:hi] = sign * (v[..., 0] - v[..., 1])
        if progress is not None:
            progress(hi, n_pairs)
    return out


def _coins(rng: np.random.Generator, units: int, rounds: int) -> np.ndarray:
    """``(units, rounds)`` fair 0/1 coins (int32), one bit of the generator's raw 64-bit output each."""
    words = -(-units * rounds // 64)
    bits = np.unpackbits(rng.bit_generator.random_raw(words).view(np.uint8), count=units * rounds)
    return bits.reshape(units, rounds).astype(np.int32)


# ----------------------------------------------------------------------------- McNemar for clusters


def clustered_mcnemar(right: np.ndarray, a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The clustered McNemar test of Durkalski et al. (2003) for pairs of systems.

    Parameters
    ----------
    right : ndarray
        ``(S, C)`` items of each cluster that each system gets right.
    a, b : ndarray
        ``(P,)`` the pairs' system indices.

    Returns
    -------
    statistic : ndarray
        ``(sum_k d_k)^2 / sum_k d_k^2`` with ``d_k = b_k - c_k`` = right_a,k - right_b,k (0 when the
        systems never disagree).
    p : ndarray
        Its chi-squared (1 degree of freedom) upper tail; 1 when the systems never disagree.
    """
    d = np.asarray(right, dtype=float)[a] - np.asarray(right, dtype=float)[b]       # (P, C)
    num = d.sum(axis=1) ** 2
    den = (d ** 2).sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        stat = np.where(den > 0, num / np.where(den > 0, den, 1.0), 0.0)
    p = np.where(den > 0, stats.chi2.sf(stat, 1), 1.0)
    return stat, p


# ----------------------------------------------------------------------------- design effect


def design_effect(cluster_values: np.ndarray, item_values: np.ndarray, systems, measure: str, plan: ClusterPlan,
                  cluster_col: str | None) -> pd.DataFrame:
    """The design effect of each system's primary measure: the ``design`` table.

    Parameters
    ----------
    cluster_values, item_values : ndarray
        ``(B_c, S)`` and ``(B_i, S)`` the measure on cluster and on item resamples (NaN: undefined).
    systems : sequence of str
        The S systems.
    measure : str
        The measure's id.
    plan : ClusterPlan
        The clusters (their number and sizes).
    cluster_col : str or None
        The gold column of the clusters.

    Returns
    -------
    DataFrame
        :data:`DESIGN_COLUMNS`: the standard deviations over cluster and item resamples, their
        squared ratio (the design effect; NaN where the item variance is 0 or undefined), the number
        of clusters, items and the cluster sizes, and the resample counts.
    """
    def sd(v: np.ndarray) -> np.ndarray:
        ok = ~np.isnan(v)
        n = ok.sum(axis=0)
        filled = np.where(ok, v, 0.0)
        mean = filled.sum(axis=0) / np.maximum(n, 1)
        var = (np.where(ok, v - mean, 0.0) ** 2).sum(axis=0) / np.maximum(n - 1, 1)
        return np.where(n > 1, np.sqrt(var), np.nan)

    se_c, se_i = sd(np.asarray(cluster_values, dtype=float)), sd(np.asarray(item_values, dtype=float))
    with np.errstate(invalid="ignore", divide="ignore"):
        deff = np.where(se_i > 0, (se_c / np.where(se_i > 0, se_i, 1.0)) ** 2, np.nan)
    S = len(systems)
    sizes = plan.sizes
    return pd.DataFrame({
        "system": list(systems), "measure": measure, "se_cluster": se_c, "se_item": se_i, "design_effect": deff,
        "n_clusters": np.full(S, plan.n_clusters, dtype=np.int64), "n_items": np.full(S, int(sizes.sum())),
        "mean_cluster_size": float(sizes.mean()), "min_cluster_size": int(sizes.min()),
        "max_cluster_size": int(sizes.max()), "n_resamples_cluster": int(np.asarray(cluster_values).shape[0]),
        "n_resamples_item": int(np.asarray(item_values).shape[0]), "cluster_col": cluster_col or ""},
        columns=DESIGN_COLUMNS)


def design_sentence(table: pd.DataFrame, *, quote: Callable[[str], str] = str, label: str | None = None,
                    one_run: bool = False) -> str:
    """The design in words for the report (empty without clusters).

    Parameters
    ----------
    table : DataFrame
        The ``design`` table (:func:`design_effect`).
    quote : callable
        Escapes the cluster column's name (text from the data) for the target, e.g. Markdown.
    label : str, optional
        The primary measure's name (default: its id).
    one_run : bool
        Several runs per system: the clusters are the same for every run of every system, and the design
        effect is that of one run (:func:`evalreport.analyses.seed_clusters.system_design_effect`).

    Returns
    -------
    str
        The clusters, their mean size, the range of the design effect and how much wider the intervals
        are than an item bootstrap's, and a warning below :data:`FEW_CLUSTERS` clusters.
    """
    if table is None or not len(table):
        return ""
    row = table.iloc[0]
    n, size, col = int(row["n_clusters"]), float(row["mean_cluster_size"]), str(row["cluster_col"])
    deff = table["design_effect"].to_numpy(dtype=float)
    deff = deff[~np.isnan(deff)]
    where = f" (column {quote(col)})" if col else ""
    text = (f"Intervals, P(best), ranks and tests resample whole clusters{where}: {n:,} clusters of "
            f"{size:,.3g} items on average, the same clusters for every "
            + ("run of every system (and each system's runs with replacement)." if one_run else "system."))
    if deff.size:
        lo, hi = float(deff.min()), float(deff.max())
        same = abs(hi - lo) < 0.005
        span = f"{lo:.2f}" if same else f"{lo:.2f} to {hi:.2f}"
        wide = f"{np.sqrt(lo):.2f}" if same else f"{np.sqrt(lo):.2f} to {np.sqrt(hi):.2f}"
        of = " of one run" if one_run else ""
        text += (f" The design effect of {label or row['measure']}{' for one run' if one_run else ''} (cluster-bootstrap "
                 f"variance over item-bootstrap variance) is {span}: the intervals{of} are {wide} times as wide as an "
                 "item bootstrap would claim.")
    if n < FEW_CLUSTERS:
        text += (f" Warning: with only {n} clusters the cluster bootstrap is unreliable (its intervals tend to be "
                 f"too narrow below about {FEW_CLUSTERS} clusters); treat the intervals and tests as rough.")
    return text
