"""Per-column summaries of scores under one weighting of the items (:class:`ScoreStats`).

Every threshold-free score measure of :mod:`evalreport.measures.scores` reads a score column only through
a few numbers: the one-vs-rest ROC AUC, average precision, PR AUC and best F1 of the column's class, Hand
& Till's (2001) A(k|j) against every other class j, and the gold class totals. :class:`ScoreStats` builds
them all from one pass over a column's weighted counts per (tie group, gold class) and keeps only them.
"""
from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np

from evalreport.counts.score_order import ordered_classes
from evalreport.measures._core import get
from evalreport.measures.score_items import item_means

__all__ = ["ScoreStats", "SUMMARIES", "MEASURE_SUMMARIES", "summaries_of", "column_summaries", "ordered_summaries",
           "trapezoid_from"]


class ScoreStats:
    """The score counts under one weighting of the items, each score column summarised once.

    ``weights``: ``(B, N)`` item weights (None: one row of ones). ``wanted``: which per-column summaries
    to compute (:data:`SUMMARIES`; None: all). The first request for a system's column builds its
    weighted ``(B, G, K)`` counts per (tie group, gold class) once and derives every wanted summary from
    them (ROC AUC, average precision, PR AUC and best F1 of the column's class against the rest, Hand &
    Till's A(k|j) against every other class, the gold totals); only the small summaries are kept, so
    memory stays at one column's counts however many systems, classes and measures there are."""

    def __init__(self, sc, weights: np.ndarray | None = None, wanted: Iterable[str] | None = None) -> None:
        self.sc = sc
        self.weights = None if weights is None else np.asarray(weights, dtype=float)
        self.B = 1 if weights is None else int(self.weights.shape[0])   # type: ignore[union-attr]
        self.wanted = frozenset(SUMMARIES if wanted is None else wanted)
        self._cache: dict[tuple[int, int], dict[str, Any]] = {}
        self.bin_sums: dict[tuple[int, str], tuple[np.ndarray, np.ndarray, np.ndarray]] = {}
        self._gold: np.ndarray | None = None       # the gold class totals (unweighted summaries)
        self._means: dict[str, np.ndarray] | None = None

    def prefetch(self, threads: int | None = None) -> None:
        """Summarise every scored column of every system now, in ``threads`` threads (default: one per core,
        at most 4). Without weights a column's summaries come from one sort (:func:`ordered_summaries`),
        which numpy runs without holding the GIL, so the columns of a large task are summarised side by
        side; the values are those :meth:`summary` would compute one by one."""
        import os
        from concurrent.futures import ThreadPoolExecutor

        sc = self.sc
        todo = [(s, c) for s in range(len(sc.systems)) if sc.has[s] for c in range(len(sc.columns))
                if (s, c) not in self._cache]
        if self.weights is None and self._gold is None:      # the gold totals, once, before any thread
            self._gold = np.bincount(sc.gold, minlength=sc.n_classes)
        workers = max(1, min(threads or min(os.cpu_count() or 1, 4), len(todo)))
        if workers == 1 or self.weights is not None:
            found = [self._summaries(s, c) for s, c in todo]
        else:
            with ThreadPoolExecutor(workers) as pool:
                found = list(pool.map(lambda sc_: self._summaries(*sc_), todo))
        for key, summaries in zip(todo, found):
            self._cache[key] = {**self._cache.get(key, {}), **summaries}

    def grouped(self, s: int, c: int) -> np.ndarray:
        """``(B, G, K)`` weighted counts per tie group and gold class (built again on every call)."""
        return self.sc.grouped(s, c, self.weights)

    def summary(self, s: int, c: int, what: str) -> Any:
        """One summary (:data:`SUMMARIES`) of system ``s``'s score column ``c``, every wanted one built
        from one pass over the column's grouped counts."""
        key = (s, c)
        found = self._cache.get(key)
        if found is None or what not in found:
            found = {**(found or {}), **self._summaries(s, c, what)}
            self._cache[key] = found
        return found[what]

    def _summaries(self, s: int, c: int, what: str | None = None) -> dict[str, Any]:
        """The wanted summaries (and ``what``) of one column."""
        wanted = set(self.wanted)
        if c != self.sc.pos_column:
            wanted.discard("f1")
        if self.sc.binary or not self.sc.full or self.sc.n_classes < 3:
            wanted.discard("ovo")
        if what is not None:
            wanted.add(what)
        if self.weights is None:       # every item once: one sort of the column, no per-item tie groups
            sc = self.sc
            if self._gold is None:
                self._gold = np.bincount(sc.gold, minlength=sc.n_classes)
            ordered, new = ordered_classes(sc.scores[s, :, c], sc.gold, sc.n_classes)
            return ordered_summaries(ordered, new, sc.columns[c], sc.n_classes, wanted, self._gold)
        return column_summaries(self.grouped(s, c), self.sc.columns[c], wanted)

    def item_means(self) -> dict[str, np.ndarray]:
        """The Brier score and log loss of every system, every item weighted 1 (computed once for both;
        :func:`evalreport.measures.score_items.item_means`)."""
        if self._means is None:
            self._means = item_means(self.sc)
        return self._means

    def item_mean(self, values: np.ndarray) -> np.ndarray:
        """``(B, S)`` weighted means over items of ``values`` ``(S, N)`` (NaN rows stay NaN)."""
        v = np.nan_to_num(np.asarray(values, dtype=float))
        if self.weights is None:
            return (v.mean(axis=1) if v.shape[1] else np.full(v.shape[0], np.nan))[None, :]
        total = self.weights.sum(axis=1, keepdims=True)
        return (self.weights @ v.T) / total


