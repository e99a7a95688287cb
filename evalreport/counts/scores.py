"""Sufficient statistics of scores: per system and score column, the items' tie groups, sorted once.

A threshold-free measure (ROC AUC, average precision, the area under the precision-recall curve,
the F1 at the best threshold) depends on the scores only through their order: which items share a
score (a tie group) and which groups lie above which. :class:`ScoreCounts` ranks every score
column of every system ONCE (``group[s, c, i]`` = the tie group of item i, 0 = the highest
score) and keeps the items' gold classes. Any weighting of the items (the multinomial weights of
a bootstrap resample, or all ones) then gives the weighted count of every (tie group, gold class)
cell by one ``bincount`` (:meth:`ScoreCounts.grouped`): no resample sorts again.

Calibration measures (Brier score, log loss, expected calibration error) are means over items of
a per-item quantity of the probabilities: they keep the scores themselves (:attr:`ScoreCounts.scores`).

Layouts (read by :func:`evalreport.inputs.readers.read_runs`): ``"binary"``, one column ``score``
that holds the positive class's score (``columns`` = the positive class), or ``"classes"``, one
column ``score_<class>`` per class (``columns`` = those classes, in class order).
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np

from evalreport.errors import InputError

__all__ = ["ScoreCounts", "score_counts", "tie_groups"]


def tie_groups(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Tie groups of ``values`` (N,), highest first: ``(group (N,) int, distinct values descending)``.

    One ascending argsort; equal neighbours in sorted order share a group (-0.0 ties with 0.0)."""
    v = np.asarray(values, dtype=float).reshape(-1)
    if not v.size:
        return np.zeros(0, dtype=np.int64), v.copy()
    order = np.argsort(v)
    ordered = v[order]
    new = np.empty(v.size, dtype=bool)
    new[0] = True
    np.not_equal(ordered[1:], ordered[:-1], out=new[1:])
    ascending = np.cumsum(new, dtype=np.int64)           # 1 = the lowest score's group
    group = np.empty(v.size, dtype=np.int64)
    group[order] = ascending[-1] - ascending
    return group, ordered[new][::-1].copy()


@dataclass(frozen=True, eq=False)
class ScoreCounts:
    """Scores of S systems on N items, ranked once per score column.

    Attributes
    ----------
    systems, labels : tuple of str
        The systems and the task's classes (gold codes index ``labels``).
    gold : ndarray
        ``(N,)`` gold class codes.
    layout : str
        ``"binary"`` or ``"classes"`` (module docstring).
    columns : tuple of int
        The class code of each score column.
    scores : ndarray
        ``(S, N, C)`` scores (NaN rows for a system without scores).
    has : ndarray
        ``(S,)`` whether each system has scores.
    positive : int or None
        The positive class code (binary measures), if any.
    group : ndarray or None
        ``(S, C, N)`` tie group of each item, 0 = the highest score (None: built by :meth:`ranked` on
        first use).
    thresholds : tuple or None
        Per system and column, the distinct scores, highest first (None: as ``group``).
    sources : mapping
        System -> its run file (for messages).
    problems : mapping
        System -> {problem kind: one-line message naming file and line} (``range``: a score outside
        [0, 1]; ``sum``: per-class scores that do not sum to 1; ``partial``: scores for some items only).
    """

    systems: tuple[str, ...]
    labels: tuple[str, ...]
    gold: np.ndarray
    layout: str
    columns: tuple[int, ...]
    scores: np.ndarray
    has: np.ndarray
    positive: int | None
    group: np.ndarray | None = None
    thresholds: tuple | None = None
    sources: Mapping[str, str] = field(default_factory=dict)
    problems: Mapping[str, Mapping[str, str]] = field(default_factory=dict)

    def ranked(self) -> tuple[np.ndarray, tuple]:
        """``(group, thresholds)``: each item's tie group per system and column, and the distinct scores.

        Built on first use (resampling and the curves need them; the unweighted measures sort each
        column themselves) and kept."""
        if self.group is None or self.thresholds is None:
            group, thresholds = _rank_all(self.scores, self.has)
            object.__setattr__(self, "group", group)
            object.__setattr__(self, "thresholds", thresholds)
        assert self.group is not None and self.thresholds is not None
        return self.group, self.thresholds

    @property
    def n_items(self) -> int:
        return int(self.gold.shape[0])

    @property
    def n_classes(self) -> int:
        return len(self.labels)

    @property
    def full(self) -> bool:
        """Whether there is one score column per class (multi-class measures need them all)."""
        return self.layout == "classes" and sorted(self.columns) == list(range(self.n_classes))

    @property
    def pos_column(self) -> int | None:
        """The column of the positive class's score, if there is one."""
        if self.layout == "binary":
            return 0
        if self.positive is not None and self.positive in self.columns:
            return self.columns.index(self.positive)
        return None

    @property
    def binary(self) -> bool:
        """Whether the measures take the binary form (the positive class against the rest): one
        score column, or two classes with a positive class given."""
        return self.pos_column is not None and (self.layout == "binary" or self.n_classes == 2)

    def grouped(self, s: int, c: int, weights: np.ndarray | None = None) -> np.ndarray:
        """Weighted counts of the items in each (tie group, gold class) cell of system ``s``'s column ``c``.

        Parameters
        ----------
        s, c : int
            System and score column.
        weights : ndarray, optional
            ``(B, N)`` item weights (None: one row of ones).

        Returns
        -------
        ndarray
            ``(B, G, K)``, tie groups highest score first.
        """
        K = self.n_classes
        group, thresholds = self.ranked()
        G = len(thresholds[s][c])
        key = group[s, c] * K + self.gold
        if weights is None:
            return np.bincount(key, minlength=G * K).astype(float).reshape(1, G, K)
        B = weights.shape[0]
        flat = (np.arange(B, dtype=np.int64)[:, None] * (G * K) + key[None, :]).ravel()
        return np.bincount(flat, weights=weights.ravel(), minlength=B * G * K).reshape(B, G, K)

    def swapped(self, a: int, b: int, swap: np.ndarray) -> ScoreCounts:
        """The counts of systems ``a`` and ``b`` (in that order) with their scores exchanged on the items
        where ``swap`` (N,) is True (approximate randomisation: ranked again, as the order changes)."""
        first = np.where(swap[:, None], self.scores[b], self.scores[a])
        second = np.where(swap[:, None], self.scores[a], self.scores[b])
        scores = np.stack([first, second])
        C = scores.shape[-1]
        group = np.zeros((2, C, self.n_items), dtype=np.int64)
        thresholds = []
        for s in range(2):
            row = []
            for c in range(C):
                group[s, c], distinct = tie_groups(scores[s, :, c])
                row.append(distinct)
            thresholds.append(tuple(row))
        return ScoreCounts(systems=(self.systems[a], self.systems[b]), labels=self.labels, gold=self.gold,
                           layout=self.layout, columns=self.columns, scores=scores,
                           has=np.asarray([self.has[a], self.has[b]]), positive=self.positive, group=group,
                           thresholds=tuple(thresholds), sources=self.sources, problems=self.problems)

    def require(self, kinds: tuple[str, ...]) -> None:
        """Raise the first recorded problem of these kinds (one line naming the file and line)."""
        for system in self.systems:
            for kind in kinds:
                message = self.problems.get(system, {}).get(kind)
                if message:
                    raise InputError(message)


