"""Item patterns and bootstrap draws: the items reduced to their distinct patterns, resamples drawn
as pattern counts, and the confusion tensors of those counts (used by
:mod:`evalreport.analyses.resampling`, which re-exports every name here).

How it is fast: resampling counts, not items
--------------------------------------------
Every measure is a function of the confusion tensor, and an item contributes to the tensors
of all systems only through its *pattern* ``(fold, gold, pred_1, ..., pred_S)``. The runs are
reduced once to their P distinct patterns with counts ``n_p`` (P is often far smaller than the
number of items N; at worst P = N). Resampling N items with replacement is then the same, in
distribution, as drawing pattern counts ``w ~ Multinomial(N, n / N)`` (within each fold:
``Multinomial(N_f, n_f / N_f)`` over the patterns of that fold). A multinomial costs about one
binomial draw per pattern, so the draw is split: one multinomial over the *heavy* patterns
(count >= t) plus one bucket for the items of the light ones, then as many uniform draws
among the light items as the bucket received, mapped to their patterns and counted. This is
exactly the multinomial; t is chosen per fold to minimise the cost (t = 1 when patterns are
few, no multinomial at all when nearly every item is its own pattern).

A resample's confusion tensors are a weighted sum of pattern indicators: for pattern p and
system s the cell ``(gold_p, pred_sp)``. Only the *off-diagonal* cells (the system is wrong on
the pattern) go into a sparse indicator matrix ``A`` of shape ``(S*K*K + K, P)``, together
with K rows of gold-class indicators; one sparse product ``A @ W.T`` for a block of resamples
``W`` ``(b, P)`` gives every system's errors and the gold class totals ``a_i``, and the diagonal is
``c_ii = a_i - sum_{j != i} c_ij``. The product therefore costs P x (number of wrong systems per
pattern) per resample, not P x S.

Pattern counts: resampling data that was never in memory
--------------------------------------------------------
:func:`~evalreport.analyses.resampling.bootstrap` and :func:`~evalreport.analyses.resampling.pairwise`
also take a :class:`~evalreport.counts.bigdata.PatternCounts` - the distinct (fold, gold,
predictions) patterns with counts that :func:`~evalreport.counts.bigdata.count_patterns` gets
from DuckDB or Spark - and resample it as it is: its rows are the patterns (rows with count 0 dropped, a repeated
row merged into its first occurrence), N = ``counts.sum()``, and the multinomial draw above runs
over them within folds. Nothing of size N is made: the light-pattern item list of the split draw
is built pattern by pattern and holds at most ``ITEM_DRAW_RATIO x P`` entries (the cost model
never prefers more item draws than that), so memory is O(S x P) whatever N is (tested with
N = 1e9). The results are *identical*, with the same seed, to those on the expanded items
``to_runs()`` (same patterns in the same order, same draws) whenever the rows are distinct, as
``count_patterns`` returns them; with repeated rows they match in distribution (the expanded
items then list a merged pattern's items in two places, which orders the item draws
differently). The randomisation test and McNemar's test only ever used the pattern counts.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import sparse

from evalreport.counts.pattern_counts import PatternCounts
from evalreport.errors import InputError

__all__ = ["Patterns", "patterns", "resampled_confusions", "STRATA", "DRAW_BUDGET", "TENSOR_BUDGET",
           "ITEM_DRAW_RATIO", "draw_plan", "draw_weights", "draw_work"]

DRAW_BUDGET = 2 ** 22            # elements of one (b, P) weight block or (b, N_f) block of item draws
TENSOR_BUDGET = 2 ** 21          # elements of one (b, S, K, K) block handed to compute()
ITEM_DRAW_RATIO = 8              # cost of one binomial draw / cost of one uniform item draw


# ----------------------------------------------------------------------------- patterns


@dataclass(frozen=True, eq=False)
class Patterns:
    """The distinct item patterns ``(fold, gold, pred_1..pred_S)`` of a :class:`Runs` or a
    :class:`~evalreport.counts.bigdata.PatternCounts`.

    ``counts`` (P,) items per pattern; ``gold`` (P,), ``pred`` (S, P), ``fold`` (P,) the pattern's
    codes; ``inverse`` (N,) the pattern of every item, or ``None`` when the patterns were given
    with their counts (no items exist then, and none are made). Patterns are numbered in the
    order of their first item (for pattern counts: in the order of their rows).
    """

    counts: np.ndarray
    gold: np.ndarray
    pred: np.ndarray
    fold: np.ndarray
    inverse: np.ndarray | None
    n_classes: int
    n_folds: int

    @property
    def n_patterns(self) -> int:
        return int(self.counts.shape[0])

    @property
    def n_items(self) -> int:
        return int(self.counts.sum())

    @property
    def n_systems(self) -> int:
        return int(self.pred.shape[0])

    def indicator(self) -> sparse.csc_array:
        """``(S*K*K + K, P)``: row ``s*K*K + i*K + j`` marks the patterns where system s
        predicts j for gold class i != j (errors only); the last K rows mark gold class i.

        Compressed by column (pattern): the product with a ``(P, b)`` block of pattern counts then
        reads each pattern's counts once and adds them into a ``(S*K*K + K, b)`` result that stays
        in cache (by row, it streamed the whole block once per stored entry: 7x slower at S = 20).
        """
        S, P = self.pred.shape
        K = self.n_classes
        wrong = self.pred != self.gold[None, :]
        s, p = np.nonzero(wrong)
        rows = np.concatenate([s * (K * K) + self.gold[p] * K + self.pred[s, p], S * K * K + self.gold])
        cols = np.concatenate([p, np.arange(P)])
        data = np.ones(rows.shape[0], dtype=float)
        return sparse.csc_array((data, (rows, cols)), shape=(S * K * K + K, P))


def _distinct(fold: np.ndarray, gold: np.ndarray, pred: np.ndarray, K: int, F: int):
    """``(first, inverse, counts)`` of the distinct rows ``(fold, gold, pred_1..pred_S)`` (as np.unique)."""
    S = pred.shape[0]
    if (S + 1) * math.log2(max(K, 2)) + math.log2(F) < 62:
        # mixed-radix code of the whole row: one int64 per row
        powers = K ** np.arange(S - 1, -1, -1, dtype=np.int64)
        key = (fold * K + gold) * (K ** S) + pred.T @ powers
        _, first, inverse, counts = np.unique(key, return_index=True, return_inverse=True, return_counts=True)
    else:
        dtype = np.int8 if max(K, F) < 2 ** 7 else (np.int16 if max(K, F) < 2 ** 15 else np.int32)
        rows = np.column_stack([fold, gold, pred.T]).astype(dtype)
        _, first, inverse, counts = np.unique(rows, axis=0, return_index=True, return_inverse=True,
                                              return_counts=True)
    return first, np.ravel(inverse), counts


def _first_order(first: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(order, renumber)``: distinct rows sorted by first occurrence, and old number -> new number."""
    order = np.argsort(first, kind="stable")
    renumber = np.empty_like(order)
    renumber[order] = np.arange(order.shape[0])
    return order, renumber