#: The per-column summaries of :class:`ScoreStats`, and the measures that read each.
SUMMARIES = ("auc", "ap", "trap", "f1", "gold", "ovo")
MEASURE_SUMMARIES = {"roc_auc": ("auc",), "roc_auc_weighted": ("auc", "gold"), "roc_auc_ovo": ("auc", "ovo"),
                     "roc_auc_ovo_weighted": ("auc", "ovo"), "average_precision": ("ap",), "pr_auc": ("trap",),
                     "best_threshold_f1": ("f1",)}


def summaries_of(measures) -> set[str]:
    """The :data:`SUMMARIES` that these measures read (for :class:`ScoreStats`'s ``wanted``).

    Parameters
    ----------
    measures : iterable of str or Measure
        Score-based measures.

    Returns
    -------
    set of str
    """
    out: set[str] = set()
    for m in measures:
        rec = get(m)
        out.update(MEASURE_SUMMARIES.get(rec.family or rec.id.split("(")[0], ()))
    return out


def column_summaries(counts: np.ndarray, k: int, wanted: frozenset[str] | set[str]) -> dict[str, Any]:
    """The wanted summaries of one score column (class ``k``) from its ``(B, G, K)`` grouped counts.

    Parameters
    ----------
    counts : ndarray
        ``(B, G, K)`` weighted counts per tie group (highest score first) and gold class.
    k : int
        The class of the column's scores.
    wanted : set of str
        Which of :data:`SUMMARIES` to compute.

    Returns
    -------
    dict
        Summary name -> ``(numerator, denominator)`` (``(B,)`` each; ``ovo``: ``(B, K)``, A(k|j) over j;
        ``f1``: ``(best F1, gold positives)``), or ``gold`` -> ``(B, K)`` totals.

    Notes
    -----
    Every Mann-Whitney numerator comes from one vector: with TP_g the weight of class k at or above
    tie group g, sum_g pos_g (weight of class j strictly below g + half of it in g) equals
    sum_g cnt_gj (TP_g - pos_g / 2) (the same pairs counted from the other side), so A(k|j) for every
    j is one matrix-vector product and the one-vs-rest AUC is its sum over j != k (exact for integer
    weights, as every partial sum is then an integer or a half)."""
    out: dict[str, Any] = {}
    if "gold" in wanted:
        out["gold"] = np.einsum("bgj->bj", counts)                  # (B, K) (einsum: faster than sum here)
    if not wanted & {"auc", "ap", "trap", "f1", "ovo"}:
        return out
    pos = np.ascontiguousarray(counts[..., k])
    tot = np.einsum("bgj->bg", counts)
    tp = np.cumsum(pos, axis=-1)
    P = pos.sum(-1)
    if wanted & {"auc", "ovo"}:
        half = tp - pos / 2.0
        if "ovo" in wanted:
            num = np.einsum("bg,bgj->bj", half, counts)
            gold = np.einsum("bgj->bj", counts)
            out["ovo"] = (num, P[:, None] * gold)
        if "auc" in wanted:
            neg_total = tot.sum(-1) - P
            out["auc"] = (np.einsum("bg,bg->b", half, tot - pos), P * neg_total)
    if wanted & {"ap", "trap", "f1"}:
        predicted = np.cumsum(tot, axis=-1)                       # TP + FP at each threshold
        if "f1" in wanted:
            den = predicted + P[:, None]
            out["f1"] = (np.divide(2 * tp, den, out=np.zeros_like(tp), where=den > 0).max(axis=-1), P)
        if wanted & {"ap", "trap"}:
            prec = np.divide(tp, predicted, out=np.zeros_like(tp), where=predicted > 0)
            if "ap" in wanted:
                out["ap"] = (np.einsum("bg,bg->b", pos, prec), P)
            if "trap" in wanted:
                out["trap"] = trapezoid_from(tp, prec, pos, tot - pos)
    return out


