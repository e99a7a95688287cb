"""Almost Stochastic Order between the score distributions of systems (Dror et al. 2019).

Each system is represented by the distribution of its scores over several runs (training seeds).
Stochastic order (A's scores dominate B's at every quantile) rarely holds for such samples;
Dror et al. (2019) measure how far it is violated with del Barrio et al. (2018)'s violation ratio:
the share of the squared Wasserstein-2 distance between the two empirical quantile functions
F^-1 and G^-1 that lies where A is worse (eq. 4-5),

    eps_W2(F, G) = int_{F^-1(t) < G^-1(t)} (F^-1(t) - G^-1(t))^2 dt / W2(F, G)^2,

and give an upper confidence bound for it, ``eps_min``, from the bootstrap distribution of the
violation ratio (del Barrio et al. 2018, Theorem 2; Dror et al. 2019, eq. 8):

    eps_min = eps_W2 - sigma_hat / sqrt(n m / (n + m)) * Phi^-1(alpha),

with sigma_hat the standard deviation of sqrt(n m / (n + m)) (eps*_W2 - eps_W2) over resamples
of both score lists. ``eps_min < 0.5`` says A is almost stochastically larger than B; smaller
values are stronger (Dror et al. 2019 suggest reading eps_min as a degree of dominance, not
only against 0.5). Over several pairs the level is Bonferroni-corrected, alpha / (number of
pairs), as Dror et al. (2019, section 6) recommend.

The computation follows deepsig (Ulmer et al. 2022, the reference implementation the tests check
against): the integral is a sum over the grid t = dt, 2 dt, ... < 1 (dt = 0.005), the first grid
point is left out of the violation integral as deepsig leaves it out, the quantile function of n
scores at t is the ceil(n t)-th smallest score, and a resample draws each list's scores with
replacement. It differs from deepsig 1.2.6 in the correction for several comparisons: deepsig
raises the confidence level to ``level + (1 - level) / m``; Bonferroni's level, used here, is
``1 - alpha / m``. Everything is vectorised and seeded by a NumPy generator.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd
from scipy.stats import norm

__all__ = ["violation_ratio", "eps_min", "aso_table", "ASO_COLUMNS", "DT"]

#: The step of the integration grid over (0, 1) (deepsig's default).
DT = 0.005

ASO_COLUMNS = ["system_a", "system_b", "measure", "eps_min", "violation_ratio", "alpha", "n_runs_a", "n_runs_b",
               "n_bootstrap", "note"]


def _grid(dt: float) -> np.ndarray:
    """The integration points t = dt, 2 dt, ... below 1 (as deepsig makes them)."""
    return np.arange(dt, 1, dt)


def _quantiles(sorted_scores: np.ndarray, t: np.ndarray) -> np.ndarray:
    """``(..., T)`` empirical quantile function of sorted scores (last axis) at ``t``: the ceil(n t)-th smallest."""
    n = sorted_scores.shape[-1]
    index = np.clip(np.ceil(n * t).astype(np.int64) - 1, 0, n - 1)
    return sorted_scores[..., index]


def _ratio(f: np.ndarray, g: np.ndarray, dt: float) -> np.ndarray:
    """The violation ratio of quantile curves ``f`` (A) and ``g`` (B) on the grid (last axis); 0.5 when W2 = 0."""
    diff = g - f
    w2 = np.sum(diff ** 2, axis=-1) * dt
    violated = np.where(f < g, diff, 0.0)
    inside = np.sum(violated[..., 1:] ** 2, axis=-1) * dt
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(w2 == 0, 0.5, inside / np.where(w2 == 0, 1.0, w2))


def violation_ratio(scores_a: Sequence[float], scores_b: Sequence[float], *, dt: float = DT) -> float:
    """The violation ratio eps_W2 of A's scores against B's (del Barrio et al. 2018; Dror et al. 2019, eq. 4-5).

    Parameters
    ----------
    scores_a, scores_b : sequence of float
        The scores of the two systems (higher is better), any lengths.
    dt : float
        Step of the integration grid.

    Returns
    -------
    float
        In [0, 1]: 0 when A's quantile function is nowhere below B's, 0.5 when they are equal.
    """
    t = _grid(dt)
    f = _quantiles(np.sort(np.asarray(scores_a, dtype=float)), t)
    g = _quantiles(np.sort(np.asarray(scores_b, dtype=float)), t)
    return float(_ratio(f, g, dt))


def _boot_curves(scores: np.ndarray, n_bootstrap: int, rng: np.random.Generator, t: np.ndarray) -> np.ndarray:
    """``(B, T)`` quantile curves of B resamples (with replacement) of ``scores``."""
    n = scores.shape[0]
    drawn = np.sort(scores[rng.integers(0, n, size=(n_bootstrap, n))], axis=1)
    return _quantiles(drawn, t)


def _eps(ratio: float, boot: np.ndarray, n_a: int, n_b: int, alpha: float) -> float:
    """eps_min from the observed and the bootstrap violation ratios (Dror et al. 2019, eq. 8)."""
    const = np.sqrt(n_a * n_b / (n_a + n_b))
    sigma = float(np.std(const * (boot - ratio)))
    return float(np.clip(ratio - sigma / const * norm.ppf(alpha), 0.0, 1.0))


def eps_min(scores_a: Sequence[float], scores_b: Sequence[float], *, alpha: float = 0.05, n_bootstrap: int = 1000,
            rng: np.random.Generator | int | None = 0, dt: float = DT) -> float:
    """The upper confidence bound eps_min of A's violation ratio against B (Dror et al. 2019).

    Parameters
    ----------
    scores_a, scores_b : sequence of float
        Scores of the two systems over their runs (higher is better); lengths may differ.
    alpha : float
        The level (already corrected for several comparisons): the bound holds with 1 - alpha.
    n_bootstrap : int
        Resamples of the two score lists for sigma_hat.
    rng : Generator or int or None
        The random numbers (a seed makes a generator).
    dt : float
        Step of the integration grid.

    Returns
    -------
    float
        eps_min in [0, 1]; below 0.5, A is almost stochastically larger than B.
    """
    rng = rng if isinstance(rng, np.random.Generator) else np.random.default_rng(rng)
    a = np.asarray(scores_a, dtype=float)
    b = np.asarray(scores_b, dtype=float)
    t = _grid(dt)
    ratio = float(_ratio(_quantiles(np.sort(a), t), _quantiles(np.sort(b), t), dt))
    boot = _ratio(_boot_curves(a, n_bootstrap, rng, t), _boot_curves(b, n_bootstrap, rng, t), dt)
    return _eps(ratio, boot, a.size, b.size, alpha)


def aso_table(scores: Mapping[str, Sequence[float]], *, measure: str, higher_is_better: bool = True,
              alpha: float = 0.05, n_bootstrap: int = 1000, rng: np.random.Generator | int | None = 0,
              dt: float = DT) -> pd.DataFrame:
    """Almost Stochastic Order between every ordered pair of systems: the ``aso`` table.

    Parameters
    ----------
    scores : mapping of str to sequence of float
        Per system (in the order of the rows), its values of ``measure`` over its runs; undefined
        (NaN) values are left out.
    measure : str
        The measure's id (a column of the table).
    higher_is_better : bool
        The measure's direction (lower-is-better values are negated first).
    alpha : float
        The family-wise level; each pair is tested at alpha / (S (S - 1) / 2) (Bonferroni over the
        unordered pairs, Dror et al. 2019).
    n_bootstrap : int
        Resamples per system (each system's resampled quantile curves serve all of its pairs).
    rng : Generator or int or None
        The random numbers.
    dt : float
        Step of the integration grid.

    Returns
    -------
    DataFrame
        :data:`ASO_COLUMNS`, one row per ordered pair (A, B): ``eps_min`` of "A is better than B",
        ``alpha`` the corrected level; a pair where a system has fewer than two defined runs has
        NaN and a note.
    """
    rng = rng if isinstance(rng, np.random.Generator) else np.random.default_rng(rng)
    names = list(scores)
    sign = 1.0 if higher_is_better else -1.0
    values = {s: sign * np.asarray(scores[s], dtype=float) for s in names}
    values = {s: v[~np.isnan(v)] for s, v in values.items()}
    S = len(names)
    m = max(1, S * (S - 1) // 2)
    level = float(alpha) / m
    t = _grid(dt)
    curves = {s: _quantiles(np.sort(v), t) for s, v in values.items() if v.size >= 2}
    boots = {s: _boot_curves(values[s], n_bootstrap, rng, t) for s in names if s in curves}
    rows = []
    for i, a in enumerate(names):
        for j, b in enumerate(names):
            if i == j:
                continue
            n_a, n_b = values[a].size, values[b].size
            eps = ratio = np.nan
            note = ""
            if a in curves and b in curves:
                ratio = float(_ratio(curves[a], curves[b], dt))
                eps = _eps(ratio, _ratio(boots[a], boots[b], dt), n_a, n_b, level)
            else:
                note = "fewer than two runs with a value: no score distribution to compare"
            rows.append((a, b, measure, eps, ratio, level, n_a, n_b, n_bootstrap, note))
    return pd.DataFrame(rows, columns=ASO_COLUMNS)