def patterns(data) -> Patterns:
    """Reduce runs to their distinct (fold, gold, predictions) patterns, with counts.

    ``data``: a :class:`Runs` (items), or a :class:`~evalreport.counts.bigdata.PatternCounts`
    (patterns with counts, as counted out of core): its rows with a positive count are the
    patterns, in their order; rows that repeat a pattern are merged into its first row. Nothing
    of size N (the number of items) is made: the result has ``inverse = None``.
    """
    if isinstance(data, PatternCounts):
        return _from_pattern_counts(data)
    runs = data
    gold = np.asarray(runs.gold, dtype=np.int64)
    pred = np.asarray(runs.pred, dtype=np.int64)
    K = runs.n_classes
    F = max(runs.n_folds, 1)
    fold = np.zeros(gold.shape[0], dtype=np.int64) if runs.folds is None else np.asarray(runs.folds, dtype=np.int64)
    first, inverse, counts = _distinct(fold, gold, pred, K, F)
    order, renumber = _first_order(first)
    rep = first[order]
    return Patterns(counts=counts[order].astype(np.int64), gold=gold[rep], pred=pred[:, rep], fold=fold[rep],
                    inverse=renumber[inverse], n_classes=K, n_folds=F)


def _from_pattern_counts(pc: PatternCounts) -> Patterns:
    codes = np.asarray(pc.patterns)
    counts = np.asarray(pc.counts)
    S, K = len(pc.systems), len(pc.labels)
    F = max(len(pc.fold_names), 1) if pc.folds is not None else 1
    if codes.ndim != 2 or codes.shape[1] != S + 1 or counts.shape != (codes.shape[0],):
        raise InputError(f"pattern counts: patterns must be (P, 1 + S) = (P, {S + 1}) codes with counts (P,); "
                         f"got {codes.shape} and {counts.shape}")
    if counts.size and (counts.dtype.kind not in "iu" or counts.min() < 0):
        raise InputError("pattern counts must be non-negative integers")
    if codes.size and (codes.min() < 0 or codes.max() >= K):
        raise InputError(f"pattern codes must lie in 0..{K - 1}")
    keep = np.flatnonzero(counts > 0)
    gold = codes[keep, 0].astype(np.int64)
    pred = np.ascontiguousarray(codes[keep, 1:].T, dtype=np.int64)
    if pc.folds is None:
        fold = np.zeros(keep.shape[0], dtype=np.int64)
    else:
        fold = np.asarray(pc.folds)[keep].astype(np.int64)
        if fold.size and (fold.min() < 0 or fold.max() >= F):
            raise InputError(f"pattern fold codes must lie in 0..{F - 1}")
    n = counts[keep].astype(np.int64)
    first, inverse, dup = _distinct(fold, gold, pred, K, F)
    if dup.shape[0] < keep.shape[0]:                      # repeated rows: merge into the first one
        order, renumber = _first_order(first)
        new = renumber[inverse]
        n = np.zeros(order.shape[0], dtype=np.int64)
        np.add.at(n, new, counts[keep].astype(np.int64))
        rep = first[order]
        gold, pred, fold = gold[rep], pred[:, rep], fold[rep]
    return Patterns(counts=n, gold=gold, pred=pred, fold=fold, inverse=None, n_classes=K, n_folds=F)