def score_counts(runs, *, positive: int | None = None) -> ScoreCounts | None:
    """The :class:`ScoreCounts` of a Runs (None when no run has scores).

    Parameters
    ----------
    runs : Runs
        Item-level runs with ``scores`` (and ``score_labels`` for per-class columns).
    positive : int, optional
        The positive class code; the ``"binary"`` layout (one ``score`` column) needs it.

    Returns
    -------
    ScoreCounts or None
    """
    raw = getattr(runs, "scores", None)
    if raw is None:
        return None
    K = int(getattr(runs, "n_task", None) or runs.n_classes)
    labels = tuple(runs.labels[:K])
    arr = np.asarray(raw, dtype=float)
    columns: tuple[int, ...]
    if arr.ndim == 2:
        if positive is None:
            raise InputError("the runs have one 'score' column (the positive class's score): give the positive "
                             "class (--positive)")
        layout, columns = "binary", (int(positive),)
        arr = arr[:, :, None]
    else:
        names = list(runs.score_labels) if runs.score_labels else list(labels)
        layout, columns = "classes", tuple(labels.index(n) for n in names if n in labels)
        order = [names.index(labels[c]) for c in columns]
        if order != list(range(arr.shape[-1])):          # (the columns already in class order: no copy)
            arr = arr[:, :, order]
    problems = dict(getattr(runs, "score_problems", None) or {})
    S, N, C = arr.shape
    # a column's minimum is NaN iff it has a blank score: one reduction per column, no (S, N, C) mask
    blank = np.asarray([[bool(np.isnan(arr[s, :, c].min())) if N else False for c in range(C)] for s in range(S)],
                       dtype=bool).reshape(S, C)
    has = np.asarray([N > 0 and not (blank[s].all() and np.isnan(arr[s]).all()) for s in range(S)], dtype=bool)
    sources = {src.system: src.path for src in getattr(runs, "sources", ()) if src.role == "run" and src.system}
    for s, system in enumerate(runs.systems):
        if has[s] and blank[s].any() and "partial" not in problems.get(system, {}):
            problems[system] = {**problems.get(system, {}), "partial": (
                f"{sources.get(system, system)}: the system has scores for some items only "
                f"({int(np.isnan(arr[s]).any(axis=-1).sum())} of {arr.shape[1]} items have none)")}
    gold = np.asarray(runs.gold, dtype=np.int64)          # (no copy of int64 codes)
    return ScoreCounts(systems=tuple(runs.systems), labels=labels, gold=gold, layout=layout, columns=columns,
                       scores=arr, has=has, positive=positive, sources=sources, problems=problems)


def _rank_all(arr: np.ndarray, has: np.ndarray) -> tuple[np.ndarray, tuple]:
    """Tie groups ``(S, C, N)`` and distinct scores of every scored column without a blank score."""
    S, N, C = arr.shape
    # tie group numbers fit 32 bits below 2**31 items: half the memory of int64 ((S, C, N) of them)
    group = np.zeros((S, C, N), dtype=np.int32 if N < 2**31 else np.int64)
    distinct: dict[tuple[int, int], np.ndarray] = {}
    for s in range(S):
        if not has[s]:
            continue
        for c in range(C):
            column = arr[s, :, c]
            if not np.isnan(column).any():
                group[s, c], distinct[s, c] = tie_groups(column)
    return group, tuple(tuple(distinct.get((s, c), np.zeros(1)) for c in range(C)) for s in range(S))