def ordered_summaries(ordered: np.ndarray, new: np.ndarray, k: int, K: int, wanted: frozenset[str] | set[str],
                      gold: np.ndarray | None = None) -> dict[str, Any]:
    """The wanted summaries of one score column (class ``k``), every item weighted 1, from its items' gold
    classes in ascending score order (:func:`evalreport.counts.score_order.ordered_classes`).

    Parameters
    ----------
    ordered : ndarray
        ``(N,)`` gold class codes in ascending score order.
    new : ndarray
        ``(N,)`` bool, True where a tie group starts.
    k : int
        The class of the column's scores.
    K : int
        The number of classes.
    wanted : set of str
        Which of :data:`SUMMARIES` to compute.
    gold : ndarray, optional
        ``(K,)`` the items of each gold class (counted from ``ordered`` when None).

    Returns
    -------
    dict
        As :func:`column_summaries` with ``B = 1``, to rounding.

    Notes
    -----
    With tie groups g (ascending score), ``start_g`` the items below g, ``pos_g`` and ``size_g`` the
    class-k and all items in g, and P the class-k items: TP_g = P - (class-k items below g) are the
    positives at or above g's score and pred_g = N - start_g the items predicted positive at g's
    threshold, so no cumulative sum runs over the (tie group, class) cells. Hand & Till's A(k|j)
    numerator sums TP_g - pos_g / 2 over the class-j items (one ``bincount`` of a per-item vector), and
    the one-vs-rest AUC's numerator is the sum of those over the classes j other than k.
    """
    N = int(ordered.shape[0])
    out: dict[str, Any] = {}
    totals = np.bincount(ordered, minlength=K) if gold is None else gold
    gold = np.asarray(totals, dtype=float)[None, :]
    if "gold" in wanted:
        out["gold"] = gold
    if not wanted & {"auc", "ap", "trap", "f1", "ovo"}:
        return out
    # running counts in int32 (a running sum into float64 is ten times slower); per group in float64
    wide = N >= 2**31
    at = np.flatnonzero(new)                         # group starts
    G = at.size
    c0 = np.empty(N + 1, dtype=np.int64 if wide else np.int32)
    c0[0] = 0
    np.cumsum(ordered == k, out=c0[1:])
    P = float(c0[N])
    upto = np.empty(G + 1)                           # class-k items below each group start, then P
    upto[:G] = np.take(c0, at)
    upto[G] = P
    pos = np.diff(upto)                              # class-k items in each group
    tp = np.subtract(P, upto[:G], out=upto[:G])      # positives at or above each group's score
    Pv = np.array([P])
    if wanted & {"auc", "ovo"}:
        half = pos * -0.5
        half += tp
        num = None
        if "ovo" in wanted:
            # each item's group number (an int32 running sum is several times faster than an int64 one)
            gid: np.ndarray[Any, np.dtype[np.signedinteger]] = np.cumsum(new, dtype=np.int64 if wide else np.int32)
            gid -= 1
            num = np.bincount(ordered, weights=np.take(half, gid), minlength=K)
            out["ovo"] = (num[None, :], P * gold)
        if "auc" in wanted:
            if num is not None:       # the negatives are the other classes' items: their numerators' sum
                auc = float(num.sum() - num[k])
            else:
                neg = np.diff(at, append=N).astype(float)
                neg -= pos
                auc = float(np.dot(half, neg))
            out["auc"] = (np.array([auc]), np.array([P * (N - P)]))
    if wanted & {"f1", "ap", "trap"}:
        pred = np.subtract(N, at, dtype=float)       # items at or above each group's score
        if "f1" in wanted:
            out["f1"] = (np.array([(2.0 * tp / (pred + P)).max() if N else 0.0]), Pv)
        if wanted & {"ap", "trap"}:
            prec = np.divide(tp, pred, out=tp)
            ap = float(np.dot(pos, prec))
            if "ap" in wanted:
                out["ap"] = (np.array([ap]), Pv)
            if "trap" in wanted:
                # each segment runs from a group's point to the point one group up, whose precision
                # (tp - pos) / (pred - size) is that group's tp / pred (1 above the top group)
                up = float(np.dot(pos[:-1], prec[1:])) + (float(pos[-1]) if G else 0.0)
                out["trap"] = (np.array([(ap + up) / 2.0]), Pv)
    return out


