"""Scores in the comparison engine: :class:`ScoreDesign` (an :class:`~evalreport.analyses.engine.Design`).

The paired bootstrap over items draws, per resample, the multinomial item weights (the SAME for every
system) and evaluates every score measure on the once-ranked scores under those weights
(:meth:`evalreport.counts.scores.ScoreCounts.grouped`: one ``bincount`` per system and score column;
no resample sorts again). Resamples are drawn in blocks whose weight arrays hold about
:data:`BLOCK_BUDGET` numbers, so memory is bounded whatever B. Approximate randomisation exchanges two
systems' scores per item with probability 1/2 and ranks the exchanged scores again (its cost grows with
rounds x pairs x N log N). McNemar's test, where asked for, counts the top label of the scores
(:func:`evalreport.measures.score_items.confidence`) right or wrong.

With ``strata="gold"`` (``--bootstrap-strata gold``) the items are drawn within each gold class (within
each fold), as the confusion measures' bootstrap draws them: every resample keeps the class counts.
Whole clusters hold items of several classes and cannot be drawn within a class (refused, as for the
confusion measures).

Clustered items (``clusters``, :mod:`evalreport.analyses.score_clusters`): the same weighted evaluation
under cluster weights (each item weighted by the number of times its cluster was drawn, the same
clusters for every system); the randomisation test exchanges scores per cluster and McNemar's test is
the clustered test of Durkalski et al. (2003) (the engine's, from :meth:`ScoreDesign.cluster_right`).
"""
from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from evalreport.analyses.score_clusters import ItemClusters
from evalreport.counts.scores import ScoreCounts
from evalreport.errors import InputError
from evalreport.measures import Measure
from evalreport.measures.score_items import confidence
from evalreport.measures.scores import ScoreStats, compute_scores, summaries_of

__all__ = ["ScoreDesign", "BLOCK_BUDGET", "bootstrap_weights", "with_strata"]

#: Numbers in one block's (resamples x items x classes) weighted counts.
BLOCK_BUDGET = 2 ** 22

Progress = Callable[[int, int], None] | None


def bootstrap_weights(rng: np.random.Generator, b: int, n: int, folds: np.ndarray | None = None) -> np.ndarray:
    """``(b, n)`` multinomial item weights of ``b`` bootstrap resamples of ``n`` items; with ``folds`` (``(n,)``
    fold codes of two or more folds) the items of each fold are drawn from that fold, so every resample keeps
    the fold sizes, as the confusion measures' bootstrap does (Forman & Scholz 2010: the folds' pooled counts)."""
    codes = None if folds is None else np.unique(np.asarray(folds).reshape(-1), return_inverse=True)[1]
    if codes is None or not n or int(codes.max()) == 0:
        draws = rng.integers(0, n, size=(b, n))
    else:
        order = np.argsort(codes, kind="stable")
        draws = np.empty((b, n), dtype=np.int64)
        at = 0
        for size in np.bincount(codes):
            items = order[at:at + size]
            draws[:, at:at + size] = items[rng.integers(0, size, size=(b, size))]
            at += size
    flat = (draws + (np.arange(b, dtype=np.int64) * n)[:, None]).ravel()
    return np.bincount(flat, minlength=b * n).reshape(b, n).astype(float)


