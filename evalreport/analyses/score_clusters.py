"""Clustered items for the score-based measures: whole clusters resampled and swapped as item weights.

The score measures are evaluated on the once-ranked scores under item weights
(:meth:`evalreport.counts.scores.ScoreCounts.grouped`: one ``bincount`` per score column; nothing sorts
again). The cluster bootstrap (Field & Welsh 2007; Davison & Hinkley 1997, section 3.8) draws the
clusters of each fold with replacement, the same clusters for every system (paired); an item's weight
is then the number of times its cluster was drawn. The draws are those of the confusion measures'
cluster bootstrap (:func:`evalreport.analyses.clusters.draw_cluster_weights`, with every item its own
pattern), so both kinds of measures resample clusters the same way. The approximate randomisation test
exchanges two systems' scores on all items of a cluster at once, with probability 1/2 per cluster.
Point values are unchanged: all items, weight one.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import sparse

from evalreport.analyses.clusters import ClusterPlan, draw_cluster_weights

__all__ = ["ItemClusters", "item_clusters"]


@dataclass(frozen=True, eq=False)
class ItemClusters:
    """The clusters of N items.

    Attributes
    ----------
    codes : ndarray
        ``(N,)`` each item's cluster, ``0..C-1`` (every cluster has items).
    plan : ClusterPlan
        The clusters with every item its own pattern (``matrix`` ``(C, N)``), their folds and sizes.
    column : str or None
        The gold column the clusters were read from.
    """

    codes: np.ndarray
    plan: ClusterPlan
    column: str | None

    @property
    def n_clusters(self) -> int:
        """C, the clusters with items."""
        return self.plan.n_clusters

    def weights(self, rng: np.random.Generator, b: int) -> np.ndarray:
        """``(b, N)`` item weights of ``b`` cluster resamples: each item's weight is its cluster's count."""
        return np.ascontiguousarray(draw_cluster_weights(self.plan, rng, b, self._transposed))

    @property
    def _transposed(self) -> sparse.csc_array:
        """The ``(N, C)`` item-cluster indicator, made once."""
        cached = self.__dict__.get("_mt")
        if cached is None:
            cached = self.plan.matrix.T.tocsc()
            object.__setattr__(self, "_mt", cached)
        return cached

    def items(self) -> ItemClusters:
        """Every item its own cluster, in its cluster's fold: the item bootstrap within folds (the design
        effect's reference, as the confusion measures' :meth:`ConfusionDesign.resample_items`); with one
        fold its draws are :func:`~evalreport.analyses.score_design.bootstrap_weights`'."""
        N = self.codes.shape[0]
        matrix = sparse.csr_array((np.ones(N), (np.arange(N), np.arange(N))), shape=(N, N))
        plan = ClusterPlan(matrix=matrix, fold=np.asarray(self.plan.fold)[self.codes], sizes=np.ones(N, dtype=np.int64),
                           names=tuple(str(i) for i in range(N)), n_folds=self.plan.n_folds)
        return ItemClusters(codes=np.arange(N, dtype=np.int64), plan=plan, column=None)

    def swap_mask(self, rng: np.random.Generator) -> np.ndarray:
        """``(N,)`` True on the items of the clusters whose coin (probability 1/2 each) says swap."""
        return (rng.random(self.n_clusters) < 0.5)[self.codes]

    def per_cluster(self, values: np.ndarray) -> np.ndarray:
        """``(S, C)`` the sum over each cluster's items of ``values`` ``(S, N)``."""
        v = np.asarray(values, dtype=float)
        C = self.n_clusters
        return np.stack([np.bincount(self.codes, weights=row, minlength=C) for row in v]) if len(v) \
            else np.zeros((0, C))


def item_clusters(runs) -> ItemClusters | None:
    """The :class:`ItemClusters` of a Runs with clusters (``Runs.clusters``), else None.

    Parameters
    ----------
    runs : Runs
        Item-level runs; clusters lie within folds (the reader checks it), so a cluster's fold is its
        first item's.

    Returns
    -------
    ItemClusters or None
    """
    raw = getattr(runs, "clusters", None)
    if raw is None:
        return None
    present, codes = np.unique(np.asarray(raw, dtype=np.int64), return_inverse=True)
    codes = codes.astype(np.int64).reshape(-1)
    names = tuple(str(runs.cluster_names[int(k)]) for k in present)
    N, C = codes.shape[0], present.shape[0]
    folds = getattr(runs, "folds", None)
    item_fold = np.zeros(N, dtype=np.int64) if folds is None else np.asarray(folds, dtype=np.int64)
    n_folds = max(int(getattr(runs, "n_folds", 0) or 0), int(item_fold.max()) + 1 if N else 1, 1)
    first = np.zeros(C, dtype=np.int64)
    _, at = np.unique(codes, return_index=True)
    first[:] = at
    matrix = sparse.csr_array((np.ones(N), (codes, np.arange(N))), shape=(C, N))
    plan = ClusterPlan(matrix=matrix, fold=item_fold[first], sizes=np.bincount(codes, minlength=C), names=names,
                       n_folds=n_folds)
    return ItemClusters(codes=codes, plan=plan, column=getattr(runs, "cluster_col", None))
