"""Approximate randomisation test for every pair of systems on one measure, drawn on pattern counts
(:class:`evalreport.analyses.resampling.ConfusionDesign` calls it; the test's p-value is
:func:`evalreport.analyses.engine.randomization_p`).

In each of R rounds, every item on which the two systems disagree has their two predictions
swapped with probability 1/2. Items with the same pattern are exchangeable, so
the number swapped among the ``n`` items of a (gold, pred_a, pred_b) cell is drawn as one
``Binomial(n, 1/2)`` - exactly the per-item coin flips. Small cells are drawn as the
number of set bits in n random bits (64 items per random word), large ones by one
binomial draw (cells of at most 8 items use one random byte).
"""
from __future__ import annotations

import numpy as np
from scipy import sparse

from evalreport.analyses.resampling_patterns import DRAW_BUDGET, TENSOR_BUDGET, Patterns
from evalreport.measures import Measure, compute

_BIT_CELL_MAX = 2048              # randomisation: cells up to this size are drawn as random bits


def _pair_cells(pat: Patterns, first: np.ndarray, second: np.ndarray):
    """Discordant cells ``(pair, gold, pred_first, pred_second, n)`` of each pair, sorted by pair then cell."""
    K, P = pat.n_classes, pat.n_patterns
    K3 = K ** 3
    step = max(1, DRAW_BUDGET // (4 * max(P, 1)))
    # every pattern has a count >= 1, so a cell holds items exactly when its count is positive; with
    # counts of 1 (nearly every item its own pattern) the unweighted count is the same integer
    unit = P == 0 or int(pat.counts.max()) == 1
    agree = np.zeros(K3, dtype=bool)                               # cells (g, p, p): the two systems agree
    agree[np.arange(K)[:, None] * K * K + np.arange(K)[None, :] * (K + 1)] = True
    keys, weights = [], []
    for start in range(0, first.shape[0], step):
        stop = min(first.shape[0], start + step)
        span = (stop - start) * K3                       # the keys of this block lie in [offset, offset + span)
        if span <= max(4 * (stop - start) * P, 1 << 16):
            # few possible keys: count every pattern's key (agreeing ones included) and drop the
            # agreeing cells afterwards; no mask, no sort
            key = pat.pred[first[start:stop]] + (pat.gold * K)[None, :]      # (pair, gold, pred_a, pred_b)
            key *= K
            key += pat.pred[second[start:stop]]
            key += (np.arange(stop - start, dtype=np.int64) * K3)[:, None]
            bins = (np.bincount(key.ravel(), minlength=span) if unit else
                    np.bincount(key.ravel(), weights=np.broadcast_to(pat.counts, key.shape).ravel(), minlength=span))
            bins = bins.reshape(stop - start, K3)
            bins[:, agree] = 0
            u = np.flatnonzero(bins)
            keys.append(u + start * K3)
            weights.append(bins.ravel()[u])
            continue
        a = pat.pred[first[start:stop]]
        b = pat.pred[second[start:stop]]
        disc = a != b
        rows = np.arange(start, stop, dtype=np.int64)[:, None]
        key = (((rows * K + pat.gold[None, :]) * K + a) * K + b)[disc]       # row-major, as np.nonzero
        count = np.broadcast_to(pat.counts, a.shape)[disc]
        u, inv = np.unique(key, return_inverse=True)
        keys.append(u)
        weights.append(np.bincount(np.ravel(inv), weights=count, minlength=u.shape[0]))
    key = np.concatenate(keys) if keys else np.zeros(0, dtype=np.int64)
    n = np.concatenate(weights).astype(np.int64) if weights else np.zeros(0, dtype=np.int64)
    pair, rest = np.divmod(key, K ** 3)
    g, rest = np.divmod(rest, K * K)
    pa, pb = np.divmod(rest, K)
    return pair, g, pa, pb, n


def swap_units(n: np.ndarray):
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


def random_bits(rng, units: int, rounds: int, dtype) -> np.ndarray:
    """``(units, rounds)`` random unsigned integers of ``dtype`` (uint8 or uint64) from raw 64-bit draws."""
    size = np.dtype(dtype).itemsize
    words = -(-units * rounds * size // 8)
    if type(rng.bit_generator) is np.random.PCG64:
        # PCG64's raw output is its next 64-bit integer: the same words, filled by one C loop
        raw = rng.integers(0, np.iinfo(np.uint64).max, size=words, dtype=np.uint64, endpoint=True)
    else:
        raw = rng.bit_generator.random_raw(words)
    return raw.view(dtype)[:units * rounds].reshape(units, rounds)


def randomization_differences(pat: Patterns, m: Measure, C: np.ndarray, first, second, R: int, rng, *,
                   positive, policy, costs, progress, task=None) -> np.ndarray:
    """``(R, P)`` oriented differences ``m(first[i]) - m(second[i])`` (> 0: first better) after each
    of R rounds of random swaps, for the pairs in the order given (which fixes the draws).

    ``C`` (S, K, K) pooled tensors. The swap counts of all discordant cells of a block of pairs are
    drawn for a block of rounds at once (:func:`swap_units`); one sparse product turns them into
    the change of the first system's tensor (the second one changes by the opposite).
    ``progress(pairs done, pairs)`` after each block of pairs."""
    K = pat.n_classes
    sign = 1.0 if m.higher_is_better else -1.0
    n_pairs = first.shape[0]
    pair, g, pa, pb, n = _pair_cells(pat, first, second)
    unit_cell, kind, mask = swap_units(n)
    unit_pair = pair[unit_cell]
    bounds = np.concatenate([[0], np.cumsum(np.bincount(unit_pair, minlength=n_pairs))])
    out = np.empty((R, n_pairs))
    unit_step = max(1, DRAW_BUDGET // 64)                      # at least 64 rounds per draw
    pair_step = max(1, TENSOR_BUDGET // (64 * 2 * K * K))
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
        # by column (unit): the product reads each unit's row of kt once (by row it streamed kt per entry)
        move_t = sparse.csc_array((np.r_[-np.ones(u1 - u0), np.ones(u1 - u0)],
                                   (np.r_[at * K + pa[cell], at * K + pb[cell]], np.r_[units, units])),
                                  shape=(npb * K * K, u1 - u0))
        base = np.stack([C[first[lo:hi]], C[second[lo:hi]]], axis=1)          # (npb, 2, K, K)
        r_step = max(1, min(R, DRAW_BUDGET // max(u1 - u0, 1), TENSOR_BUDGET // (npb * 2 * K * K)))
        work = np.empty((u1 - u0) * r_step)         # kt's memory, reused from step to step (no fresh pages)
        for r0 in range(0, R, r_step):
            r = min(R, r0 + r_step) - r0
            kt = work[:(u1 - u0) * r].reshape(u1 - u0, r)                    # swap counts, units x rounds
            if nb:
                bits = random_bits(rng, nb, r, np.uint8)
                kt[:nb] = np.bitwise_count(np.bitwise_and(bits, byte_mask, out=bits), out=bits)
            if nw:
                bits = random_bits(rng, nw, r, np.uint64)
                kt[nb:nb + nw] = np.bitwise_count(np.bitwise_and(bits, word_mask, out=bits))
            if nb + nw < u1 - u0:
                kt[nb + nw:] = rng.binomial(big_n, 0.5, size=(u1 - u0 - nb - nw, r))
            delta = (move_t @ kt).T.reshape(r, npb, K, K)
            T = np.empty((r,) + base.shape)
            np.add(base[:, 0], delta, out=T[:, :, 0])
            np.subtract(base[:, 1], delta, out=T[:, :, 1])
            v = compute(m, T, positive=positive, policy=policy, costs=costs, explain=False,
                        task=task).value                                              # (r, npb, 2)
            out[r0:r0 + r, lo:hi] = sign * (v[..., 0] - v[..., 1])
        if progress is not None:
            progress(hi, n_pairs)
        lo = hi
    return out