def draw_weights(pat: Patterns, rng: np.random.Generator, b: int, plan, work=None) -> np.ndarray:
    """``(b, P)`` pattern counts of b bootstrap resamples (items drawn with replacement within the
    strata of ``plan``: folds, or folds x gold classes).

    Per stratum (``plan`` from :func:`draw_plan`): one multinomial over its heavy patterns
    plus one bucket for the items of its light patterns, then as many uniform draws among those
    light items as the bucket received. Conditional on the bucket count the light draws are
    uniform over the light items, so the pattern counts are exactly Multinomial(N_f, n_f / N_f):
    resampling the fold's items with replacement.

    ``work``: two float arrays of at least ``b * P`` elements (from :func:`draw_work`), reused from
    call to call: the counts are made in the first and returned as the transpose of a C-ordered
    ``(P, b)`` copy in the second, the layout :func:`resampled_confusions` multiplies with (so it
    copies nothing, and no fresh pages are touched for each block).
    """
    P = pat.n_patterns
    if work is None:
        W = np.zeros((b, P), dtype=float)
    else:
        W = work[0][:b * P].reshape(b, P)
    # one fold whose items are drawn: each resample's row is its light counts (zero on the heavy
    # patterns, which are set after them), so no row is cleared first
    set_rows = work is not None and len(plan) == 1 and plan[0][2] > 0 and plan[0][1].shape[0] > 0
    if work is not None and not set_rows:
        W.fill(0.0)
    for heavy, light_items, n_f in plan:  # a loop over strata (folds, or folds x gold classes) only
        if n_f == 0:
            continue
        n_light = light_items.shape[0]
        probs = np.append(pat.counts[heavy], n_light) / n_f
        M = rng.multinomial(n_f, probs, size=b)                     # (b, H + 1)
        if not set_rows:
            W[:, heavy] = M[:, :-1]
        m = M[:, -1]
        if n_light:
            idx = rng.integers(0, n_light, size=int(m.sum()), dtype=np.int32 if n_light < 2 ** 31 else np.int64)
            pid = light_items[idx]
            for i, part in enumerate(np.split(pid, np.cumsum(m)[:-1])):   # a loop over the b resamples
                if set_rows:
                    W[i] = np.bincount(part, minlength=P)
                else:
                    W[i] += np.bincount(part, minlength=P)
        if set_rows:
            W[:, heavy] = M[:, :-1]
    if work is None:
        return W
    WT = work[1][:P * b].reshape(P, b)
    np.copyto(WT, W.T)
    return WT.T