class ScoreDesign:
    """The systems' scores for the comparison engine (see the module docstring).

    Parameters
    ----------
    sc : ScoreCounts
        The once-ranked scores.
    policy : str
        The undefined-value policy of the measures.
    clusters : ItemClusters, optional
        The items' clusters: resampled and swapped whole (None: independent items).
    folds : ndarray, optional
        ``(N,)`` the items' cross-validation folds: independent items are resampled within them (the clusters
        carry their own folds).
    strata : {None, "gold"}
        ``"gold"``: independent items are resampled within each gold class too (within each fold).
    """

    kind = "scores"
    mcnemar_measure = "top-label accuracy of the scores"

    def __init__(self, sc: ScoreCounts, *, policy: str = "nan", clusters: ItemClusters | None = None,
                 folds: np.ndarray | None = None, strata: str | None = None) -> None:
        self.sc = sc
        self.folds = folds
        self.strata: str | None = None
        self.systems = tuple(sc.systems)
        self.n_items = sc.n_items
        self.policy = policy
        self.clusters = clusters
        if clusters is not None and clusters.codes.shape[0] != sc.n_items:
            raise ValueError(f"{clusters.codes.shape[0]} cluster codes for {sc.n_items} scored items")
        self.stratify(strata)

    def stratify(self, strata: str | None) -> None:
        """Resample within gold classes (``"gold"``) or not (None) from now on.

        Parameters
        ----------
        strata : {None, "gold"}
            As the comparison's ``bootstrap_strata``.

        Raises
        ------
        InputError
            An unknown stratum, or gold classes with whole clusters (a cluster holds items of several classes).
        """
        if strata not in (None, "gold"):
            raise InputError(f"unknown bootstrap strata {strata!r}; choose 'gold' (or none)")
        if strata == "gold" and self.clusters is not None:
            raise InputError("--bootstrap-strata gold cannot be combined with --cluster-col: a cluster holds "
                             "items of several gold classes and is resampled whole")
        self.strata = strata

    def _strata_codes(self) -> np.ndarray | None:
        """``(N,)`` the stratum of each item: its fold, with ``strata="gold"`` its fold and gold class (or None)."""
        if self.strata != "gold":
            return self.folds
        gold = np.asarray(self.sc.gold, dtype=np.int64)
        if self.folds is None:
            return gold
        folds = np.unique(np.asarray(self.folds).reshape(-1), return_inverse=True)[1]
        return folds * (int(gold.max(initial=0)) + 1) + gold

    @property
    def swap_unit(self) -> str:
        """What the randomisation test swaps (the pairwise table's ``detail``; without clusters the engine's
        default words)."""
        return "discordant item" if self.clusters is None else "cluster"

    def _weights(self, rng: np.random.Generator, b: int) -> np.ndarray:
        """``(b, N)`` item weights of b paired resamples: of items, or of whole clusters."""
        if self.clusters is None:
            return bootstrap_weights(rng, b, self.n_items, self._strata_codes())
        return self.clusters.weights(rng, b)

    def _swap(self, rng: np.random.Generator) -> np.ndarray:
        """``(N,)`` the items whose scores one round exchanges: per item, or per cluster, with probability 1/2."""
        if self.clusters is None:
            return rng.random(self.n_items) < 0.5
        return self.clusters.swap_mask(rng)

    @property
    def interval_columns(self) -> dict[str, object]:
        """No extra columns."""
        return {}

    def streams(self, seed: int | None) -> tuple[np.random.Generator, np.random.Generator]:
        """Independent generators for the bootstrap and the randomisation test."""
        boot, rand = np.random.SeedSequence(seed).spawn(2)
        return np.random.default_rng(boot), np.random.default_rng(rand)

    def direction(self, measure: Measure) -> bool:
        """Whether higher values of ``measure`` are better."""
        return measure.higher_is_better

    def _values(self, measures: Sequence, stats: ScoreStats) -> np.ndarray:
        """``(B, S, M)`` values of the measures under B weightings, ``(S, M)`` unweighted."""
        return np.stack([compute_scores(m, self.sc, policy=self.policy, explain=False, stats=stats).value
                         for m in measures], axis=-1)

    def point(self, measures: Sequence) -> np.ndarray:
        """``(S, M)`` values on all items."""
        return self._values(measures, ScoreStats(self.sc, wanted=summaries_of(measures)))   # (no resample axis)

    def block(self) -> int:
        """Resamples per block (:data:`BLOCK_BUDGET`)."""
        return max(1, BLOCK_BUDGET // max(1, self.n_items * max(2, self.sc.n_classes)))

    def resample(self, measures: Sequence, n_resamples: int, rng: np.random.Generator,
                 progress: Progress = None) -> np.ndarray:
        """``(B, S, M)`` values on B paired bootstrap resamples, in blocks of :meth:`block`."""
        out = np.empty((n_resamples, len(self.systems), len(measures)))
        step = self.block()
        for start in range(0, n_resamples, step):
            b = min(step, n_resamples - start)
            weights = self._weights(rng, b)
            out[start:start + b] = self._values(measures, ScoreStats(self.sc, weights, wanted=summaries_of(measures)))
            if progress is not None:
                progress(start + b, n_resamples)
        return out

    def swap_differences(self, measure: Measure, first: np.ndarray, second: np.ndarray, rounds: int,
                         rng: np.random.Generator, progress: Progress = None) -> np.ndarray:
        """``(R, P)`` oriented differences after exchanging each pair's scores per item (or per cluster) with
        probability 1/2."""
        sign = 1.0 if measure.higher_is_better else -1.0
        out = np.empty((rounds, len(first)))
        for p, (a, b) in enumerate(zip(first, second)):
            for r in range(rounds):
                pair = self.sc.swapped(int(a), int(b), self._swap(rng))
                v = compute_scores(measure, pair, policy=self.policy, explain=False).value
                out[r, p] = sign * (v[0] - v[1])
            if progress is not None:
                progress(p + 1, len(first))
        return out

    def correct(self) -> tuple[np.ndarray, np.ndarray]:
        """``(S, N)`` whether the top label of each system's scores is right, and unit weights."""
        _, right = confidence(self.sc)
        return np.asarray(right, dtype=bool), np.ones(self.n_items)

    def cluster_right(self) -> np.ndarray | None:
        """``(S, C)`` items of each cluster whose top label each system gets right (the clustered McNemar
        test), or None without clusters."""
        if self.clusters is None:
            return None
        return self.clusters.per_cluster(self.correct()[0])


def with_strata(design, strata: str | None):
    """``design`` with its score design resampled within gold classes when ``strata`` is ``"gold"``.

    Parameters
    ----------
    design : ScoreDesign or SeedsDesign
        A score design, or the two-level design around one (its ``inner`` design is stratified: the runs
        are drawn as they are, then the items within gold classes).
    strata : {None, "gold"}
        The comparison's ``bootstrap_strata``.

    Returns
    -------
    ScoreDesign or SeedsDesign
        ``design`` itself.
    """
    if strata is not None:
        inner = getattr(design, "inner", design)
        if not isinstance(inner, ScoreDesign):
            raise TypeError(f"with_strata takes a score design, not {type(inner).__name__}")
        inner.stratify(strata)
    return design