def trapezoid_from(tp: np.ndarray, precision: np.ndarray, pos: np.ndarray,
                    neg: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Trapezoidal PR AUC numerator and denominator from the cumulative TP and the precision per tie group.

    Parameters
    ----------
    tp, precision, pos, neg : ndarray
        ``(..., G)`` cumulative true positives, precision, positive and negative weights per tie group.

    Returns
    -------
    tuple of ndarray
        Numerator (area times the positive weight) and denominator (the positive weight).
    """
    # the curve's points, from (R, P) = (0, 1); a tie group of weight 0 (not drawn in a resample)
    # is no point: it repeats the point before it
    if (pos + neg > 0).all():      # every tie group drawn (all items, weight 1): the points as they are
        prev_tp = np.concatenate([np.zeros_like(tp[..., :1]), tp[..., :-1]], axis=-1)
        prev_prec = np.concatenate([np.ones_like(tp[..., :1]), precision[..., :-1]], axis=-1)
        return ((tp - prev_tp) * (precision + prev_prec) / 2.0).sum(-1), pos.sum(-1)
    prec = np.concatenate([np.ones_like(tp[..., :1]), precision], axis=-1)
    drawn = np.concatenate([np.ones_like(tp[..., :1], dtype=bool), (pos + neg) > 0], axis=-1)
    last = np.maximum.accumulate(np.where(drawn, np.arange(prec.shape[-1]), 0), axis=-1)
    prec = np.take_along_axis(prec, last, axis=-1)
    prec, prev_prec = prec[..., 1:], prec[..., :-1]
    prev_tp = np.concatenate([np.zeros_like(tp[..., :1]), tp[..., :-1]], axis=-1)
    return ((tp - prev_tp) * (prec + prev_prec) / 2.0).sum(-1), pos.sum(-1)