def draw_work(pat: Patterns, b: int):
    """The two buffers :func:`draw_weights` reuses for blocks of at most b resamples."""
    return np.empty(b * pat.n_patterns), np.empty(b * pat.n_patterns)


STRATA = (None, "gold")


def _strata(pat: Patterns, strata: str | None) -> tuple[np.ndarray, int]:
    """``(stratum of each pattern, number of strata)``: the folds, or the (fold, gold class) cells."""
    if strata is None:
        return pat.fold, pat.n_folds
    if strata != "gold":
        raise InputError(f"unknown bootstrap strata {strata!r}; choose 'gold' (or none)")
    return pat.fold * pat.n_classes + pat.gold, pat.n_folds * pat.n_classes


def draw_plan(pat: Patterns, strata: str | None = None):
    """Per stratum: ``(heavy pattern ids, pattern id of each item in a light pattern, stratum size)``.

    The strata are the folds; with ``strata="gold"`` the gold classes within the folds (a
    stratified bootstrap: every resample keeps every class's size, so no class is ever lost).
    A multinomial costs about one binomial draw per category, a uniform item draw about
    ``1 / ITEM_DRAW_RATIO`` of that; patterns holding at least t items are drawn by the
    multinomial, the rest item by item, with t chosen to minimise the expected cost
    (t = 1: pure multinomial; t > max count: pure item draws).
    """
    plan = []
    stratum, n_strata = _strata(pat, strata)
    for f in range(n_strata):
        ids = np.flatnonzero(stratum == f)
        counts = pat.counts[ids]
        n_f = int(counts.sum())
        sorted_counts = np.sort(counts)
        cand = np.unique(np.append(counts, counts.max(initial=0) + 1))      # thresholds t
        below = np.searchsorted(sorted_counts, cand, side="left")           # patterns with count < t
        light_items = np.concatenate([[0], np.cumsum(sorted_counts)])[below]
        cost = ITEM_DRAW_RATIO * (counts.shape[0] - below) + light_items
        t = cand[int(np.argmin(cost))]
        heavy = ids[counts >= t]
        if pat.inverse is not None:      # items in item order (the order the draws index)
            light = np.zeros(pat.n_patterns, dtype=bool)
            light[ids[counts < t]] = True
            items = pat.inverse[light[pat.inverse]].astype(np.intp)
        else:                            # pattern counts: the light items pattern by pattern
            lid = ids[counts < t]
            items = np.repeat(lid.astype(np.intp), pat.counts[lid])
        plan.append((heavy, items, n_f))
    return plan


def resampled_confusions(pat: Patterns, weights, indicator=None) -> np.ndarray:
    """Confusion tensors ``(b, S, K, K)`` (float) of the pooled items for pattern counts ``weights`` (b, P).

    Equal to the confusion tensors of the item list that repeats pattern p ``weights[:, p]``
    times (tested).
    """
    W = np.atleast_2d(np.asarray(weights, dtype=float))
    A = pat.indicator() if indicator is None else indicator
    S, K = pat.n_systems, pat.n_classes
    SKK = S * K * K
    out = (A @ np.ascontiguousarray(W.T)).T          # (b, S*K*K + K)
    T = np.ascontiguousarray(out[:, :SKK]).reshape(W.shape[0], S, K, K)
    totals = out[:, SKK:]                            # gold class sizes a_i, (b, K)
    diag = totals[:, None, :] - T.sum(axis=-1)
    k = np.arange(K)
    T[..., k, k] = diag
    return T
