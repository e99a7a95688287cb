"""Label arrays to integer codes by hashing, for :func:`evalreport.counts.confusion_matrix`.

:func:`distinct` returns the distinct values of a 1-D array in order of first appearance and
every item's index into them, without sorting the items and without a Python step per item:

- integers and booleans: ``pandas.factorize`` (a hash table over the machine values);
- fixed-width text (numpy ``<U``): each item's characters are mixed into one 64-bit hash by
  whole-column arithmetic, the hashes are factorized, and every item is then compared with the
  first item of its hash (a collision is found, never assumed away: the caller falls back);
- Python strings in an object array (e.g. a pandas column): ``pandas.factorize``;
- floats without NaN and without zeros (-0.0 == 0.0 would leave the label's sign to chance).

Anything else (NaN, None, mixed Python types, bytes, dates) returns ``None``: the caller keeps
its general (slower) path, so the result never depends on which path ran.
"""
from __future__ import annotations

import numpy as np

__all__ = ["distinct"]

# 64-bit FNV-1a style mixing constants (multiplication wraps modulo 2**64)
_OFFSET = np.uint64(0xCBF29CE484222325)
_PRIME = np.uint64(0x100000001B3)


def distinct(x: np.ndarray):
    """``(codes, values)`` with ``values[codes] == x`` and ``values`` in order of first
    appearance (same dtype as ``x``); ``None`` where :mod:`this module <evalreport.counts.encode>`
    has no exact fast path for the array."""
    kind = x.dtype.kind
    if kind in "iub":
        return _factorize(x)
    if kind == "f":
        if np.isnan(x).any() or (x == 0).any():
            return None
        return _factorize(x)
    if kind == "U":
        return _text(x)
    if kind == "O":
        out = _factorize(x)
        if out is None or not all(type(v) is str for v in out[1].tolist()):
            return None
        return out
    return None


def _factorize(x):
    import pandas as pd

    codes, values = pd.factorize(x, use_na_sentinel=True)
    if len(codes) and codes.min() < 0:      # NaN / None: not a label the general path accepts either
        return None
    return codes, np.asarray(values, dtype=x.dtype)


def _text(x: np.ndarray):
    import pandas as pd

    n = x.shape[0]
    width = x.dtype.itemsize // 4           # UCS-4 code points per item
    if n == 0 or width == 0:
        return _factorize(x.astype(object))
    chars = np.ascontiguousarray(x).view(np.uint32).reshape(n, width)
    digest = np.full(n, _OFFSET, dtype=np.uint64)
    with np.errstate(over="ignore"):
        for j in range(width):
            digest ^= chars[:, j]
            digest *= _PRIME
    codes, _ = pd.factorize(digest)
    # codes count up in order of first appearance: the running maximum rises at each first occurrence
    first = np.flatnonzero(np.diff(np.maximum.accumulate(codes), prepend=-1))
    values = x[first]
    if not np.array_equal(values[codes], x):   # two texts with one hash: no fast answer
        return None
    return codes, values
