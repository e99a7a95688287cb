"""The paired bootstrap test of every pair of systems under many measures at once.

:func:`evalreport.analyses.engine.pairwise_tests` tests one measure: it builds the ``(B, P)``
bootstrap differences of all ``P = S (S - 1) / 2`` pairs (at 300 systems and 1,000 resamples, a
360 MB array and as many temporaries) and a frame of every column. The letters under every measure
need only the p-values, so :func:`stacked_bootstrap_p` computes them for the measures side by side,
one block of pairs at a time, small enough that the block's temporaries stay in the processor's
cache: the pairs of a block are gathered from the ``(B, S, M)`` resamples, and each column (a pair
under a measure) goes through the arithmetic of :func:`evalreport.analyses.significance.bootstrap_p`
step by step (the differences oriented and rounded at 12 decimals, their mean, then the mean of
squared deviations), each sum taken over a contiguous run of resamples as there (numpy sums such a
run pairwise, so the memory layout is part of the arithmetic), so the p-values are the same to the
last bit. A measure undefined (NaN) on some resample goes through ``bootstrap_p`` itself, block
by block, for its pairwise-complete counts.

:func:`tiers` and :func:`rank_bounds` turn the Holm-corrected p-values of one measure into the
tiers of :func:`evalreport.analyses.significance.groups` and the simultaneous rank intervals of
:func:`evalreport.analyses.rank_intervals.rank_intervals` without their pairwise frame.
"""
from __future__ import annotations

import numpy as np

from evalreport.analyses.significance import ROUND_DECIMALS, bootstrap_p, centred_p

__all__ = ["stacked_bootstrap_p", "separated", "tiers", "rank_bounds", "BLOCK_VALUES"]

#: Resampled differences per block of :func:`stacked_bootstrap_p` (2**17 floats: 1 MB per temporary).
BLOCK_VALUES = 1 << 17


