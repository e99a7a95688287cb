"""Uncertainty by resampling: paired bootstrap intervals, rank distributions, pairwise tests.

Three public functions and one result type:

:func:`bootstrap`
    paired bootstrap over items (the same resample for every system; within folds when the
    runs have folds): percentile intervals for every system x measure, and the distribution of
    every system's rank under every measure (``P(rank = k)`` for k = 1..S, ``P(best)``).
:func:`pairwise`
    paired significance tests between every pair of systems for one measure: paired bootstrap,
    approximate randomisation, and McNemar's test on accuracy as a cross-check, with Holm and
    Benjamini-Hochberg corrections across the pairs of each (measure, test).
:func:`groups`
    groups of systems that the chosen test cannot separate at ``alpha``.

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
pattern) per resample, not P x S. The ``(b, S, K, K)`` stack goes through
:func:`evalreport.measures.compute` once per measure (``explain=False``), so every measure in
the registry works, including non-decomposable ones (F1, MCC, kappa, K). With folds the
measure is computed on the tensor pooled over folds (the counts-pooling F_tp,fp of
Forman & Scholz, paper 001, section 3); only the resampling is done within folds, so every
resample keeps the fold sizes.

Ranks
-----
Within each resample, systems are ranked per measure in the measure's direction
(``Measure.higher_is_better``); an undefined (NaN) value ranks below every defined value. A
tie of t systems over positions r..r+t-1 gives each of them probability 1/t at each of those
positions: the expected rank is then the average rank, and the probabilities over k = 1..S
sum to 1 for every system. Values are compared after rounding to 12 decimals, so that equal
values reached through different floating-point paths still tie.

Pairwise tests
--------------
``statistic`` of the bootstrap and randomisation rows is the observed difference
``d = m(a) - m(b)`` oriented by the measure's direction (negated for lower-is-better
measures, so ``d > 0`` always means "a is better").

bootstrap
    the paired bootstrap test on the *centred* difference (the bootstrap distribution of the
    difference shifted to the null hypothesis of no difference): with the bootstrap
    differences ``d*_b`` (the same
    resamples as :func:`bootstrap` with the same seed),
    ``p = (1 + #{b : |d*_b - d| >= |d|}) / (1 + B)`` over the resamples where ``d*_b`` is
    defined. Two-sided.
randomization
    approximate randomisation: in each of R rounds, every item on which the two systems
    disagree has their two predictions swapped with probability 1/2, and
    ``p = (1 + #{r : |d_r| >= |d|}) / (1 + R)``. Items with the same pattern are exchangeable, so
    the number swapped among the ``n`` items of a (gold, pred_a, pred_b) cell is drawn as one
    ``Binomial(n, 1/2)`` - exactly the per-item coin flips. Small cells are drawn as the
    number of set bits in n random bits (64 items per random word), large ones by one
    binomial draw (cells of at most 8 items use one random byte).
mcnemar
    McNemar's test on the discordant items of the pair for *accuracy* (rows have
    ``measure = "accuracy"``): ``b`` = items a gets right and b wrong, ``c`` the reverse. When
    ``b + c < 25`` the exact two-sided binomial test (``statistic = min(b, c)``), otherwise the
    chi-square test with continuity correction (``statistic = (|b - c| - 1)^2 / (b + c)``,
    1 degree of freedom); the ``detail`` column says which.

Degenerate cases have defined answers: identical systems give ``d = 0`` and p = 1 in every
test; no discordant items give McNemar p = 1. A NaN observed difference (the measure is
undefined for one of the systems) gives a NaN p-value, which the corrections leave out.

Pattern counts: resampling data that was never in memory
--------------------------------------------------------
:func:`bootstrap` and :func:`pairwise` also take a
:class:`~evalreport.counts.bigdata.PatternCounts` - the distinct (fold, gold, predictions)
patterns with counts that :func:`~evalreport.counts.bigdata.count_patterns` gets from DuckDB or
Spark - and resample it as it is: its rows are the patterns (rows with count 0 dropped, a repeated
row merged into its first occurrence), N = ``counts.sum()``, and the multinomial draw above runs
over them within folds. Nothing of size N is made: the light-pattern item list of the split draw
is built pattern by pattern and holds at most ``_ITEM_DRAW_RATIO x P`` entries (the cost model
never prefers more item draws than that), so memory is O(S x P) whatever N is (tested with
N = 1e9). The results are *identical*, with the same seed, to those on the expanded items
``to_runs()`` (same patterns in the same order, same draws) whenever the rows are distinct, as
``count_patterns`` returns them; with repeated rows they match in distribution (the expanded
items then list a merged pattern's items in two places, which orders the item draws
differently). The randomisation test and McNemar's test only ever used the pattern counts.

Reproducibility and invariance
------------------------------
Everything is seeded. Patterns are numbered by their first item, so the bootstrap resamples
do not depend on the order of the systems, and randomisation draws are made for the pairs in
the order of their (sorted) system names: reordering the systems permutes every output and
changes no number.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable, Sequence

import numpy as np
import pandas as pd
from scipy import sparse, stats

from evalreport.errors import InputError, MeasureError
from evalreport.counts.bigdata import PatternCounts
from evalreport.inputs.runs import Runs
from evalreport.measures import Measure, applicable, bind, compute, default_measures, resolve_positive

__all__ = ["bootstrap", "BootstrapResult", "pairwise", "groups", "holm", "benjamini_hochberg",
           "mcnemar", "Patterns", "patterns", "resampled_confusions", "TESTS", "CORRECTIONS",
           "MCNEMAR_EXACT_BELOW", "p_floor", "resamples_needed"]

TESTS = ("bootstrap", "randomization", "mcnemar")
CORRECTIONS = {"holm": "p_holm", "bh": "p_bh", "none": "p_value"}
MCNEMAR_EXACT_BELOW = 25          # exact binomial McNemar when b + c is below this

_DRAW_BUDGET = 2 ** 22            # elements of one (b, P) weight block or (b, N_f) block of item draws
_TENSOR_BUDGET = 2 ** 21          # elements of one (b, S, K, K) block handed to compute()
_TENSOR_CAP = 2 ** 24             # at most this many elements of (b, S, K, K) tensors at once (also memory-bound)
_ITEM_DRAW_RATIO = 8              # cost of one binomial draw / cost of one uniform item draw
_BIT_CELL_MAX = 2048              # randomisation: cells up to this size are drawn as random bits
_ROUND = 12                       # decimals kept when comparing values for ranks and tests

Progress = Callable[[int, int], None] | None


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

    def indicator(self) -> sparse.csr_array:
        """``(S*K*K + K, P)``: row ``s*K*K + i*K + j`` marks the patterns where system s
        predicts j for gold class i != j (errors only); the last K rows mark gold class i."""
        S, P = self.pred.shape
        K = self.n_classes
        wrong = self.pred != self.gold[None, :]
        s, p = np.nonzero(wrong)
        rows = np.concatenate([s * (K * K) + self.gold[p] * K + self.pred[s, p], S * K * K + self.gold])
        cols = np.concatenate([p, np.arange(P)])
        data = np.ones(rows.shape[0], dtype=float)
        return sparse.csr_array((data, (rows, cols)), shape=(S * K * K + K, P))


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


def _draw_weights(pat: Patterns, rng: np.random.Generator, b: int, plan) -> np.ndarray:
    """``(b, P)`` pattern counts of b bootstrap resamples (items drawn with replacement within folds).

    Per fold (``plan`` from :func:`_draw_plan`): one multinomial over the fold's heavy patterns
    plus one bucket for the items of its light patterns, then as many uniform draws among those
    light items as the bucket received. Conditional on the bucket count the light draws are
    uniform over the light items, so the pattern counts are exactly Multinomial(N_f, n_f / N_f):
    resampling the fold's items with replacement.
    """
    P = pat.n_patterns
    W = np.zeros((b, P), dtype=float)
    for heavy, light_items, n_f in plan:  # a loop over folds only
        if n_f == 0:
            continue
        n_light = light_items.shape[0]
        probs = np.append(pat.counts[heavy], n_light) / n_f
        M = rng.multinomial(n_f, probs, size=b)                     # (b, H + 1)
        W[:, heavy] = M[:, :-1]
        m = M[:, -1]
        if n_light:
            idx = rng.integers(0, n_light, size=int(m.sum()), dtype=np.int32 if n_light < 2 ** 31 else np.int64)
            pid = light_items[idx]
            for i, part in enumerate(np.split(pid, np.cumsum(m)[:-1])):   # a loop over the b resamples
                W[i] += np.bincount(part, minlength=P)
    return W


def _draw_plan(pat: Patterns):
    """Per fold: ``(heavy pattern ids, pattern id of each item in a light pattern, fold size)``.

    A multinomial costs about one binomial draw per category, a uniform item draw about
    ``1 / _ITEM_DRAW_RATIO`` of that; patterns holding at least t items are drawn by the
    multinomial, the rest item by item, with t chosen to minimise the expected cost
    (t = 1: pure multinomial; t > max count: pure item draws).
    """
    plan = []
    for f in range(pat.n_folds):
        ids = np.flatnonzero(pat.fold == f)
        counts = pat.counts[ids]
        n_f = int(counts.sum())
        sorted_counts = np.sort(counts)
        cand = np.unique(np.append(counts, counts.max(initial=0) + 1))      # thresholds t
        below = np.searchsorted(sorted_counts, cand, side="left")           # patterns with count < t
        light_items = np.concatenate([[0], np.cumsum(sorted_counts)])[below]
        cost = _ITEM_DRAW_RATIO * (counts.shape[0] - below) + light_items
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


# ----------------------------------------------------------------------------- helpers


def _check_data(data) -> Runs | PatternCounts:
    if not isinstance(data, (Runs, PatternCounts)):
        raise InputError("resampling needs item-level predictions (a Runs) or the joint patterns of the items "
                         "with counts (a PatternCounts), not confusion matrices: the pairing of systems on the "
                         "same items is lost in a confusion matrix")
    if data.n_items == 0:
        raise InputError("no items to resample")
    return data


def _check_count(n, what: str) -> int:
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
        raise InputError(f"{what} must be a positive integer; got {n!r}")
    return int(n)


def _measures(measures, positive, costs, labels) -> list[Measure]:
    """The records, bound to the data's classes (class subsets; a gain measure comes bound)."""
    chosen = default_measures(positive=positive, costs=costs) if measures is None else [
        bind(m, labels) for m in ([measures] if isinstance(measures, (str, Measure)) else measures)]
    if not chosen:
        raise MeasureError("no measures to compute")
    for m in chosen:
        ok, why = applicable(m, positive=positive, costs=costs)
        if not ok:
            raise MeasureError(f"measure {m.id!r}: {why}")
    ids = [m.id for m in chosen]
    if len(set(ids)) != len(ids):
        raise MeasureError("a measure is listed twice")
    return chosen


