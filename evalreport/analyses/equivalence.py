"""Equivalence within a margin: two one-sided tests per pair, Holm-corrected across the pairs.

With a margin D (in the measure's units) each pair of systems gets a ``verdict``:

``different``
    the pair's corrected test rejects equality (its ``p_holm`` < alpha);
``equivalent``
    otherwise, when two one-sided tests (Schuirmann 1987) both reject "the difference lies
    outside +-D": with the paired bootstrap standard error ``se`` of the observed difference ``d``
    (the same resamples as the bootstrap test), ``p_low = Phi(-(d + D) / se)`` (null: ``d <= -D``)
    and ``p_high = Phi((d - D) / se)`` (null: ``d >= D``); the pair's equivalence p-value is
    ``max(p_low, p_high)``, and it is Holm-corrected across the pairs (column ``p_equivalence``).
    A corrected value below alpha is the same as the difference's normal ``1 - 2 alpha / k``
    interval (k from Holm's step) lying inside ``(-D, D)``; uncorrected, it is the usual
    ``1 - 2 alpha`` interval of the TOST. The correction makes the family's equivalence claims
    wrong with probability at most alpha together, as the letters' and rank intervals' difference
    claims are;
``inconclusive``
    neither: the test set cannot tell.

A difference the test detects is called ``different`` even where it lies inside the margin
(``p_equivalence`` then shows that it is also small). Without a margin the verdict is empty: no
equivalence is claimed. When the bootstrap values are not at hand (no resampling), a pair is
``different`` or ``inconclusive``.
"""
from __future__ import annotations

import numpy as np

from evalreport.analyses.significance import ROUND_DECIMALS, holm

__all__ = ["VERDICTS", "equivalence_p", "verdicts", "margin_sentence"]

VERDICTS = ("different", "equivalent", "inconclusive")


def equivalence_p(difference: np.ndarray, se: np.ndarray, margin: float) -> np.ndarray:
    """The two one-sided tests' p-value ``max(p_low, p_high)`` per pair (uncorrected).

    Parameters
    ----------
    difference : ndarray
        Observed oriented differences d.
    se : ndarray
        Their paired bootstrap standard errors.
    margin : float
        D > 0.

    Returns
    -------
    ndarray
        NaN where d or se is NaN; with ``se = 0``: 0 inside ``(-D, D)``, else 1.
    """
    from scipy.special import ndtr  # here, not at the top: see significance.benjamini_hochberg

    d = np.round(np.asarray(difference, dtype=float), ROUND_DECIMALS)
    s = np.asarray(se, dtype=float)
    D = float(margin)
    with np.errstate(all="ignore"):
        p_low = ndtr(-(d + D) / s)
        p_high = ndtr((d - D) / s)
    p = np.maximum(p_low, p_high)
    flat = np.round(s, ROUND_DECIMALS) == 0
    p = np.where(flat, np.where(np.abs(d) < D, 0.0, 1.0), p)
    return np.where(np.isnan(d) | np.isnan(s), np.nan, p)


def verdicts(p_holm: np.ndarray, p_equivalence: np.ndarray, alpha: float) -> np.ndarray:
    """``different``, ``equivalent`` or ``inconclusive`` per pair (module docstring).

    Parameters
    ----------
    p_holm : ndarray
        The difference test's corrected p-values.
    p_equivalence : ndarray
        The Holm-corrected equivalence p-values (NaN: not available).
    alpha : float
        The level.

    Returns
    -------
    ndarray of str
    """
    ph = np.asarray(p_holm, dtype=float)
    pe = np.asarray(p_equivalence, dtype=float)
    out = np.full(ph.shape, "inconclusive", dtype=object)
    out[np.nan_to_num(pe, nan=1.0) < alpha] = "equivalent"
    out[np.nan_to_num(ph, nan=1.0) < alpha] = "different"
    return out


def corrected_equivalence(difference: np.ndarray, se: np.ndarray, margin: float) -> np.ndarray:
    """Holm-corrected equivalence p-values across the pairs."""
    return holm(equivalence_p(difference, se, margin))


def margin_sentence(margin: float | None, measure: str, alpha: float) -> str:
    """What the margin means, in one sentence for the methods paragraph ("" without a margin)."""
    if margin is None:
        return ""
    return (f"Equivalence margin: {float(margin):g} {measure}. A pair is called equivalent when two one-sided "
            f"tests (Schuirmann 1987; paired bootstrap standard error, Holm-corrected over all pairs at alpha = "
            f"{float(alpha):g}) place its difference inside +-{float(margin):g}, different when the corrected "
            "test rejects equality, and inconclusive otherwise.")
