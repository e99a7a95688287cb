"""One score column in score order, with each item's gold class: the statistic every unweighted
threshold-free measure reads.

:func:`ordered_classes` sorts a column once and returns, in ascending score order, the gold class of
each item and where a new tie group starts. Without resampling weights this is all a one-vs-rest or
one-vs-one AUC, an average precision, a PR AUC or a best-threshold F1 needs
(:func:`evalreport.measures.score_stats.ordered_summaries`), so no per-item tie-group array
(:meth:`evalreport.counts.scores.ScoreCounts.ranked`, which resampling needs) is built.

The sort is of one 64-bit key per item when the scores allow it: an order-preserving integer code
of the score, shifted left to make room for the class code in the low bits; ``np.sort`` of 64-bit
integers is about three times faster than ``np.argsort``. The code is the float64's bits with the
sign folded in (monotone in the value), less the column's smallest code. Probabilities with exact
zeros span 62 bits that way: zeros then code as 0 and the other scores from 1 up (less the smallest
positive code). Where the range is still too wide, the 12 bits of sign and exponent are replaced by
the rank of the exponent among those the column uses, which keeps the order and needs 52 bits plus
a few. Equal keys are equal (score, class) pairs, so the key sort gives exactly the tie groups and
class counts of an argsort. Where no code fits (more than 256 classes, or scores using more than
2**(12 - class bits) exponents) the column is argsorted instead.
"""
from __future__ import annotations

import numpy as np

__all__ = ["ordered_classes"]

_SIGN = np.uint64(1 << 63)
_MANTISSA = np.uint64((1 << 52) - 1)


def _codes(values: np.ndarray) -> tuple[np.ndarray, int, int]:
    """Order-preserving uint64 codes of finite float64 ``values`` (-0.0 as 0.0), and their smallest and largest."""
    v = values + 0.0                         # -0.0 + 0.0 = +0.0: the two zeros tie
    bits = v.view(np.uint64)
    lo, hi = int(bits.min()), int(bits.max())
    if hi < 1 << 63:                         # no sign bit: non-negative doubles, whose bits are monotone
        return bits, lo, hi
    codes = np.where(v < 0, ~bits, bits | _SIGN)
    return codes, int(codes.min()), int(codes.max())


def _key(v: np.ndarray, bits: int) -> np.ndarray | None:
    """Order-preserving codes of ``v`` below ``2**(64 - bits)`` (a new array), or None where none fits."""
    codes, lo, hi = _codes(v)                # a new array: _codes never returns the caller's
    limit = 1 << (64 - bits)
    if hi - lo < limit:
        codes -= np.uint64(lo)
        return codes
    if lo == 0:                              # non-negative scores with exact zeros (probabilities): the
        positive = codes > 0                 # zeros code as 0, the others from 1 up
        low = int(codes.min(initial=np.iinfo(np.uint64).max, where=positive))
        if hi - low + 1 < limit:
            np.subtract(codes, np.uint64(low - 1), out=codes, where=positive)
            return codes
    top = (codes >> np.uint64(52)).astype(np.intp)          # sign and exponent, in order
    used = np.bincount(top, minlength=4096) > 0
    if int(used.sum()) > (1 << (12 - bits)):
        return None
    rank = (np.cumsum(used) - 1).astype(np.uint64)
    key = rank[top]
    key <<= np.uint64(52)
    key |= codes & _MANTISSA
    return key


def ordered_classes(values: np.ndarray, classes: np.ndarray, n_classes: int) -> tuple[np.ndarray, np.ndarray]:
    """The gold classes of a score column in ascending score order, and where each tie group starts.

    Parameters
    ----------
    values : ndarray
        ``(N,)`` finite scores.
    classes : ndarray
        ``(N,)`` gold class codes, below ``n_classes``.
    n_classes : int
        The number of classes.

    Returns
    -------
    ordered : ndarray
        ``(N,)`` int64, the items' classes in ascending score order (items of equal score in any order;
        ``bincount`` takes them without a cast).
    new : ndarray
        ``(N,)`` bool, True where an item's score differs from the one before it (True at 0).
    """
    v = np.asarray(values, dtype=np.float64).reshape(-1)
    N = v.size
    if not N:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=bool)
    bits = max(1, (max(int(n_classes), 1) - 1).bit_length())
    key = _key(v, bits) if bits <= 8 else None
    if key is not None:
        key <<= np.uint64(bits)
        cls = np.asarray(classes)
        key |= cls.view(np.uint64) if cls.dtype == np.int64 else cls.astype(np.uint64)
        key.sort()
        ordered = (key & np.uint64((1 << bits) - 1)).view(np.int64)   # small: the bits are the value
        key >>= np.uint64(bits)
        new = np.empty(N, dtype=bool)
        new[0] = True
        np.not_equal(key[1:], key[:-1], out=new[1:])
        return ordered, new
    order = np.argsort(v)
    sv = v[order]
    new = np.empty(N, dtype=bool)
    new[0] = True
    np.not_equal(sv[1:], sv[:-1], out=new[1:])
    return np.asarray(classes)[order].astype(np.int64), new