def _streams(seed):
    """Independent generators for the bootstrap and the randomisation test."""
    boot, rand = np.random.SeedSequence(seed).spawn(2)
    return np.random.default_rng(boot), np.random.default_rng(rand)


def _point_values(pat: Patterns, measures, A, *, positive, policy, costs, task=None) -> np.ndarray:
    T0 = resampled_confusions(pat, pat.counts[None, :], A)[0]
    return np.stack([compute(m, T0, positive=positive, policy=policy, costs=costs, explain=False,
                             task=task).value for m in measures], axis=-1)            # (S, M)


def _resample_values(pat: Patterns, measures, n_resamples: int, rng, A, *, positive, policy, costs, task=None,
                     progress: Progress, total: int | None = None) -> np.ndarray:
    """``(B, S, M)`` values of every measure on B paired bootstrap resamples."""
    S, K, P = pat.n_systems, pat.n_classes, pat.n_patterns
    B = n_resamples
    out = np.empty((B, S, len(measures)), dtype=float)
    plan = _draw_plan(pat)
    b_draw = max(1, min(B, _DRAW_BUDGET // max(pat.n_items, P, 1)))
    # blocks of resamples handed to compute(): within the tensor budget, and at least ~10 blocks
    # so that progress is reported while a long run goes on
    b_tensor = max(b_draw, min(B, _TENSOR_BUDGET // (S * K * K), -(-B // 10)))
    # the blocks above fix the order of the random draws (so the results of a seed); the tensors
    # themselves are made and measured at most `rows` resamples at a time, so that memory bounds
    # the block and a larger K costs time, not memory (every row is measured on its own: the
    # values do not depend on `rows`)
    rows = _rows_in_memory(S * K * K)
    kw = dict(positive=positive, policy=policy, costs=costs, explain=False, task=task)
    for start in range(0, B, b_tensor):
        stop = min(B, start + b_tensor)
        if stop - start <= rows:
            T = np.empty((stop - start, S, K, K), dtype=float)
            for s0 in range(start, stop, b_draw):
                s1 = min(stop, s0 + b_draw)
                T[s0 - start:s1 - start] = resampled_confusions(pat, _draw_weights(pat, rng, s1 - s0, plan), A)
            for j, m in enumerate(measures):
                out[start:stop, :, j] = compute(m, T, **kw).value
            del T
        else:
            for s0 in range(start, stop, b_draw):
                s1 = min(stop, s0 + b_draw)
                W = _draw_weights(pat, rng, s1 - s0, plan)
                for r0 in range(s0, s1, rows):
                    r1 = min(s1, r0 + rows)
                    T = resampled_confusions(pat, W[r0 - s0:r1 - s0], A)
                    for j, m in enumerate(measures):
                        out[r0:r1, :, j] = compute(m, T, **kw).value
                    del T
        if progress is not None:
            progress(stop, B if total is None else total)
    return out


def _available_memory() -> int:
    """Bytes this process may still allocate: the least of the free memory, the cgroup's room and the
    address-space limit (``ulimit -v``) left; 2 GiB when none can be read."""
    found = []
    try:
        with open("/proc/meminfo") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    found.append(int(line.split()[1]) * 1024)
    except (OSError, ValueError, IndexError):
        pass
    for limit, usage in (("/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory.current"),
                         ("/sys/fs/cgroup/memory/memory.limit_in_bytes", "/sys/fs/cgroup/memory/memory.usage_in_bytes")):
        try:
            with open(limit) as fh:
                text = fh.read().strip()
            if text != "max" and int(text) < 2 ** 60:
                with open(usage) as fh:
                    found.append(int(text) - int(fh.read().strip()))
            break
        except (OSError, ValueError):
            continue
    try:
        import resource

        soft = resource.getrlimit(resource.RLIMIT_AS)[0]
        if soft != resource.RLIM_INFINITY:
            used = 0
            with open("/proc/self/status") as fh:
                for line in fh:
                    if line.startswith("VmSize:"):
                        used = int(line.split()[1]) * 1024
            found.append(soft - used)
    except (ImportError, OSError, ValueError):
        pass
    return max(0, min(found)) if found else 2 ** 31


def _rows_in_memory(cells: int) -> int:
    """Resamples whose ``(b, S, K, K)`` tensors (``cells`` = S*K*K each) are made and measured at once:
    a block of at most 1/32 of the available memory (the measures make a few temporaries of its size)
    and of at most ``_TENSOR_CAP`` elements; at least one."""
    budget = min(_TENSOR_CAP, _available_memory() // (32 * 8))
    return max(1, budget // max(cells, 1))


def _rank_key(values: np.ndarray, higher_is_better: bool) -> np.ndarray:
    """Values turned so that larger is better, NaN lowest, rounded for tie detection."""
    v = np.round(np.asarray(values, dtype=float), _ROUND)
    v = v if higher_is_better else -v
    return np.where(np.isnan(v), -np.inf, v)


def _rank_probabilities(values: np.ndarray, higher_is_better: bool) -> np.ndarray:
    """``(S, S)`` with ``[s, k]`` = P(system s has rank k+1) over the rows of ``values`` (B, S);
    a tie over t positions spreads 1/t to each."""
    B, S = values.shape
    acc = np.zeros(S * (S + 1), dtype=float)
    step = max(1, _DRAW_BUDGET // (S * S))
    for start in range(0, B, step):
        y = _rank_key(values[start:start + step], higher_is_better)       # (b, S)
        above = (y[:, None, :] > y[:, :, None]).sum(axis=-1)             # systems strictly better than s
        tied = (y[:, None, :] == y[:, :, None]).sum(axis=-1)             # tied with s, itself included
        base = np.arange(S) * (S + 1)
        w = 1.0 / tied
        acc += np.bincount((base + above).ravel(), weights=w.ravel(), minlength=S * (S + 1))
        acc -= np.bincount((base + above + tied).ravel(), weights=w.ravel(), minlength=S * (S + 1))
    return np.cumsum(acc.reshape(S, S + 1), axis=1)[:, :S] / B


# ----------------------------------------------------------------------------- bootstrap


@dataclass(frozen=True, eq=False)
class BootstrapResult:
    """What :func:`bootstrap` returns.

    ``intervals``: system, measure, value (on the full data), lo, hi (percentile interval at
    ``level``), se (standard deviation of the resampled values), nan_fraction (share of
    resamples where the measure was undefined; lo, hi and se ignore those).
    ``rank_distribution``: system, measure, rank (1..S), probability - every rank, also those
    with probability 0. ``samples``: the raw values, ``(n_resamples, S, M)`` in the order of
    ``systems`` and ``measures`` (8 bytes per value: 14 MB for 1,000 x 20 x 88; the confusion
    tensors themselves are never kept).
    """

    intervals: pd.DataFrame
    rank_distribution: pd.DataFrame
    samples: np.ndarray | None
    n_resamples: int
    seed: int | None
    level: float
    systems: tuple[str, ...]
    measures: tuple[str, ...]

    @property
    def p_best(self) -> pd.DataFrame:
        """system, measure, probability: P(rank = 1) (a tie for first shares it)."""
        rd = self.rank_distribution
        return rd.loc[rd["rank"] == 1, ["system", "measure", "probability"]].reset_index(drop=True)


def bootstrap(data, measures=None, *, n_resamples: int = 1000, seed: int | None = 0, positive=None,
              policy: str = "nan", costs=None, level: float = 0.95, progress: Progress = None) -> BootstrapResult:
    """Paired bootstrap over items: intervals and rank distributions for every system x measure.

    ``data``: a :class:`~evalreport.inputs.Runs`, or a
    :class:`~evalreport.counts.bigdata.PatternCounts` (resampled as pattern counts, never expanded
    to items; see the module docstring). ``measures``: ids or records (default:
    :func:`evalreport.measures.default_measures`). Items are resampled with replacement - the
    same resample for every system; within folds when the runs have folds. ``progress``: an
    optional ``callable(done, total)`` called after each block of resamples.
    """
    runs = _check_data(data)
    B = _check_count(n_resamples, "n_resamples")
    if not 0.0 < float(level) < 1.0:
        raise InputError(f"level must lie strictly between 0 and 1; got {level!r}")
    if positive is not None:
        positive = resolve_positive(positive, runs.labels, len(runs.labels))
    chosen = _measures(measures, positive, costs, runs.labels)
    pat = patterns(runs)
    A = pat.indicator()
    kw = dict(positive=positive, policy=policy, costs=costs, task=getattr(runs, "n_task", None))
    point = _point_values(pat, chosen, A, **kw)                                   # (S, M)
    rng, _ = _streams(seed)
    samples = _resample_values(pat, chosen, B, rng, A, progress=progress, **kw)  # (B, S, M)

    S, M = point.shape
    alpha = (1.0 - float(level)) / 2.0
    nan = np.isnan(samples)
    defined = (~nan).sum(axis=0)
    with np.errstate(all="ignore"), _quiet():
        lo, hi = np.nanquantile(samples, [alpha, 1.0 - alpha], axis=0)
        se = np.nanstd(samples, axis=0, ddof=1) if B > 1 else np.full((S, M), np.nan)
    se = np.where(defined > 1, se, np.nan)
    systems = np.asarray(runs.systems, dtype=object)
    ids = np.asarray([m.id for m in chosen], dtype=object)
    # measure-major rows: for each measure, every system
    intervals = pd.DataFrame({
        "system": np.tile(systems, M), "measure": np.repeat(ids, S),
        "value": point.T.ravel(), "lo": lo.T.ravel(), "hi": hi.T.ravel(), "se": se.T.ravel(),
        "nan_fraction": (nan.sum(axis=0) / B).T.ravel(),
    })
    probs = np.stack([_rank_probabilities(samples[:, :, j], m.higher_is_better) for j, m in enumerate(chosen)])
    rank_distribution = pd.DataFrame({
        "system": np.tile(np.repeat(systems, S), M), "measure": np.repeat(ids, S * S),
        "rank": np.tile(np.arange(1, S + 1), S * M), "probability": probs.ravel(),
    })
    return BootstrapResult(intervals=intervals, rank_distribution=rank_distribution, samples=samples,
                           n_resamples=B, seed=seed, level=float(level), systems=tuple(runs.systems),
                           measures=tuple(ids.tolist()))


class _quiet:
    """Silence the 'All-NaN slice' and 'degrees of freedom' warnings of nan-aware reductions."""

    def __enter__(self):
        import warnings

        self._ctx = warnings.catch_warnings()
        self._ctx.__enter__()
        warnings.simplefilter("ignore", RuntimeWarning)

    def __exit__(self, *exc):
        return self._ctx.__exit__(*exc)


# ----------------------------------------------------------------------------- corrections and McNemar


def holm(p_values) -> np.ndarray:
    """Holm's step-down adjusted p-values (NaN entries are left out and stay NaN)."""
    p = np.asarray(p_values, dtype=float)
    out = np.full(p.shape, np.nan)
    ok = ~np.isnan(p)
    q = p[ok]
    m = q.shape[0]
    if m:
        order = np.argsort(q, kind="stable")
        adj = np.minimum(1.0, np.maximum.accumulate((m - np.arange(m)) * q[order]))
        res = np.empty(m)
        res[order] = adj
        out[ok] = res
    return out


def p_floor(pairwise: pd.DataFrame, test: str = "bootstrap") -> dict | None:
    """The smallest p-value a resampling test can give, raw and after Holm's correction.

    The bootstrap and randomisation p-values are ``(1 + count) / (1 + B)`` with B the number of
    defined resamples (:func:`_centred_p`), so no raw p is below ``1 / (B + 1)``; Holm multiplies
    the smallest of the m *defined* p-values by m (:func:`holm` leaves undefined ones out), so no
    Holm-corrected p is below ``min(1, m / (B + 1))``. None for a test without resamples (McNemar)
    or without a defined p-value.
    """
    if pairwise.empty or "n_resamples" not in pairwise:
        return None
    sub = pairwise[(pairwise["test"] == test) & pairwise["p_value"].notna()]
    if sub.empty or test == "mcnemar":
        return None
    B = int(pd.to_numeric(sub["n_resamples"], errors="coerce").max())
    if B <= 0:
        return None
    m = len(sub)
    raw = 1.0 / (B + 1)
    return {"test": test, "B": B, "pairs": m, "raw": raw, "holm": min(1.0, m * raw),
            "at_floor": int((sub["p_value"] <= raw * (1 + 1e-9)).sum())}


def resamples_needed(pairs: int, alpha: float) -> int:
    """The fewest resamples B with a Holm floor ``pairs / (B + 1)`` below ``alpha`` (p < alpha is
    significant): the smallest integer B > pairs / alpha - 1."""
    B = max(0, math.floor(pairs / alpha) - 1)
    while pairs / (B + 1) >= alpha:
        B += 1
    while B > 0 and pairs / B < alpha:
        B -= 1
    return B


def benjamini_hochberg(p_values) -> np.ndarray:
    """Benjamini-Hochberg adjusted p-values (scipy's ``false_discovery_control``; NaN left out)."""
    p = np.asarray(p_values, dtype=float)
    out = np.full(p.shape, np.nan)
    ok = ~np.isnan(p)
    if ok.any():
        out[ok] = stats.false_discovery_control(p[ok], method="bh")
    return out


def mcnemar(b, c):
    """McNemar's test on discordant counts ``b`` and ``c`` (arrays): ``(statistic, p_value, exact)``.

    Exact two-sided binomial test (``statistic = min(b, c)``, ``p = min(1, 2 P(X <= min(b, c)))``
    with ``X ~ Bin(b + c, 1/2)``, which is scipy's ``binomtest`` for p = 1/2) when
    ``b + c < MCNEMAR_EXACT_BELOW``; otherwise chi-square with continuity correction. ``b + c = 0``
    gives statistic 0 and p = 1.
    """
    b = np.asarray(b, dtype=np.int64)
    c = np.asarray(c, dtype=np.int64)
    n = b + c
    exact = n < MCNEMAR_EXACT_BELOW
    small = np.minimum(b, c)
    p_exact = np.minimum(1.0, 2.0 * stats.binom.cdf(small, n, 0.5))
    with np.errstate(divide="ignore", invalid="ignore"):
        chi = np.where(n > 0, np.maximum(np.abs(b - c) - 1, 0) ** 2 / np.where(n > 0, n, 1), 0.0)
    p_chi = stats.chi2.sf(chi, 1)
    stat = np.where(exact, small.astype(float), chi)
    p = np.where(n == 0, 1.0, np.where(exact, p_exact, p_chi))
    return stat, p, exact


# ----------------------------------------------------------------------------- pairwise


def _centred_p(diffs: np.ndarray, observed: np.ndarray, *, centre: bool) -> tuple[np.ndarray, np.ndarray]:
    """Two-sided resampling p-values ``(1 + #{|d_r (- d)| >= |d|}) / (1 + valid)`` per column."""
    d = np.round(diffs, _ROUND)
    obs = np.round(observed, _ROUND)
    valid = ~np.isnan(d)
    dev = np.abs(d - obs) if centre else np.abs(d)
    hits = ((dev >= np.abs(obs) - 10.0 ** -_ROUND) & valid).sum(axis=0)
    n = valid.sum(axis=0)
    p = (1.0 + hits) / (1.0 + n)
    return np.where(np.isnan(obs), np.nan, p), n


def _pair_cells(pat: Patterns, first: np.ndarray, second: np.ndarray):
    """Discordant cells of each pair: ``(pair, gold, pred_first, pred_second, n)`` rows, sorted by
    pair then cell (pairs as given)."""
    K, P = pat.n_classes, pat.n_patterns
    step = max(1, _DRAW_BUDGET // (4 * max(P, 1)))
    keys, weights = [], []
    for start in range(0, first.shape[0], step):
        a = pat.pred[first[start:start + step]]
        b = pat.pred[second[start:start + step]]
        r, p = np.nonzero(a != b)
        key = ((start + r) * K + pat.gold[p]) * K * K + a[r, p] * K + b[r, p]
        u, inv = np.unique(key, return_inverse=True)
        keys.append(u)
        weights.append(np.bincount(np.ravel(inv), weights=pat.counts[p], minlength=u.shape[0]))
    key = np.concatenate(keys) if keys else np.zeros(0, dtype=np.int64)
    n = np.concatenate(weights).astype(np.int64) if weights else np.zeros(0, dtype=np.int64)
    pair, rest = np.divmod(key, K ** 3)
    g, rest = np.divmod(rest, K * K)
    pa, pb = np.divmod(rest, K)
    return pair, g, pa, pb, n


def _swap_units(n: np.ndarray):
    """How each discordant cell's Binomial(n, 1/2) swap count is drawn.

    A cell of ``n <= 8`` items is the number of set bits in one random byte masked to n bits;
    a cell of ``n <= _BIT_CELL_MAX`` items the set bits of ``ceil(n / 64)`` random 64-bit words
    masked to n bits in all (each bit is one item's fair coin: exactly Binomial(n, 1/2), at a
    few nanoseconds per word); a larger cell one binomial draw. Returns per unit: its cell, its
    kind (0 byte, 1 word, 2 binomial) and its bit mask.
    """
    kind = np.where(n <= 8, 0, np.where(n <= _BIT_CELL_MAX, 1, 2))
    words = np.where(kind == 1, (n + 63) // 64, 1)
    unit_cell = np.repeat(np.arange(n.shape[0]), words)
    first = np.cumsum(words) - words
    pos = np.arange(unit_cell.shape[0]) - first[unit_cell]
    bits = np.minimum(64, n[unit_cell] - 64 * pos)
    full = np.uint64(0xFFFFFFFFFFFFFFFF)
    mask = np.where(bits >= 64, full,
                    np.left_shift(np.uint64(1), np.clip(bits, 0, 63).astype(np.uint64)) - np.uint64(1))
    return unit_cell, kind[unit_cell], mask.astype(np.uint64)


def _random_bits(rng, units: int, rounds: int, dtype) -> np.ndarray:
    """``(units, rounds)`` random unsigned integers of ``dtype`` (uint8 or uint64) from raw 64-bit draws."""
    size = np.dtype(dtype).itemsize
    words = -(-units * rounds * size // 8)
    return rng.bit_generator.random_raw(words).view(dtype)[:units * rounds].reshape(units, rounds)


def _randomization(pat: Patterns, m: Measure, C: np.ndarray, first, second, observed, R: int, rng, *,
                   positive, policy, costs, progress, done: int, total: int, task=None):
    """Approximate randomisation p-values for the pairs (first[i], second[i]), in that order.

    ``C`` (S, K, K) pooled tensors; ``observed`` the oriented observed differences. The swap
    counts of all discordant cells of a block of pairs are drawn for a block of rounds at once
    (:func:`_swap_units`); one sparse product turns them into the change of the first
    system's tensor (the second one changes by the opposite)."""
    K = pat.n_classes
    sign = 1.0 if m.higher_is_better else -1.0
    n_pairs = first.shape[0]
    pair, g, pa, pb, n = _pair_cells(pat, first, second)
    unit_cell, kind, mask = _swap_units(n)
    unit_pair = pair[unit_cell]
    bounds = np.concatenate([[0], np.cumsum(np.bincount(unit_pair, minlength=n_pairs))])
    hits = np.zeros(n_pairs)
    valid = np.zeros(n_pairs)
    unit_step = max(1, _DRAW_BUDGET // 64)                      # at least 64 rounds per draw
    pair_step = max(1, _TENSOR_BUDGET // (64 * 2 * K * K))
    lo = 0
    while lo < n_pairs:  # blocks of consecutive pairs (a walk over pair boundaries only)
        hi = min(n_pairs, lo + pair_step, max(lo + 1, int(np.searchsorted(bounds, bounds[lo] + unit_step,
                                                                         side="right")) - 1))
        u0, u1 = bounds[lo], bounds[hi]
        npb = hi - lo
        # this block's units ordered bytes, words, binomials: their draws fill consecutive rows of kt
        block = u0 + np.argsort(kind[u0:u1], kind="stable")
        nb, nw = int((kind[u0:u1] == 0).sum()), int((kind[u0:u1] == 1).sum())
        cell = unit_cell[block]
        byte_mask = mask[block[:nb]].astype(np.uint8)[:, None]
        word_mask = mask[block[nb:nb + nw]][:, None]
        big_n = n[cell[nb + nw:]][:, None]
        # swapping k items of cell (g, pa, pb) moves k items of `first` from (g, pa) to (g, pb)
        at = (pair[cell] - lo) * K + g[cell]
        units = np.arange(u1 - u0)
        move_t = sparse.csr_array((np.r_[-np.ones(u1 - u0), np.ones(u1 - u0)],
                                   (np.r_[at * K + pa[cell], at * K + pb[cell]], np.r_[units, units])),
                                  shape=(npb * K * K, u1 - u0))
        base = np.stack([C[first[lo:hi]], C[second[lo:hi]]], axis=1)          # (npb, 2, K, K)
        obs = np.round(observed[lo:hi], _ROUND)
        r_step = max(1, min(R, _DRAW_BUDGET // max(u1 - u0, 1), _TENSOR_BUDGET // (npb * 2 * K * K)))
        for r0 in range(0, R, r_step):
            r = min(R, r0 + r_step) - r0
            kt = np.empty((u1 - u0, r), dtype=float)                          # swap counts, units x rounds
            if nb:
                kt[:nb] = np.bitwise_count(_random_bits(rng, nb, r, np.uint8) & byte_mask)
            if nw:
                kt[nb:nb + nw] = np.bitwise_count(_random_bits(rng, nw, r, np.uint64) & word_mask)
            if nb + nw < u1 - u0:
                kt[nb + nw:] = rng.binomial(big_n, 0.5, size=(u1 - u0 - nb - nw, r))
            delta = (move_t @ kt).T.reshape(r, npb, K, K)
            T = np.broadcast_to(base, (r,) + base.shape).copy()
            T[:, :, 0] += delta
            T[:, :, 1] -= delta
            v = compute(m, T, positive=positive, policy=policy, costs=costs, explain=False,
                        task=task).value                                              # (r, npb, 2)
            d = np.round(sign * (v[..., 0] - v[..., 1]), _ROUND)
            ok = ~np.isnan(d)
            hits[lo:hi] += ((np.abs(d) >= np.abs(obs) - 10.0 ** -_ROUND) & ok).sum(axis=0)
            valid[lo:hi] += ok.sum(axis=0)
        if progress is not None:
            progress(done + R * hi // n_pairs, total)
        lo = hi
    p = (1.0 + hits) / (1.0 + valid)
    return np.where(np.isnan(observed), np.nan, p), valid


def pairwise(data, measure, *, n_resamples: int = 1000, seed: int | None = 0, tests=TESTS, positive=None,
             policy: str = "nan", costs=None, progress: Progress = None) -> pd.DataFrame:
    """Paired significance tests between every pair of systems for one measure.

    Returns a tidy frame: system_a, system_b, measure, test, statistic, difference, p_value,
    p_holm, p_bh, n_resamples, detail - one row per pair (a before b in system order) and test.
    ``difference`` is the oriented difference of the test's measure (a better: > 0); for the
    bootstrap and randomisation tests it is also the ``statistic``. See the module docstring for
    the tests. ``n_resamples`` is B for the bootstrap and R for the randomisation test (the
    count of defined resamples is in the ``n_resamples`` column). ``data``: a
    :class:`~evalreport.inputs.Runs` or a :class:`~evalreport.counts.bigdata.PatternCounts`.
    """
    runs = _check_data(data)
    R = _check_count(n_resamples, "n_resamples")
    tests = (tests,) if isinstance(tests, str) else tuple(tests)
    unknown = [t for t in tests if t not in TESTS]
    if unknown or not tests:
        raise InputError(f"unknown test(s) {', '.join(map(repr, unknown)) or '(none given)'}; "
                         f"choose from {', '.join(TESTS)}")
    if positive is not None:
        positive = resolve_positive(positive, runs.labels, len(runs.labels))
    (m,) = _measures([measure], positive, costs, runs.labels)
    kw = dict(positive=positive, policy=policy, costs=costs, task=getattr(runs, "n_task", None))
    S = len(runs.systems)
    a_idx, b_idx = np.triu_indices(S, 1)
    names = np.asarray(runs.systems, dtype=object)
    pat = patterns(runs)
    A = pat.indicator()
    C = resampled_confusions(pat, pat.counts[None, :], A)[0]                      # (S, K, K) pooled
    value = compute(m, C, **kw).value
    sign = 1.0 if m.higher_is_better else -1.0
    observed = sign * (value[a_idx] - value[b_idx])
    boot_rng, rand_rng = _streams(seed)
    n_random = sum(t in ("bootstrap", "randomization") for t in tests)
    total = R * n_random
    frames = []

    def frame(test, meas, stat, diff, p, n, detail):
        p = np.asarray(p, dtype=float)
        return pd.DataFrame({
            "system_a": names[a_idx], "system_b": names[b_idx], "measure": meas, "test": test,
            "statistic": np.asarray(stat, dtype=float), "difference": np.asarray(diff, dtype=float),
            "p_value": p, "p_holm": holm(p), "p_bh": benjamini_hochberg(p),
            "n_resamples": np.asarray(n, dtype=np.int64), "detail": detail})

    done = 0
    for test in tests:
        if test == "bootstrap":
            samples = _resample_values(pat, [m], R, boot_rng, A, progress=progress, total=total, **kw)[..., 0]
            done += R
            d = sign * (samples[:, a_idx] - samples[:, b_idx])
            p, n = _centred_p(d, observed, centre=True)
            frames.append(frame(test, m.id, observed, observed, p, n, "paired bootstrap, centred difference"))
        elif test == "randomization":
            # canonical orientation and order of pairs (by system name): relabelling-invariant draws
            rank = np.empty(S, dtype=np.int64)
            rank[np.lexsort((np.arange(S), names.astype(str)))] = np.arange(S)
            flip = rank[a_idx] > rank[b_idx]
            first = np.where(flip, b_idx, a_idx)
            second = np.where(flip, a_idx, b_idx)
            order = np.lexsort((rank[second], rank[first]))
            obs_c = np.where(flip, -observed, observed)[order]
            p_c, n_c = _randomization(pat, m, C, first[order], second[order], obs_c, R, rand_rng,
                                      progress=progress, done=done, total=total, **kw)
            done += R
            p = np.empty_like(p_c)
            n = np.empty_like(n_c)
            p[order], n[order] = p_c, n_c
            frames.append(frame(test, m.id, observed, observed, p, n,
                                "approximate randomisation, swap per discordant item with prob. 1/2"))
        else:
            correct = (pat.pred == pat.gold[None, :]).astype(float)              # (S, P)
            both = (correct * pat.counts) @ correct.T                            # right on both
            right = correct @ pat.counts
            b = np.rint(right[a_idx] - both[a_idx, b_idx]).astype(np.int64)     # a right, b wrong
            c = np.rint(right[b_idx] - both[a_idx, b_idx]).astype(np.int64)     # a wrong, b right
            stat, p, exact = mcnemar(b, c)
            detail = [f"{'exact binomial' if e else 'chi2 with continuity correction'}, b={x}, c={y}"
                      for e, x, y in zip(exact, b, c)]
            frames.append(frame(test, "accuracy", stat, (b - c) / pat.n_items, p, 0, detail))
    return pd.concat(frames, ignore_index=True)


# ----------------------------------------------------------------------------- groups


def groups(pairwise_df: pd.DataFrame, *, alpha: float = 0.05, test: str = "bootstrap", correction: str = "holm",
           order: Sequence[str] | None = None) -> pd.DataFrame:
    """Tiers of systems the chosen test cannot separate at ``alpha``: system, group, leader.

    Rule ("connected to the leader", contiguous tiers): walk the systems from best to worst;
    a group starts at the first system not yet in a group (its leader) and takes the following
    systems, in order, as long as each is not separable from the leader (corrected p-value >=
    ``alpha``, or NaN); the first separable system starts the next group. Group 1 holds the
    best system and everything tied with it. ``order`` lists the systems best first; by default
    they are ordered by their mean ``difference`` against all others (for the bootstrap and
    randomisation tests that is the measure's value minus the mean value, so the order of the
    scores). ``correction``: ``holm``, ``bh`` or ``none``. A system with no defined p-value at all
    (its measure value is undefined, so no test could run) is in no group: ``group`` NaN,
    ``leader`` empty.
    """
    if correction not in CORRECTIONS:
        raise InputError(f"unknown correction {correction!r}; choose from {', '.join(CORRECTIONS)}")
    if not 0.0 < float(alpha) < 1.0:
        raise InputError(f"alpha must lie strictly between 0 and 1; got {alpha!r}")
    df = pairwise_df[pairwise_df["test"] == test]
    if df.empty:
        raise InputError(f"the pairwise table has no rows for test {test!r}")
    if df["measure"].nunique() != 1:
        raise InputError(f"the pairwise table holds several measures for test {test!r} "
                         f"({', '.join(map(str, df['measure'].unique()))}); select one first")
    systems = list(dict.fromkeys(list(df["system_a"]) + list(df["system_b"])))
    pos = {s: i for i, s in enumerate(systems)}
    S = len(systems)
    ia = df["system_a"].map(pos).to_numpy()
    ib = df["system_b"].map(pos).to_numpy()
    p = df[CORRECTIONS[correction]].to_numpy(dtype=float)
    separable = np.zeros((S, S), dtype=bool)
    separable[ia, ib] = separable[ib, ia] = p < alpha                        # NaN -> not separable
    tested = np.zeros(S, dtype=bool)
    tested[ia[~np.isnan(p)]] = tested[ib[~np.isnan(p)]] = True
    if order is None:
        diff = df["difference"].to_numpy(dtype=float)
        score = np.bincount(ia, weights=np.nan_to_num(diff), minlength=S) - np.bincount(
            ib, weights=np.nan_to_num(diff), minlength=S)
        seq = [systems[i] for i in np.argsort(-score, kind="stable")]
    else:
        seq = [str(s) for s in order]
        missing = set(systems) - set(seq)
        extra = [s for s in seq if s not in pos]
        if missing or extra or len(seq) != len(set(seq)):
            raise InputError("order must list every system of the pairwise table exactly once")
    group, leader = {}, {}
    g = 0
    current = None
    for s in seq:  # a walk over S systems, not a hot path
        if not tested[pos[s]]:
            group[s], leader[s] = np.nan, ""
            continue
        if current is None or separable[pos[current], pos[s]]:
            g += 1
            current = s
        group[s], leader[s] = g, current
    return pd.DataFrame({"system": seq, "group": [group[s] for s in seq], "leader": [leader[s] for s in seq]})
