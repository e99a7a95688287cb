"""The distinct joint patterns of the items with their counts (:class:`PatternCounts`): what
:func:`evalreport.counts.bigdata.count_patterns` returns, and what
:mod:`evalreport.analyses.resampling` resamples without expanding it to items.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from evalreport.counts import Counts
from evalreport.inputs.runs import Runs, code_dtype

__all__ = ["PatternCounts"]


@dataclass(frozen=True, eq=False)
class PatternCounts:
    """The distinct joint patterns of the items, with counts.

    ``patterns`` (P, 1 + S) integer codes into ``labels``: column 0 the gold class, column
    1 + s the prediction of ``systems[s]``. ``counts`` (P,) int64 items per pattern (they sum
    to the number of gold items). ``folds`` (P,) fold codes into ``fold_names``, or ``None``.
    Rows are sorted lexicographically by (fold, gold, predictions), so the result does not
    depend on the engine or on the row order of the files.
    """

    patterns: np.ndarray
    counts: np.ndarray
    labels: tuple[str, ...]
    systems: tuple[str, ...]
    folds: np.ndarray | None = None
    fold_names: tuple[str, ...] = ()
    abstain: int | None = None
    n_task: int | None = None          # as Runs.n_task

    @property
    def gold(self) -> np.ndarray:
        """(P,) gold class of each pattern."""
        return self.patterns[:, 0]

    @property
    def pred(self) -> np.ndarray:
        """(S, P) prediction of each system in each pattern."""
        return self.patterns[:, 1:].T

    @property
    def scores(self) -> None:
        """Always ``None``: patterns hold labels, not scores (as :attr:`Runs.scores` without scores)."""
        return None

    @property
    def n_items(self) -> int:
        return int(self.counts.sum())

    @property
    def n_patterns(self) -> int:
        return int(self.counts.shape[0])

    def confusion(self, *, per_fold: bool = False) -> Counts:
        """Confusion tensors (the same as :func:`count_confusions`), from the patterns alone."""
        if per_fold and self.folds is None:
            raise ValueError("these patterns have no folds")
        S, K = len(self.systems), len(self.labels)
        F = len(self.fold_names) if per_fold else 1
        fold = (self.folds.astype(np.int64) if per_fold and self.folds is not None
                else np.zeros(self.n_patterns, dtype=np.int64))
        cell = (fold * K + self.gold.astype(np.int64)) * K                     # (P,)
        flat = (np.arange(S, dtype=np.int64)[:, None] * (F * K * K) + cell[None, :]
                + self.pred.astype(np.int64)).ravel()
        weights = np.broadcast_to(self.counts, (S, self.n_patterns)).ravel()
        tensor = np.bincount(flat, weights=weights, minlength=S * F * K * K).round().astype(np.int64)
        tensor = tensor.reshape((S, F, K, K) if per_fold else (S, K, K))
        return Counts(tensor, self.labels, self.systems, self.fold_names if per_fold else (), self.n_task)

    def to_runs(self) -> Runs:
        """Expand to item level: pattern p repeated ``counts[p]`` times (memory N x (S + 1) codes).

        Item order and ids are synthetic (the ids are not kept by the GROUP BY); every
        item-level analysis that depends only on the joint distribution of (fold, gold,
        predictions) - the paired bootstrap, randomisation tests - gives the same answer as on
        the original items.
        """
        dtype = code_dtype(len(self.labels))
        rows = np.repeat(self.patterns.astype(dtype), self.counts, axis=0)
        folds = None if self.folds is None else np.repeat(self.folds, self.counts)
        return Runs(gold=rows[:, 0], pred=np.ascontiguousarray(rows[:, 1:].T), labels=self.labels,
                    systems=self.systems, folds=folds, fold_names=self.fold_names if folds is not None else (),
                    abstain=self.abstain, n_task=self.n_task)
