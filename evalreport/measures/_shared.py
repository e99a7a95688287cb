"""What many measures computed on one tensor share: its row, column and one-vs-rest sums
(:func:`shared_sums` / :func:`shared`) and numpy's error state (:func:`quiet_errors`), set once for
a batch of :func:`~evalreport.measures.compute` calls instead of once per call. The values are
the same numbers either way; only the repeated work goes.
"""
from __future__ import annotations

import contextvars
from contextlib import contextmanager

import numpy as np

_SHARED: contextvars.ContextVar = contextvars.ContextVar("evalreport_shared_sums", default=None)


@contextmanager
def shared_sums():
    """Within the block, the sums of a tensor that many measures take (:func:`shared`) are computed
    once per tensor object: :func:`~evalreport.measures.evaluate` runs every measure on one tensor."""
    token = _SHARED.set({})
    try:
        yield
    finally:
        _SHARED.reset(token)


QUIET: contextvars.ContextVar = contextvars.ContextVar("evalreport_quiet_errors", default=False)


@contextmanager
def quiet_errors():
    """numpy's division and invalid-value warnings off for a block of :func:`compute` calls (which
    turns them off for itself otherwise): once for a batch of measures, not once per measure."""
    with np.errstate(divide="ignore", invalid="ignore"):
        token = QUIET.set(True)
        try:
            yield
        finally:
            QUIET.reset(token)


def shared(name: str, C, make):
    """``make(C)`` (a tuple of arrays), computed once per ``C`` inside :func:`shared_sums` (and
    returned read-only there, since every measure sees the same arrays); outside it, every time."""
    store = _SHARED.get()
    if store is None:
        return make(C)
    hit = store.get((name, id(C)))
    if hit is not None and hit[0] is C:
        return hit[1]
    out = make(C)
    for x in out:
        if isinstance(x, np.ndarray):
            x.flags.writeable = False
    store[(name, id(C))] = (C, out)       # C is held, so its id is not reused while the block lasts
    return out