def stacked_bootstrap_p(samples: np.ndarray, values: np.ndarray, higher: np.ndarray, a: np.ndarray,
                        b: np.ndarray, *, block_values: int = BLOCK_VALUES) -> np.ndarray:
    """Paired bootstrap p-values of the pairs ``(a, b)`` under every measure: ``(P, M)``.

    Parameters
    ----------
    samples : ndarray
        ``(B, S, M)`` values of S systems under M measures on B paired bootstrap resamples (NaN:
        undefined).
    values : ndarray
        ``(S, M)`` the values on all items.
    higher : ndarray
        ``(M,)`` bool, whether higher values of each measure are better.
    a, b : ndarray
        ``(P,)`` the systems of each pair.
    block_values : int
        About how many resampled differences a block of pairs holds (the work's granularity; the
        p-values do not depend on it).

    Returns
    -------
    ndarray
        ``(P, M)``: column m holds what ``bootstrap_p(sign * (samples[:, a, m] - samples[:, b, m]),
        sign * (values[a, m] - values[b, m]))`` gives (``sign`` -1 for a lower-is-better measure),
        bit for bit.
    """
    x = np.asarray(samples, dtype=float)
    B, S, M = x.shape
    P = int(np.asarray(a).shape[0])
    out = np.full((P, M), np.nan)
    if P == 0 or M == 0:
        return out
    sign = np.where(np.asarray(higher, dtype=bool), 1.0, -1.0)
    v = np.asarray(values, dtype=float) * sign   # -1 * v is -v exactly, so the differences keep their bits
    observed = v[a] - v[b]                        # (P, M)
    complete = ~np.isnan(x).any(axis=(0, 1))      # measures defined on every resample
    for cols, exact in ((np.flatnonzero(complete), True), (np.flatnonzero(~complete), False)):
        if not len(cols):
            continue
        # (S, measures, B): each system's resamples contiguous, as pairwise_tests' differences are
        # (numpy sums a contiguous run pairwise, so the layout is part of the arithmetic)
        xs = np.ascontiguousarray((x[:, :, cols] * sign[cols]).transpose(1, 2, 0))
        step = max(1, block_values // (B * len(cols)))
        starts = list(range(0, P, step))          # a short remainder joins the last block
        if len(starts) > 1 and P - starts[-1] < step // 2:
            starts.pop()
        for k, s in enumerate(starts):
            e = starts[k + 1] if k + 1 < len(starts) else P
            d = xs[a[s:e]]
            d -= xs[b[s:e]]                       # (pairs, measures, B)
            obs = observed[s:e][:, cols]
            if exact:
                out[s:e, cols] = _complete_p(d, obs)
            else:
                w = d.shape[0] * d.shape[1]
                out[s:e, cols] = bootstrap_p(d.reshape(w, B).T, obs.reshape(w))[0].reshape(obs.shape)
    return out


def _complete_p(d: np.ndarray, observed: np.ndarray) -> np.ndarray:
    """:func:`bootstrap_p`'s p-values of differences ``d`` (..., B) with no NaN, step for step (``d`` is overwritten)."""
    from scipy.special import erfc  # here, not at the top: importing this module does not load scipy

    B = d.shape[-1]
    obs = np.round(observed, ROUND_DECIMALS)
    np.round(d, ROUND_DECIMALS, out=d)
    mean = d.sum(axis=-1) / max(B, 1)
    dev = d - mean[..., None]
    np.square(dev, out=dev)
    var = dev.sum(axis=-1) / max(B - 1, 1)
    with np.errstate(all="ignore"):
        se = np.sqrt(var) if B > 1 else np.full(var.shape, np.nan)
        z = np.abs(obs) / se
    flat = np.round(se, ROUND_DECIMALS) == 0
    p = np.array(erfc(z / np.sqrt(2.0)), dtype=float)
    if flat.any():           # the Monte-Carlo share only where the d*_b do not vary
        p[flat] = centred_p(d[flat].T, obs[flat], centre=True)[0]
    p = np.where(obs == 0, 1.0, p)
    return np.where(np.isnan(obs) | (B < 2), np.nan, p)


def separated(p_holm: np.ndarray, a: np.ndarray, b: np.ndarray, n_systems: int,
              alpha: float) -> tuple[np.ndarray, np.ndarray]:
    """The pairs the test separates and the systems it tested: ``(separable (S, S), tested (S,))``.

    Parameters
    ----------
    p_holm : ndarray
        ``(P,)`` Holm-corrected p-values of the pairs ``(a, b)`` (NaN: no test).
    a, b : ndarray
        ``(P,)`` the systems of each pair.
    n_systems : int
        S.
    alpha : float
        The level: a pair is separated when its p-value is below it.

    Returns
    -------
    separable : ndarray
        Symmetric bool ``(S, S)``.
    tested : ndarray
        Bool ``(S,)``: the system is in a pair with a defined p-value.
    """
    sep = np.zeros((n_systems, n_systems), dtype=bool)
    hit = p_holm < alpha                                       # NaN -> not separable
    sep[a, b] = sep[b, a] = hit
    ok = ~np.isnan(p_holm)
    tested = np.zeros(n_systems, dtype=bool)
    tested[a[ok]] = tested[b[ok]] = True
    return sep, tested


def tiers(separable: np.ndarray, tested: np.ndarray, order: np.ndarray) -> list[float]:
    """The tier of each system of ``order`` (best first), as :func:`~evalreport.analyses.significance.groups`.

    Parameters
    ----------
    separable : ndarray
        Symmetric bool ``(S, S)``.
    tested : ndarray
        Bool ``(S,)``; an untested system is in no tier (NaN).
    order : ndarray
        System indices, best first.

    Returns
    -------
    list
        Per system of ``order``: the tier (1 the leader's), NaN when untested. A tier starts at the
        first system not yet in one and takes the following systems not separable from its first.
    """
    out: list[float] = []
    g, current = 0, -1
    for s in order:          # a walk over S systems, not a hot path
        if not tested[s]:
            out.append(np.nan)
            continue
        if current < 0 or separable[current, s]:
            g += 1
            current = int(s)
        out.append(g)
    return out


def rank_bounds(p_holm: np.ndarray, difference: np.ndarray, a: np.ndarray, b: np.ndarray, n_systems: int,
                alpha: float) -> tuple[np.ndarray, np.ndarray]:
    """Simultaneous rank intervals ``(rank_lo, rank_hi)`` per system, as
    :func:`~evalreport.analyses.rank_intervals.rank_intervals` of the same pairs.

    Parameters
    ----------
    p_holm : ndarray
        ``(P,)`` Holm-corrected p-values of the pairs ``(a, b)``.
    difference : ndarray
        ``(P,)`` observed differences, positive when ``a`` is better.
    a, b : ndarray
        ``(P,)`` the systems of each pair.
    n_systems : int
        S.
    alpha : float
        The family's level.

    Returns
    -------
    rank_lo, rank_hi : ndarray
        Integer ``(S,)``: one more than the systems significantly better, S minus those significantly worse.
    """
    sig = (p_holm < alpha) & ~np.isnan(difference) & (difference != 0)
    a_wins = sig & (difference > 0)
    b_wins = sig & (difference < 0)
    better = np.bincount(b[a_wins], minlength=n_systems) + np.bincount(a[b_wins], minlength=n_systems)
    worse = np.bincount(a[a_wins], minlength=n_systems) + np.bincount(b[b_wins], minlength=n_systems)
    return 1 + better.astype(np.int64), n_systems - worse.astype(np.int64)
